// A node create whose answers are lost twice in a row: the first POST never
// reaches the portal, the repeated one is processed but its answer is dropped,
// so the transport's next repeat finds the node there (409). The client must
// return that node, not fail: the next `pulumi up` could not create it either.
import assert from "node:assert/strict";
import { clientFor, Emulator, startEmulator } from "../support/portal";
import { PortalClient } from "../../provider/portal";

describe("fault drill: lost answers of a node create", function () {
  this.timeout(30_000);
  let emu: Emulator;
  let client: PortalClient;

  before(async () => {
    emu = await startEmulator({ port: 0, quiet: true });
  });
  after(async () => {
    client?.close();
    await emu.close();
  });

  it("dropped before, then dropped after processing: the node is made once and returned", async () => {
    client = clientFor(emu);
    const c = await client.consumers.create(2, { name: "lost-answers" });
    const path = `/v1/bunits/2/consumers/${c.id}/node`;
    // Seed 8: the first matching POST is dropped before processing, the second after; then no more faults.
    emu.setFaults({ dropBeforeRate: 0.5, dropAfterRate: 1, seed: 8, count: 2, match: { method: "POST", pathPrefix: path } });
    const mark = emu.requests().length;
    const node = await client.nodes.create(2, c.id, { operatingSystem: { id: 3 }, type: { id: 1 }, domain: { id: 1 }, cpuCount: 1 });
    const log = emu
      .requests()
      .slice(mark)
      .map((r) => `${r.method} ${r.path.replace(String(c.id), "{c}")} ${r.status}`);
    assert.deepEqual(log, [
      "POST /v1/bunits/2/consumers/{c}/node 0", // dropped before: not made
      "GET /v1/bunits/2/consumers/{c}/node 404", // looked up: none
      "POST /v1/bunits/2/consumers/{c}/node 0", // made, answer dropped
      "POST /v1/bunits/2/consumers/{c}/node 409", // the transport's repeat finds it
      "GET /v1/bunits/2/consumers/{c}/node 200", // and it is read back
    ]);
    assert.equal(emu.state().nodes.filter((n) => n.consumerId === c.id).length, 1);
    assert.equal(node.id, emu.state().nodes.find((n) => n.consumerId === c.id)!.id);
  });
});
