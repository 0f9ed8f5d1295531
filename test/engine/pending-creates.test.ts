/**
 * TEST: a create cut off mid-way (the CLI killed during `pulumi up`) as pulumi/pulumi 3.260 keeps it: a pending
 * operation of type `creating` in the checkpoint. The next update or destroy warns with
 * deployment_executor.go's printPendingOperationsWarning text; pkg/backend/snapshot.go carries the pending
 * CREATE into every new snapshot (interrupted updates and deletes are dropped); `pulumi refresh` alone keeps
 * it; `pulumi refresh --clear-pending-creates` (pkg/cmd/pulumi/operations/refresh.go) removes it.
 */
import * as assert from "assert";
import * as fs from "fs";
import * as path from "path";
import { DesiredResource, pendingOperationsWarning, StateSnapshot } from "./engine";
import { COUNTER_TYPE, makeCounterProvider } from "./fixtures/counter-provider";
import { Fixture, fixture } from "./fixtures/harness";
import { waitFor } from "../support/wait";

const v1 = makeCounterProvider("v1");
const counter = (name: string, inputs: Record<string, unknown> = {}): DesiredResource => ({
  name,
  type: COUNTER_TYPE,
  provider: v1,
  inputs: { name, ...inputs },
});

describe("engine stand-in: pending creates after a killed CLI (printPendingOperationsWarning, snapshot.go, refresh.go)", function () {
  this.timeout(120000);
  let fx: Fixture;
  beforeEach(() => (fx = fixture()));
  afterEach(() => fx.cleanup());

  /** The checkpoint a CLI killed while b's create was in flight leaves behind, plus an interrupted update. */
  async function crashSnapshot(): Promise<StateSnapshot> {
    const stateFile = path.join(fx.dir, "state.json");
    const e = fx.engine({ stateFile });
    await e.up([counter("a")]);
    const run = e.up([counter("a", { value: 1, delayMs: 4000 }), counter("b", { delayMs: 4000 })]).catch(() => undefined);
    await waitFor(() => fx.store().log.some((l) => l.op === "create-start" && l.name === "b"), "b's create started", 30000);
    const snap = JSON.parse(fs.readFileSync(stateFile, "utf8")) as StateSnapshot;
    await e.currentHost!.kill();
    await run;
    return snap;
  }

  it("the next up warns with the engine's text and keeps the pending create; refresh keeps it; --clear-pending-creates removes it", async () => {
    const snap = await crashSnapshot();
    const urn = (n: string) => `urn:pulumi:test::${snap.project}::${COUNTER_TYPE}::${n}`;
    assert.deepStrictEqual(snap.pendingOperations.map((o) => [o.urn, o.type]).sort(), [
      [urn("a"), "updating"],
      [urn("b"), "creating"],
    ]);

    const e2 = fx.fromState(snap);
    await e2.up([counter("a", { value: 1 }), counter("b")]);
    assert.deepStrictEqual(e2.warnings, [pendingOperationsWarning(snap.pendingOperations)]);
    assert.match(
      e2.warnings[0],
      new RegExp(`^Attempting to deploy or update resources with 2 pending operations from previous deployment\\.\\n`),
    );
    assert.ok(e2.warnings[0].includes(`  * ${urn("b")}, interrupted while creating\n`));
    assert.ok(e2.warnings[0].endsWith("Note that `pulumi refresh` will need to be run interactively to clear pending CREATE operations."));
    // The interrupted update is gone from the new snapshot, the interrupted create is not.
    assert.deepStrictEqual(e2.exportState().pendingOperations, [{ urn: urn("b"), type: "creating" }]);

    // Every later up reports it again.
    await e2.up([counter("a", { value: 1 }), counter("b")]);
    assert.strictEqual(e2.warnings.length, 2);
    assert.match(e2.warnings[1], /with 1 pending operations/);

    await e2.refresh();
    assert.deepStrictEqual(e2.exportState().pendingOperations, [{ urn: urn("b"), type: "creating" }], "refresh alone keeps it");
    assert.strictEqual(e2.warnings.length, 2, "a refresh prints no such warning");

    await e2.refresh({ clearPendingCreates: true });
    assert.deepStrictEqual(e2.exportState().pendingOperations, []);
    await e2.up([counter("a", { value: 1 }), counter("b")]);
    assert.strictEqual(e2.warnings.length, 2, "nothing pending, nothing reported");
  });

  it("up --refresh: no warning (the refresh comes first), the pending create still kept", async () => {
    const snap = await crashSnapshot();
    const e2 = fx.fromState(snap);
    await e2.up([counter("a", { value: 1 }), counter("b")], { refresh: true });
    assert.deepStrictEqual(e2.warnings, []);
    assert.deepStrictEqual(
      e2.exportState().pendingOperations.map((o) => o.type),
      ["creating"],
    );
  });
});
