/** TEST: the answer cap setting, from stack config or the environment. */
import * as assert from "assert";
import { resolveSettings } from "../../provider/portal/settings";

describe("portal settings: the answer cap", () => {
  const env = {
    BACKUP_PORTAL_URL: "https://portal.example.com/v1/",
    BACKUP_PORTAL_ORIGIN: "https://portal.example.com",
    BACKUP_PORTAL_CLIENT_ID: "c",
    BACKUP_PORTAL_USERNAME: "u",
    BACKUP_PORTAL_PASSWORD: "settings-test-password-4471",
  };

  it("absent: the client's default (32 MiB) applies; from the environment, or the stack config first", () => {
    assert.strictEqual(resolveSettings(undefined, env).maxAnswerBytes, undefined);
    assert.strictEqual(resolveSettings(undefined, { ...env, BACKUP_PORTAL_MAX_ANSWER_BYTES: "1048576" }).maxAnswerBytes, 1048576);
    const config = (key: string) => (key === "backup-portal:maxAnswerBytes" ? "2048" : undefined);
    assert.strictEqual(resolveSettings(config, { ...env, BACKUP_PORTAL_MAX_ANSWER_BYTES: "1048576" }).maxAnswerBytes, 2048);
  });

  it("refuses what is not a whole number of bytes, naming both places to set it", () => {
    for (const bad of ["0", "-5", "32MiB", "1.5", "abc", "9007199254740993"]) {
      assert.throws(
        () => resolveSettings(undefined, { ...env, BACKUP_PORTAL_MAX_ANSWER_BYTES: bad }),
        /backup-portal:maxAnswerBytes \(or BACKUP_PORTAL_MAX_ANSWER_BYTES\) must be a whole number of bytes/,
        bad,
      );
    }
  });
});

describe("portal settings: the connection", () => {
  const env = {
    BACKUP_PORTAL_URL: "https://env.example.com",
    BACKUP_PORTAL_ORIGIN: "https://env.example.com",
    BACKUP_PORTAL_CLIENT_ID: "env-client",
    BACKUP_PORTAL_USERNAME: "env-user",
    BACKUP_PORTAL_PASSWORD: "settings-test-password-5512",
  };
  const stack: Record<string, string> = {
    "backup-portal:url": "https://stack.example.com/v1/",
    "backup-portal:origin": "https://stack.example.com",
    "backup-portal:clientId": "stack-client",
    "backup-portal:username": "stack-user",
    "backup-portal:password": "settings-test-password-9931",
  };

  it("the stack config wins over the environment, key by key; the URL loses its trailing /v1/", () => {
    const s = resolveSettings((k) => stack[k], env);
    assert.deepStrictEqual(
      [s.url, s.origin, s.clientId, s.username, s.password],
      ["https://stack.example.com", "https://stack.example.com", "stack-client", "stack-user", "settings-test-password-9931"],
    );
    const some = resolveSettings((k) => (k === "backup-portal:username" ? "stack-user" : undefined), env);
    assert.deepStrictEqual([some.username, some.clientId], ["stack-user", "env-client"]);
  });

  it("an empty value is missing, in either place, and every missing key is named at once", () => {
    assert.throws(
      () => resolveSettings(undefined, { ...env, BACKUP_PORTAL_ORIGIN: "", BACKUP_PORTAL_PASSWORD: "" }),
      /not configured: set backup-portal:origin \(or BACKUP_PORTAL_ORIGIN\), backup-portal:password \(or BACKUP_PORTAL_PASSWORD\)\./,
    );
    assert.throws(
      () => resolveSettings(undefined, { ...env, BACKUP_PORTAL_ORIGIN: "" }, "cli"),
      /^Error: the portal connection is not configured: export BACKUP_PORTAL_ORIGIN \(/,
    );
  });
});
