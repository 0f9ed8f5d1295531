// Invalid stack configs: each fails before any API call, naming the path and the fix; a name the portal does not
// have fails at the program's name check, which reads only.
import assert from "node:assert/strict";
import { clientFor, Emulator, startEmulator } from "../support/portal";
import { engines } from "../resources/support";
import { localTenants, nameCheckProblems, runStack, settings } from "./support";
import { deployStack } from "../../provider/program/deploy";
import { ConfigError } from "../../provider/tenants/model";
import { PortalClient } from "../../provider/portal";

type Tenants = ReturnType<typeof localTenants>;
/** The value as a plain map, so a test can write what the types forbid. */
const loose = (v: unknown) => v as Record<string, unknown>;
const node = (t: Tenants) => loose(t.acme.consumers!.web01.node);

/** [what, change to the local stack's tenants (or a whole replacement), expected path, expected fix]. */
const CASES: Array<[string, (t: Tenants) => unknown, string, RegExp]> = [
  ["tenants as a list", () => [{ name: "acme" }], "tenants", /map from key to business unit.*lists are not used/],
  ["a key with a space", (t) => ({ ...t, "acme corp": t.acme }), "tenants.acme corp", /only letters, digits/],
  [
    "missing registrationNumber",
    (t) => {
      delete (t.acme as Partial<Tenants["acme"]>).registrationNumber;
      return t;
    },
    "tenants.acme.registrationNumber",
    /is required/,
  ],
  [
    "missing timeZone",
    (t) => {
      delete (t.globex as Partial<Tenants["acme"]>).timeZone;
      return t;
    },
    "tenants.globex.timeZone",
    /is required; name the time zone/,
  ],
  [
    "a name that is a number",
    (t) => {
      loose(t.acme).name = 42;
      return t;
    },
    "tenants.acme.name",
    /non-empty string, got 42/,
  ],
  [
    "invoiceDay out of range",
    (t) => {
      t.acme.invoiceDay = 31;
      return t;
    },
    "tenants.acme.invoiceDay",
    /integer from 1 to 28, got 31/,
  ],
  [
    "a typo in a business unit key",
    (t) => {
      loose(t.acme).consumer = {};
      return t;
    },
    "tenants.acme.consumer",
    /did you mean "consumers"/,
  ],
  [
    "consumers as a list",
    (t) => {
      loose(t.globex).consumers = [{ name: "files" }];
      return t;
    },
    "tenants.globex.consumers",
    /map from consumer key/,
  ],
  [
    "a typo in a consumer key",
    (t) => {
      loose(t.acme.consumers!.web01).nodes = {};
      return t;
    },
    "tenants.acme.consumers.web01.nodes",
    /did you mean "node"/,
  ],
  [
    "a node without operatingSystem",
    (t) => {
      delete node(t).operatingSystem;
      return t;
    },
    "tenants.acme.consumers.web01.node.operatingSystem",
    /is required; name the operating system/,
  ],
  [
    "cpuCount zero",
    (t) => {
      node(t).cpuCount = 0;
      return t;
    },
    "tenants.acme.consumers.web01.node.cpuCount",
    /integer from 1 to 4096, got 0/,
  ],
  [
    "cpuCount not an integer",
    (t) => {
      node(t).cpuCount = 2.5;
      return t;
    },
    "tenants.acme.consumers.web01.node.cpuCount",
    /integer/,
  ],
  [
    "tsmName with a space",
    (t) => {
      node(t).tsmName = "ACME WEB01";
      return t;
    },
    "tenants.acme.consumers.web01.node.tsmName",
    /contains " "; allowed are letters, digits and _ \. - \+ &/,
  ],
  [
    "tsmName too long",
    (t) => {
      node(t).tsmName = "A".repeat(65);
      return t;
    },
    "tenants.acme.consumers.web01.node.tsmName",
    /at most 64/,
  ],
  [
    "the same tsmName twice",
    (t) => {
      node(t).tsmName = "acme-db01";
      return t;
    },
    "tenants.acme.consumers.db01.node.tsmName",
    /"ACME-DB01" is also the tsmName of tenants\.acme\.consumers\.web01\.node/,
  ],
  [
    "a plain password in config",
    (t) => {
      node(t).tsmPassword = "hunter2";
      return t;
    },
    "tenants.acme.consumers.web01.node.tsmPassword",
    /pulumi config set --secret/,
  ],
  [
    "passwordSecret naming no secret",
    (t) => {
      node(t).passwordSecret = "web01Password";
      return t;
    },
    "tenants.acme.consumers.web01.node.passwordSecret",
    /pulumi config set --secret backup-portal:web01Password/,
  ],
  [
    "passwordSecret with a namespace",
    (t) => {
      node(t).passwordSecret = "other:web01Password";
      return t;
    },
    "tenants.acme.consumers.web01.node.passwordSecret",
    /without a namespace: it is read as backup-portal:<key>/,
  ],
  [
    "a proxy to an unknown consumer",
    (t) => {
      t.acme.proxies = [{ agent: "backup-proxy", target: "web02" }];
      return t;
    },
    "tenants.acme.proxies[0].target",
    /no consumer "web02".*known: web01, db01, backup-proxy/,
  ],
  [
    "a proxy of a node to itself",
    (t) => {
      t.acme.proxies = [{ agent: "web01", target: "web01" }];
      return t;
    },
    "tenants.acme.proxies[0]",
    /cannot be its own proxy/,
  ],
  [
    "a proxy to a consumer without node",
    (t) => {
      t.acme.consumers!.plain = {};
      t.acme.proxies = [{ agent: "backup-proxy", target: "plain" }];
      return t;
    },
    "tenants.acme.proxies[0].target",
    /has no node/,
  ],
  [
    "the same proxy twice",
    (t) => {
      t.acme.proxies = [t.acme.proxies![0], t.acme.proxies![0]];
      return t;
    },
    "tenants.acme.proxies[1]",
    /listed twice/,
  ],
  [
    "adoptId not an id",
    (t) => {
      loose(t.acme).adoptId = "twelve";
      return t;
    },
    "tenants.acme.adoptId",
    /integer ≥ 1/,
  ],
  [
    "an alias equal to a current key",
    (t) => {
      t.acme.aliases = ["globex"];
      return t;
    },
    "tenants.acme.aliases",
    /also a current key/,
  ],
  [
    "tags not strings",
    (t) => {
      loose(t.acme).tags = [1, 2];
      return t;
    },
    "tenants.acme.tags",
    /list of strings/,
  ],
  [
    "a negative storage limit",
    (t) => {
      t.globex.storageLimit = -1;
      return t;
    },
    "tenants.globex.storageLimit",
    /number ≥ 0/,
  ],
  [
    "nested business units as a list",
    (t) => {
      loose(t.acme).businessUnits = [t.acme.businessUnits!["acme-labs"]];
      return t;
    },
    "tenants.acme.businessUnits",
    /map from key/,
  ],
  [
    "a typo in a node key",
    (t) => {
      node(t).os = "Linux";
      return t;
    },
    "tenants.acme.consumers.web01.node.os",
    /unknown key/,
  ],
  [
    "deleteAssociations not a boolean",
    (t) => {
      loose(t.acme.consumers!.web01).deleteAssociations = "yes";
      return t;
    },
    "tenants.acme.consumers.web01.deleteAssociations",
    /true or false/,
  ],
  [
    "a deep problem in a nested unit",
    (t) => {
      loose(t.acme.businessUnits!["acme-labs"].consumers!.ws01.node).cpuCount = "two";
      return t;
    },
    "tenants.acme.businessUnits.acme-labs.consumers.ws01.node.cpuCount",
    /integer/,
  ],
  ["a registry block with a typo", () => localTenants(), "registry.storgeSize", /did you mean "storageSize"/],
  // Issue 13: values the portal refuses are refused here too, before anything is created.
  [
    "nodeLimit not an integer",
    (t) => {
      t.acme.nodeLimit = 2.5;
      return t;
    },
    "tenants.acme.nodeLimit",
    /integer ≥ 0, got 2\.5/,
  ],
  [
    "a whitespace-only name",
    (t) => {
      t.acme.name = "   ";
      return t;
    },
    "tenants.acme.name",
    /non-empty string, got "   " \(only whitespace\)/,
  ],
  [
    "a name with NUL",
    (t) => {
      t.acme.name = "Acme\u0000AB";
      return t;
    },
    "tenants.acme.name",
    /control character U\+0000/,
  ],
  [
    "a registration number with ESC",
    (t) => {
      t.acme.registrationNumber = "5566\u001b[31m";
      return t;
    },
    "tenants.acme.registrationNumber",
    /control character U\+001B/,
  ],
  [
    "a tag with BEL",
    (t) => {
      t.acme.tags = ["ok", "ding\u0007"];
      return t;
    },
    "tenants.acme.tags",
    /item 1 .* control character U\+0007/,
  ],
  [
    "a consumer name with a newline",
    (t) => {
      t.acme.consumers!.web01.name = "web\n01";
      return t;
    },
    "tenants.acme.consumers.web01.name",
    /U\+000A/,
  ],
  [
    "cpuCount .inf",
    (t) => {
      node(t).cpuCount = Infinity;
      return t;
    },
    "tenants.acme.consumers.web01.node.cpuCount",
    /got Infinity/,
  ],
  [
    "a proxy to __proto__",
    (t) => {
      t.acme.proxies = [{ agent: "backup-proxy", target: "__proto__" }];
      return t;
    },
    "tenants.acme.proxies[0].target",
    /no consumer "__proto__"/,
  ],
  [
    "a proxy to toString",
    (t) => {
      t.acme.proxies = [{ agent: "toString", target: "web01" }];
      return t;
    },
    "tenants.acme.proxies[0].agent",
    /no consumer "toString"/,
  ],
  [
    "two entries claiming one alias",
    (t) => {
      t.acme.aliases = ["old"];
      t.globex.aliases = ["old"];
      return t;
    },
    "tenants.globex.aliases",
    /"old" is also an alias of "acme"/,
  ],
  [
    "two consumers claiming one alias",
    (t) => {
      t.acme.consumers!.web01.aliases = ["old"];
      t.acme.consumers!.db01.aliases = ["old"];
      return t;
    },
    "tenants.acme.consumers.db01.aliases",
    /also an alias of "web01"/,
  ],
  [
    "a domainFilter of the wrong type",
    (t) => {
      loose(t.acme).domainFilter = "STANDARD";
      return t;
    },
    "tenants.acme.domainFilter",
    /list of policy domain names or ids/,
  ],
  [
    "requiredApproversOfDeleteRequest negative",
    (t) => {
      t.acme.requiredApproversOfDeleteRequest = -1;
      return t;
    },
    "tenants.acme.requiredApproversOfDeleteRequest",
    /integer ≥ 0, got -1/,
  ],
  [
    "usersCanApproveOwnRequests not a boolean",
    (t) => {
      loose(t.acme).usersCanApproveOwnRequests = "no";
      return t;
    },
    "tenants.acme.usersCanApproveOwnRequests",
    /true or false/,
  ],
];

describe("stack config validation", function () {
  this.timeout(120_000); // the name check's previews each start a provider host
  let emu: Emulator;
  let client: PortalClient;
  const e = engines(() => emu);
  afterEach(() => e.closeAll());

  before(async () => {
    emu = await startEmulator({ port: 0, quiet: true });
    client = clientFor(emu);
  });
  after(async () => {
    client.close();
    await emu.close();
  });

  assert.ok(CASES.length >= 20);
  for (const [what, change, path, fix] of CASES) {
    it(`refuses ${what}, naming ${path}`, async () => {
      emu.clearRequests();
      const tenants = change(localTenants());
      const registry = what.startsWith("a registry") ? { enabled: true, storgeSize: "10Gi" } : undefined;
      const err = await deployStack(settings(tenants, client, {}, { registry, kubeconfig: undefined })).then(
        () => undefined,
        (e: unknown) => e,
      );
      assert.ok(err instanceof ConfigError, `expected a ConfigError, got ${String(err)}`);
      const problem = err.problems.find((p) => p.path === path);
      assert.ok(problem, `no problem at ${path}; got:\n${err.message}`);
      assert.match(problem.message, fix);
      assert.ok(err.message.includes(`${path}: ${problem.message}`), "the message lists path: fix");
      assert.deepEqual(emu.requests(), [], "no API call at all");
    });
  }

  it("reports every problem at once", async () => {
    const t = localTenants();
    node(t).cpuCount = 0;
    t.globex.invoiceDay = 0;
    const err = (await deployStack(settings(t, client)).then(
      () => undefined,
      (e: unknown) => e,
    )) as ConfigError;
    assert.deepEqual(err.problems.map((p) => p.path).sort(), ["tenants.acme.consumers.web01.node.cpuCount", "tenants.globex.invoiceDay"]);
  });

  it("takes aliases named like the methods every object has (toString, constructor, valueOf)", async () => {
    const t = localTenants();
    t.acme.aliases = ["toString", "constructor", "valueOf"];
    t.acme.consumers!.web01.aliases = ["hasOwnProperty"];
    const err = await deployStack(settings(t, client)).then(
      () => undefined,
      (e: unknown) => e,
    );
    const problems = err instanceof ConfigError ? err.problems.filter((p) => p.path.endsWith(".aliases")) : [];
    assert.deepEqual(problems, [], "no alias problem");
  });

  /** The name check's problems (path → message) in a preview of `t` through the engine stand-in and the provider host. */
  async function nameProblems(t: Tenants): Promise<Record<string, string>> {
    const err = await runStack(e.engine(), settings(t), true).then(
      () => undefined,
      (x: unknown) => x,
    );
    const problems = nameCheckProblems(err);
    assert.ok(problems, `the name check's problems, not ${String(err)}`);
    return Object.fromEntries(problems.map((p) => [p.path, p.message]));
  }

  it("the name check checks the filters' names against the default server's lists", async () => {
    const t = localTenants();
    t.acme.domainFilter = ["STANDARD", "7YEARS"];
    t.acme.clientOptionSetFilter = ["NO_SUCH_SET"];
    const byPath = await nameProblems(t);
    assert.deepEqual(Object.keys(byPath).sort(), ["tenants.acme.clientOptionSetFilter[0]", "tenants.acme.domainFilter[1]"]);
    assert.match(byPath["tenants.acme.domainFilter[1]"], /unknown policy domain .*"7YEARS"; valid: .*STANDARD/);
  });

  it("the name check checks names against the portal with reads only, listing the valid names", async () => {
    emu.clearRequests();
    const t = localTenants();
    node(t).operatingSystem = "Linuxx";
    t.globex.consumers!.files.node!.domain = "7YEARS";
    t.globex.timeZone = "Mars/Olympus";
    const byPath = await nameProblems(t);
    assert.match(byPath["tenants.acme.consumers.web01.node.operatingSystem"], /unknown operating system "Linuxx"; valid: .*Linux/);
    assert.match(byPath["tenants.globex.consumers.files.node.domain"], /unknown policy domain .* "7YEARS"; valid: .*STANDARD.*1YEAR/);
    assert.match(byPath["tenants.globex.timeZone"], /unknown time zone .*"Mars\/Olympus"; valid: .*W\. Europe Standard Time/);
    assert.deepEqual(
      emu.requests().filter((r) => r.method !== "GET" && r.path !== "/v1/oauth"),
      [],
      "reads only",
    );
  });
});
