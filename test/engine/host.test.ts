/** TEST: the raw engine-side wire layer against the real dynamic-provider host. */
import * as assert from "assert";
import * as fs from "fs";
import * as pulumi from "@pulumi/pulumi";
import { ProviderError, ProviderHost, startProviderHost } from "./host";
import { makeCounterProvider, makeStoreDir, readStore } from "./fixtures/counter-provider";
import { UNKNOWN } from "./values";

const URN = "urn:pulumi:test::backup-portal::pulumi-nodejs:dynamic/counter:Counter::";

describe("engine stand-in: provider host (gRPC)", function () {
  this.timeout(60000);
  let dir: string;
  let host: ProviderHost;
  let providerText: string;

  before(async () => {
    const sf = await pulumi.runtime.serializeFunction(() => makeCounterProvider("v1"), { allowSecrets: true });
    providerText = sf.text;
  });
  beforeEach(async () => {
    dir = makeStoreDir();
    host = await startProviderHost({
      env: { COUNTER_FIXTURE_DIR: dir },
      config: { url: "https://portal.example", "backup-portal:token": "tok-123" },
      secretKeys: ["backup-portal:token"],
    });
  });
  afterEach(async () => {
    await host.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("spawns the host as the engine does, reads the port, and configures it", async () => {
    assert.ok(host.port > 0);
    assert.deepStrictEqual(
      host.calls.map((c) => c.method),
      ["Handshake", "GetPluginInfo", "CheckConfig", "Configure"],
    );
    // The host never accepts secrets and never claims preview support.
    assert.deepStrictEqual(host.configured, { acceptSecrets: false, acceptResources: false, supportsPreview: false, acceptOutputs: false });
    assert.strictEqual(host.project, "backup-portal");
  });

  it("Configure: provider sees namespaced keys, bare get() uses the project, secret values unwrapped", async () => {
    await host.check(URN + "a", {}, { __provider: providerText, name: "a" });
    const conf = readStore(dir).log.find((l) => l.op === "configure")!;
    assert.deepStrictEqual(conf.keys, ["backup-portal:token", "backup-portal:url"]);
    assert.strictEqual(conf.url, "https://portal.example");
    assert.strictEqual(conf.token, "tok-123");
  });

  it("Check/Diff/Create/Read/Update/Delete round-trip", async () => {
    const urn = URN + "a";
    const chk = await host.check(urn, {}, { __provider: providerText, name: "a", extra: null });
    assert.deepStrictEqual(chk.failures, []);
    assert.strictEqual(chk.inputs.value, 0); // default filled in by check
    assert.strictEqual(chk.inputs.extra, null); // nulls are sent, not skipped
    const bad = await host.check(urn, {}, { __provider: providerText, name: 5 });
    assert.deepStrictEqual(bad.failures, [{ property: "name", reason: "name is required" }]);

    const created = await host.create(urn, chk.inputs);
    assert.strictEqual(created.id, "c-1");
    assert.strictEqual(created.properties.slug, "a-c-1");
    assert.strictEqual(created.properties.__provider, providerText); // the host copies __provider into outputs

    const same = await host.diff(created.id, urn, created.properties, chk.inputs, chk.inputs);
    assert.deepStrictEqual(same, { changes: "none", replaces: [], deleteBeforeReplace: false, diffs: [], stables: [] });
    const changed = await host.diff(created.id, urn, created.properties, { ...chk.inputs, key: "k" }, chk.inputs);
    assert.strictEqual(changed.changes, "some");
    assert.deepStrictEqual(changed.replaces, ["key"]);
    assert.deepStrictEqual(changed.diffs, []); // the Node.js host never reports changed keys

    const upd = await host.update(created.id, urn, created.properties, { ...chk.inputs, value: 7 }, chk.inputs);
    assert.strictEqual(upd.properties.value, 7);

    const read = await host.read(created.id, urn, upd.properties, chk.inputs);
    assert.strictEqual(read.id, "c-1");
    assert.strictEqual(read.properties.value, 7);
    assert.strictEqual(read.inputs?.value, 7);
    assert.strictEqual(read.inputs?.__provider, providerText);

    await host.delete(created.id, urn, upd.properties, chk.inputs);
    assert.deepStrictEqual(readStore(dir).objects, {});
    const gone = await host.read(created.id, urn, upd.properties);
    assert.strictEqual(gone.id, "");
  });

  it("unknowns travel as the sentinel only when kept (preview); otherwise they are dropped", async () => {
    const urn = URN + "u";
    const kept = await host.check(urn, {}, { __provider: providerText, name: UNKNOWN }, { preview: true });
    assert.strictEqual(kept.inputs.name, UNKNOWN);
    assert.deepStrictEqual(kept.failures, []);
    const dropped = await host.check(urn, {}, { __provider: providerText, name: pulumi.unknown });
    assert.deepStrictEqual(dropped.failures, [{ property: "name", reason: "name is required" }]);
  });

  it("provider errors reject with the provider's message; stderr is captured", async () => {
    const urn = URN + "e";
    await assert.rejects(host.check(urn, {}, { __provider: providerText, name: "e", throwInCheck: "kaboom" }), (e: unknown) => {
      assert.ok(e instanceof ProviderError);
      assert.strictEqual(e.message, "check exploded: kaboom");
      assert.strictEqual(e.method, "Check");
      return true;
    });
    await assert.rejects(host.create(urn, { __provider: providerText, name: "e", failCreate: "nope" }), /create failed for e: nope/);
    assert.match(host.logs(), /check exploded: kaboom/); // the host console.error()s check failures
  });

  it("the host ignores CreateRequest.preview (so the engine never sends a preview Create)", async () => {
    await host.create(URN + "p", { __provider: providerText, name: "p", value: 1 }, true);
    assert.strictEqual(Object.keys(readStore(dir).objects).length, 1);
  });

  it("kill() crashes the host: later calls reject", async () => {
    await host.kill();
    assert.ok(host.exited);
    await assert.rejects(host.check(URN + "k", {}, { __provider: providerText, name: "k" }));
  });
});
