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
    for (const bad of ["0", "-5", "32MiB", "1.5", "abc"]) {
      assert.throws(
        () => resolveSettings(undefined, { ...env, BACKUP_PORTAL_MAX_ANSWER_BYTES: bad }),
        /backup-portal:maxAnswerBytes \(or BACKUP_PORTAL_MAX_ANSWER_BYTES\) must be a whole number of bytes/,
        bad,
      );
    }
  });
});
