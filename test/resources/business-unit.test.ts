// BusinessUnit through the real provider host: create, read, adopt, update,
// no-op diff, refresh, drift, delete — against the emulator.
import assert from "node:assert/strict";
import { businessUnit, ops, portalSuite, writesSince } from "./support";

describe("BusinessUnit provider", function () {
  this.timeout(180_000); // an up is two deployments, each starting a host
  const p = portalSuite();

  const acme = (extra: Record<string, unknown> = {}) =>
    businessUnit("acme", { parentId: 1, name: "Acme", registrationNumber: "556677-8899", timeZone: "W. Europe Standard Time", ...extra });

  it("creates with full outputs, then an unchanged up and a refresh change nothing", async () => {
    const eng = p.engine();
    const r = await eng.up([acme({ note: "first", tags: ["gold"], invoiceDay: 5 })]);
    assert.deepEqual(ops(r.steps), { acme: "create" });
    const id = Number(r.ids.acme);
    const outs = eng.get("acme")!.outputs;
    assert.equal(outs.businessUnitId, id);
    assert.equal(outs.timeZoneId, 4);
    assert.equal(outs.parentId, 1);
    assert.ok(typeof outs.createdDate === "string" && typeof outs.href === "string");
    const bu = await p.client.businessUnits.get(id);
    assert.equal(bu.name, "Acme");
    assert.equal(bu.note, "first");
    assert.deepEqual(bu.tags, ["gold"]);
    assert.equal(bu.parentBusinessUnit?.id, 1);

    const mark = p.emu.requests().length;
    const again = await eng.up([acme({ note: "first", tags: ["gold"], invoiceDay: 5 })]);
    assert.deepEqual(ops(again.steps), { acme: "same" });
    assert.deepEqual(writesSince(p.emu, mark), [], "an unchanged diff makes no API write");

    const refreshed = await eng.refresh();
    assert.ok(
      refreshed.every((s) => s.op === "same"),
      JSON.stringify(refreshed),
    );
    const preview = await eng.preview([acme({ note: "first", tags: ["gold"], invoiceDay: 5 })]);
    assert.deepEqual(ops(preview), { acme: "same" }, "no diff is left behind by refresh");
  });

  it("updates in place with one PUT, and clears an input no longer declared", async () => {
    const eng = p.engine();
    await eng.up([acme({ note: "a" })]);
    const mark = p.emu.requests().length;
    const r = await eng.up([acme({ note: "b", storageLimit: 100 })]);
    assert.equal(r.steps[0].op, "update");
    assert.deepEqual(
      writesSince(p.emu, mark).map((w) => w.method),
      ["PUT"],
    );
    const bu = await p.client.businessUnits.get(Number(r.ids.acme));
    assert.equal(bu.note, "b");
    assert.equal(bu.storageLimit, 100);
    await eng.up([acme({})]);
    assert.equal((await p.client.businessUnits.get(Number(r.ids.acme))).note, undefined, "a removed input is cleared on the portal");
  });

  it("shows drift on refresh and undoes it on the next up", async () => {
    const eng = p.engine();
    const r = await eng.up([acme({ note: "declared" })]);
    const id = Number(r.ids.acme);
    await p.client.businessUnits.update(id, { note: "changed in the portal UI", timeZone: { id: 1 } });
    const refreshed = await eng.refresh();
    assert.equal(refreshed[0].op, "update");
    assert.equal(eng.get("acme")!.outputs.note, "changed in the portal UI");
    const plan = await eng.preview([acme({ note: "declared" })]);
    assert.equal(plan[0].op, "update");
    assert.deepEqual([...plan[0].diffs].sort(), ["note", "timeZone"]);
    await eng.up([acme({ note: "declared" })]);
    const bu = await p.client.businessUnits.get(id);
    assert.equal(bu.note, "declared");
    assert.equal(bu.timeZone?.id, 4);
  });

  it("a value cleared on the portal shows on refresh, and the next up puts it back", async () => {
    const eng = p.engine();
    const id = Number((await eng.up([acme({ note: "declared" })])).ids.acme);
    await p.client.businessUnits.update(id, { note: null } as never);
    assert.equal((await p.client.businessUnits.get(id)).note ?? undefined, undefined, "cleared on the portal");
    assert.equal((await eng.refresh())[0].op, "update");
    assert.equal(eng.get("acme")!.outputs.note, undefined, "the outputs no longer claim the old value");
    const plan = await eng.preview([acme({ note: "declared" })]);
    assert.deepEqual([plan[0].op, plan[0].diffs], ["update", ["note"]]);
    await eng.up([acme({ note: "declared" })]);
    assert.equal((await p.client.businessUnits.get(id)).note, "declared");
  });

  it("adopts an existing business unit and brings it to the declared inputs", async () => {
    const existing = await p.client.businessUnits.create(1, { name: "Legacy", registrationNumber: "1", timeZone: { id: 4 } });
    const eng = p.engine();
    const r = await eng.up([
      businessUnit("legacy", {
        parentId: 1,
        name: "Legacy",
        registrationNumber: "1",
        timeZone: "W. Europe Standard Time",
        note: "now managed",
        adoptId: existing.id,
      }),
    ]);
    assert.equal(r.ids.legacy, String(existing.id));
    assert.equal((await p.client.businessUnits.children(1)).filter((b) => b.name === "Legacy").length, 1, "nothing new was created");
    assert.equal((await p.client.businessUnits.get(existing.id)).note, "now managed");
    const verify = await eng.refresh();
    assert.equal(verify[0].op, "same", "adopted state matches the portal");
    await assert.rejects(
      p.engine().up([businessUnit("ghost", { parentId: 1, name: "G", registrationNumber: "1", timeZone: "UTC", adoptId: 999999 })]),
      /check failed: adoptId: adoptId: business unit 999999 does not exist on .*; check the id or remove adoptId to create one$/,
    );
  });

  it("replaces on a new parent, refuses to delete one with children, and deletes", async () => {
    const eng = p.engine();
    const r = await eng.up([
      acme(),
      businessUnit("child", {
        parentId: { $ref: "acme", prop: "businessUnitId" },
        name: "Child",
        registrationNumber: "2",
        timeZone: "UTC",
      }),
    ]);
    const plan = await eng.preview([
      acme({ parentId: 2 }),
      businessUnit("child", { parentId: Number(r.ids.acme), name: "Child", registrationNumber: "2", timeZone: "UTC" }),
    ]);
    assert.equal(plan.find((s) => s.urn.endsWith("acme"))!.op, "replace");

    // The portal keeps a business unit with children: a clear error, and state keeps it.
    const direct = await p.client.consumers.create(Number(r.ids.child), { name: "outside-pulumi" });
    await assert.rejects(eng.destroy(), /still has child business units or consumers/);
    await p.client.consumers.delete(Number(r.ids.child), direct.id);
    await eng.destroy();
    assert.equal(eng.state.size, 0);
    assert.ok(!(await p.client.businessUnits.children(1)).some((b) => b.name === "Acme"));
    await assert.doesNotReject(p.engine().destroy(), "destroying nothing is fine");
  });

  it("reads an object deleted outside Pulumi as gone", async () => {
    const eng = p.engine();
    const r = await eng.up([acme()]);
    await p.client.businessUnits.delete(Number(r.ids.acme));
    const steps = await eng.refresh();
    assert.equal(steps[0].op, "delete");
    assert.equal(eng.state.size, 0);
  });
});
