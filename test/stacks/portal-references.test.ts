// Issue 23, item 5: ids and names that point at the portal are named in their errors, against the emulator
// (real HTTP). In the stack program: one problem per wrong value at its key path (the config reader prints
// them as `backup-portal:<path>: ...`), with what the portal does have, before any resource is registered and
// without a write. In each resource's own Check (the TypeScript API, run by the real provider host through the
// engine stand-in): the failure names the input key, never a bare 404 PortalError.
import assert from "node:assert/strict";
import { ConfigError } from "../../provider/tenants/model";
import { businessUnit, consumer, node, nodeProxy, portalSuite, writesSince } from "../resources/support";
import { clientFor, envFor } from "../support/portal";
import { localTenants, runStack, settings } from "./support";

const SEES_ALL = '(this account sees 1 "Reseller", 2 "Tenant A", 3 "Tenant B")';

describe("portal ids and names in errors (issue 23, item 5)", function () {
  this.timeout(120_000);
  const p = portalSuite();

  /** A preview of the stack program that must fail on its config: its problems, path → message. */
  async function problemsOf(tenants: unknown, extra: Parameters<typeof settings>[3] = {}) {
    const eng = p.engine();
    const mark = p.emu.requests().length;
    const err = await runStack(eng, settings(tenants, p.client, {}, extra), true).then(
      () => assert.fail("the preview went through"),
      (e: unknown) => e,
    );
    assert.ok(err instanceof ConfigError, `a ConfigError, not ${String(err)}`);
    assert.equal(eng.state.size, 0);
    assert.deepEqual(writesSince(p.emu, mark), [], "reads only");
    return Object.fromEntries(err.problems.map((x) => [x.path, x.message]));
  }

  it("rootBusinessUnitId: a business unit that does not exist, with the ones the account sees; no lookup under it", async () => {
    const byPath = await problemsOf(localTenants(), { rootBusinessUnitId: 1000 });
    assert.deepEqual(byPath, { rootBusinessUnitId: `business unit 1000 does not exist on ${p.emu.url} ${SEES_ALL}` });
    assert.ok(!p.emu.requests().some((r) => r.path.startsWith("/v1/bunits/1000/")), "no domain list read under it (it would 404)");
  });

  it("rootBusinessUnitId outside the account: said so, with the one business unit it sees", async () => {
    const tenantClient = clientFor(p.emu, "tenant");
    try {
      const err = await runStack(p.engine(), settings({}, tenantClient, {}, { rootBusinessUnitId: 3 }), true).then(
        () => assert.fail("went through"),
        (e: unknown) => e,
      );
      assert.ok(err instanceof ConfigError);
      assert.deepEqual(err.problems, [
        {
          path: "rootBusinessUnitId",
          message: `business unit 3 is outside what this account may reach on ${p.emu.url} (this account sees 2 "Tenant A")`,
        },
      ]);
    } finally {
      tenantClient.close();
    }
  });

  it("every kind at once, each at its path with the names that exist: adoptId, time zone, filters, node names", async () => {
    const t = localTenants() as Record<string, any>;
    t.acme.adoptId = 1000;
    t.acme.timeZone = "Mars/Olympus";
    t.acme.domainFilter = ["7YEARS"];
    t.acme.clientOptionSetFilter = ["NO_SUCH_SET"];
    const web = t.acme.consumers.web01.node;
    Object.assign(web, { operatingSystem: "Plan 9", type: "Mainframe", domain: "FOREVER", clientOptionSet: "ZIP_IT" });
    // An adopted business unit (Tenant A) and a consumer it does not have.
    t.tenantA = { name: "Tenant A", registrationNumber: "TA-0001", timeZone: "UTC", adoptId: 2, consumers: { gone: { adoptId: 99999 } } };
    const byPath = await problemsOf(t);
    const url = p.emu.url;
    assert.deepEqual(Object.keys(byPath).sort(), [
      "tenants.acme.adoptId",
      "tenants.acme.clientOptionSetFilter[0]",
      "tenants.acme.consumers.web01.node.clientOptionSet",
      "tenants.acme.consumers.web01.node.domain",
      "tenants.acme.consumers.web01.node.operatingSystem",
      "tenants.acme.consumers.web01.node.type",
      "tenants.acme.domainFilter[0]",
      "tenants.acme.timeZone",
      "tenants.tenantA.consumers.gone.adoptId",
    ]);
    assert.equal(byPath["tenants.acme.adoptId"], `business unit 1000 does not exist on ${url} ${SEES_ALL}`);
    assert.equal(
      byPath["tenants.tenantA.consumers.gone.adoptId"],
      `consumer 99999 of business unit 2 does not exist on ${url} (business unit 2 has 1 "web-01", 2 "db-01")`,
    );
    assert.match(byPath["tenants.acme.timeZone"], /unknown time zone .*"Mars\/Olympus"; valid: .*UTC/);
    assert.match(byPath["tenants.acme.domainFilter[0]"], /unknown policy domain .*"7YEARS"; valid: .*STANDARD/);
    assert.match(byPath["tenants.acme.clientOptionSetFilter[0]"], /unknown client option set .*"NO_SUCH_SET"; valid: .*FORCE_ENCRYPT/);
    assert.match(byPath["tenants.acme.consumers.web01.node.operatingSystem"], /unknown operating system "Plan 9"; valid: .*Linux/);
    assert.match(byPath["tenants.acme.consumers.web01.node.type"], /unknown node type "Mainframe"; valid: .*File server/);
    assert.match(byPath["tenants.acme.consumers.web01.node.domain"], /unknown policy domain .*"FOREVER"; valid: .*STANDARD/);
    assert.match(
      byPath["tenants.acme.consumers.web01.node.clientOptionSet"],
      /unknown client option set .*"ZIP_IT"; valid: .*DEDUP_AND_COMPRESS/,
    );
  });

  describe("a resource's own Check names the input key", () => {
    const bu = (inputs: Record<string, unknown>) =>
      businessUnit("acme", { parentId: 1, name: "Acme", registrationNumber: "1", timeZone: "UTC", ...inputs });
    const nodeInputs = { operatingSystem: "Linux", type: "File server", domain: "STANDARD", cpuCount: 1 };

    /** The preview's Check failure for these resources (the engine's "check failed: <key>: <reason>"). */
    async function checkFailure(resources: Parameters<ReturnType<typeof p.engine>["preview"]>[0], env?: Record<string, string>) {
      const mark = p.emu.requests().length;
      const err = await p
        .engine(env ? { env } : {})
        .preview(resources)
        .then(
          () => assert.fail("the preview went through"),
          (e: Error) => e,
        );
      assert.deepEqual(writesSince(p.emu, mark), []);
      assert.doesNotMatch(err.message, /PortalError|\n\s+at /, "no bare portal error, no stack trace");
      return err.message;
    }

    it("BusinessUnit: parentId and adoptId", async () => {
      const url = p.emu.url;
      assert.match(
        await checkFailure([bu({ parentId: 1000 })]),
        new RegExp(`parentId: business unit 1000 does not exist on ${url} \\(this account sees 1 "Reseller"`),
      );
      assert.match(
        await checkFailure([bu({ adoptId: 4242 })]),
        /adoptId: business unit 4242 does not exist on .* \(this account sees 1 "Reseller", 2 "Tenant A", 3 "Tenant B"\)/,
      );
      // The domain filter is looked up under the parent: not under one that does not exist.
      const msg = await checkFailure([bu({ parentId: 1000, domainFilter: ["STANDARD"] })]);
      assert.doesNotMatch(msg, /domainFilter/);
    });

    it("Consumer: businessUnitId and adoptId (a consumer of that business unit)", async () => {
      assert.match(
        await checkFailure([consumer("web", { businessUnitId: 1000, name: "web" })]),
        /businessUnitId: business unit 1000 does not exist on /,
      );
      assert.match(
        await checkFailure([consumer("web", { businessUnitId: 2, name: "web", adoptId: 3 })]),
        /adoptId: consumer 3 of business unit 2 does not exist on .* \(business unit 2 has 1 "web-01", 2 "db-01"\)/,
      );
    });

    it("Node: businessUnitId and consumerId, and no name lookup under a business unit that does not exist", async () => {
      const msg = await checkFailure([node("web", { businessUnitId: 1000, consumerId: 1, ...nodeInputs })]);
      assert.match(msg, /businessUnitId: business unit 1000 does not exist on /);
      assert.doesNotMatch(msg, /consumerId|domain/);
      assert.match(
        await checkFailure([node("web", { businessUnitId: 2, consumerId: 3, ...nodeInputs })]),
        /consumerId: consumer 3 of business unit 2 does not exist on .*\(business unit 2 has 1 "web-01", 2 "db-01"\)/,
      );
    });

    it("NodeProxy: the agent's and the target's consumer ids", async () => {
      const msg = await checkFailure([nodeProxy("px", { businessUnitId: 2, agentConsumerId: 1, targetConsumerId: 77 })]);
      assert.match(msg, /targetConsumerId: consumer 77 of business unit 2 does not exist on /);
      assert.doesNotMatch(msg, /agentConsumerId/);
    });

    it("as the tenant account: a business unit outside it is said to be outside", async () => {
      const msg = await checkFailure([consumer("erp", { businessUnitId: 3, name: "erp" })], envFor(p.emu, "tenant"));
      assert.match(msg, /businessUnitId: business unit 3 is outside what this account may reach on .* \(this account sees 2 "Tenant A"\)/);
    });
  });
});
