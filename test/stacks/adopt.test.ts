// Adoption from stack config (README): adoptId on a business unit and a consumer, `adopt: true` on a node.
import assert from "node:assert/strict";
import { portalSuite, writesSince } from "../resources/support";
import { runStack, settings } from "./support";

/** Tenant B of the emulator's seed, with its consumer erp-01 and that consumer's activated node ERP-01. */
const tenantB = (node: Record<string, unknown>) => ({
  tenantb: {
    adoptId: 3,
    name: "Tenant B",
    registrationNumber: "TB-0001",
    timeZone: "UTC",
    consumers: {
      erp: {
        adoptId: 3,
        name: "erp-01",
        node: {
          operatingSystem: "Windows server",
          type: "File server",
          domain: "1YEAR",
          clientOptionSet: "FORCE_ENCRYPT",
          contact: "it@tenant-b.example",
          cpuCount: 8,
          tsmName: "ERP-01",
          ...node,
        },
      },
    },
  },
});

describe("stack config: adopting what the portal has", function () {
  this.timeout(120_000);
  const p = portalSuite();

  it("`adopt: true` on a node takes over the consumer's node: nothing created, only what differs written", async () => {
    const eng = p.engine();
    const mark = p.emu.requests().length;
    const run = await runStack(eng, settings(tenantB({ adopt: true, cpuCount: 6 }), p.client));
    assert.ok(
      run.steps.every((s) => s.op === "create"),
      JSON.stringify(run.steps),
    );
    const w = writesSince(p.emu, mark).map((x) => `${x.method} ${x.path.replace(/\?.*/, "")}`);
    assert.deepEqual(w, ["PUT /v1/bunits/3/consumers/3/node"], "no POST: business unit, consumer and node adopted");
    const n = eng.state.get([...eng.state.keys()].find((u) => u.endsWith("Node::tenantb/erp"))!)!;
    assert.equal(n.id, "3", "the node's id is its consumer's");
    assert.equal(n.outputs.activatedName, "ERP-01");
    const node = await p.client.nodes.get(3, 3);
    assert.equal(node.cpuCount, 6);
    assert.equal(node.tsmName, "ERP-01");
    assert.ok((await eng.refresh()).every((s) => s.op === "same"));
  });

  it("without `adopt: true`, a node of another name on that consumer is refused and left alone", async () => {
    const eng = p.engine();
    await assert.rejects(
      runStack(eng, settings(tenantB({ tsmName: "ERP-02" }), p.client)),
      /consumer 3 already has a node activated as ERP-01; to manage it, set adoptId: 3/,
    );
    const node = await p.client.nodes.get(3, 3);
    assert.deepEqual([node.tsmName, node.cpuCount], ["ERP-01", 8], "the existing node is untouched");
  });
});
