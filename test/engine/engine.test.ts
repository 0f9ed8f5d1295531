/** TEST: the engine stand-in (preview/up/refresh/destroy, state, concurrency, crashes, secrets). */
import * as assert from "assert";
import * as fs from "fs";
import * as path from "path";
import { DesiredResource, ref, secret, TestEngine, UpdateError } from "./engine";
import { COUNTER_TYPE, CounterStore, makeCounterProvider, makeMinimalProvider } from "./fixtures/counter-provider";
import { Fixture, fixture } from "./fixtures/harness";
import { waitFor } from "../support/wait";
import { ProviderHost } from "./host";
import { isSecret } from "./values";

const v1 = makeCounterProvider("v1");
const v2 = makeCounterProvider("v2");

function counter(name: string, inputs: Record<string, unknown>, extra: Partial<DesiredResource> = {}): DesiredResource {
  return { name, type: COUNTER_TYPE, provider: v1, inputs: { name, ...inputs }, ...extra };
}
function ops(steps: { urn: string; op: string }[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const s of steps) out[s.urn.split("::").pop()!] = out[s.urn.split("::").pop()!] ? `${out[s.urn.split("::").pop()!]},${s.op}` : s.op;
  return out;
}
/** The resource calls a host received (the start-up calls left out). */
function resourceCalls(host: ProviderHost): string[] {
  return host.calls.map((c) => c.method).filter((m) => !["Handshake", "GetPluginInfo", "CheckConfig", "Configure"].includes(m));
}
function logOps(store: CounterStore): string[] {
  return store.log.filter((l) => !["check", "diff", "configure", "read"].includes(l.op)).map((l) => `${l.op}:${l.id ?? l.name}`);
}
/** [start, end] per name from create-start/create log entries. */
function intervals(store: CounterStore): Record<string, [number, number]> {
  const out: Record<string, [number, number]> = {};
  for (const l of store.log) {
    if (l.op === "create-start") out[l.name!] = [l.t, Infinity];
    if (l.op === "create") out[l.name!][1] = l.t;
  }
  return out;
}

describe("engine stand-in: TestEngine", function () {
  this.timeout(90000);
  let fx: Fixture;
  beforeEach(() => (fx = fixture()));
  afterEach(() => fx.cleanup());

  it("create → same (no write) → update → replace → delete", async () => {
    const e = fx.engine();
    let r = await e.up([counter("a", { value: 1, key: "k1" })]);
    assert.deepStrictEqual(ops(r.steps), { a: "create" });
    assert.strictEqual(r.ids.a, "c-1");
    assert.strictEqual(e.get("a")!.outputs.slug, "a-c-1");
    assert.strictEqual(fx.store().writes, 1);

    r = await e.up([counter("a", { value: 1, key: "k1" })]);
    assert.deepStrictEqual(ops(r.steps), { a: "same" });
    assert.strictEqual(fx.store().writes, 1, "a same step writes nothing");
    assert.deepStrictEqual(resourceCalls(e.currentHost!), ["Check", "Diff"]);

    r = await e.up([counter("a", { value: 2, key: "k1" })]);
    assert.deepStrictEqual(r.steps, [{ urn: e.urn(COUNTER_TYPE, "a"), op: "update", diffs: ["value"] }]);
    assert.strictEqual(r.ids.a, "c-1");
    assert.strictEqual(e.get("a")!.outputs.value, 2);

    r = await e.up([counter("a", { value: 2, key: "k2" })]);
    assert.deepStrictEqual(ops(r.steps), { a: "replace,delete" });
    assert.strictEqual(r.ids.a, "c-2");
    assert.deepStrictEqual(Object.keys(fx.store().objects), ["c-2"]);
    assert.deepStrictEqual(
      logOps(fx.store()).slice(-4),
      ["create-start:a", "create:c-2", "delete-start:c-1", "delete:c-1"],
      "create-before-delete",
    );
    assert.strictEqual(e.pendingDeletes.length, 0);

    r = await e.up([]);
    assert.deepStrictEqual(ops(r.steps), { a: "delete" });
    assert.strictEqual(e.state.size, 0);
    assert.deepStrictEqual(fx.store().objects, {});
  });

  it("deleteBeforeReplace (from diff) deletes the old object first", async () => {
    const e = fx.engine();
    await e.up([counter("a", { key: "k1" })]);
    await e.up([counter("a", { key: "k2", deleteBeforeReplace: true })]);
    assert.deepStrictEqual(logOps(fx.store()).slice(-4), ["delete-start:c-1", "delete:c-1", "create-start:a", "create:c-2"]);
  });

  it("preview sends only Check and Diff, changes nothing, and passes unknowns", async () => {
    const e = fx.engine();
    await e.up([counter("a", { key: "k1" }), counter("b", { value: 1 }), counter("gone", {})]);
    const before = e.exportState();
    const storeBefore = fx.store();
    const steps = await e.preview([
      counter("a", { key: "k2" }), // replace
      { ...counter("b", { value: 1 }), inputs: { name: ref("a", "slug"), value: 1 } }, // depends on a's unknown slug
      counter("c", {}), // create
    ]);
    assert.deepStrictEqual(ops(steps), { a: "replace", b: "update", c: "create", gone: "delete" });
    const methods = new Set(resourceCalls(e.currentHost!));
    assert.deepStrictEqual([...methods].sort(), ["Check", "Diff"]);
    assert.deepStrictEqual(e.exportState(), before);
    assert.deepStrictEqual(fx.store().objects, storeBefore.objects);
    assert.strictEqual(fx.store().writes, storeBefore.writes);
    const bDiff = fx
      .store()
      .log.filter((l) => l.op === "diff" && l.id === before.resources[1].id)
      .pop()!;
    assert.strictEqual(bDiff.sawUnknown, true, "b's Diff saw the unknown sentinel for a.slug");
  });

  it("Configure gets the stack config namespaced, secrets unwrapped, once per host", async () => {
    const e = fx.engine({ config: { url: "https://portal", token: "tok-123" }, secretConfigKeys: ["token"] });
    await e.up([counter("a", {}), counter("b", {})]);
    const confs = fx.store().log.filter((l) => l.op === "configure");
    assert.strictEqual(confs.length, 2, "configure runs once per __provider text per host: the preview's and the update's");
    assert.notStrictEqual(confs[0].pid, confs[1].pid);
    assert.deepStrictEqual(confs[0].keys, ["backup-portal:token", "backup-portal:url"]);
    assert.strictEqual(confs[0].url, "https://portal");
    assert.strictEqual(confs[0].token, "tok-123");
    assert.ok(!e.currentHost!.logs().includes("tok-123"));
  });

  it("destroy (and read) use the __provider stored in state, not the current code", async () => {
    const e = fx.engine();
    await e.up([counter("a", { value: 1 }), counter("b", { value: 1 })]);
    // New provider code: a unchanged (same: outputs keep v1's __provider), b updated by v2.
    const r = await e.up([counter("a", { value: 1 }, { provider: v2 }), counter("b", { value: 2 }, { provider: v2 })]);
    assert.deepStrictEqual(ops(r.steps), { a: "same", b: "update" });
    const a = e.get("a")!;
    assert.match(String(a.outputs.__provider), /version: "v1"/);
    assert.match(String(a.inputs.__provider), /version: "v2"/);
    assert.match(String(e.get("b")!.outputs.__provider), /version: "v2"/);

    await e.refresh();
    const reads = fx.store().log.filter((l) => l.op === "read");
    assert.deepStrictEqual(reads.map((l) => `${l.id}:${l.version}`).sort(), ["c-1:v1", "c-2:v2"]);

    const steps = await e.destroy();
    assert.deepStrictEqual(ops(steps), { a: "delete", b: "delete" });
    const deletes = fx.store().log.filter((l) => l.op === "delete");
    assert.deepStrictEqual(deletes.map((l) => `${l.id}:${l.version}`).sort(), ["c-1:v1", "c-2:v2"]);
    assert.strictEqual(e.state.size, 0);
  });

  it("runs independent creates in parallel, respecting dependsOn and $ref dependencies", async () => {
    const e = fx.engine();
    await e.up([
      counter("a", { delayMs: 400 }),
      counter("b", { delayMs: 400 }),
      counter("c", { delayMs: 50 }, { dependsOn: ["a"] }),
      { ...counter("d", {}), inputs: { name: ref("b", "slug"), parentId: ref("a") } },
    ]);
    const iv = intervals(fx.store());
    assert.ok(iv.b[0] < iv.a[1] && iv.a[0] < iv.b[1], "a and b overlap");
    assert.ok(iv.c[0] >= iv.a[1], "c starts after a is created");
    const bSlug = e.get("b")!.outputs.slug as string;
    assert.ok(iv[bSlug][0] >= iv.b[1], "d starts after b is created");
    assert.strictEqual(e.get("d")!.inputs.name, bSlug);
    assert.strictEqual(e.get("d")!.inputs.parentId, e.get("a")!.id);
    assert.deepStrictEqual(e.get("d")!.dependencies.sort(), [e.urn(COUNTER_TYPE, "a"), e.urn(COUNTER_TYPE, "b")].sort());

    await e.destroy();
    const del = fx
      .store()
      .log.filter((l) => l.op === "delete")
      .map((l) => l.name);
    assert.ok(del.indexOf(bSlug) < del.indexOf("b") && del.indexOf(bSlug) < del.indexOf("a"), "dependents deleted first");
    assert.ok(del.indexOf("c") < del.indexOf("a"));
  });

  it("honours the parallelism limit", async () => {
    const e = fx.engine({ parallel: 2 });
    await e.up(["p1", "p2", "p3", "p4", "p5"].map((n) => counter(n, { delayMs: 150 })));
    const iv = Object.values(intervals(fx.store()));
    const maxOverlap = Math.max(...iv.map(([s]) => iv.filter(([s2, e2]) => s2 <= s && s < e2).length));
    assert.strictEqual(maxOverlap, 2);
  });

  it("Check runs for one resource at a time, like the engine's step generator; creates overlap", async () => {
    const e = fx.engine({ parallel: 4 });
    await e.up(["s1", "s2", "s3", "s4"].map((n) => counter(n, { checkDelayMs: 100, delayMs: 600 })));
    const log = fx.store().log;
    const checks = log.filter((l) => l.op === "check" || l.op === "check-end").map((l) => `${l.op}:${l.name}`);
    const once = ["s1", "s2", "s3", "s4"].flatMap((n) => [`check:${n}`, `check-end:${n}`]);
    assert.deepStrictEqual(checks, [...once, ...once], "checks never overlap (in the preview, then in the update)");
    const iv = Object.values(intervals(fx.store()));
    const maxOverlap = Math.max(...iv.map(([s]) => iv.filter(([s2, e2]) => s2 <= s && s < e2).length));
    assert.strictEqual(maxOverlap, 4, "the four creates run at once");
  });

  it("a half-done create is kept with its init errors, and the next up updates it though Diff sees no change", async () => {
    const e = fx.engine();
    await assert.rejects(e.up([counter("h", { failAfterCreate: "activation refused" })]), /create of h half done: activation refused/);
    const kept = e.get("h")!;
    assert.ok(kept.id.startsWith("c-"), "in state with the id the provider reported");
    assert.deepEqual(kept.initErrors, ["activation refused"]);
    assert.match(e.stateJson(), /"initErrors"/);

    const r = await e.up([counter("h", { failAfterCreate: "activation refused" })].map((d) => ({ ...d, inputs: { name: "h" } })));
    assert.deepEqual(ops(r.steps), { h: "update" }, "no input changed, yet it is updated");
    assert.ok(fx.store().log.some((l) => l.op === "update" && l.id === kept.id));
    assert.equal(e.get("h")!.initErrors, undefined, "a successful update clears them");
    assert.deepEqual(ops((await e.up([counter("h", {})])).steps), { h: "same" });
  });

  it("a failed step rejects up, lets in-flight steps finish, keeps what succeeded", async () => {
    const e = fx.engine();
    const err = await e
      .up([counter("a", { delayMs: 400 }), counter("b", { failCreate: "boom" }), counter("c", {}, { dependsOn: ["b"] })])
      .then(
        () => assert.fail("up should fail"),
        (x: unknown) => x,
      );
    assert.ok(err instanceof UpdateError);
    assert.match(err.message, /pulumi-nodejs:dynamic\/counter:Counter::b.*create failed for b: boom/);
    assert.strictEqual(err.failures.length, 1);
    assert.ok(e.get("a"), "in-flight create of a finished and is in state");
    assert.ok(!e.get("b") && !e.get("c"));
    assert.deepStrictEqual(e.pendingOperations, []);

    const r = await e.up([counter("a", { delayMs: 400 }), counter("b", {}), counter("c", {}, { dependsOn: ["b"] })]);
    assert.deepStrictEqual(ops(r.steps), { a: "same", b: "create", c: "create" });
  });

  it("a host killed mid-run makes up reject; a new engine from the saved state continues", async () => {
    const stateFile = path.join(fx.dir, "state.json");
    const e = fx.engine({ stateFile });
    const desired = [counter("a", {}), counter("b", { delayMs: 3000 })];
    const outcome = e.up(desired).then(
      () => undefined,
      (x: unknown) => x,
    );
    await waitFor(
      () => {
        const log = fx.store().log;
        return !!e.get("a") && log.some((l) => l.op === "create-start" && l.name === "b");
      },
      "a created and b's create started",
      20000,
    );
    // The checkpoint at this instant is what a killed CLI would leave behind: b's create is pending.
    const cliCrashSnapshot = JSON.parse(fs.readFileSync(stateFile, "utf8"));
    assert.deepStrictEqual(cliCrashSnapshot.pendingOperations, [{ urn: e.urn(COUNTER_TYPE, "b"), type: "creating" }]);

    await e.currentHost!.kill();
    const err = await outcome;
    assert.ok(err instanceof UpdateError);
    assert.match(err.failures[0].urn, /::b$/);
    // The engine survives a provider crash: it records the failed step, so no pending operation remains.
    const saved = JSON.parse(fs.readFileSync(stateFile, "utf8"));
    assert.deepStrictEqual(
      saved.resources.map((r: { name: string }) => r.name),
      ["a"],
    );
    assert.deepStrictEqual(saved.pendingOperations, []);

    const fixed = desired.map((d) => (d.name === "b" ? counter("b", {}) : d));
    const e2 = TestEngine.fromStateFile(stateFile, { env: fx.env });
    try {
      const r = await e2.up(fixed);
      assert.deepStrictEqual(ops(r.steps), { a: "same", b: "create" });
      assert.deepStrictEqual(e2.warnings, []);
      assert.strictEqual(fx.store().log.filter((l) => l.op === "create" && l.name === "a").length, 1);
      assert.notStrictEqual(e2.currentHost!.pid, e.currentHost!.pid);
    } finally {
      await e2.close();
    }

    // Resuming from the CLI-crash checkpoint instead: the interrupted create is reported (and stays pending:
    // test/engine/pending-creates.test.ts), then b is created again.
    const e3 = fx.fromState(cliCrashSnapshot);
    await e3.up(fixed);
    assert.strictEqual(e3.warnings.length, 1);
    assert.match(e3.warnings[0], /::b, interrupted while creating\n/);
  });

  it("secrets: plaintext reaches the provider, state holds them as secrets, stateJson never shows them", async () => {
    const e = fx.engine();
    await e.up([counter("s", { secretValue: secret("hunter2") })]);
    assert.strictEqual(fx.store().objects["c-1"].secretValue, "hunter2");
    const s = e.get("s")!;
    assert.ok(isSecret(s.inputs.secretValue));
    assert.ok(isSecret(s.outputs.secretValue), "output with the same key as a secret input is secret");
    assert.ok(!isSecret(s.outputs.slug));
    assert.ok(!e.stateJson().includes("hunter2"));
    assert.ok(e.stateJson().includes('"ciphertext": "<redacted>"'));
    assert.ok(JSON.stringify(e.exportState()).includes("hunter2"), "exportState is the --show-secrets form");
    assert.ok(!e.currentHost!.logs().includes("hunter2"));

    // additionalSecretOutputs, and a fresh engine from exported state keeps secretness
    const e2 = fx.fromState(e.exportState());
    await e2.up([counter("s", { secretValue: secret("hunter2") }, { additionalSecretOutputs: ["slug"] })]);
    assert.ok(isSecret(e2.get("s")!.outputs.secretValue));
    const bytes = e2.stateBytesPerResource();
    assert.ok(bytes[e2.urn(COUNTER_TYPE, "s")] > String(s.inputs.__provider).length * 2, "__provider is stored in inputs and outputs");
  });

  it("refresh: Read with state outputs; empty id drops the resource; returned inputs replace stored ones", async () => {
    const e = fx.engine();
    await e.up([counter("a", { value: 1 }), counter("b", {})]);
    const file = path.join(fx.dir, "store.json");
    const store = fx.store();
    store.objects["c-1"].value = 42; // drift
    delete store.objects["c-2"]; // deleted out of band
    fs.writeFileSync(file, JSON.stringify(store));

    const steps = await e.refresh();
    assert.deepStrictEqual(ops(steps), { a: "update", b: "delete" });
    assert.strictEqual(e.get("a")!.outputs.value, 42);
    assert.strictEqual(e.get("a")!.inputs.value, 42);
    assert.ok(!e.get("b"));
    const r = await e.up([counter("a", { value: 42 })]);
    assert.deepStrictEqual(ops(r.steps), { a: "same" });
  });

  it("a provider without diff/update: the engine diffs inputs itself, and update wipes outputs", async () => {
    const e = fx.engine();
    const p1 = makeMinimalProvider("m1");
    const res = (value: number, provider = p1) => [{ name: "m", type: COUNTER_TYPE, provider, inputs: { name: "m", value } }];
    await e.up(res(1));
    assert.deepStrictEqual(ops((await e.up(res(1))).steps), { m: "same" });
    const r = await e.up(res(1, makeMinimalProvider("m2")));
    assert.deepStrictEqual(
      r.steps.map((s) => s.diffs),
      [["__provider"]],
      "new provider code alone shows as ~__provider",
    );
    assert.deepStrictEqual(Object.keys(e.get("m")!.outputs), ["__provider"], "no update(): outputs wiped to { __provider }");
  });

  // pkg/resource/deploy/deployment.go + providers/registry.go: plugins live as long as their deployment;
  // pkg/cmd/pulumi up: a preview deployment, then the update deployment.
  it("one fresh host per deployment: up is a preview deployment and an update deployment, each with its own host", async () => {
    const e = fx.engine({ config: { counterDir: fx.dir } });
    await e.up([counter("a", {})]);
    assert.strictEqual(e.hosts.length, 2);
    assert.deepStrictEqual(resourceCalls(e.hosts[0]), ["Check"], "the preview deployment: Check only");
    assert.deepStrictEqual(resourceCalls(e.hosts[1]), ["Check", "Create"]);
    await e.up([counter("a", { value: 3 })]);
    assert.deepStrictEqual(resourceCalls(e.hosts[2]), ["Check", "Diff"], "Check and Diff run twice");
    assert.deepStrictEqual(resourceCalls(e.hosts[3]), ["Check", "Diff", "Update"]);
    await e.preview([counter("a", { value: 3 })]);
    await e.up([counter("a", { value: 3 })], { skipPreview: true });
    await e.refresh();
    await e.destroy();
    assert.strictEqual(e.hosts.length, 8);
    assert.ok(
      e.hosts.every((h) => h.exited),
      "no host outlives its deployment",
    );
    assert.strictEqual(new Set(e.hosts.map((h) => h.pid)).size, 8);
    assert.strictEqual(fx.store().log.filter((l) => l.op === "configure").length, 8);
    assert.throws(() => e.import("a", COUNTER_TYPE, "c-1"), /not supported for dynamic providers/);
  });

  // pkg/engine/project.go, getPwdMain: Pulumi.yaml `main: stacks/` is the program's and the plugins' directory.
  it("the host runs in the project's main folder (stacks/), where the provider's relative require resolves", async () => {
    const e = fx.engine({ config: { counterDir: fx.dir } });
    await e.up([counter("a", {})]);
    const conf = fx.store().log.find((l) => l.op === "configure")!;
    assert.strictEqual(conf.cwd, path.resolve(__dirname, "..", "..", "stacks"));
    assert.match(String(e.get("a")!.outputs.__provider), /"\.\.\/test\/engine\/fixtures\/counter-impl\.js"/);
  });

  // pkg/resource/deploy/step.go, RefreshStep.Apply: Read, then diffResource(refreshed inputs/outputs as olds, old inputs as news), inverted.
  it("refresh: Read, then the provider's Diff with olds = refreshed outputs and news = old inputs; one failure stops no other", async () => {
    const e = fx.engine();
    await e.up([counter("a", { value: 1 }), counter("b", { value: 1 }), counter("c", { value: 1 }), counter("d", { value: 1 })]);
    const file = path.join(fx.dir, "store.json");
    const store = fx.store();
    store.objects["c-1"].value = 42; // drift
    store.objects["c-2"].failRead = true;
    store.objects["c-3"].diffThrows = true;
    store.objects["c-4"].value = 7;
    fs.writeFileSync(file, JSON.stringify(store));
    const mark = fx.store().log.length;

    const err = await e.refresh().then(
      () => assert.fail("refresh should fail"),
      (x: unknown) => x,
    );
    assert.ok(err instanceof UpdateError);
    assert.deepStrictEqual(err.failures.map((f) => `${f.urn.split("::").pop()}: ${f.message}`).sort(), [
      "b: read failed for c-2",
      "c: diff exploded for c-3",
    ]);
    assert.deepStrictEqual(ops(err.steps), { a: "update", d: "update" }, "the others were refreshed");
    const diffs = fx
      .store()
      .log.slice(mark)
      .filter((l) => l.op === "diff");
    assert.deepStrictEqual(diffs.map((l) => [l.id, l.oldValue, l.newValue]).sort(), [
      ["c-1", 42, 1],
      ["c-3", 1, 1],
      ["c-4", 7, 1],
    ]);
    assert.strictEqual(e.get("a")!.outputs.value, 42, "refreshed state saved");
    assert.strictEqual(e.get("c")!.outputs.value, 1, "a resource whose Diff threw keeps its state");
    assert.ok(!("diffThrows" in e.get("c")!.outputs));
  });

  // step.go RefreshStep + pkg/cmd/pulumi preview --refresh: the refresh is itself a preview.
  it("preview --refresh refreshes in memory and previews against it; nothing is saved", async () => {
    const stateFile = path.join(fx.dir, "state.json");
    const e = fx.engine({ stateFile });
    await e.up([counter("a", { value: 1 })]);
    const saved = fs.readFileSync(stateFile, "utf8");
    const store = fx.store();
    store.objects["c-1"].value = 42;
    fs.writeFileSync(path.join(fx.dir, "store.json"), JSON.stringify(store));
    assert.deepStrictEqual(ops(await e.preview([counter("a", { value: 1 })])), { a: "same" }, "without refresh the drift is not seen");
    const steps = await e.preview([counter("a", { value: 1 })], { refresh: true });
    assert.deepStrictEqual(ops(steps), { a: "update" }, "the refreshed value 42 is to be set back to 1");
    assert.strictEqual(fs.readFileSync(stateFile, "utf8"), saved);
    assert.strictEqual(e.get("a")!.outputs.value, 1);
  });

  // deploy/providers/registry.go: refresh and destroy load the default provider from its state (its inputs = the config of the last up).
  it("refresh and destroy configure the host with the config stored in state; preview and up with the current one", async () => {
    const e1 = fx.engine({ config: { url: "https://old" } });
    await e1.up([counter("a", {})]);
    const e2 = fx.fromState(e1.exportState(), { config: { url: "https://new" } });
    const urls = (from: number) =>
      fx
        .store()
        .log.slice(from)
        .filter((l) => l.op === "configure")
        .map((l) => l.url);
    let mark = fx.store().log.length;
    await e2.refresh();
    assert.deepStrictEqual(urls(mark), ["https://old"]);
    mark = fx.store().log.length;
    await e2.up([counter("a", {})]);
    assert.deepStrictEqual(urls(mark), ["https://new", "https://new"]);
    const e3 = fx.fromState(e2.exportState(), { config: { url: "https://newer" } });
    mark = fx.store().log.length;
    await e3.destroy();
    assert.deepStrictEqual(urls(mark), ["https://new"]);
    assert.match(e1.stateJson(), /"backup-portal:url": "https:\/\/old"/);
  });

  // step_generator.go: aliases (the old state is the alias's), no create, no delete.
  it("aliases: the old state is adopted under the new name, nothing is created or deleted", async () => {
    const e = fx.engine();
    await e.up([counter("a", { value: 1 }), counter("b", {}, { dependsOn: ["a"] })]);
    const writes = fx.store().writes;
    const r = await e.up([
      { ...counter("renamed", { value: 1 }, { aliases: ["a"] }), inputs: { name: "a", value: 1 } },
      counter("b", {}, { dependsOn: ["renamed"] }),
    ]);
    assert.deepStrictEqual(ops(r.steps), { renamed: "same", b: "same" });
    assert.strictEqual(fx.store().writes, writes);
    assert.strictEqual(e.get("renamed")!.id, "c-1");
    assert.ok(!e.state.has(e.urn(COUNTER_TYPE, "a")));
    assert.deepStrictEqual(e.get("b")!.dependencies, [e.urn(COUNTER_TYPE, "renamed")]);
  });

  // step_generator.go (replace of a protected resource) and step.go, DeleteStep (deleteProtectedError).
  it("protect: a replacement or a deletion fails the run, in preview too; unprotected, it goes", async () => {
    const e = fx.engine();
    await e.up([counter("p", { key: "k1" }, { protect: true })]);
    await assert.rejects(
      e.up([counter("p", { key: "k2" }, { protect: true })]),
      /unable to replace resource .*::p"\nas it is currently marked for protection/,
    );
    await assert.rejects(e.preview([]), /cannot be deleted\nbecause it is protected/);
    await assert.rejects(e.up([]), /cannot be deleted\nbecause it is protected/);
    await assert.rejects(e.destroy(), /cannot be deleted\nbecause it is protected/);
    assert.deepStrictEqual(Object.keys(fx.store().objects), ["c-1"]);
    await e.up([counter("p", { key: "k1" })]);
    await e.up([]);
    assert.deepStrictEqual(fx.store().objects, {});
  });

  // step.go, DeleteStep: a retainOnDelete resource leaves state without a Delete call.
  it("retainOnDelete: no Delete is sent, on removal or on replacement", async () => {
    const e = fx.engine();
    await e.up([counter("r", { key: "k1" }, { retainOnDelete: true })]);
    const r = await e.up([counter("r", { key: "k2" }, { retainOnDelete: true })]);
    assert.deepStrictEqual(ops(r.steps), { r: "replace,delete" });
    await e.up([]);
    assert.strictEqual(e.state.size, 0);
    assert.deepStrictEqual(Object.keys(fx.store().objects), ["c-1", "c-2"]);
    assert.ok(!fx.store().log.some((l) => l.op === "delete-start"));
  });

  // step_generator.go, processIgnoreChanges: ignored paths get their old values before Check.
  it("ignoreChanges: the old value goes to Check, so the change is not seen", async () => {
    const e = fx.engine();
    await e.up([counter("i", { value: 1 })]);
    const mark = fx.store().log.length;
    const r = await e.up([counter("i", { value: 2 }, { ignoreChanges: ["value"] })]);
    assert.deepStrictEqual(ops(r.steps), { i: "same" });
    assert.deepStrictEqual(
      fx
        .store()
        .log.slice(mark)
        .filter((l) => l.op === "check")
        .map((l) => l.value),
      [1, 1],
    );
  });

  // step_generator.go, applyReplaceOnChanges: it reads the diff's changed keys, which the Node.js host never reports.
  it("replaceOnChanges: no effect on a provider with diff (no changed keys); replaces for one without", async () => {
    const e = fx.engine();
    await e.up([counter("o", { value: 1 })]);
    let r = await e.up([counter("o", { value: 2 }, { replaceOnChanges: ["value"] })]);
    assert.deepStrictEqual(ops(r.steps), { o: "update" });
    const m = (value: number) => ({
      name: "m",
      type: COUNTER_TYPE,
      provider: makeMinimalProvider("m1"),
      inputs: { name: "m", value },
      replaceOnChanges: ["value"],
    });
    await e.up([counter("o", { value: 2 }), m(1)]);
    r = await e.up([counter("o", { value: 2 }), m(2)]);
    assert.deepStrictEqual(ops(r.steps), { o: "same", m: "replace,delete" }, "replaced: create, then the old one deleted");
    assert.deepStrictEqual(r.steps.find((s) => s.op === "replace")?.replaces, ["value"]);
  });

  // step_generator.go: `goal.DeleteBeforeReplace` (the option), when set, overrides the provider's answer.
  it("deleteBeforeReplace: the option overrides the provider's answer both ways", async () => {
    const e = fx.engine();
    await e.up([counter("a", { key: "k1" }), counter("b", { key: "k1" })]);
    const mark = fx.store().log.length;
    await e.up([
      counter("a", { key: "k2", deleteBeforeReplace: true }, { deleteBeforeReplace: false }),
      counter("b", { key: "k2" }, { deleteBeforeReplace: true }),
    ]);
    const order = fx
      .store()
      .log.slice(mark)
      .filter((l) => l.op === "create" || l.op === "delete")
      .map((l) => `${l.op}:${l.name}`);
    assert.ok(order.indexOf("create:a") < order.indexOf("delete:a"), `a: create first although Diff asked otherwise (${order})`);
    assert.ok(order.indexOf("delete:b") < order.indexOf("create:b"), `b: delete first (${order})`);
  });

  // step.go, DeleteStep (pendingReplacement) + step_generator.go (old.PendingReplacement → replace without a delete step).
  it("a delete-before-replace whose create failed: the next up diffs the deleted object, then only creates", async () => {
    const e = fx.engine();
    await e.up([counter("a", { key: "k1" })]);
    await assert.rejects(e.up([counter("a", { key: "k2", failCreate: "no" }, { deleteBeforeReplace: true })]), /create failed for a: no/);
    assert.deepStrictEqual(fx.store().objects, {});
    assert.strictEqual(e.get("a")!.id, "c-1");
    assert.strictEqual(e.get("a")!.pendingReplacement, true);
    const mark = fx.store().log.length;
    const r = await e.up([counter("a", { key: "k2" }, { deleteBeforeReplace: true })]);
    assert.deepStrictEqual(ops(r.steps), { a: "replace" });
    const log = fx.store().log.slice(mark);
    assert.ok(
      log.some((l) => l.op === "diff" && l.id === "c-1"),
      "Diff is sent for the object already deleted",
    );
    assert.ok(!log.some((l) => l.op === "delete-start"), "no second delete");
    assert.deepStrictEqual(Object.keys(fx.store().objects), ["c-2"]);
    assert.strictEqual(e.get("a")!.pendingReplacement, undefined);
  });

  it("a check failure is reported like the engine reports it", async () => {
    const e = fx.engine();
    await assert.rejects(e.up([counter("x", { value: "nope" })]), /check failed: value: value must be a number/);
    assert.strictEqual(e.state.size, 0);
  });
});
