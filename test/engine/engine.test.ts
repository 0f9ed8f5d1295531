/** TEST: the engine stand-in (preview/up/refresh/destroy, state, concurrency, crashes, secrets). */
import * as assert from "assert";
import * as fs from "fs";
import * as path from "path";
import { DesiredResource, ref, secret, TestEngine, UpdateError } from "./engine";
import { COUNTER_TYPE, CounterStore, makeCounterProvider, makeMinimalProvider } from "./fixtures/counter-provider";
import { Fixture, fixture, waitFor } from "./fixtures/harness";
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

        const mark = e.currentHost!.calls.length;
        r = await e.up([counter("a", { value: 1, key: "k1" })]);
        assert.deepStrictEqual(ops(r.steps), { a: "same" });
        assert.strictEqual(fx.store().writes, 1, "a same step writes nothing");
        assert.deepStrictEqual(e.currentHost!.calls.slice(mark).map((c) => c.method), ["Check", "Diff"]);

        r = await e.up([counter("a", { value: 2, key: "k1" })]);
        assert.deepStrictEqual(r.steps, [{ urn: e.urn(COUNTER_TYPE, "a"), op: "update", diffs: ["value"] }]);
        assert.strictEqual(r.ids.a, "c-1");
        assert.strictEqual(e.get("a")!.outputs.value, 2);

        r = await e.up([counter("a", { value: 2, key: "k2" })]);
        assert.deepStrictEqual(ops(r.steps), { a: "replace,delete" });
        assert.strictEqual(r.ids.a, "c-2");
        assert.deepStrictEqual(Object.keys(fx.store().objects), ["c-2"]);
        assert.deepStrictEqual(logOps(fx.store()).slice(-4), ["create-start:a", "create:c-2", "delete-start:c-1", "delete:c-1"], "create-before-delete");
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
        const mark = e.currentHost!.calls.length;

        const steps = await e.preview([
            counter("a", { key: "k2" }), // replace
            { ...counter("b", { value: 1 }), inputs: { name: ref("a", "slug"), value: 1 } }, // depends on a's unknown slug
            counter("c", {}), // create
        ]);
        assert.deepStrictEqual(ops(steps), { a: "replace", b: "update", c: "create", gone: "delete" });
        const methods = new Set(e.currentHost!.calls.slice(mark).map((c) => c.method));
        assert.deepStrictEqual([...methods].sort(), ["Check", "Diff"]);
        assert.deepStrictEqual(e.exportState(), before);
        assert.deepStrictEqual(fx.store().objects, storeBefore.objects);
        assert.strictEqual(fx.store().writes, storeBefore.writes);
        const bDiff = fx.store().log.filter((l) => l.op === "diff" && l.id === before.resources[1].id).pop()!;
        assert.strictEqual(bDiff.sawUnknown, true, "b's Diff saw the unknown sentinel for a.slug");
    });

    it("Configure gets the stack config namespaced, secrets unwrapped, once per host", async () => {
        const e = fx.engine({ config: { url: "https://portal", token: "tok-123" }, secretConfigKeys: ["token"] });
        await e.up([counter("a", {}), counter("b", {})]);
        const confs = fx.store().log.filter((l) => l.op === "configure");
        assert.strictEqual(confs.length, 1, "configure runs once per __provider text per host");
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
        const del = fx.store().log.filter((l) => l.op === "delete").map((l) => l.name);
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
        assert.deepStrictEqual(checks, ["s1", "s2", "s3", "s4"].flatMap((n) => [`check:${n}`, `check-end:${n}`]), "checks never overlap");
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
        await waitFor(() => {
            const log = fx.store().log;
            return !!e.get("a") && log.some((l) => l.op === "create-start" && l.name === "b");
        });
        // The checkpoint at this instant is what a killed CLI would leave behind: b's create is pending.
        const cliCrashSnapshot = JSON.parse(fs.readFileSync(stateFile, "utf8"));
        assert.deepStrictEqual(cliCrashSnapshot.pendingOperations, [{ urn: e.urn(COUNTER_TYPE, "b"), type: "creating" }]);

        await e.currentHost!.kill();
        const err = await outcome;
        assert.ok(err instanceof UpdateError);
        assert.match(err.failures[0].urn, /::b$/);
        // The engine survives a provider crash: it records the failed step, so no pending operation remains.
        const saved = JSON.parse(fs.readFileSync(stateFile, "utf8"));
        assert.deepStrictEqual(saved.resources.map((r: { name: string }) => r.name), ["a"]);
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

        // Resuming from the CLI-crash checkpoint instead: the interrupted create is reported, then retried.
        const e3 = fx.fromState(cliCrashSnapshot);
        await e3.up(fixed);
        assert.strictEqual(e3.warnings.length, 1);
        assert.match(e3.warnings[0], /::b: interrupted while creating/);
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
        assert.deepStrictEqual(r.steps.map((s) => s.diffs), [["__provider"]], "new provider code alone shows as ~__provider");
        assert.deepStrictEqual(Object.keys(e.get("m")!.outputs), ["__provider"], "no update(): outputs wiped to { __provider }");
    });

    it("hostMode perOperation starts a fresh host per operation; import is refused", async () => {
        const e = fx.engine({ hostMode: "perOperation", config: { counterDir: fx.dir } });
        await e.up([counter("a", {})]);
        await e.preview([counter("a", {})]);
        await e.destroy();
        assert.strictEqual(e.hosts.length, 3);
        assert.ok(e.hosts.every((h) => h.exited));
        assert.strictEqual(new Set(e.hosts.map((h) => h.pid)).size, 3);
        assert.strictEqual(fx.store().log.filter((l) => l.op === "configure").length, 3);
        assert.throws(() => e.import("a", COUNTER_TYPE, "c-1"), /not supported for dynamic providers/);
    });

    it("a check failure is reported like the engine reports it", async () => {
        const e = fx.engine();
        await assert.rejects(e.up([counter("x", { value: "nope" })]), /check failed: value: value must be a number/);
        assert.strictEqual(e.state.size, 0);
    });
});
