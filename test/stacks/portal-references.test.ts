// Issue 23, item 5: ids and names that point at the portal are named in their errors, against the emulator
// (real HTTP). In the stack program: one problem per wrong value at its key path, a line of the name check's
// Check (`Pulumi.<stack>.yaml: backup-portal:<path>: ...`), with what the portal does have, before any business
// unit is registered and without a write; an adoptId below a tenant is left to its resource's Check, which reads
// it while it is new. In
// each resource's own Check (the TypeScript API, run by the real provider host through the engine stand-in): the
// failure names the input key, never a bare 404 PortalError.
import assert from "node:assert/strict";
import { businessUnit, consumer, node, nodeProxy, portalSuite, writesSince } from "../resources/support";
import { envFor } from "../support/portal";
import { plant } from "../export/support";
import { localTenants, nameCheckProblems, runStack, settings } from "./support";

const SEES_ALL = '(this account sees 1 "Reseller", 2 "Tenant A", 3 "Tenant B")';

describe("portal ids and names in errors (issue 23, item 5)", function () {
  this.timeout(120_000);
  const p = portalSuite();

  /**
   * A preview of the stack program (its provider host connected as `user`) that must fail at its name check: the
   * check's problems, path → message. Nothing but the check was registered, and nothing was written.
   */
  async function problemsOf(tenants: unknown, extra: Parameters<typeof settings>[3] = {}, user: "admin" | "tenant" = "admin") {
    const eng = p.engine({ env: envFor(p.emu, user) });
    const mark = p.emu.requests().length;
    const err = await runStack(eng, settings(tenants, undefined, {}, extra), true).then(
      () => assert.fail("the preview went through"),
      (e: unknown) => e,
    );
    const problems = nameCheckProblems(err);
    assert.ok(problems, `the name check's problems, not ${String(err)}`);
    assert.equal(eng.state.size, 0);
    assert.deepEqual(writesSince(p.emu, mark), [], "reads only");
    return Object.fromEntries(problems.map((x) => [x.path, x.message]));
  }

  it("rootBusinessUnitId: a business unit that does not exist, with the ones the account sees; no lookup under it", async () => {
    const byPath = await problemsOf(localTenants(), { rootBusinessUnitId: 1000 });
    assert.deepEqual(byPath, { rootBusinessUnitId: `business unit 1000 does not exist on ${p.emu.url} ${SEES_ALL}` });
    assert.ok(!p.emu.requests().some((r) => r.path.startsWith("/v1/bunits/1000/")), "no domain list read under it (it would 404)");
  });

  it("rootBusinessUnitId outside the account: said so, with the one business unit it sees", async () => {
    const tenant = { acme: { name: "Acme", registrationNumber: "A-1", timeZone: "UTC" } };
    const byPath = await problemsOf(tenant, { rootBusinessUnitId: 3 }, "tenant");
    assert.deepEqual(byPath, {
      rootBusinessUnitId: `business unit 3 is outside what this account may reach on ${p.emu.url} (this account sees 2 "Tenant A")`,
    });
  });

  it("no tenant: nothing to check, no name check, no request", async () => {
    const eng = p.engine();
    const mark = p.emu.requests().length;
    const run = await runStack(eng, settings({}, undefined, {}, { rootBusinessUnitId: 1000 }), true);
    assert.deepEqual(
      run.registered.map((r) => r.type),
      [],
      "nothing registered",
    );
    assert.deepEqual(p.emu.requests().slice(mark), []);
  });

  it("every kind at once, each at its path with the names that exist: adoptId, time zone, filters, node names", async () => {
    const t = localTenants() as Record<string, any>;
    t.acme.adoptId = 1000;
    t.acme.timeZone = "Mars/Olympus";
    t.acme.domainFilter = ["7YEARS"];
    t.acme.clientOptionSetFilter = ["NO_SUCH_SET"];
    const web = t.acme.consumers.web01.node;
    Object.assign(web, { operatingSystem: "Plan 9", type: "Mainframe", domain: "FOREVER", clientOptionSet: "ZIP_IT" });
    // A tenant adopting a business unit that is not a child of the root.
    const [labs] = plant(p.emu, [{ name: "Labs", registrationNumber: "L-1", timeZoneId: 1 }], 2).businessUnits;
    t.labs = { name: "Labs", registrationNumber: "L-1", timeZone: "UTC", adoptId: labs };
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
      "tenants.labs.adoptId",
    ]);
    assert.equal(byPath["tenants.acme.adoptId"], `business unit 1000 does not exist on ${url} ${SEES_ALL}`);
    assert.equal(
      byPath["tenants.labs.adoptId"],
      `business unit ${labs} "Labs" is not under business unit 1: it is under business unit 2; adopt it under business unit 2`,
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

  it("a node's type its operating system does not support (issue 45 item 6): at type, with the types it supports", async () => {
    const t = localTenants() as Record<string, any>;
    // By name and by id (Windows server is 2, Workstation 2); a type the system supports passes (Linux takes any).
    Object.assign(t.acme.consumers.web01.node, { operatingSystem: "Windows server", type: "Workstation" });
    Object.assign(t.acme.consumers["backup-proxy"].node, { operatingSystem: 2, type: 2 });
    Object.assign(t.acme.businessUnits["acme-labs"].consumers.ws01.node, { operatingSystem: "Linux", type: "Workstation" });
    const byPath = await problemsOf(t);
    const said =
      'node type "Workstation" is not one operating system "Windows server" supports; the portal lists for it: File server, ' +
      "Application server: set type to one of them, or choose another operatingSystem";
    assert.deepEqual(byPath, {
      "tenants.acme.consumers.backup-proxy.node.type": said,
      "tenants.acme.consumers.web01.node.type": said,
    });
  });

  it("an adoptId below a tenant is its resource's Check's: a preview adding a wrong one fails at that adoptId", async () => {
    // Tenant B as the seed has it, in the stack; then a consumer, or a sub-unit, that does not exist is added. (The
    // engine stops at the first failed Check, so one preview names one. Under a tenant adopted in the same run, the
    // preview has no id to look them up under: the up's Check stops them, before their creates;
    // test/resources/adoption-check.test.ts.)
    const tenantB = { name: "Tenant B", registrationNumber: "TB-0001", timeZone: "UTC", adoptId: 3 };
    const eng = p.engine();
    const mark = p.emu.requests().length;
    await runStack(eng, settings({ tenantB }, p.client));
    const refusal = (added: Record<string, unknown>) =>
      runStack(eng, settings({ tenantB: { ...tenantB, ...added } }, p.client), true).then(
        () => assert.fail("the preview went through"),
        (e: Error) => e.message,
      );
    const fix = "; check the id or remove adoptId to create one";
    const url = p.emu.url.replace(/[.]/g, "\\.");
    assert.match(
      await refusal({ consumers: { gone: { adoptId: 99999 } } }),
      new RegExp(
        `tenantB/gone .*check failed: adoptId: adoptId: consumer 99999 of business unit 3 does not exist on ${url} \\(business unit 3 has 3 "erp-01"\\)${fix}$`,
      ),
    );
    assert.match(
      await refusal({ businessUnits: { ghost: { name: "Ghost", registrationNumber: "G-1", timeZone: "UTC", adoptId: 99998 } } }),
      new RegExp(
        `tenantB/ghost .*check failed: adoptId: adoptId: business unit 99998 does not exist on ${url} \\(this account sees .*\\)${fix}$`,
      ),
    );
    assert.deepEqual(writesSince(p.emu, mark), [], "nothing written");
  });

  describe("a resource used from TypeScript names the input key (Check where it reads anyway, else Create)", () => {
    const bu = (inputs: Record<string, unknown>) =>
      businessUnit("acme", { parentId: 1, name: "Acme", registrationNumber: "1", timeZone: "UTC", ...inputs });
    const nodeInputs = { operatingSystem: "Linux", type: "File server", domain: "STANDARD", cpuCount: 1 };
    type Resources = Parameters<ReturnType<typeof p.engine>["preview"]>[0];

    /** The failure of a preview (`preview`) or an up; nothing may have changed on the portal. */
    async function failure(resources: Resources, how: "preview" | "up", env?: Record<string, string>) {
      const eng = p.engine(env ? { env } : {});
      const mark = p.emu.requests().length;
      const err = await (how === "preview" ? eng.preview(resources) : eng.up(resources)).then(
        () => assert.fail(`the ${how} went through`),
        (e: Error) => e,
      );
      const refused = writesSince(p.emu, mark).filter((r) => r.status < 400);
      assert.deepEqual(refused, [], "no write went through");
      assert.equal(eng.state.size, 0);
      assert.doesNotMatch(err.message, /PortalError|\n\s+at /, "no bare portal error, no stack trace");
      return err.message;
    }

    it("BusinessUnit: parentId in Check when its filters are looked up under it, else in Create", async () => {
      const url = p.emu.url;
      const inCheck = await failure(
        [bu({ parentId: 1000, domainFilter: ["STANDARD"], clientOptionSetFilter: ["FORCE_ENCRYPT"] })],
        "preview",
      );
      assert.match(
        inCheck,
        new RegExp(`check failed: parentId: parentId: business unit 1000 does not exist on ${url} ${SEES_ALL.replace(/[()]/g, "\\$&")}$`),
      );
      assert.equal(inCheck.match(/business unit 1000/g)!.length, 1, "said once for both lists");
      const inCreate = await failure([bu({ parentId: 1000 })], "up");
      assert.match(inCreate, /parentId: business unit 1000 does not exist on .* \(this account sees 1 "Reseller"/);
    });

    it("Consumer: businessUnitId in Create; as the tenant account, a business unit outside it is said to be outside", async () => {
      assert.match(
        await failure([consumer("web", { businessUnitId: 1000, name: "web" })], "up"),
        /: businessUnitId: business unit 1000 does not exist on /,
      );
      assert.match(
        await failure([consumer("erp", { businessUnitId: 3, name: "erp" })], "up", envFor(p.emu, "tenant")),
        /: businessUnitId: business unit 3 is outside what this account may reach on .* \(this account sees 2 "Tenant A"\)/,
      );
    });

    it("Node: businessUnitId in Check (its names are looked up under it), consumerId in Create", async () => {
      const msg = await failure([node("web", { businessUnitId: 1000, consumerId: 1, ...nodeInputs })], "preview");
      assert.match(msg, /check failed: businessUnitId: businessUnitId: business unit 1000 does not exist on /);
      assert.doesNotMatch(msg, /consumerId|domain/);
      assert.match(
        await failure([node("web", { businessUnitId: 2, consumerId: 77, ...nodeInputs })], "up"),
        /: consumerId: consumer 77 does not exist in business unit 2\./,
      );
    });

    it("NodeProxy: the target's and the agent's consumer ids, in Create", async () => {
      const msg = await failure([nodeProxy("px", { businessUnitId: 2, agentConsumerId: 1, targetConsumerId: 77 })], "up");
      assert.match(
        msg,
        /: targetConsumerId: consumer 77 of business unit 2 does not exist on .* \(business unit 2 has 1 "web-01", 2 "db-01"\)/,
      );
    });
  });
});
