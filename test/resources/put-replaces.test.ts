// The providers against a portal whose PUT replaces the object (the emulator's
// --put-replaces: absent optional fields are cleared), the other reading of the
// spec's "PUT takes the object": an update of one field must keep every other
// declared field, so each PUT carries all of them.
import assert from "node:assert/strict";
import { ref } from "../engine/engine";
import { Emulator, startEmulator } from "../support/portal";
import { clientFor } from "../support/portal";
import { businessUnit, consumer, engines, node } from "./support";

describe("providers against a portal whose PUT replaces the object", function () {
  this.timeout(180_000); // an up is two deployments, each starting a host
  let emu: Emulator;
  const e = engines(() => emu);

  before(async () => {
    emu = await startEmulator({ port: 0, quiet: true, putReplaces: true });
  });
  after(async () => {
    await e.closeAll();
    await emu.close();
  });

  it("the emulator's replacing PUT clears what the body leaves out, and wants the required fields", async () => {
    const client = clientFor(emu);
    const c = await client.consumers.create(1, { name: "probe", note: "kept?", tags: ["t"] });
    const after = await client.consumers.update(1, c.id, { name: "probe" });
    assert.equal(after.note, undefined);
    assert.equal(after.tags, undefined);
    await assert.rejects(client.consumers.update(1, c.id, { note: "no name" }), /HTTP 400.*name/);
    client.close();
  });

  it("changing one field of a business unit, a consumer and a node keeps all the others", async () => {
    const eng = e.engine();
    const declared = (note: string, contact: string) => [
      businessUnit("bu", {
        parentId: 1,
        name: "Replacing",
        registrationNumber: "R-1",
        timeZone: "W. Europe Standard Time",
        note,
        tags: ["bu-tag"],
        invoiceDay: 5,
      }),
      consumer("c", { businessUnitId: ref("bu"), name: "c1", note, tags: ["c-tag"], limitHighStorage: 10, nodeName: "REPL-1" }),
      node("n", {
        businessUnitId: ref("bu"),
        consumerId: ref("c"),
        operatingSystem: "Linux",
        type: "File server",
        domain: "STANDARD",
        clientOptionSet: "DEDUP_AND_COMPRESS",
        contact,
        cpuCount: 2,
        tsmName: "REPL-1",
      }),
    ];
    const r = await eng.up(declared("first", "a@example.com"));
    const buId = Number(r.ids.bu);
    const cId = Number(r.ids.c);
    const { steps } = await eng.up(declared("second", "b@example.com"));
    assert.deepEqual(steps.map((s) => `${s.urn.split("::").pop()}:${s.op}`).sort(), ["bu:update", "c:update", "n:update"]);

    const s = emu.state();
    const bu = s.businessUnits.find((b) => b.id === buId)!;
    assert.deepEqual([bu.note, bu.tags, bu.invoiceDay, bu.registrationNumber, bu.timeZoneId], ["second", ["bu-tag"], 5, "R-1", 4]);
    const c = s.consumers.find((x) => x.id === cId)!;
    assert.deepEqual([c.note, c.tags?.filter((t) => !t.startsWith("create-request:")), c.limitHighStorage], ["second", ["c-tag"], 10]);
    const n = s.nodes.find((x) => x.consumerId === cId)!;
    assert.deepEqual(
      [n.contact, n.cpuCount, n.operatingSystemId, n.domainId, n.clientOptionSetId, n.tsmName],
      ["b@example.com", 2, 3, 1, 2, "REPL-1"],
    );

    const refreshed = await eng.refresh();
    assert.ok(
      refreshed.every((x) => x.op === "same"),
      JSON.stringify(refreshed),
    );
    await eng.destroy();
  });
});
