// Fault drills: 5 tenants (45 resources) under injected 503s, 429s with
// Retry-After, connections dropped before and after the portal processed the
// request, and 2-second tokens. Each run must end with every declared object on
// the portal exactly once, or fail with a clear error after which the next run
// completes without duplicates; refresh, a no-op update and destroy then run
// under the same faults.
import assert from "node:assert/strict";
import type { FaultConfig } from "../../emulator";
import { engines } from "../resources/support";
import { Emulator, startEmulator } from "../support/portal";
import { exactlyOnce, workload } from "../../bench/workload";
import { faultCounts, RunOutcome, stateMatchesPortal, upOnce, writesIn } from "./helpers";

const TENANTS = 5;
const MAX_RUNS = 3;

const DRILLS: Array<{ name: string; faults: FaultConfig }> = [
  { name: "10% 503 Service Unavailable", faults: { errorRate: 0.1, statuses: [503] } },
  { name: "10% 429 Too Many Requests, Retry-After 1 s", faults: { errorRate: 0.1, statuses: [429], retryAfterSeconds: 1 } },
  { name: "10% connections dropped before processing", faults: { dropBeforeRate: 0.1 } },
  { name: "10% connections dropped after processing", faults: { dropAfterRate: 0.1 } },
  // Creates, passwords and token grants only: the lost-answer paths of every create.
  { name: "30% of POSTs dropped after processing", faults: { dropAfterRate: 0.3, match: { method: "POST" } } },
  {
    name: "POSTs: 20% dropped before and 20% after processing",
    faults: { dropBeforeRate: 0.2, dropAfterRate: 0.2, match: { method: "POST" } },
  },
  {
    name: "all at once: 10% 503/429, 5% dropped before, 5% dropped after",
    faults: { errorRate: 0.1, statuses: [503, 429], retryAfterSeconds: 1, dropBeforeRate: 0.05, dropAfterRate: 0.05 },
  },
];

describe("fault drills: exactly once under 503, 429, dropped connections and 2-second tokens", function () {
  this.timeout(180_000);
  let emu: Emulator;
  const e = engines(() => emu);

  before(async () => {
    emu = await startEmulator({ port: 0, quiet: true, tokenTtlSeconds: 2 });
  });
  after(async () => {
    await e.closeAll();
    await emu.close();
  });
  beforeEach(() => emu.reset());
  afterEach(() => e.closeAll());

  it("creates that give up fail the run with a clear error; the next run completes without duplicates", async () => {
    const w = workload({ tenants: TENANTS, prefix: "giveup-" });
    // The first business unit made gets id 4 (after the seed's 1-3): every attempt of its 4 consumer
    // creates (4 each) is dropped before the portal sees it; then the faults are used up.
    emu.setFaults({ dropBeforeRate: 1, count: 16, match: { method: "POST", pathPrefix: "/v1/bunits/4/consumers" } });
    const eng = e.engine({ parallel: 16 });
    const first = await upOnce(eng, w);
    assert.equal(first.ok, false);
    assert.match(first.error!, /\/c\d \(register\): POST \/v1\/bunits\/4\/consumers failed \(no answer\)/);
    assert.equal(emu.requests().filter((r) => r.status === 0).length, 16);
    const second = await upOnce(eng, w);
    assert.ok(second.ok, second.error);
    const s = emu.state();
    assert.deepEqual(exactlyOnce(s, w), { missing: [], duplicates: [], unexpected: [] });
    assert.deepEqual(stateMatchesPortal([...eng.state.values()], s), []);
    console.log(
      `      drill "creates give up": run 1 failed with "${first.error!.split(";")[0].slice(0, 150)}"; run 2 completed; duplicates 0, missing 0`,
    );
  });

  DRILLS.forEach(({ name, faults }, i) => {
    it(name, async () => {
      const w = workload({ tenants: TENANTS, prefix: `drill${i}-` });
      // 25 ms per request keeps the drill running across several 2-second token lifetimes.
      emu.setFaults({ ...faults, latencyMs: 25, seed: 1000 + i });
      const started = Date.now();
      const eng = e.engine({ parallel: 16 });

      const runs: RunOutcome[] = [];
      while (runs.length < MAX_RUNS && !runs.some((r) => r.ok)) runs.push(await upOnce(eng, w));
      assert.ok(
        runs.some((r) => r.ok),
        `no run of ${MAX_RUNS} completed: ${runs.map((r) => r.error).join(" | ")}`,
      );
      const s = emu.state();
      assert.deepEqual(exactlyOnce(s, w), { missing: [], duplicates: [], unexpected: [] });
      assert.deepEqual(stateMatchesPortal([...eng.state.values()], s), []);
      assert.equal(eng.state.size, w.resources.length);
      const createLog = emu.requests();

      // Under the same faults: a refresh changes nothing, a no-op update writes nothing.
      const refreshed = await eng.refresh();
      assert.deepEqual(
        refreshed.filter((x) => x.op !== "same"),
        [],
      );
      const mark = emu.requests().length;
      const noop = await eng.up(w.resources);
      assert.deepEqual(
        noop.steps.filter((x) => x.op !== "same"),
        [],
      );
      assert.deepEqual(writesIn(emu.requests().slice(mark)), []);

      // Destroy under the same faults leaves nothing of the workload behind.
      let destroyed = false;
      const destroyErrors: string[] = [];
      for (let k = 0; k < MAX_RUNS && !destroyed; k++) {
        try {
          await eng.destroy();
          destroyed = true;
        } catch (err) {
          destroyErrors.push((err as Error).message.split("\n")[1] ?? String(err));
        }
      }
      assert.ok(destroyed, `destroy did not complete: ${destroyErrors.join(" | ")}`);
      const left = exactlyOnce(emu.state(), w);
      assert.deepEqual([left.duplicates, left.unexpected, left.missing.length], [[], [], w.resources.length]);

      const c = faultCounts(createLog);
      const all = faultCounts(emu.requests());
      console.log(
        `      drill "${name}": ${runs.length} run(s) to complete` +
          `${runs.some((r) => !r.ok) ? ` (first failed: ${runs.find((r) => !r.ok)!.error!.slice(0, 160)})` : ""}; ` +
          `create: ${c.requests} requests, ${c["503"]}×503, ${c["429"]}×429, ${c.dropped} dropped, ${c.tokens} token requests; ` +
          `whole drill (create, refresh, no-op, destroy${destroyErrors.length ? ` in ${destroyErrors.length + 1} tries` : ""}): ` +
          `${all.requests} requests, ${all["503"] + all["429"]} injected errors, ${all.dropped} dropped, ${all.tokens} token requests, ` +
          `${all["401"]}×401, ${((Date.now() - started) / 1000).toFixed(1)} s; duplicates 0, missing 0`,
      );
    });
  });
});
