// validateTenants in-process, message by message: what a user reads when the tenants block is wrong, each with
// its path and the fix, and what it lets through. (validation.test.ts drives the same checks through deployStack.)
import assert from "node:assert/strict";
import { ConfigError, formatProblems, Problem, TenantsConfig } from "../../provider/tenants/model";
import { validateTenants, walkBusinessUnits } from "../../provider/tenants/validate";

const SECRET = "web01-node-password-key";
const ctx = { hasSecret: (k: string) => k === SECRET };
const node = (extra: Record<string, unknown> = {}) => ({ operatingSystem: "Linux", type: 1, domain: "STANDARD", cpuCount: 2, ...extra });
const bu = (extra: Record<string, unknown> = {}) => ({ registrationNumber: "556677-8899", timeZone: "UTC", ...extra });
const check = (tenants: unknown, root?: string): Problem[] => validateTenants(tenants, ctx, root);
/** The problems as "path: message" lines, for exact comparisons. */
const lines = (tenants: unknown, root?: string) => check(tenants, root).map((p) => `${p.path}: ${p.message}`);

describe("stack config: validateTenants messages", () => {
  it("accepts a complete, valid block with no problem", () => {
    const tenants = {
      acme: bu({
        aliases: ["old-acme"],
        consumers: {
          web: { aliases: ["web-old"], node: node({ tsmName: "ACME-WEB", passwordSecret: SECRET }) },
          proxy: { node: node({ tsmName: "ACME-PROXY", adopt: true }) },
          plain: {},
        },
        proxies: [{ agent: "proxy", target: "web" }],
        businessUnits: { labs: bu({ consumers: { ws: { node: node({ tsmName: "LABS-WS" }) } } }) },
      }),
    };
    assert.deepEqual(check(tenants), []);
  });

  it("a key that is not a plain name: the rule and why", () => {
    assert.deepEqual(lines({ "-acme": bu() }), [
      'tenants.-acme: key "-acme" must start with a letter or digit and hold only letters, digits, "-", "_" and "." (at most 63); it becomes the resource\'s name',
    ]);
    assert.deepEqual(lines({ ["a".repeat(63)]: bu(), "a.b_c-9": bu() }), [], "63 characters and every allowed sign pass");
    assert.equal(check({ ["a".repeat(64)]: bu() }).length, 1, "64 characters do not");
    assert.equal(check({ acme: bu({ consumers: { "web 01": {} } }) })[0].path, "tenants.acme.consumers.web 01");
  });

  it("an unknown key: the closest known key, or the list of known keys when none is close", () => {
    assert.deepEqual(lines({ acme: bu({ timezone: "UTC" }) }).slice(0, 1), [
      'tenants.acme.timezone: unknown key; did you mean "timeZone"?',
    ]);
    assert.deepEqual(lines({ acme: bu({ regNumber: "1" }) }), [
      "tenants.acme.regNumber: unknown key; known keys: name, registrationNumber, timeZone, note, invoiceDay, storageLimit, transferLimit, " +
        "nodeLimit, passwordExpirationDays, supportResponsible, reportRemotely, useScheduleBindings, tags, domainFilter, " +
        "clientOptionSetFilter, billingStorageTypeId, requiredApproversOfDeleteRequest, finalDeleteRequestApprover, " +
        "usersCanApproveOwnRequests, adoptId, aliases, protect, businessUnits, consumers, proxies",
    ]);
    // Up to two edits, however short the key; a third of a long key's length.
    assert.deepEqual(lines({ acme: bu({ nte: "x" }) }), ['tenants.acme.nte: unknown key; did you mean "note"?']);
    assert.deepEqual(lines({ acme: bu({ NOTE: "x" }) }), ['tenants.acme.NOTE: unknown key; did you mean "note"?'], "case is no edit");
    assert.deepEqual(lines({ acme: bu({ storagLimt: 1 }) }), ['tenants.acme.storagLimt: unknown key; did you mean "storageLimit"?']);
    assert.deepEqual(lines({ acme: bu({ passwordExpirDays: 1 }) }), [
      'tenants.acme.passwordExpirDays: unknown key; did you mean "passwordExpirationDays"?',
    ]);
    assert.match(lines({ acme: bu({ passwordExpiDays: 1 }) })[0], /^tenants\.acme\.passwordExpiDays: unknown key; known keys: name, /);
    assert.deepEqual(
      lines({ acme: bu({ nt: "x" }) }),
      ['tenants.acme.nt: unknown key; did you mean "note"?'],
      "two edits even for 2 letters",
    );
    assert.match(lines({ acme: bu({ nodLimit: 1 }) })[0], /did you mean "nodeLimit"/, "the closest of several near keys");
  });

  it("a missing required field names the field and what to add", () => {
    assert.deepEqual(lines({ acme: { timeZone: "UTC" } }), ["tenants.acme.registrationNumber: is required; add it as a string"]);
    assert.deepEqual(lines({ acme: bu({ consumers: { web: { node: { operatingSystem: "Linux", type: 1, domain: 1 } } } }) }), [
      "tenants.acme.consumers.web.node.cpuCount: is required; add an integer ≥ 1",
    ]);
  });

  it("entries that are not maps: each names what it must be", () => {
    assert.deepEqual(lines("acme"), [
      'tenants: must be a map from key to business unit, got "acme"; keys give resources stable names, so lists are not used',
    ]);
    assert.deepEqual(lines({ acme: "x" }), ['tenants.acme: must be a map with registrationNumber, timeZone, ...; got "x"']);
    assert.deepEqual(lines({ acme: bu({ consumers: "web" }) }), [
      'tenants.acme.consumers: must be a map from consumer key to consumer, got "web"',
    ]);
    assert.deepEqual(lines({ acme: bu({ consumers: { web: null } }) }), [
      "tenants.acme.consumers.web: must be a map (name, note, node, ...), got null; write `web: {}` for a consumer with defaults",
    ]);
    assert.deepEqual(lines({ acme: bu({ consumers: { web: { node: [1] } } }) }), [
      "tenants.acme.consumers.web.node: must be a map with operatingSystem, type, domain, cpuCount, ...; got a list",
    ]);
    assert.deepEqual(lines({ acme: bu({ proxies: { agent: "a" } }) }), [
      "tenants.acme.proxies: must be a list of {agent, target}, got a map",
    ]);
    assert.deepEqual(lines({ acme: bu({ proxies: ["a>b"] }) }), [
      'tenants.acme.proxies[0]: must be a map {agent: <consumer key>, target: <consumer key>}, got "a>b"',
    ]);
    assert.deepEqual(lines({ acme: bu({ businessUnits: { labs: 7 } }) }), [
      "tenants.acme.businessUnits.labs: must be a map with registrationNumber, timeZone, ...; got 7",
    ]);
  });

  it("the root path is the caller's", () => {
    assert.deepEqual(lines({ acme: { timeZone: "UTC" } }, "config.tenants"), [
      "config.tenants.acme.registrationNumber: is required; add it as a string",
    ]);
  });

  it("a plain tsmPassword: the secret command instead, and the password is not repeated", () => {
    const problems = lines({ acme: bu({ consumers: { web: { node: node({ tsmPassword: "Plain-Stack-Config-Password-4711" }) } } }) });
    assert.deepEqual(problems, [
      "tenants.acme.consumers.web.node.tsmPassword: a password in plain stack config ends up in the repository; store it with " +
        "`pulumi config set --secret backup-portal:<key>` (it asks for the value, or reads it from stdin) and name that key in passwordSecret",
    ]);
  });

  it("passwordSecret: a namespace, a key not set as a secret, a blank key", () => {
    const at = (passwordSecret: string) => lines({ acme: bu({ consumers: { web: { node: node({ passwordSecret }) } } }) });
    assert.deepEqual(at("backup-portal:web"), [
      'tenants.acme.consumers.web.node.passwordSecret: "backup-portal:web" must be a key without a namespace: it is read as backup-portal:<key>',
    ]);
    assert.deepEqual(at("webPassword"), [
      "tenants.acme.consumers.web.node.passwordSecret: no secret config key backup-portal:webPassword (a key set without its backup-portal: " +
        "namespace goes into the project's, and one set without --secret sits in plain text and does not count); set it with " +
        "`pulumi config set --secret backup-portal:webPassword` (it asks for the value, or reads it from stdin)",
    ]);
    const blank = at("   ");
    assert.equal(blank.length, 1, blank.join("\n"));
    assert.match(blank[0], /^tenants\.acme\.consumers\.web\.node\.passwordSecret: .*only whitespace/, "the blank rule only, no lookup");
    assert.deepEqual(at(SECRET), []);
  });

  it("tsmNames are unique across the whole block, compared as the server does (upper case)", () => {
    const tenants = {
      acme: bu({ consumers: { web: { node: node({ tsmName: "Web-1" }) } } }),
      globex: bu({
        businessUnits: { labs: bu({ consumers: { ws: { node: node({ tsmName: "WEB-1" }) }, db: { node: node({ tsmName: "web-1" }) } } }) },
      }),
    };
    assert.deepEqual(lines(tenants), [
      'tenants.globex.businessUnits.labs.consumers.ws.node.tsmName: "WEB-1" is also the tsmName of tenants.acme.consumers.web.node; node names are unique on the backup server',
      'tenants.globex.businessUnits.labs.consumers.db.node.tsmName: "web-1" is also the tsmName of tenants.acme.consumers.web.node; node names are unique on the backup server',
    ]);
    // An invalid tsmName is reported once, for its characters, and does not count as taken.
    const bad = lines({ acme: bu({ consumers: { a: { node: node({ tsmName: "A B" }) }, b: { node: node({ tsmName: "A B" }) } } }) });
    assert.equal(bad.length, 2, bad.join("\n"));
    assert.ok(
      bad.every((l) => !l.includes("is also the tsmName")),
      bad.join("\n"),
    );
  });

  it("proxies: unknown consumers with the known keys, consumers without a node, a node as its own proxy, a pair twice", () => {
    const consumers = { web: { node: node() }, db: { node: node() }, plain: {} };
    assert.deepEqual(lines({ acme: bu({ consumers, proxies: [{ agent: "web", target: "nope" }] }) }), [
      'tenants.acme.proxies[0].target: no consumer "nope" in this business unit; known: web, db, plain',
    ]);
    assert.deepEqual(lines({ acme: bu({ proxies: [{ agent: "web", target: "db" }] }) }), [
      'tenants.acme.proxies[0].agent: no consumer "web" in this business unit; known: none',
      'tenants.acme.proxies[0].target: no consumer "db" in this business unit; known: none',
    ]);
    assert.deepEqual(lines({ acme: bu({ consumers, proxies: [{ agent: "plain", target: "web" }] }) }), [
      'tenants.acme.proxies[0].agent: consumer "plain" has no node; a proxy relation joins two nodes',
    ]);
    assert.deepEqual(lines({ acme: bu({ consumers, proxies: [{ agent: "db", target: "db" }] }) }), [
      "tenants.acme.proxies[0]: agent and target are the same consumer; a node cannot be its own proxy",
    ]);
    assert.deepEqual(
      lines({
        acme: bu({
          consumers,
          proxies: [
            { agent: "db", target: "web" },
            { agent: "web", target: "db" },
            { agent: "db", target: "web" },
          ],
        }),
      }),
      ["tenants.acme.proxies[2]: the relation db → web is listed twice"],
      "the reverse pair is another relation",
    );
    assert.deepEqual(lines({ acme: bu({ consumers, proxies: [{ agent: "web" }] }) }), [
      "tenants.acme.proxies[0].target: is required; add it as a string",
    ]);
    assert.deepEqual(
      lines({ acme: bu({ consumers, proxies: [{ agent: "web", target: "db", via: "x" }] }) }).map((l) => l.split(":")[0]),
      ["tenants.acme.proxies[0].via"],
    );
    assert.deepEqual(lines({ acme: bu({ consumers: { web: null, db: { node: node() } }, proxies: [{ agent: "db", target: "web" }] }) }), [
      "tenants.acme.consumers.web: must be a map (name, note, node, ...), got null; write `web: {}` for a consumer with defaults",
      'tenants.acme.proxies[0].target: consumer "web" has no node; a proxy relation joins two nodes',
    ]);
    assert.deepEqual(lines({ acme: bu({ consumers, proxies: [{}] }) }), [
      "tenants.acme.proxies[0].agent: is required; add it as a string",
      "tenants.acme.proxies[0].target: is required; add it as a string",
    ]);
    // Consumers that are no map leave proxies nothing to find: the consumers' own problem is named instead.
    assert.deepEqual(lines({ acme: bu({ consumers: ["web"], proxies: [{ agent: "web", target: "db" }] }) }).slice(1), [
      'tenants.acme.proxies[0].agent: no consumer "web" in this business unit; known: none',
      'tenants.acme.proxies[0].target: no consumer "db" in this business unit; known: none',
    ]);
  });

  it("aliases: not a current key, not claimed twice; repeating one's own alias and odd items are no alias problem", () => {
    assert.deepEqual(lines({ acme: bu({ aliases: ["globex"] }), globex: bu() }), [
      'tenants.acme.aliases: "globex" is also a current key here; an alias names a key that no longer exists',
    ]);
    assert.deepEqual(lines({ acme: bu({ aliases: ["old"] }), globex: bu({ aliases: ["old"] }), initech: bu({ aliases: ["old"] }) }), [
      'tenants.globex.aliases: "old" is also an alias of "acme"; one earlier key can become only one entry',
      'tenants.initech.aliases: "old" is also an alias of "acme"; one earlier key can become only one entry',
    ]);
    assert.deepEqual(lines({ acme: bu({ aliases: ["old", "old"] }) }), []);
    // Aliases are per level: a consumer may carry the alias a business unit has.
    assert.deepEqual(lines({ acme: bu({ aliases: ["old"], consumers: { web: { aliases: ["old"] } } }) }), []);
    // A string instead of a list is named as such, not read letter by letter.
    assert.deepEqual(
      check({ acme: bu({ aliases: "g" }), g: bu() }).map((p) => p.path),
      ["tenants.acme.aliases"],
    );
    // Items that break the item rule are named by that rule only.
    assert.deepEqual(
      check({ acme: bu({ aliases: ["bad key", 3] }), "bad key": bu(), "3": bu() }).map((p) => p.path),
      ["tenants.acme.aliases", "tenants.bad key"],
    );
  });

  it("a node's fields: unknown keys and wrong values under the node's path", () => {
    assert.deepEqual(
      lines({ acme: bu({ consumers: { web: { node: node({ cpuCount: 0, adopt: "yes" }) } } }) }).map((l) => l.split(":")[0]),
      ["tenants.acme.consumers.web.node.cpuCount", "tenants.acme.consumers.web.node.adopt"],
    );
    assert.deepEqual(lines({ acme: bu({ consumers: { web: { node: node({ tsmname: "X" }) } } }) }), [
      'tenants.acme.consumers.web.node.tsmname: unknown key; did you mean "tsmName"?',
    ]);
    assert.deepEqual(
      lines({ acme: bu({ consumers: { web: { nodeName: "X" } } }) }).map((l) => l.split(";")[0]),
      ["tenants.acme.consumers.web.nodeName: unknown key"],
    );
  });

  it("the stack's own keys: adoptId an id, protect a boolean, passwordSecret at most 200 characters", () => {
    assert.deepEqual(
      lines({ acme: bu({ adoptId: 0, protect: "yes" }) }).map((l) => l.split(":")[0]),
      ["tenants.acme.adoptId", "tenants.acme.protect"],
    );
    assert.match(lines({ acme: bu({ adoptId: 0 }) })[0], /integer ≥ 1, got 0/);
    assert.deepEqual(check({ acme: bu({ adoptId: 1, protect: false, consumers: { web: { adoptId: 2 } } }) }), []);
    const secretKey = (n: number) => check({ acme: bu({ consumers: { web: { node: node({ passwordSecret: "k".repeat(n) }) } } }) });
    assert.ok(
      secretKey(201).some((p) => p.path === "tenants.acme.consumers.web.node.passwordSecret" && /at most 200/.test(p.message)),
      JSON.stringify(secretKey(201)),
    );
    assert.deepEqual(
      secretKey(200).map((p) => p.message.split(" (")[0]),
      [`no secret config key backup-portal:${"k".repeat(200)}`],
      "200 characters are a key to look up",
    );
  });

  it("walks every business unit, nested ones too, with its key path", () => {
    const tenants = {
      acme: bu({ businessUnits: { labs: bu({ businessUnits: { lab2: bu() } }) } }),
      globex: bu(),
    } as unknown as TenantsConfig;
    assert.deepEqual(
      [...walkBusinessUnits(tenants)].map((w) => [w.path, w.key]),
      [
        ["tenants.acme", "acme"],
        ["tenants.acme.businessUnits.labs", "labs"],
        ["tenants.acme.businessUnits.labs.businessUnits.lab2", "lab2"],
        ["tenants.globex", "globex"],
      ],
    );
  });

  it("ConfigError counts the problems and lists them as path: fix", () => {
    const one = new ConfigError([{ path: "tenants.a", message: "m1" }]);
    assert.equal(one.message, "the stack config has 1 problem; nothing was changed:\ntenants.a: m1");
    assert.equal(one.name, "ConfigError");
    const two = [
      { path: "tenants.a", message: "m1" },
      { path: "tenants.b", message: "m2" },
    ];
    assert.equal(new ConfigError(two).message, "the stack config has 2 problems; nothing was changed:\ntenants.a: m1\ntenants.b: m2");
    assert.equal(formatProblems(two), "tenants.a: m1\ntenants.b: m2");
  });
});
