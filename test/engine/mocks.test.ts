/** TEST: a real Pulumi program under setMocks, with dynamic resources forwarded to the engine stand-in. */
import * as assert from "assert";
import * as pulumi from "@pulumi/pulumi";
import { Counter, COUNTER_TYPE } from "./fixtures/counter-provider";
import { Fixture, fixture } from "./fixtures/harness";
import { runProgramWithEngine } from "./mocks";
import { isSecret } from "./values";

/** A non-dynamic resource (answered by the mock itself). */
class Bucket extends pulumi.CustomResource {
  constructor(name: string, props: Record<string, unknown>) {
    super("test:index:Bucket", name, props);
  }
}

/** Resolves an Output to { value, known, secret } (internal Output fields, fine for tests). */
async function settle<T>(o: pulumi.Output<T>): Promise<{ value: T; known: boolean; secret: boolean }> {
  const internal = o as unknown as { promise(): Promise<T>; isKnown: Promise<boolean>; isSecret: Promise<boolean> };
  return { value: await internal.promise(), known: await internal.isKnown, secret: await internal.isSecret };
}

describe("engine stand-in: runProgramWithEngine (setMocks)", function () {
  this.timeout(90000);
  let fx: Fixture;
  beforeEach(() => (fx = fixture()));
  afterEach(() => fx.cleanup());

  it("creates dynamic resources through the host; outputs depend on real ids", async () => {
    const e = fx.engine();
    const run = await runProgramWithEngine(() => {
      const a = new Counter("a", { name: "alpha", value: 1 });
      const b = new Counter("b", { name: a.slug, value: 2 });
      const bucket = new Bucket("bucket", { size: 1 });
      return { aId: a.id, bName: b.name, bucketId: bucket.id };
    }, e);
    assert.deepStrictEqual((await settle(run.result.aId)).value, "c-1");
    assert.deepStrictEqual((await settle(run.result.bName)).value, "alpha-c-1");
    assert.deepStrictEqual((await settle(run.result.bucketId)).value, "bucket_id");
    assert.deepStrictEqual(
      run.steps.map((s) => s.op),
      ["create", "create"],
    );
    assert.deepStrictEqual(Object.keys(fx.store().objects), ["c-1", "c-2"]);
    // The __provider the SDK serialized is what reached the host and is stored in state.
    assert.match(String(e.get("a")!.outputs.__provider), /counter-impl\.js/);
    // b's dependency on a (from a.slug) came from the RegisterResource request.
    assert.deepStrictEqual(e.get("b")!.dependencies, [e.urn(COUNTER_TYPE, "a")]);
    assert.strictEqual(e.state.size, 2, "non-dynamic resources are not in the engine's state");
  });

  it("a second run: unchanged resources are 'same', dropped ones are deleted", async () => {
    const e = fx.engine();
    await runProgramWithEngine(() => {
      const a = new Counter("a", { name: "alpha" });
      new Counter("b", { name: a.slug });
    }, e);
    const writes = fx.store().writes;
    const run = await runProgramWithEngine(() => {
      new Counter("a", { name: "alpha" });
    }, e);
    assert.deepStrictEqual(
      run.steps.map((s) => `${s.urn.split("::").pop()}:${s.op}`),
      ["a:same", "b:delete"],
    );
    assert.strictEqual(fx.store().writes, writes + 1);
    assert.deepStrictEqual(Object.keys(fx.store().objects), ["c-1"]);
  });

  it("preview: only Check/Diff reach the host; ids and computed outputs are unknown", async () => {
    const e = fx.engine();
    let aId!: pulumi.Output<string>;
    let bName!: pulumi.Output<string>;
    let aName!: pulumi.Output<string>;
    const run = await runProgramWithEngine(
      () => {
        const a = new Counter("a", { name: "alpha" });
        const b = new Counter("b", { name: a.slug });
        aId = a.id;
        aName = a.name;
        bName = b.name;
      },
      e,
      { preview: true },
    );
    assert.deepStrictEqual(
      run.steps.map((s) => s.op),
      ["create", "create"],
    );
    assert.strictEqual((await settle(aId)).known, false);
    assert.deepStrictEqual(await settle(aName), { value: "alpha", known: true, secret: false }, "preview outputs = checked inputs");
    assert.strictEqual((await settle(bName)).known, false);
    const methods = new Set(e.currentHost!.calls.map((c) => c.method));
    assert.ok(!methods.has("Create") && !methods.has("Update") && !methods.has("Delete"));
    assert.deepStrictEqual(fx.store().objects, {});
    assert.strictEqual(e.state.size, 0);
    const bCheck = fx.store().log.filter((l) => l.op === "check" && l.name === "04da6b54-80e4-46f7-96ec-b56ff0331ba9");
    assert.strictEqual(bCheck.length, 1, "b's Check received the unknown sentinel for a.slug");
  });

  it("secrets: pulumi.secret inputs reach the provider as plaintext and come back secret", async () => {
    const e = fx.engine();
    let out!: pulumi.Output<string | undefined>;
    await runProgramWithEngine(() => {
      const s = new Counter("s", { name: "s", secretValue: pulumi.secret("hunter2") });
      out = s.secretValue;
    }, e);
    assert.strictEqual(fx.store().objects["c-1"].secretValue, "hunter2");
    assert.ok(isSecret(e.get("s")!.inputs.secretValue));
    assert.ok(isSecret(e.get("s")!.outputs.secretValue));
    assert.deepStrictEqual(await settle(out), { value: "hunter2", known: true, secret: true });
    assert.ok(!e.stateJson().includes("hunter2"));
  });

  // step_generator.go (ReadStep for a goal with an id): Read(id, props with __provider), during preview too; external, never deleted.
  it("get (opts.id): Read with the __provider, never created, and not deleted when the program drops it", async () => {
    const e = fx.engine();
    await runProgramWithEngine(() => void new Counter("owned", { name: "owned", value: 5 }), e);
    const mark = fx.store().log.length;
    let slug!: pulumi.Output<string>;
    const run = await runProgramWithEngine(() => {
      new Counter("owned", { name: "owned", value: 5 });
      slug = new Counter("seen", { name: "seen" }, { id: "c-1" }).slug;
    }, e);
    assert.strictEqual((await settle(slug)).value, "owned-c-1", "outputs come from Read");
    const log = fx.store().log.slice(mark);
    assert.deepStrictEqual(
      log.filter((l) => l.op === "read").map((l) => l.id),
      ["c-1", "c-1"],
      "read in the preview and in the update",
    );
    assert.ok(!log.some((l) => l.op === "create" || l.op === "create-start"));
    assert.strictEqual(e.get("seen")!.external, true);
    assert.deepStrictEqual(run.steps.map((s) => `${s.urn.split("::").pop()}:${s.op}`).sort(), ["owned:same", "seen:read"]);
    const after = await runProgramWithEngine(() => void new Counter("owned", { name: "owned", value: 5 }), e);
    assert.deepStrictEqual(after.steps.map((s) => `${s.urn.split("::").pop()}:${s.op}`).sort(), ["owned:same", "seen:delete"]);
    assert.deepStrictEqual(Object.keys(fx.store().objects), ["c-1"], "the object read is still there");
  });

  // pulumi#3550, #7534, #16175: the engine imports with Read(id) and no properties; the host has no __provider.
  it("import: refused, as the real host fails a Read without __provider; nothing is created", async () => {
    const e = fx.engine();
    await assert.rejects(
      runProgramWithEngine(() => void new Counter("imp", { name: "imp" }, { import: "c-9" }), e),
      /import of .*::imp failed: the dynamic-provider host cannot read without __provider/,
    );
    assert.deepStrictEqual(fx.store().objects, {});
    assert.strictEqual(e.state.size, 0);
  });

  it("up runs the program twice, a preview deployment then the update, each with its own host", async () => {
    const e = fx.engine();
    let runs = 0;
    await runProgramWithEngine(() => {
      runs++;
      new Counter("a", { name: "a" });
    }, e);
    assert.strictEqual(runs, 2);
    assert.strictEqual(e.hosts.length, 2);
    await runProgramWithEngine(() => void new Counter("a", { name: "a" }), e, { skipPreview: true });
    assert.strictEqual(e.hosts.length, 3);
  });

  it("a failing create rejects the run and deletes nothing", async () => {
    const e = fx.engine();
    await runProgramWithEngine(() => void new Counter("keep", { name: "keep" }), e);
    await assert.rejects(
      runProgramWithEngine(() => {
        new Counter("bad", { name: "bad", failCreate: "nope" } as never);
      }, e),
      /create failed for bad: nope/,
    );
    assert.ok(e.get("keep"), "not deleted although the program no longer declares it");
  });
});
