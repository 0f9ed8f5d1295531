// The `backupportal` plugin process driven over gRPC as the engine drives a resource plugin, against the
// emulator: every resource's lifecycle, previews with unknowns, secrets, provider configuration and two
// explicit providers. Engine files each behaviour follows are named in the tests.
import assert from "node:assert/strict";
import { ORIGIN, startEmulator, type Emulator } from "../support/portal";
import { writesSince } from "../resources/support";
import { secret, SECRET_SIG, SIG_KEY, UNKNOWN } from "../engine/values";
import * as provproto from "@pulumi/pulumi/proto/provider_pb";
import * as statusproto from "@pulumi/pulumi/proto/status_pb";
import { GrpcCallError } from "../engine/grpc-unary";
import { clientFor } from "../support/portal";
import { Plugin, urnOf } from "./plugin";

export const providerArgs = (emu: Emulator, user = "admin") => ({
  url: emu.url,
  origin: ORIGIN,
  clientId: "emulator",
  username: user,
  password: secret(user),
});
const isSecret = (v: unknown) => !!v && typeof v === "object" && (v as Record<string, unknown>)[SIG_KEY] === SECRET_SIG;

describe("backupportal plugin process", function () {
  this.timeout(240_000);
  let emu: Emulator;
  let plugin: Plugin;

  before(async () => {
    emu = await startEmulator();
    plugin = await Plugin.start();
    // provider_plugin.go Configure: the provider's inputs as args, secrets wrapped.
    const configured = await plugin.configure(providerArgs(emu));
    assert.deepEqual(configured, { acceptSecrets: true, supportsPreview: true });
  });
  after(async () => {
    await plugin?.close();
    await emu?.close();
  });

  it("prints its port and answers GetPluginInfo with the package version (plugin.go: port on the first stdout line)", async () => {
    assert.equal(await plugin.version(), require("../../package.json").version);
    // provider_plugin.go: an engine that sends Handshake reads acceptSecrets from its answer.
    const hs = provproto.ProviderHandshakeResponse.deserializeBinary(
      await plugin.call("Handshake", new provproto.ProviderHandshakeRequest().serializeBinary()),
    );
    assert.equal(hs.getAcceptSecrets(), true);
  });

  it("BusinessUnit: check → create → read → diff (none) → update → import by id → delete", async () => {
    const urn = urnOf("BusinessUnit", "acme");
    const declared = { parentId: "1", name: "Acme", registrationNumber: "556677-8899", timeZone: "W. Europe Standard Time" };
    // step_generator.go: Check with the old inputs (none) and the new ones.
    const checked = await plugin.check(urn, {}, declared);
    assert.deepEqual(checked.failures, []);
    assert.equal(checked.inputs.parentId, 1, "Check normalizes the id as the dynamic provider does");
    assert.match(String(checked.inputs.createKey), /^[0-9a-f]{32}$/, "the create key is derived from the URN");
    const created = await plugin.create(urn, checked.inputs);
    const id = created.id;
    assert.equal(created.properties.businessUnitId, Number(id));
    assert.equal((await emu_get(emu, `/v1/bunits/${id}`)).name, "Acme");
    // Refresh: Read with the state.
    const read = await plugin.read(id, urn, created.properties, checked.inputs);
    assert.equal(read.id, id);
    assert.equal(read.properties.name, "Acme");
    // An unchanged up: Diff says none and nothing is written.
    const mark = emu.requests().length;
    const same = await plugin.diff(id, urn, created.properties, checked.inputs);
    assert.equal(same.changes, "none");
    assert.deepEqual(writesSince(emu, mark), []);
    // DetailedDiff names each changed property and whether it replaces.
    const news = (await plugin.check(urn, checked.inputs, { ...declared, note: "gold" })).inputs;
    const changed = await plugin.diff(id, urn, created.properties, news);
    assert.deepEqual([changed.changes, changed.diffs, changed.detailed, changed.replaces], ["some", ["note"], { note: "update" }, []]);
    const moved = await plugin.diff(id, urn, created.properties, { ...news, parentId: 2 });
    assert.deepEqual(moved.detailed, { parentId: "replace", note: "update" });
    const updated = await plugin.update(id, urn, created.properties, news);
    assert.equal(updated.properties.note, "gold");
    // `pulumi import backupportal:index:BusinessUnit acme <id>`: Read with only the id (import.go).
    const imported = await plugin.read(id, urnOf("BusinessUnit", "imported"), {});
    assert.equal(imported.id, id);
    assert.deepEqual([imported.inputs?.name, imported.inputs?.parentId, imported.inputs?.note], ["Acme", 1, "gold"]);
    await plugin.delete(id, urn, updated.properties);
    assert.equal((await plugin.read(id, urn, updated.properties)).id, "", "gone after Delete");
  });

  it("Consumer, Node (password a secret in and out) and NodeProxy: the full lifecycle, import by <businessUnitId>/<id>", async () => {
    const cUrn = (n: string) => urnOf("Consumer", n);
    const consumerOf = async (n: string) => {
      const c = await plugin.check(cUrn(n), {}, { businessUnitId: 1, name: n, nodeName: n.toUpperCase() });
      assert.deepEqual(c.failures, []);
      return { inputs: c.inputs, ...(await plugin.create(cUrn(n), c.inputs)) };
    };
    const web = await consumerOf("web01");
    const db = await consumerOf("db01");
    assert.equal((await plugin.diff(web.id, cUrn("web01"), web.properties, web.inputs)).changes, "none");
    const webNews = (await plugin.check(cUrn("web01"), web.inputs, { businessUnitId: 1, name: "web01", nodeName: "WEB01", note: "n" }))
      .inputs;
    assert.equal((await plugin.update(web.id, cUrn("web01"), web.properties, webNews)).properties.note, "n");
    const importedConsumer = await plugin.read(`1/${web.id}`, cUrn("imp"), {});
    assert.deepEqual([importedConsumer.id, importedConsumer.inputs?.name], [web.id, "web01"]);

    const nUrn = urnOf("Node", "web-node");
    const nodeDeclared = {
      businessUnitId: 1,
      consumerId: Number(web.id),
      operatingSystem: "Linux",
      type: "File server",
      domain: "STANDARD",
      cpuCount: 2,
      tsmName: "WEB01",
      tsmPassword: secret("s3cret-pass"),
    };
    const nCheck = await plugin.check(nUrn, {}, nodeDeclared);
    assert.deepEqual(nCheck.failures, []);
    assert.ok(isSecret(nCheck.inputs.tsmPassword), "a secret input comes back a secret from Check");
    const node = await plugin.create(nUrn, nCheck.inputs);
    assert.equal(node.id, web.id);
    assert.ok(isSecret(node.properties.tsmPassword), "and from Create");
    assert.doesNotMatch(plugin.logs(), /s3cret-pass/);
    assert.equal(node.properties.activatedName, "WEB01");
    assert.equal((await plugin.diff(node.id, nUrn, node.properties, nCheck.inputs)).changes, "none");
    const nNews = (await plugin.check(nUrn, nCheck.inputs, { ...nodeDeclared, cpuCount: 4 })).inputs;
    const nDiff = await plugin.diff(node.id, nUrn, node.properties, nNews);
    assert.deepEqual(nDiff.detailed, { cpuCount: "update" });
    const nUpdated = await plugin.update(node.id, nUrn, node.properties, nNews);
    assert.equal(nUpdated.properties.cpuCount, 4);
    const nRead = await plugin.read(node.id, nUrn, nUpdated.properties, nNews);
    assert.ok(isSecret(nRead.properties.tsmPassword), "and from Read");
    const nImported = await plugin.read(`1/${node.id}`, urnOf("Node", "imp"), {});
    assert.deepEqual([nImported.id, nImported.inputs?.operatingSystem, nImported.inputs?.cpuCount], [node.id, "Linux", 4]);

    const pUrn = urnOf("NodeProxy", "web-for-db");
    // No tsmPassword: the portal chooses one at activation, and it comes back a secret (the table's secret output).
    const { tsmPassword: _declared, ...withoutPassword } = nodeDeclared;
    const dbNode = await plugin.create(
      urnOf("Node", "db-node"),
      (await plugin.check(urnOf("Node", "db-node"), {}, { ...withoutPassword, consumerId: Number(db.id), tsmName: "DB01" })).inputs,
    );
    assert.ok(isSecret(dbNode.properties.generatedPassword), "the password the portal chose is a secret");
    const pInputs = (await plugin.check(pUrn, {}, { businessUnitId: 1, agentConsumerId: web.id, targetConsumerId: db.id })).inputs;
    const proxy = await plugin.create(pUrn, pInputs);
    assert.equal(proxy.id, `${web.id}:${db.id}`);
    const pDiff = await plugin.diff(proxy.id, pUrn, proxy.properties, { ...pInputs, targetConsumerId: 99 });
    assert.deepEqual([pDiff.replaces, pDiff.deleteBeforeReplace], [["targetConsumerId"], true]);
    assert.equal((await plugin.diff(proxy.id, pUrn, proxy.properties, pInputs)).changes, "none");
    assert.equal((await plugin.update(proxy.id, pUrn, proxy.properties, pInputs)).properties.agentConsumerId, Number(web.id));
    assert.equal((await plugin.read(`1/${proxy.id}`, urnOf("NodeProxy", "imp"), {})).id, proxy.id);

    await plugin.delete(proxy.id, pUrn, proxy.properties);
    assert.equal((await plugin.read(proxy.id, pUrn, proxy.properties)).id, "");
    await plugin.delete(dbNode.id, urnOf("Node", "db-node"), dbNode.properties);
    await plugin.delete(node.id, nUrn, nUpdated.properties);
    assert.equal((await plugin.read(node.id, nUrn, nUpdated.properties)).id, "");
    await plugin.delete(web.id, cUrn("web01"), web.properties);
    await plugin.delete(db.id, cUrn("db01"), db.properties);
  });

  it("a property the program marks secret stays a secret from every call, previews included (provider_plugin.go: acceptSecrets)", async () => {
    const urn = urnOf("BusinessUnit", "hush");
    const declared = { parentId: 1, name: "Hush", registrationNumber: secret("556677-0001"), timeZone: "W. Europe Standard Time" };
    const checked = await plugin.check(urn, {}, declared);
    assert.deepEqual(checked.failures, []);
    assert.ok(isSecret(checked.inputs.registrationNumber), "Check");
    assert.equal(checked.inputs.name, "Hush", "and only what was secret");
    assert.ok(isSecret((await plugin.create(urn, checked.inputs, true)).properties.registrationNumber), "Create in a preview");
    const created = await plugin.create(urn, checked.inputs);
    assert.ok(isSecret(created.properties.registrationNumber), "Create");
    const read = await plugin.read(created.id, urn, created.properties, checked.inputs);
    assert.ok(isSecret(read.properties.registrationNumber), "Read");
    assert.ok(isSecret(read.inputs?.registrationNumber), "Read's inputs");
    // New inputs with another secret, and the old one no longer marked: the state's secret stays one.
    const news = (await plugin.check(urn, checked.inputs, { ...declared, registrationNumber: "556677-0001", note: secret("vip") })).inputs;
    const mark = emu.requests().length;
    const planned = await plugin.update(created.id, urn, created.properties, news, true);
    assert.deepEqual(writesSince(emu, mark), [], "an Update in a preview writes nothing");
    assert.deepEqual(
      [planned.properties.businessUnitId, planned.properties.name, isSecret(planned.properties.note)],
      [Number(created.id), "Hush", true],
      "it shows the state's outputs with the new inputs",
    );
    const updated = await plugin.update(created.id, urn, created.properties, news);
    assert.ok(isSecret(updated.properties.note), "Update: the new secret");
    assert.ok(isSecret(updated.properties.registrationNumber), "Update: the state's secret");
    await plugin.delete(created.id, urn, updated.properties);
  });

  it("a preview: Check and Diff with unknowns pass, Create with preview writes nothing (plan.go, step_generator.go)", async () => {
    const urn = urnOf("Consumer", "later");
    const mark = emu.requests().length;
    const checked = await plugin.check(urn, {}, { businessUnitId: UNKNOWN, name: "later" }, true);
    assert.deepEqual(checked.failures, []);
    assert.equal(checked.inputs.businessUnitId, UNKNOWN);
    const preview = await plugin.create(urn, checked.inputs, true);
    assert.equal(preview.id, "");
    assert.equal(preview.properties.name, "later");
    assert.equal(preview.properties.consumerId, UNKNOWN, "an output is unknown in a preview, not missing");
    const diff = await plugin.diff("5", urn, { businessUnitId: 1, name: "later" }, { businessUnitId: UNKNOWN, name: "later" }, true);
    assert.deepEqual(diff.replaces, ["businessUnitId"]);
    assert.deepEqual(writesSince(emu, mark), []);
  });

  it("Check refuses wrong inputs with the rule tables' messages, every problem at once", async () => {
    const r = await plugin.check(
      urnOf("BusinessUnit", "bad"),
      {},
      { parentId: 1, name: "", registrationNumber: "x", timeZone: "Mars/Olympus", invoiceDay: 31 },
    );
    const props = r.failures.map((f) => f.property).sort();
    assert.deepEqual(props, ["invoiceDay", "name", "timeZone"]);
    assert.match(
      r.failures.find((f) => f.property === "timeZone")!.reason,
      /unknown time zone .*"Mars\/Olympus"; valid: .*W\. Europe Standard Time/,
    );
  });

  it("Check refuses a node type its operating system does not support (issue 45 item 6), at type, reading only", async () => {
    const mark = emu.requests().length;
    const declared = {
      businessUnitId: 1,
      consumerId: 1,
      operatingSystem: "Windows server",
      type: "Workstation",
      domain: "STANDARD",
      cpuCount: 1,
    };
    const r = await plugin.check(urnOf("Node", "pair"), {}, declared);
    assert.deepEqual(r.failures, [
      {
        property: "type",
        reason:
          'type: node type "Workstation" is not one operating system "Windows server" supports; the portal lists for it: File server, ' +
          "Application server: set type to one of them, or choose another operatingSystem",
      },
    ]);
    assert.deepEqual(writesSince(emu, mark), []);
    assert.deepEqual((await plugin.check(urnOf("Node", "pair"), {}, { ...declared, type: "Application server" })).failures, []);
  });

  // provider_plugin.go Create: an error with ErrorResourceInitFailed details records the object as partially
  // created, with the properties the details carry: those go to state as an answer's would, secrets wrapped.
  it("Node: a create whose activation fails hands the engine the node's id and properties, a secret input still a secret", async () => {
    const admin = clientFor(emu);
    try {
      const holder = await admin.consumers.create(1, { name: "holder" });
      await admin.nodes.create(1, holder.id, { operatingSystem: { id: 3 }, type: { id: 1 }, domain: { id: 1 }, cpuCount: 1 });
      await admin.nodes.activate(1, holder.id, "TAKEN");
      const cUrn = urnOf("Consumer", "part01");
      const consumer = await plugin.create(
        cUrn,
        (await plugin.check(cUrn, {}, { businessUnitId: 1, name: "part01", nodeName: "TAKEN" })).inputs,
      );
      const nUrn = urnOf("Node", "part-node");
      const declared = {
        businessUnitId: 1,
        consumerId: Number(consumer.id),
        operatingSystem: "Linux",
        type: "File server",
        domain: secret("STANDARD"),
        cpuCount: 2,
        tsmName: "TAKEN",
        tsmPassword: secret("s3cret-part"),
      };
      const checked = await plugin.check(nUrn, {}, declared);
      const err = await plugin.create(nUrn, checked.inputs).then(
        () => assert.fail("the activation of a name another node holds must fail"),
        (e: unknown) => e as GrpcCallError,
      );
      assert.ok(err instanceof GrpcCallError, String(err));
      assert.match(err.details, /^created \d+, but a later step failed: .*run `pulumi up` again to finish it\.$/);
      const status = statusproto.Status.deserializeBinary(new Uint8Array(err.statusDetails!));
      const any = status.getDetailsList().find((d) => d.getTypeName() === "pulumirpc.ErrorResourceInitFailed");
      assert.ok(any, "the answer carries ErrorResourceInitFailed");
      const detail = provproto.ErrorResourceInitFailed.deserializeBinary(any.getValue_asU8());
      assert.equal(detail.getId(), consumer.id);
      const props = detail.getProperties()!.toJavaScript() as Record<string, unknown>;
      assert.equal(props.nodeId, Number(consumer.id));
      assert.equal(props.tsmPassword, undefined, "the unfinished password is not recorded");
      assert.ok(isSecret(props.domain), `a secret input stays a secret in the recorded properties: ${JSON.stringify(props.domain)}`);
      assert.doesNotMatch(err.details + plugin.logs(), /s3cret-part/);
      // Issue 45 item 7: the hint says what to do, and doing it works: another tsmName passes Check (the old one was
      // never activated) and the next up activates the kept node under it.
      assert.match(err.details, /TsmNameTaken: .*Hint: a tsmName is unique on the backup server .*: choose another tsmName\./);
      const renamed = await plugin.check(nUrn, checked.inputs, { ...declared, tsmName: "PART01" });
      assert.deepEqual(renamed.failures, []);
      const diff = await plugin.diff(consumer.id, nUrn, props, renamed.inputs);
      assert.equal(diff.changes, "some");
      await plugin.update(consumer.id, nUrn, props, renamed.inputs);
      assert.equal((await admin.nodes.get(1, Number(consumer.id))).tsmName, "PART01");
    } finally {
      admin.close();
    }
  });
});

async function emu_get(emu: Emulator, path: string): Promise<Record<string, any>> {
  const { clientFor } = await import("../support/portal");
  const client = clientFor(emu);
  try {
    return await client.businessUnits.get(Number(path.split("/").pop()));
  } finally {
    client.close();
  }
}
