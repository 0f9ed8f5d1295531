// The stack program end to end: config → validated tenants → resources →
// provider host → emulator.
import assert from "node:assert/strict";
import { ops, portalSuite, writesSince } from "../resources/support";
import { localTenants, runStack, settings } from "./support";
import { TenantsConfig } from "../../provider/tenants/model";

/** Reverses the order of every map in the tenants config (keys, consumers, children) and of proxies. */
function reordered(t: TenantsConfig): TenantsConfig {
  const rev = <T>(m: Record<string, T> | undefined, f: (v: T) => T) =>
    m &&
    Object.fromEntries(
      Object.entries(m)
        .reverse()
        .map(([k, v]) => [k, f(v)]),
    );
  const bu = (b: any): any => ({
    ...b,
    consumers: rev(b.consumers, (c: any) => c),
    businessUnits: rev(b.businessUnits, bu),
    proxies: b.proxies && [...b.proxies].reverse(),
  });
  return rev(t, bu)!;
}

describe("stack program (local stack) through the engine", function () {
  this.timeout(300_000); // an up is two deployments, each starting a host
  const p = portalSuite();

  it("creates every tenant of the local stack, then an unchanged run writes nothing", async () => {
    const eng = p.engine();
    const tenants = localTenants();
    const run = await runStack(eng, settings(tenants, p.client));
    assert.ok(run.steps.every((s) => s.op === "create"));

    const state = p.emu.state();
    const bus = state.businessUnits.filter((b) => b.id > 3);
    assert.deepEqual(bus.map((b) => b.name).sort(), ["Acme AB", "Acme Labs", "Globex Corporation"]);
    const acme = bus.find((b) => b.name === "Acme AB")!;
    const labs = bus.find((b) => b.name === "Acme Labs")!;
    assert.equal(labs.parentId, acme.id, "nested business unit under its parent");
    const globex = bus.find((b) => b.name === "Globex Corporation")!;
    assert.deepEqual(
      [
        globex.domainFilter,
        globex.clientOptionSetFilter,
        globex.billingStorageTypeId,
        globex.requiredApproversOfDeleteRequest,
        globex.finalDeleteRequestApprover,
        globex.usersCanApproveOwnRequests,
      ],
      [[1, 6], [3], 1, 2, true, false],
      "every business-unit setting of the stack file reaches the portal",
    );
    const mine = state.consumers.filter((c) => bus.some((b) => b.id === c.businessUnitId));
    assert.deepEqual(mine.map((c) => c.name).sort(), ["backup-proxy", "db01.acme.example", "files", "web01.acme.example", "ws01"]);
    const names = state.nodes
      .filter((n) => mine.some((c) => c.id === n.consumerId))
      .map((n) => n.tsmName)
      .sort();
    assert.deepEqual(names, ["ACME-DB01", "ACME-LABS-WS01", "ACME-PROXY", "ACME-WEB01", "GLOBEX-FILES"]);
    const web = mine.find((c) => c.name === "web01.acme.example")!;
    const proxy = mine.find((c) => c.name === "backup-proxy")!;
    const webNode = await p.client.nodes.get(acme.id, web.id);
    assert.deepEqual(
      (webNode.proxyAgents as Array<{ id: number }>).map((p) => p.id),
      [proxy.id],
    );

    const mark = p.emu.requests().length;
    const again = await runStack(p.track(eng), settings(localTenants(), p.client));
    assert.ok(
      again.steps.every((s) => s.op === "same"),
      JSON.stringify(again.steps.filter((s) => s.op !== "same")),
    );
    assert.deepEqual(writesSince(p.emu, mark), [], "no API write");
  });

  it("changing one node's contact updates exactly that node", async () => {
    const eng = p.engine();
    await runStack(eng, settings(localTenants(), p.client));
    const changed = localTenants();
    changed.acme.consumers!.db01.node!.contact = "new-dba@acme.example";
    const mark = p.emu.requests().length;
    const run = await runStack(eng, settings(changed, p.client));
    const notSame = run.steps.filter((s) => s.op !== "same");
    assert.deepEqual(
      notSame.map((s) => [s.urn.split("::").pop(), s.op, s.diffs]),
      [["acme/db01", "update", ["contact"]]],
    );
    const w = writesSince(p.emu, mark);
    assert.equal(w.length, 1);
    assert.match(`${w[0].method} ${w[0].path}`, /^PUT \/v1\/bunits\/\d+\/consumers\/\d+\/node$/);
  });

  it("removing a consumer deletes exactly that consumer and its node (and updates the name check, when a name leaves with it)", async () => {
    const eng = p.engine();
    await runStack(eng, settings(localTenants(), p.client));
    const before = p.emu.state();
    const changed = localTenants();
    delete changed.globex.consumers!.files;
    const mark = p.emu.requests().length;
    const run = await runStack(eng, settings(changed, p.client));
    const notSame = run.steps
      .filter((s) => s.op !== "same")
      .map((s) => `${s.op} ${s.urn.split("::").slice(2).join("::")}`)
      .sort();
    // Its node was the stack's only Windows server: the names the stack uses changed, so the name check's state
    // takes the new ones (an update that sends nothing). The one write: the node's DELETE, which takes its consumer.
    assert.deepEqual(notSame, [
      "delete pulumi-nodejs:dynamic/backup-portal:Consumer::globex/files",
      "delete pulumi-nodejs:dynamic/backup-portal:Node::globex/files",
      "update pulumi-nodejs:dynamic/backup-portal:NameCheck::tenants",
    ]);
    assert.deepEqual(
      writesSince(p.emu, mark).map((r) => `${r.method} ${r.path.replace(/\/\d+(?=\/|$)/g, "/{id}")}`),
      ["DELETE /v1/bunits/{id}/consumers/{id}/node"],
    );
    const after = p.emu.state();
    assert.equal(after.consumers.length, before.consumers.length - 1);
    assert.equal(after.nodes.length, before.nodes.length - 1);
    assert.ok(!after.consumers.some((c) => c.name === "files"));
    assert.ok(!after.nodes.some((n) => n.tsmName === "GLOBEX-FILES"));
  });

  it("reordering entries in the config changes nothing", async () => {
    const eng = p.engine();
    await runStack(eng, settings(localTenants(), p.client));
    const mark = p.emu.requests().length;
    const run = await runStack(eng, settings(reordered(localTenants()), p.client));
    assert.ok(run.steps.every((s) => s.op === "same"));
    assert.deepEqual(writesSince(p.emu, mark), []);
  });

  it("a preview of the local stack makes no API write", async () => {
    const eng = p.engine();
    const mark = p.emu.requests().length;
    const run = await runStack(eng, settings(localTenants(), p.client), true);
    assert.ok(run.steps.length >= 14 && run.steps.every((s) => s.op === "create"), JSON.stringify(ops(run.steps)));
    assert.deepEqual(writesSince(p.emu, mark), []);
  });
});
