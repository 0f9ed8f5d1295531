// What the engine relies on: previews never write, destroy leaves nothing, the
// stack config (the serialized provider: secrets-in-state.test.ts), and many concurrent operations share one client
// with expiring tokens.
import assert from "node:assert/strict";
import { ref, TestEngine } from "../engine/engine";
import { businessUnit, consumer, node, nodeProxy, ops, portalSuite, writesSince } from "./support";
import { envFor, stackConfigFor } from "../support/portal";

const pw = (v: string) => ({ "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270", value: v });

// Dependents take the parent's resource id, not an output: the id stays known
// in a preview of an update, where the engine fakes the outputs from the inputs.
function tenant(prefix: string, parentId: unknown = 1) {
  const bu = `${prefix}`;
  const nodeOf = (c: string, tsm: string) =>
    node(`${prefix}-${c}-node`, {
      businessUnitId: ref(bu, "id"),
      consumerId: ref(`${prefix}-${c}`, "id"),
      operatingSystem: "Linux",
      type: "File server",
      domain: "STANDARD",
      cpuCount: 1,
      tsmName: tsm,
      tsmPassword: pw(`pw-${tsm}`),
    });
  return [
    businessUnit(bu, { parentId, name: prefix, registrationNumber: "1", timeZone: "UTC" }),
    consumer(`${prefix}-a`, { businessUnitId: ref(bu, "id"), name: "a" }),
    consumer(`${prefix}-b`, { businessUnitId: ref(bu, "id"), name: "b" }),
    nodeOf("a", `${prefix}-A`),
    nodeOf("b", `${prefix}-B`),
    {
      ...nodeProxy(`${prefix}-b>a`, {
        businessUnitId: ref(bu, "id"),
        agentConsumerId: ref(`${prefix}-b`, "id"),
        targetConsumerId: ref(`${prefix}-a`, "id"),
      }),
      dependsOn: [`${prefix}-a-node`, `${prefix}-b-node`],
    },
  ];
}

describe("providers under the engine's rules", function () {
  this.timeout(300_000); // an up is two deployments, each starting a host
  const p = portalSuite();

  it("a preview makes no API write, before and after the first up", async () => {
    const eng = p.engine();
    let mark = p.emu.requests().length;
    const plan = await eng.preview(tenant("acme"));
    assert.ok(plan.every((s) => s.op === "create"));
    assert.deepEqual(writesSince(p.emu, mark), []);
    await eng.up(tenant("acme"));
    mark = p.emu.requests().length;
    const changed = tenant("acme");
    (changed[1].inputs as Record<string, unknown>).note = "new";
    (changed[3].inputs as Record<string, unknown>).cpuCount = 8;
    const plan2 = await eng.preview(changed);
    assert.deepEqual(ops(plan2), {
      acme: "same",
      "acme-a": "update",
      "acme-b": "same",
      "acme-a-node": "update",
      "acme-b-node": "same",
      "acme-b>a": "same",
    });
    // What the GitOps workflow runs: `pulumi preview --refresh` (every type's Read, then its Diff, must be clean).
    const before = eng.exportState();
    const plan3 = await eng.preview(changed, { refresh: true });
    assert.deepEqual(ops(plan3), ops(plan2));
    assert.deepEqual(eng.exportState(), before, "the refresh of a preview saves nothing");
    assert.deepEqual(writesSince(p.emu, mark), []);
  });

  it("destroy in the engine's order leaves nothing on the portal", async () => {
    const before = p.emu.state();
    const eng = p.engine();
    await eng.up([...tenant("one"), ...tenant("two")]);
    const steps = await eng.destroy();
    // Dependents before what they depend on, within each tenant: the two tenants share nothing, so the engine
    // may interleave them (the order across tenants depends on timing).
    for (const prefix of ["one", "two"]) {
      const order = steps.filter((s) => s.urn.split("::").pop()!.startsWith(prefix)).map((s) => s.urn.split("::")[2].split(":").pop());
      const last = (t: string) => order.lastIndexOf(t);
      const first = (t: string) => order.indexOf(t);
      assert.equal(order.length, 6, order.join());
      assert.ok(
        last("NodeProxy") < first("Node") && last("Node") < first("Consumer") && last("Consumer") < first("BusinessUnit"),
        order.join(),
      );
    }
    const after = p.emu.state();
    const count = (s: typeof before) => JSON.stringify([s.businessUnits.length, s.consumers.length, s.nodes.length]);
    assert.equal(count(after), count(before), "back to the seed: nothing left behind");
    assert.equal(eng.state.size, 0);
  });

  it("reads the connection from stack config, and fails clearly without one", async () => {
    const config = stackConfigFor(p.emu.url);
    const eng = p.track(new TestEngine({ stack: "test", config, secretConfigKeys: ["backup-portal:password"], env: {} }));
    const r = await eng.up([businessUnit("cfg", { parentId: 1, name: "cfg", registrationNumber: "1", timeZone: "UTC" })]);
    assert.ok(Number(r.ids.cfg) > 0);
    assert.ok(!eng.currentHost!.logs().includes("admin"), "no credential in the host's log");

    const bare = p.track(new TestEngine({ stack: "test", env: {} }));
    await assert.rejects(
      bare.up([businessUnit("x", { parentId: 1, name: "x", registrationNumber: "1", timeZone: "UTC" })]),
      /not configured: set backup-portal:url \(or BACKUP_PORTAL_URL\).*backup-portal:password \(or BACKUP_PORTAL_PASSWORD\)/s,
    );
  });

  // The engine configures refresh and destroy with the config in state (deploy/providers/registry.go).
  it("credentials rotated after the last up: refresh and destroy fail with one message saying what to run; after an up they work", async () => {
    const config = (password: string) => stackConfigFor(p.emu.url, "admin", { "backup-portal:password": password });
    const declared = [businessUnit("rot", { parentId: 1, name: "rot", registrationNumber: "1", timeZone: "UTC" })];
    const first = p.track(
      new TestEngine({ stack: "test", config: config("admin"), secretConfigKeys: ["backup-portal:password"], env: {} }),
    );
    await first.up(declared);
    // The portal no longer takes what the last up stored (rotated there); the stack config has the new password.
    const stale = "retired-password-Kq93-zzVx-long-enough";
    const snapshot = first.exportState();
    snapshot.providerConfig = {
      ...snapshot.providerConfig,
      "backup-portal:password": { ...(snapshot.providerConfig!["backup-portal:password"] as object), value: stale },
    };
    const eng = p.track(TestEngine.fromState(snapshot, { config: config("admin"), secretConfigKeys: ["backup-portal:password"], env: {} }));
    const advice = /HTTP 40\d.*Run `pulumi up` first, or add `--run-program` to the refresh or destroy\./s;
    await assert.rejects(eng.refresh(), advice);
    await assert.rejects(eng.destroy(), advice);
    assert.ok(eng.get("rot"), "nothing removed");
    for (const h of eng.hosts) assert.ok(!h.logs().includes(stale) && !h.logs().includes("admin"), "no password in a host's log");
    await eng.up(declared);
    assert.deepEqual(ops(await eng.refresh()), { rot: "same" });
    await eng.destroy();
    assert.equal(eng.state.size, 0);
  });

  // step.go, DeleteStep: a retainOnDelete resource is dropped from state without a Delete.
  it("retainOnDelete on an adopted consumer: removing it from the program leaves it on the portal", async () => {
    const existing = await p.client.consumers.create(1, { name: "kept-by-retain" });
    const eng = p.engine();
    await eng.up([{ ...consumer("kept", { businessUnitId: 1, name: "kept-by-retain", adoptId: existing.id }), retainOnDelete: true }]);
    assert.equal(eng.get("kept")!.id, String(existing.id));
    const mark = p.emu.requests().length;
    const run = await eng.up([]);
    assert.deepEqual(ops(run.steps), { kept: "delete" });
    assert.deepEqual(writesSince(p.emu, mark), [], "no DELETE sent");
    assert.ok(
      (await p.client.consumers.list(1)).some((c) => c.id === existing.id),
      "still on the portal",
    );
    assert.equal(eng.state.size, 0);
  });

  it("100 resources at once with 2-second tokens: no failed call, one token request per renewal", async () => {
    await p.restart({ tokenTtlSeconds: 2 });
    const eng = p.engine({ parallel: 16, env: envFor(p.emu) });
    const consumers = Array.from({ length: 100 }, (_, i) => consumer(`c${i}`, { businessUnitId: 1, name: `load-${i}` }));
    const started = Date.now();
    await eng.up(consumers);
    const seconds = (Date.now() - started) / 1000;
    const log = p.emu.requests();
    assert.deepEqual(
      log.filter((r) => r.status >= 400 || r.status === 0),
      [],
      "no failed call",
    );
    const tokens = log.filter((r) => r.path === "/v1/oauth").length;
    // One token per lifetime window (renewed at 3/4 of it), plus the first.
    const windows = Math.ceil(seconds / 1.5) + 1;
    assert.ok(tokens <= windows, `${tokens} token requests in ${seconds.toFixed(1)} s (at most ${windows})`);
    assert.equal(log.filter((r) => r.method === "POST" && r.path === "/v1/bunits/1/consumers").length, 100, "each create once");
    assert.equal(p.emu.state().consumers.filter((c) => c.name.startsWith("load-")).length, 100);
  });
});
