/**
 * TEST: which provider configuration a delete, refresh and destroy run with, ignoreChanges paths and `get`, as
 * pulumi/pulumi 3.260 does them:
 *  - deletes during an `up` go to the default provider registered under the resource's provider reference. With
 *    a changed stack config the default provider (pulumi-nodejs, whose inputs are the whole config: target.go,
 *    GetPackageConfig) is diffed (DiffConfig is unimplemented by the dynamic host, so registry.go compares old
 *    outputs with new inputs: DiffSome) and UPDATED IN PLACE under the same reference (registry.go, Update:
 *    setProviderAndCloseOld). The deletes of that `up` therefore run with the CURRENT config; only refresh and
 *    destroy without --run-program load the provider from state (deployment.go, EnsureProvider → SameProvider).
 *  - `refresh --run-program`, `destroy --run-program` (refresh.go, destroy.go): the program runs, the current
 *    config is used.
 *  - ignoreChanges in the property-path syntax (properties_path.go; step_generator.go, processIgnoreChanges).
 *  - `get` (step.go, ReadStep): a missing id fails with "resource '<id>' does not exist"; an id another resource
 *    of the stack manages is read as an external resource beside it (nothing checks ids across URNs), and a
 *    destroy deletes the object once, through its owner.
 */
import * as assert from "assert";
import { applyIgnoreChanges, DesiredResource, ignoreChangesInfo } from "./engine";
import { parsePropertyPath, resetPath } from "./property-path";
import { COUNTER_TYPE, makeCounterProvider } from "./fixtures/counter-provider";
import { Fixture, fixture } from "./fixtures/harness";
import { secret, isSecret } from "./values";

const v1 = makeCounterProvider("v1");
const counter = (name: string, inputs: Record<string, unknown> = {}, extra: Partial<DesiredResource> = {}): DesiredResource => ({
  name,
  type: COUNTER_TYPE,
  provider: v1,
  inputs: { name, ...inputs },
  ...extra,
});

describe("engine stand-in: config of deletes, refresh and destroy; ignoreChanges paths; get", function () {
  this.timeout(120000);
  let fx: Fixture;
  beforeEach(() => (fx = fixture()));
  afterEach(() => fx.cleanup());

  /** The url each process was configured with, and the url of the process that ran each delete. */
  function deleteUrls(from: number): Record<string, string | undefined> {
    const log = fx.store().log.slice(from);
    const urlOf = new Map(log.filter((l) => l.op === "configure").map((l) => [l.pid, l.url as string | undefined]));
    return Object.fromEntries(log.filter((l) => l.op === "delete").map((l) => [l.name!, urlOf.get(l.pid)]));
  }

  it("an up that removes a resource after the config changed deletes it with the current config (registry.go, Update)", async () => {
    const e1 = fx.engine({ config: { url: "https://portal-one" } });
    await e1.up([counter("a"), counter("b")]);
    const e2 = fx.fromState(e1.exportState(), { config: { url: "https://portal-two" } });
    const mark = fx.store().log.length;
    await e2.up([counter("a")]);
    assert.deepStrictEqual(deleteUrls(mark), { b: "https://portal-two" });
    assert.match(e2.stateJson(), /"backup-portal:url": "https:\/\/portal-two"/);
  });

  it("destroy uses the config in state; destroy --run-program and refresh --run-program the current one", async () => {
    const e1 = fx.engine({ config: { url: "https://portal-one" } });
    await e1.up([counter("a")]);
    const configured = (from: number) =>
      fx
        .store()
        .log.slice(from)
        .filter((l) => l.op === "configure")
        .map((l) => l.url);

    const e2 = fx.fromState(e1.exportState(), { config: { url: "https://portal-two" } });
    let mark = fx.store().log.length;
    await e2.refresh();
    assert.deepStrictEqual(configured(mark), ["https://portal-one"]);
    mark = fx.store().log.length;
    await e2.refresh({ runProgram: true });
    assert.deepStrictEqual(configured(mark), ["https://portal-two"]);
    assert.match(e2.stateJson(), /"backup-portal:url": "https:\/\/portal-two"/, "the program's config is recorded");

    const e3 = fx.fromState(e1.exportState(), { config: { url: "https://portal-three" } });
    mark = fx.store().log.length;
    await e3.destroy({ runProgram: true });
    assert.deepStrictEqual(deleteUrls(mark), { a: "https://portal-three" });

    const e4 = fx.engine({ config: { url: "https://portal-one" } });
    await e4.up([counter("c")]);
    const e5 = fx.fromState(e4.exportState(), { config: { url: "https://portal-two" } });
    mark = fx.store().log.length;
    await e5.destroy();
    assert.deepStrictEqual(deleteUrls(mark), { c: "https://portal-one" });
  });

  it('ignoreChanges takes the engine\'s property paths: consumers[0].name, tags["x"]', async () => {
    const e = fx.engine();
    await e.up([counter("i", { consumers: [{ name: "a0", size: 1 }, { name: "a1" }], tags: { x: "1", "y.z": "2" } })]);
    await e.up([
      counter(
        "i",
        { consumers: [{ name: "CHANGED", size: 2 }, { name: "a1" }], tags: { x: "CHANGED", "y.z": "3" } },
        { ignoreChanges: ["consumers[0].name", 'tags["x"]'] },
      ),
    ]);
    assert.deepStrictEqual(e.get("i")!.inputs.consumers, [{ name: "a0", size: 2 }, { name: "a1" }]);
    assert.deepStrictEqual(e.get("i")!.inputs.tags, { x: "1", "y.z": "3" });
    assert.deepStrictEqual(e.infos, []);
    // A path into an element the new inputs add: left as it is, and the engine's info line.
    await e.up([
      counter(
        "i",
        { consumers: [{ name: "a0", size: 2 }, { name: "a1" }, { name: "a2" }], tags: { x: "1", "y.z": "3" } },
        { ignoreChanges: ["consumers[2].name"] },
      ),
    ]);
    assert.strictEqual((e.get("i")!.inputs.consumers as unknown[]).length, 3);
    // Once per deployment: the preview's and the update's.
    const info = `${e.urn(COUNTER_TYPE, "i")}: ${ignoreChangesInfo(["consumers[2].name"])}`;
    assert.deepStrictEqual(e.infos, [info, info]);
  });

  it("up --refresh: the refreshed state is what the update diffs against", async () => {
    const e = fx.engine();
    await e.up([counter("r", { value: 1 })]);
    // Changed behind the engine's back: the refresh sees value 5, so declaring 5 is no change at all.
    const store = fx.store();
    store.objects[e.get("r")!.id].value = 5;
    require("fs").writeFileSync(require("path").join(fx.dir, "store.json"), JSON.stringify(store));
    const r = await e.up([counter("r", { value: 5 })], { refresh: true });
    assert.deepStrictEqual(
      r.steps.map((s) => s.op),
      ["same"],
    );
  });

  it("get: a missing id fails with ReadStep's message; an id another resource manages is read beside it, deleted once", async () => {
    const e = fx.engine();
    await assert.rejects(e.up([counter("ghost", {}, { id: "c-999" })]), /resource 'c-999' does not exist/);
    const r = await e.up([counter("owner")]);
    const id = r.ids.owner;
    const both = await e.up([counter("owner"), counter("reader", {}, { id })]);
    assert.deepStrictEqual(both.steps.map((s) => `${s.urn.split("::").pop()}:${s.op}`).sort(), ["owner:same", "reader:read"]);
    assert.strictEqual(e.get("reader")!.id, id);
    assert.strictEqual(e.get("reader")!.external, true);
    await e.destroy();
    assert.deepStrictEqual(
      fx
        .store()
        .log.filter((l) => l.op === "delete")
        .map((l) => l.id),
      [id],
      "one Delete, from the owner",
    );
    assert.strictEqual(e.state.size, 0);
  });
});

describe("property paths (properties_path.go, ParsePropertyPath and Reset)", () => {
  it("parses the documented examples", () => {
    const cases: Array<[string, Array<string | number>]> = [
      ["root", ["root"]],
      ["root.nested", ["root", "nested"]],
      ['root["nested"]', ["root", "nested"]],
      ['root["double"]["nest"]', ["root", "double", "nest"]],
      ["root.array[0]", ["root", "array", 0]],
      ["root.array[100]", ["root", "array", 100]],
      ["root.array[0][1].nested", ["root", "array", 0, 1, "nested"]],
      ['root["key with \\"escaped\\" quotes"]', ["root", 'key with "escaped" quotes']],
      ['root["key with a ."]', ["root", "key with a ."]],
      ['["root key with a ."][100]', ["root key with a .", 100]],
      ["root.array[*].field", ["root", "array", "*", "field"]],
      ["foo-bar", ["foo-bar"]],
    ];
    for (const [text, want] of cases) assert.deepStrictEqual(parsePropertyPath(text), want, text);
    for (const bad of ["root[", "root[x]", "", 'root["open]']) assert.throws(() => parsePropertyPath(bad), bad);
  });

  it("resets a leaf to the old value, removes what old lacks, keeps a secret secret, fails on added or removed elements", () => {
    const reset = (path: string, olds: unknown, news: unknown) => {
      const n = JSON.parse(JSON.stringify(news));
      return { ok: resetPath(parsePropertyPath(path), olds, n), news: n };
    };
    assert.deepStrictEqual(reset("a.b", { a: { b: 1 } }, { a: { b: 2, c: 3 } }), { ok: true, news: { a: { b: 1, c: 3 } } });
    assert.deepStrictEqual(reset("a.b", { a: {} }, { a: { b: 2 } }), { ok: true, news: { a: {} } });
    assert.deepStrictEqual(reset("l[1]", { l: [1, 2] }, { l: [1, 5] }), { ok: true, news: { l: [1, 2] } });
    assert.deepStrictEqual(reset("l[1]", { l: [1] }, { l: [1, 5] }).ok, false);
    assert.deepStrictEqual(reset("l[3]", { l: [1] }, { l: [1] }), { ok: true, news: { l: [1] } });
    assert.deepStrictEqual(reset("a.b.c", { a: { b: { c: 1 } } }, { a: {} }).ok, false);
    const n = { s: "new" } as Record<string, unknown>;
    assert.ok(applyIgnoreChanges(n, { s: secret("old") }, ["s"]).s !== undefined);
    assert.ok(isSecret(applyIgnoreChanges(n, { s: secret("old") }, ["s"]).s), "an old secret comes back as a secret");
    assert.deepStrictEqual(
      applyIgnoreChanges({ t: { x: 2 } }, { t: { x: 1 } }, ['t["x"]', "bad["]),
      { t: { x: 1 } },
      "an unparsable path is skipped",
    );
  });
});
