import assert from "node:assert/strict";
import { registryArgsFromConfig } from "../../provider/registry";

describe("registry: registryArgsFromConfig (stack config block)", () => {
  const lookup = (key: string) => {
    if (key === "missing") throw new Error(`Missing required configuration variable 'backup-portal:${key}'`);
    return `pw-for-${key}`;
  };

  it("a valid block gives args, passwords from secret keys", () => {
    const { args, problems, enabled } = registryArgsFromConfig(
      {
        enabled: true,
        namespace: "registry",
        storageSize: "200Gi",
        storageClass: "fast",
        chartVersion: "0.1.122",
        users: [{ username: "admin" }, { username: "ci", passwordSecretKey: "zotCiPassword" }],
        config: { log: { level: "debug" } },
        cve: { dbRepository: "mirror.local/aquasecurity/trivy-db" },
      },
      "registry",
      lookup,
    );
    assert.deepEqual(problems, []);
    assert.equal(enabled, true);
    assert.equal(args!.namespace, "registry");
    assert.equal(args!.storageSize, "200Gi");
    assert.deepEqual(args!.users, [
      { username: "admin", password: "pw-for-registryPassword-admin" },
      { username: "ci", password: "pw-for-zotCiPassword" },
    ]);
    assert.deepEqual(args!.cve, { dbRepository: "mirror.local/aquasecurity/trivy-db" });
  });

  it("absent or disabled: no args and no problems", () => {
    assert.deepEqual(registryArgsFromConfig(undefined, "registry", lookup), { problems: [], enabled: false });
    assert.deepEqual(registryArgsFromConfig({ enabled: false, storageSize: 5 }, "registry", lookup), { problems: [], enabled: false });
  });

  it("reports every problem with its path and fix, and reads no secret then", () => {
    let looked = 0;
    const { args, problems } = registryArgsFromConfig(
      {
        namspace: "x",
        storageSize: 100,
        createNamespace: "yes",
        users: [{ username: "a", password: "plain" }, { username: "a" }, "bob"],
        config: { extensions: { metrics: { prometheus: { path: "/v2" } } } },
        cve: { dbRepo: "x" },
      },
      "backup-portal:registry",
      (k) => (looked++, lookup(k)),
    );
    assert.equal(args, undefined);
    assert.equal(looked, 0);
    const expect = [
      /^backup-portal:registry\.namspace: unknown key; did you mean "namespace"\?/,
      /^backup-portal:registry\.storageSize: 100 must be a string/,
      /^backup-portal:registry\.createNamespace: must be true or false/,
      /^backup-portal:registry\.users\[0\]\.password: plain passwords are not allowed.*pulumi config set --secret/,
      /^backup-portal:registry\.users\[1\]\.username: "a" is already used/,
      /^backup-portal:registry\.users\[2\]: must be \{username, passwordSecretKey\}/,
      /^backup-portal:registry\.config\.extensions\.metrics\.prometheus\.path: "\/v2" is reserved/,
      /^backup-portal:registry\.cve\.dbRepo: unknown key/,
    ];
    for (const re of expect)
      assert.ok(
        problems.some((m) => re.test(m)),
        `${re}\n${problems.join("\n")}`,
      );
    assert.ok(!problems.join("\n").includes('plain"'), "the plain password is not echoed");
  });

  it("a missing secret key is a problem naming the command to set it", () => {
    const { args, problems } = registryArgsFromConfig({ users: [{ username: "a", passwordSecretKey: "missing" }] }, "registry", lookup);
    assert.equal(args, undefined);
    assert.deepEqual(problems, [
      'registry.users[0]: secret config key "missing" is not set; run `pulumi config set --secret backup-portal:missing` (it asks for the value, or reads it from stdin)',
    ]);
  });

  it("a secret key with a namespace is refused: it could never be found", () => {
    const { problems } = registryArgsFromConfig({ users: [{ username: "a", passwordSecretKey: "other:key" }] }, "registry", lookup);
    assert.ok(
      problems.some((m) => /registry.users\[0\].passwordSecretKey: must be a non-empty config key name without a namespace/.test(m)),
      problems.join("\n"),
    );
  });

  it("not an object", () => {
    assert.match(registryArgsFromConfig("yes", "registry", lookup).problems[0], /^registry: must be an object/);
  });
  it("null is absent; anything but an object is one problem and not enabled", () => {
    assert.deepEqual(registryArgsFromConfig(null, "registry", lookup), { problems: [], enabled: false });
    assert.deepEqual(registryArgsFromConfig("yes", "registry", lookup), {
      problems: ["registry: must be an object (the registry block of the stack config)"],
      enabled: false,
    });
  });

  it("a minimal block: the chart's defaults, no users key, enabled", () => {
    const looked: string[] = [];
    const r = registryArgsFromConfig({}, "registry", (k) => (looked.push(k), lookup(k)));
    assert.deepEqual(r, { args: {}, problems: [], enabled: true });
    assert.deepEqual(looked, []);
  });

  it("each key of the wrong type is its own line, exactly, and the block stays enabled", () => {
    const r = registryArgsFromConfig(
      { enabled: "yes", config: ["x"], values: 5, cve: "on", users: { admin: {} }, createNamespace: 1 },
      "registry",
      lookup,
    );
    assert.equal(r.args, undefined);
    assert.equal(r.enabled, true, "a block with problems is still the registry the user asked for");
    assert.deepEqual(r.problems, [
      'registry.enabled: "yes" must be true or false',
      "registry.createNamespace: must be true or false",
      "registry.config: must be an object",
      "registry.values: must be an object",
      "registry.cve: must be an object {enabled, dbRepository, javaDbRepository}",
      "registry.users: must be a list of {username, passwordSecretKey}",
    ]);
  });

  it("a plain password is one line (not also an unknown key); an empty or non-string secret key is refused", () => {
    const r = registryArgsFromConfig(
      {
        users: [
          { username: "a", password: "plain" },
          { username: "b", passwordSecretKey: "" },
          { username: "c", passwordSecretKey: 7 },
        ],
      },
      "registry",
      lookup,
    );
    const KEY = "must be a non-empty config key name without a namespace (it is read as backup-portal:<key>)";
    assert.deepEqual(r.problems, [
      "registry.users[0].password: plain passwords are not allowed in stack config; run `pulumi config set --secret backup-portal:registryPassword-a` (it asks for the value, or reads it from stdin) and remove the key",
      `registry.users[1].passwordSecretKey: ${KEY}`,
      `registry.users[2].passwordSecretKey: ${KEY}`,
    ]);
    assert.equal(r.enabled, true);
  });

  it("a lookup that refuses a plain-text key is quoted as it says; a missing key names the command; both at once", () => {
    const r = registryArgsFromConfig({ users: [{ username: "a" }, { username: "b", passwordSecretKey: "missing" }] }, "registry", (k) => {
      if (k === "registryPassword-a") throw new Error("backup-portal:registryPassword-a is stored in plain text; set it with --secret");
      return lookup(k);
    });
    assert.deepEqual(r, {
      problems: [
        "registry.users[0]: backup-portal:registryPassword-a is stored in plain text; set it with --secret",
        'registry.users[1]: secret config key "missing" is not set; run `pulumi config set --secret backup-portal:missing` (it asks for the value, or reads it from stdin)',
      ],
      enabled: true,
    });
  });
});
