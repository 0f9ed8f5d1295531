// The `__provider` the engine stores for every resource (provider/dynamic/provider.ts), through the real
// dynamic-provider host (@pulumi/pulumi/cmd/dynamic-provider) driven by the engine stand-in: new stacks store the
// one-line text, and stacks written by 0.2.0 (the closure serializer's 2.6 KB text, kept byte for byte in
// fixtures/provider-0.2.0/) keep working. The engine runs the text stored in state for Read and Delete, and keeps
// the stored outputs while Diff finds no change (step_executor.go / step.go, as test/engine/engine.ts follows),
// so an upgraded stack runs both texts in one host. Needs dist/ (`npm run build`): the host loads the compiled code.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { DesiredResource, ref, secret, TestEngine } from "../engine/engine";
import { stackConfigFor } from "../support/portal";
import { installMocks, Recorded, valueOf } from "../support/mocks";
import { businessUnit, consumer, node, nodeProxy, ops, portalSuite, TYPES, writesSince } from "../resources/support";
import { BusinessUnit, businessUnitProviderText } from "../../provider/resources/business-unit";
import { Consumer, consumerProviderText } from "../../provider/resources/consumer";
import { Node, nodeProviderText } from "../../provider/resources/node";
import { NodeProxy, nodeProxyProviderText } from "../../provider/resources/node-proxy";

const LEGACY = path.join(__dirname, "fixtures", "provider-0.2.0");
/** The `__provider` 0.2.0 stored, by type, as its program in `stacks/` serialized it. */
const legacy: Record<string, string> = {
  [TYPES.BusinessUnit]: fs.readFileSync(path.join(LEGACY, "business-unit.txt"), "utf8"),
  [TYPES.Consumer]: fs.readFileSync(path.join(LEGACY, "consumer.txt"), "utf8"),
  [TYPES.Node]: fs.readFileSync(path.join(LEGACY, "node.txt"), "utf8"),
  [TYPES.NodeProxy]: fs.readFileSync(path.join(LEGACY, "node-proxy.txt"), "utf8"),
};
const current: Record<string, string> = {
  [TYPES.BusinessUnit]: businessUnitProviderText,
  [TYPES.Consumer]: consumerProviderText,
  [TYPES.Node]: nodeProviderText,
  [TYPES.NodeProxy]: nodeProxyProviderText,
};

/** A business unit with two consumers, each with an activated node, and a proxy between the nodes. */
function tenant(note = "first"): DesiredResource[] {
  const consumerWithNode = (c: string, tsmName: string) => [
    consumer(`acme/${c}`, { businessUnitId: ref("acme"), name: c, nodeName: tsmName }),
    node(`acme/${c}/node`, {
      businessUnitId: ref("acme"),
      consumerId: ref(`acme/${c}`),
      operatingSystem: "Linux",
      type: "File server",
      domain: "STANDARD",
      cpuCount: 2,
      tsmName,
      tsmPassword: secret(`Pw-${tsmName}-x9`),
    }),
  ];
  return [
    businessUnit("acme", { parentId: 1, name: "acme", registrationNumber: "R-1", timeZone: "UTC", note }),
    ...consumerWithNode("a", "ACME-A"),
    ...consumerWithNode("b", "ACME-B"),
    {
      ...nodeProxy("acme/b>a", { businessUnitId: ref("acme"), agentConsumerId: ref("acme/b"), targetConsumerId: ref("acme/a") }),
      dependsOn: ["acme/a/node", "acme/b/node"],
    },
  ];
}

const withLegacyProvider = (rs: DesiredResource[]) => rs.map((r) => ({ ...r, provider: legacy[r.type] }));
const average = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

describe("the __provider in state, through the real provider host", function () {
  this.timeout(120_000);
  const p = portalSuite();
  // The connection from the stack config alone (no BACKUP_PORTAL_* in the host's environment): each text's
  // configure must hand it to the portal connection.
  const engine = () =>
    p.track(new TestEngine({ stack: "test", config: stackConfigFor(p.emu.url), secretConfigKeys: ["backup-portal:password"], env: {} }));

  it("each class registers its one-line text, which requires its module by the program folder's specifier", async () => {
    const recorded: Recorded[] = await installMocks();
    const made: pulumi.CustomResource[] = [
      new BusinessUnit("m-bu", { parentId: 1, name: "m", registrationNumber: "R", timeZone: "UTC" }),
      new Consumer("m-c", { businessUnitId: 2, name: "c" }),
      new Node("m-n", { businessUnitId: 2, consumerId: 3, operatingSystem: "Linux", type: "File server", domain: "STANDARD", cpuCount: 1 }),
      new NodeProxy("m-p", { businessUnitId: 2, agentConsumerId: 3, targetConsumerId: 4 }),
    ];
    await Promise.all(made.map((r) => valueOf(r.urn)));
    const files = { BusinessUnit: "business-unit", Consumer: "consumer", Node: "node", NodeProxy: "node-proxy" };
    for (const [kind, file] of Object.entries(files)) {
      const type = TYPES[kind as keyof typeof TYPES];
      const r = recorded.find((x) => x.type === type);
      assert.ok(r, `${type} registered`);
      const exportName = `${kind[0].toLowerCase()}${kind.slice(1)}Provider`;
      // The tests run in the project's root; the engine runs the program in `stacks/` (Pulumi.yaml's main).
      assert.equal(r.inputs.__provider, `exports.handler=()=>require("../dist/provider/resources/${file}").${exportName}`);
      assert.equal(r.inputs.__provider, current[type]);
    }
  });

  it("a new stack stores it in inputs and outputs, and up, no-op up, refresh, update and destroy run through it", async () => {
    const eng = engine();
    const made = await eng.up(tenant());
    assert.ok(
      Object.values(ops(made.steps)).every((op) => op === "create"),
      JSON.stringify(ops(made.steps)),
    );
    for (const r of eng.state.values()) {
      assert.equal(r.inputs.__provider, current[r.type], `${r.urn} inputs`);
      assert.equal(r.outputs.__provider, current[r.type], `${r.urn} outputs`);
      assert.ok(current[r.type].length <= 100, `${current[r.type].length} bytes`);
    }
    const mark = p.emu.requests().length;
    const again = await eng.up(tenant());
    assert.ok(
      Object.values(ops(again.steps)).every((op) => op === "same"),
      JSON.stringify(ops(again.steps)),
    );
    const refreshed = await eng.refresh();
    assert.ok(
      refreshed.every((s) => s.op === "same"),
      JSON.stringify(ops(refreshed)),
    );
    assert.deepEqual(writesSince(p.emu, mark), [], "no-op up and refresh write nothing");
    const updated = await eng.up(tenant("second"));
    assert.equal(ops(updated.steps).acme, "update");
    assert.equal(p.emu.state().businessUnits.find((b) => b.name === "acme")?.note, "second");
    await eng.destroy();
    assert.equal(eng.state.size, 0);
    assert.equal(p.emu.state().businessUnits.filter((b) => b.name === "acme").length, 0, "deleted on the portal");
    assert.equal(p.emu.state().nodes.filter((n) => n.tsmName?.startsWith("ACME-")).length, 0);
  });

  it("a stack written by 0.2.0 (its 2.6 KB text in state) upgrades without a write; refresh, update and destroy run the stored text", async () => {
    const eng = engine();
    await eng.up(withLegacyProvider(tenant()));
    const oldBytes = eng.stateBytesPerResource();
    for (const r of eng.state.values()) assert.equal(r.outputs.__provider, legacy[r.type], `${r.urn}: state as 0.2.0 wrote it`);

    // The first up with this version: Check and Diff run the new text and find nothing to do.
    let mark = p.emu.requests().length;
    const upgraded = await eng.up(tenant());
    assert.ok(
      Object.values(ops(upgraded.steps)).every((op) => op === "same"),
      JSON.stringify(ops(upgraded.steps)),
    );
    assert.deepEqual(writesSince(p.emu, mark), [], "the upgrade writes nothing to the portal");
    for (const r of eng.state.values()) {
      assert.equal(r.inputs.__provider, current[r.type], `${r.urn}: new inputs`);
      assert.equal(r.outputs.__provider, legacy[r.type], `${r.urn}: the engine keeps the stored outputs`);
    }

    // Refresh reads with the stored (0.2.0) text: Read(id, outputs).
    mark = p.emu.requests().length;
    const refreshed = await eng.refresh();
    assert.ok(
      refreshed.every((s) => s.op === "same"),
      JSON.stringify(ops(refreshed)),
    );
    assert.equal(
      p.emu
        .requests()
        .slice(mark)
        .filter((r) => r.method === "GET" && r.path !== "/v1/oauth").length,
      eng.state.size,
      "one read per resource, each through the stored text",
    );

    // An update runs the new text and stores it; the others keep 0.2.0's until they change.
    const updated = await eng.up(tenant("second"));
    assert.equal(ops(updated.steps).acme, "update");
    const bu = eng.get("acme")!;
    assert.equal(bu.outputs.__provider, current[TYPES.BusinessUnit]);
    assert.equal(eng.get("acme/a")!.outputs.__provider, legacy[TYPES.Consumer]);
    const newBytes = eng.stateBytesPerResource()[bu.urn];
    assert.ok(oldBytes[bu.urn] - newBytes > 2 * 2400, `state of the business unit: ${oldBytes[bu.urn]} → ${newBytes} bytes`);

    // Destroy: Delete(id, outputs) runs 0.2.0's text for every resource but the business unit.
    await eng.destroy();
    assert.equal(eng.state.size, 0);
    const left = p.emu.state();
    assert.equal(left.businessUnits.filter((b) => b.name === "acme").length, 0, "the business unit is deleted");
    assert.equal(left.nodes.filter((n) => n.tsmName?.startsWith("ACME-")).length, 0, "the nodes are deleted");
    assert.deepEqual(eng.currentHost?.logs().match(/Error[^\n]*/g) ?? [], []);
  });

  it("state bytes per resource: the one-line text against 0.2.0's", async () => {
    const eng = engine();
    await eng.up(withLegacyProvider(tenant()));
    const before = average(Object.values(eng.stateBytesPerResource()));
    await eng.destroy();
    await eng.up(tenant());
    const after = average(Object.values(eng.stateBytesPerResource()));
    await eng.destroy();
    const providerBefore = average(Object.values(legacy).map((t) => t.length));
    const providerAfter = average(Object.values(current).map((t) => t.length));
    // Stored twice (inputs and outputs), as JSON: 0.2.0's text with its line breaks and quotes escaped.
    assert.ok(before - after > 2 * (providerBefore - providerAfter), `${before.toFixed(0)} → ${after.toFixed(0)} bytes per resource`);
    assert.ok(after < 1.5 * 1024, `${after.toFixed(0)} bytes per resource`);
    console.log(
      `      __provider ${providerBefore.toFixed(0)} → ${providerAfter.toFixed(0)} bytes; state ${before.toFixed(0)} → ${after.toFixed(0)} bytes per resource`,
    );
  });
});
