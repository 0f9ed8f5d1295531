/**
 * TEST: protected resources among the deletes of an `up` and a `destroy`, as pulumi/pulumi decides them
 * (3.260, pkg/resource/deploy): GenerateDeletes (step_generator.go) makes a delete step for every removed
 * resource; DeleteStep.Apply (step.go) fails a protected one with deleteProtectedError, in preview too; the
 * step executor continues past that error (step_executor.go, cancelDueToError), and the deployment executor
 * leaves out of the later antichains whatever the failed resource depends on (deployment_executor.go,
 * performPostSteps, erroredDeps). What depends on the protected resource was deleted before it (ScheduleDeletes).
 * `pulumi up` and `pulumi destroy` preview first, so as typed they delete nothing; `--skip-preview` deletes the rest.
 * `pulumi destroy --exclude-protected` (pkg/cmd/pulumi/operations/destroy.go, getProtectedExcludes).
 */
import * as assert from "assert";
import { deleteProtectedMessage, DesiredResource, TestEngine, UpdateError } from "./engine";
import { COUNTER_TYPE, makeCounterProvider } from "./fixtures/counter-provider";
import { Fixture, fixture } from "./fixtures/harness";

const v1 = makeCounterProvider("v1");
function counter(name: string, extra: Partial<DesiredResource> = {}): DesiredResource {
  return { name, type: COUNTER_TYPE, provider: v1, inputs: { name }, ...extra };
}
const names = (e: TestEngine) => [...e.state.values()].map((r) => r.name).sort();
const deleted = (steps: { urn: string; op: string }[]) =>
  steps
    .filter((s) => s.op === "delete")
    .map((s) => s.urn.split("::").pop())
    .sort();

/** base ← p (protected) ← top, and q on its own. */
const STACK = [counter("base"), counter("p", { protect: true, dependsOn: ["base"] }), counter("top", { dependsOn: ["p"] }), counter("q")];

async function rejection(p: Promise<unknown>): Promise<UpdateError> {
  const err = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  assert.ok(err instanceof UpdateError, `expected an UpdateError, got ${String(err)}`);
  return err;
}

describe("engine stand-in: protected resources among the deletes (GenerateDeletes, DeleteStep, performPostSteps)", function () {
  this.timeout(90000);
  let fx: Fixture;
  beforeEach(() => (fx = fixture()));
  afterEach(() => fx.cleanup());

  it("an up that removes them: every other delete runs but the protected one's dependencies; the run fails with step.go's message", async () => {
    const e = fx.engine();
    await e.up(STACK);
    // `pulumi up` previews first, and the preview fails on the protected delete: nothing is deleted.
    await rejection(e.up([]));
    assert.deepStrictEqual(names(e), ["base", "p", "q", "top"]);
    const err = await rejection(e.up([], { skipPreview: true }));
    const p = e.urn(COUNTER_TYPE, "p");
    assert.deepStrictEqual(
      err.failures.map((f) => [f.urn, f.message]),
      [[p, deleteProtectedMessage(p)]],
    );
    assert.strictEqual(
      err.failures[0].message,
      `resource "${p}" cannot be deleted\nbecause it is protected. To unprotect the resource, either remove the \`protect\` flag ` +
        `from the resource in your Pulumi program and run \`pulumi up\`, or use the command:\n\`pulumi state unprotect '${p}'\``,
    );
    assert.deepStrictEqual(deleted(err.steps), ["q", "top"], "top (a dependent, deleted first) and q go; base, which p needs, stays");
    assert.deepStrictEqual(names(e), ["base", "p"]);
    assert.deepStrictEqual(
      Object.values(fx.store().objects)
        .map((o) => o.name)
        .sort(),
      ["base", "p"],
    );
  });

  it("a preview shows the same: the same deletes, every protected resource's message (TestMultipleProtectedDeletes)", async () => {
    const e = fx.engine();
    await e.up([...STACK, counter("p2", { protect: true })]);
    const err = await rejection(e.preview([]));
    assert.deepStrictEqual(
      err.failures.map((f) => f.message).sort(),
      [deleteProtectedMessage(e.urn(COUNTER_TYPE, "p")), deleteProtectedMessage(e.urn(COUNTER_TYPE, "p2"))].sort(),
    );
    assert.deepStrictEqual(deleted(err.steps), ["q", "top"]);
    assert.strictEqual(Object.keys(fx.store().objects).length, 5, "a preview deletes nothing");
    // The update reports both as well, and deletes what the preview showed.
    const up = await rejection(e.up([], { skipPreview: true }));
    assert.deepStrictEqual(up.failures.map((f) => f.urn.split("::").pop()).sort(), ["p", "p2"]);
    assert.deepStrictEqual(names(e), ["base", "p", "p2"]);
  });

  it("destroy previews first and deletes nothing; destroy --skip-preview: the same rule as an up", async () => {
    const e = fx.engine();
    await e.up(STACK);
    // `pulumi destroy` as typed previews, and the preview fails on the protected delete (the real CLI does:
    // test/real-engine/conformance.test.ts).
    const previewed = await rejection(e.destroy({ preview: true }));
    assert.deepStrictEqual(
      previewed.failures.map((f) => f.urn.split("::").pop()),
      ["p"],
    );
    assert.deepStrictEqual(names(e), ["base", "p", "q", "top"]);
    assert.strictEqual(Object.keys(fx.store().objects).length, 4, "nothing deleted");
    const err = await rejection(e.destroy());
    assert.deepStrictEqual(
      err.failures.map((f) => f.urn.split("::").pop()),
      ["p"],
    );
    assert.deepStrictEqual(deleted(err.steps), ["q", "top"]);
    assert.deepStrictEqual(names(e), ["base", "p"]);
  });

  it("destroy --exclude-protected: keeps the protected and what they depend on, destroys the rest, fails nothing", async () => {
    const e = fx.engine();
    await e.up(STACK);
    const steps = await e.destroy({ excludeProtected: true });
    assert.deepStrictEqual(deleted(steps), ["q", "top"]);
    assert.deepStrictEqual(names(e), ["base", "p"]);
    // Only protected resources and their dependencies left: destroy.go's notice, nothing run.
    const again = await e.destroy({ excludeProtected: true });
    assert.deepStrictEqual(again, []);
    assert.deepStrictEqual(e.notices, [
      "There were no unprotected resources to destroy. There are still 4 protected resources associated with this stack.",
    ]);
    assert.deepStrictEqual(names(e), ["base", "p"]);
  });
});
