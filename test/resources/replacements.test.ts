// README claims through the provider host: Consumer.businessUnitId replaces (create first, then delete), and a
// plain-string tsmPassword given to the real Node class is stored as a secret.
import assert from "node:assert/strict";
import * as pulumi from "@pulumi/pulumi";
import { runProgramWithEngine } from "../engine/mocks";
import { Consumer } from "../../provider/resources/consumer";
import { Node } from "../../provider/resources/node";
import { consumer, portalSuite, writesSince } from "./support";

const NODE_PASSWORD = "Plain-String-Node-Pa55word-93c2e7a1";

describe("replacements and secrets through the real classes", function () {
  this.timeout(60_000);
  const p = portalSuite();

  it("Consumer.businessUnitId: a replacement, the new consumer made before the old one is deleted", async () => {
    const eng = p.engine();
    const first = await eng.up([consumer("c", { businessUnitId: 1, name: "moving" })]);
    const oldId = Number(first.ids.c);
    const mark = p.emu.requests().length;
    const moved = await eng.up([consumer("c", { businessUnitId: 2, name: "moving" })]);
    const step = moved.steps.find((s) => s.urn.endsWith("::c"))!;
    assert.deepEqual([step.op, step.replaces, !!step.deleteBeforeReplace], ["replace", ["businessUnitId"], false]);
    const writes = writesSince(p.emu, mark).map((r) => `${r.method} ${r.path.replace(/\?.*/, "")}`);
    assert.deepEqual(writes, ["POST /v1/bunits/2/consumers", `DELETE /v1/bunits/1/consumers/${oldId}`], "create first, then delete");
    const newId = Number(moved.ids.c);
    assert.equal((await p.client.consumers.get(2, newId)).name, "moving");
    assert.equal(
      (await p.client.consumers.list(1)).some((c) => c.id === oldId),
      false,
    );
  });

  it("a plain-string tsmPassword given to Node is a secret in state, inputs and outputs", async () => {
    const eng = p.engine();
    await runProgramWithEngine(() => {
      const c = new Consumer("c", { businessUnitId: 1, name: "secret-holder" });
      new Node("n", {
        businessUnitId: 1,
        consumerId: c.consumerId,
        operatingSystem: "Linux",
        type: "File server",
        domain: "STANDARD",
        cpuCount: 1,
        tsmName: "PLAIN-PW",
        tsmPassword: NODE_PASSWORD as pulumi.Input<string>,
      });
    }, eng);
    const n = eng.get("n")!;
    for (const [where, v] of [
      ["inputs", n.inputs.tsmPassword],
      ["outputs", n.outputs.tsmPassword],
    ] as const) {
      assert.equal(
        (v as Record<string, unknown>)?.["4dabf18193072939515e22adb298388d"],
        "1b47061264138c4ac30d75fd1eb44270",
        `${where}: ${JSON.stringify(v)?.replace(NODE_PASSWORD, "***")}`,
      );
    }
    const plain = JSON.stringify({ ...n, inputs: { ...n.inputs, tsmPassword: null }, outputs: { ...n.outputs, tsmPassword: null } });
    assert.ok(!plain.includes(NODE_PASSWORD), "nowhere else in the resource's state");
  });
});
