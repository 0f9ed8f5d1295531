// What each resource class registers, under the SDK's mocks in this process (no engine, no portal): its type, the
// hidden inputs it adds (createKey, the Consumer's deleteAssociations default), the node's password as a secret
// and its secret output, NodeProxy's delete-first replacement. The engine-driven tests prove the effect of these
// (test/resources/secrets-in-state.test.ts, node-proxy-class.test.ts); here a mutation tool can see the code.
import assert from "node:assert/strict";
import * as pulumi from "@pulumi/pulumi";
import { createKeyFor } from "../../provider/dynamic/recovery";
import { BusinessUnit } from "../../provider/resources/business-unit";
import { Consumer } from "../../provider/resources/consumer";
import { Node } from "../../provider/resources/node";
import { NodeProxy } from "../../provider/resources/node-proxy";
import { isSecretValue, unwrap } from "../support/mocks";

// Internal SDK module (stable for years): the mock monitor, to see the RegisterResource request itself.
const settings = require("@pulumi/pulumi/runtime/settings") as { getMonitor(): { registerResource: (req: any, cb: unknown) => unknown } };

interface Registered {
  type: string;
  inputs: Record<string, any>;
  additionalSecretOutputs: string[];
  deleteBeforeReplace: boolean;
}

/** The RegisterResource request of the one resource `create` makes, under plain mocks. */
async function registration(create: () => void): Promise<Registered> {
  const seen: Registered[] = [];
  await pulumi.runtime.setMocks(
    { newResource: (args) => ({ id: `${args.name}-id`, state: args.inputs }), call: (args) => args.inputs },
    "backup-portal",
    "test",
    false,
  );
  const monitor = settings.getMonitor();
  const original = monitor.registerResource.bind(monitor);
  monitor.registerResource = (req: any, cb: unknown) => {
    seen.push({
      type: req.getType(),
      inputs: req.getObject()?.toJavaScript() ?? {},
      additionalSecretOutputs: req.getAdditionalsecretoutputsList(),
      deleteBeforeReplace: req.getDeletebeforereplace(),
    });
    return original(req, cb);
  };
  create();
  const deadline = Date.now() + 5_000;
  while (seen.length < 1 && Date.now() < deadline) await new Promise((r) => setImmediate(r));
  assert.equal(seen.length, 1, "one registration");
  return seen[0];
}

describe("resource classes: what they register (in process, under mocks)", function () {
  this.timeout(20_000);

  it("BusinessUnit: its type, the inputs as given, and its createKey", async () => {
    const r = await registration(() => new BusinessUnit("acme", { parentId: 1, name: "Acme", registrationNumber: "1", timeZone: "UTC" }));
    assert.equal(r.type, "pulumi-nodejs:dynamic/backup-portal:BusinessUnit");
    assert.deepEqual([r.inputs.parentId, r.inputs.name, r.inputs.timeZone], [1, "Acme", "UTC"]);
    assert.equal(r.inputs.createKey, createKeyFor("BusinessUnit", "acme", "backup-portal", "test"));
  });

  it("Consumer: deleteAssociations true unless given, and its createKey", async () => {
    const r = await registration(() => new Consumer("web", { businessUnitId: 2, name: "web" }));
    assert.equal(r.type, "pulumi-nodejs:dynamic/backup-portal:Consumer");
    assert.equal(r.inputs.deleteAssociations, true);
    assert.equal(r.inputs.createKey, createKeyFor("Consumer", "web", "backup-portal", "test"));
    const kept = await registration(() => new Consumer("web", { businessUnitId: 2, name: "web", deleteAssociations: false }));
    assert.equal(kept.inputs.deleteAssociations, false);
  });

  it("Node: the password a secret (a plain string too), also as an output, the caller's secret outputs kept", async () => {
    const pw = "Class-Registration-Pa55word-5e5e";
    const base = { businessUnitId: 2, consumerId: 2, operatingSystem: "Linux", type: "File server", domain: "STANDARD", cpuCount: 1 };
    const r = await registration(() => new Node("n", { ...base, tsmPassword: pw }, { additionalSecretOutputs: ["contact"] }));
    assert.equal(r.type, "pulumi-nodejs:dynamic/backup-portal:Node");
    assert.ok(isSecretValue(r.inputs.tsmPassword));
    assert.equal(unwrap(r.inputs.tsmPassword), pw);
    assert.deepEqual([...r.additionalSecretOutputs].sort(), ["contact", "generatedPassword", "tsmPassword"]);
    const none = await registration(() => new Node("n", base));
    assert.ok(!("tsmPassword" in none.inputs), "no password: none registered");
    assert.deepEqual(none.additionalSecretOutputs, ["tsmPassword", "generatedPassword"]);
  });

  it("NodeProxy: replaced delete first unless the caller says otherwise", async () => {
    const args = { businessUnitId: 1, agentConsumerId: 2, targetConsumerId: 3 };
    const r = await registration(() => new NodeProxy("p", args));
    assert.deepEqual([r.type, r.deleteBeforeReplace], ["pulumi-nodejs:dynamic/backup-portal:NodeProxy", true]);
    assert.deepEqual([r.inputs.agentConsumerId, r.inputs.targetConsumerId], [2, 3]);
    assert.equal((await registration(() => new NodeProxy("p", args, { deleteBeforeReplace: false }))).deleteBeforeReplace, false);
  });
});
