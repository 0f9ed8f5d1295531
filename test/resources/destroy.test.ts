// Destroy at the API's minimum: a node's DELETE removes its consumer on the portal (spec 000), so the
// consumer's Delete that follows in the same provider host sends nothing; every other consumer is still
// deleted with its own request. Through the real provider host against the emulator; a DELETE answered 200 or
// 204 is "ok" (the emulator can answer either, as a real portal may).
import assert from "node:assert/strict";
import { ref } from "../engine/engine";
import { consumer, node, portalSuite } from "./support";

describe("destroy: a consumer removed with its node is not deleted twice", function () {
  this.timeout(180_000); // an up is two deployments, each starting a host
  const p = portalSuite();

  const nodeOf = (c: string) =>
    node(`${c}-node`, {
      businessUnitId: 1,
      consumerId: ref(c, "consumerId"),
      operatingSystem: "Linux",
      type: "File server",
      domain: "STANDARD",
      cpuCount: 1,
    });
  const deletes = (mark: number) =>
    p.emu
      .requests()
      .slice(mark)
      .filter((r) => r.method === "DELETE")
      .map((r) => `${r.path.split("?")[0]} ${r.status >= 200 && r.status < 300 ? "ok" : r.status}`);
  const left = (ids: number[]) => p.emu.state().consumers.filter((c) => ids.includes(c.id)).length;

  it("a managed node's DELETE takes its consumer: one request for the pair, nothing left", async () => {
    const eng = p.engine();
    const r = await eng.up([consumer("a", { businessUnitId: 1, name: "a", nodeName: "*" }), nodeOf("a")]);
    const id = Number(r.ids.a);
    const mark = p.emu.requests().length;
    await eng.destroy();
    assert.deepEqual(deletes(mark), [`/v1/bunits/1/consumers/${id}/node ok`]);
    assert.equal(left([id]), 0);
    assert.equal(p.emu.state().nodes.filter((n) => n.consumerId === id).length, 0);
  });

  it("a consumer whose node is not managed is deleted with its own request", async () => {
    const eng = p.engine();
    const r = await eng.up([consumer("b", { businessUnitId: 1, name: "b" })]);
    const id = Number(r.ids.b);
    // A node made outside Pulumi: no Delete of this host removes it.
    await p.client.nodes.create(1, id, { operatingSystem: { id: 3 }, type: { id: 1 }, domain: { id: 1 }, cpuCount: 1 });
    const mark = p.emu.requests().length;
    await eng.destroy();
    assert.deepEqual(deletes(mark), [`/v1/bunits/1/consumers/${id} ok`]);
    assert.equal(left([id]), 0);
  });

  it("a node whose DELETE did not succeed here (its answer lost, the retry finds it gone) leaves the consumer's own DELETE", async () => {
    const eng = p.engine();
    const r = await eng.up([consumer("c", { businessUnitId: 1, name: "c", nodeName: "*" }), nodeOf("c")]);
    const id = Number(r.ids.c);
    p.emu.setFaults({ dropAfterRate: 1, count: 1, match: { method: "DELETE", pathPrefix: `/v1/bunits/1/consumers/${id}/node` } });
    const mark = p.emu.requests().length;
    await eng.destroy();
    assert.deepEqual(deletes(mark), [
      `/v1/bunits/1/consumers/${id}/node 0`,
      `/v1/bunits/1/consumers/${id}/node 404`,
      `/v1/bunits/1/consumers/${id} 404`,
    ]);
    assert.equal(left([id]), 0);
  });

  it("a node whose DELETE failed keeps its consumer; the next destroy removes both", async () => {
    const eng = p.engine();
    const r = await eng.up([consumer("d", { businessUnitId: 1, name: "d", nodeName: "*" }), nodeOf("d")]);
    const id = Number(r.ids.d);
    p.emu.setFaults({ errorRate: 1, statuses: [500], match: { method: "DELETE" } });
    await assert.rejects(eng.destroy());
    p.emu.clearFaults();
    assert.equal(left([id]), 1, "the consumer is still there, and so is it in state");
    const mark = p.emu.requests().length;
    await eng.destroy();
    assert.deepEqual(deletes(mark), [`/v1/bunits/1/consumers/${id}/node ok`]);
    assert.equal(left([id]), 0);
    assert.equal(eng.state.size, 0);
  });
});
