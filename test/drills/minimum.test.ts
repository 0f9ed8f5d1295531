// The benchmark's request goals as a test, on a small fleet: every phase makes
// exactly the requests the API allows at the least (bench/ideal.ts), endpoint by
// endpoint, through the real provider host. Counts, not timings: those are for
// `npm run bench`.
import assert from "node:assert/strict";
import { countByEndpoint, Ideal, idealCreate, idealDestroy, idealRefresh, IdealOptions } from "../../bench/ideal";
import { exactlyOnce, workload } from "../../bench/workload";
import { engines } from "../resources/support";
import { Emulator, startEmulator } from "../support/portal";

describe("request minimum: a fleet makes exactly the fewest requests the API allows", function () {
  this.timeout(300_000); // an up is two deployments, each starting a host
  let emu: Emulator;
  const e = engines(() => emu);

  before(async () => {
    emu = await startEmulator({ port: 0, quiet: true });
  });
  after(async () => {
    await e.closeAll();
    await emu.close();
  });
  beforeEach(() => emu.reset());
  afterEach(() => e.closeAll());

  for (const passwords of [true, false]) {
    it(`3 tenants × 3 consumers with nodes${passwords ? ", passwords set" : ""}: create, no-op, refresh, destroy`, async () => {
      const o: IdealOptions = { tenants: 3, consumers: 3, passwords, latency: 0, parallel: 16 };
      const w = workload({ tenants: o.tenants, consumersPerTenant: o.consumers, passwords, prefix: "min-" });
      const eng = e.engine({ parallel: o.parallel });
      // The engine starts a fresh host per deployment (up = preview + update): caches do not carry over.
      const phase = async (run: () => Promise<unknown>) => {
        const mark = emu.requests().length;
        await run();
        return countByEndpoint(emu.requests().slice(mark));
      };
      const expect = (id: Ideal) => id.byEndpoint;

      assert.deepEqual(await phase(() => eng.up(w.resources)), expect(idealCreate(o)), "create");
      assert.deepEqual(exactlyOnce(emu.state(), w), { missing: [], duplicates: [], unexpected: [] });
      assert.deepEqual(await phase(() => eng.up(w.resources)), {}, "a no-op update asks the portal nothing");
      assert.deepEqual(await phase(() => eng.refresh()), expect(idealRefresh(o)), "refresh: one read per resource");
      assert.deepEqual(await phase(() => eng.destroy()), expect(idealDestroy(o)), "destroy");
      assert.equal(exactlyOnce(emu.state(), w).missing.length, o.tenants * (1 + 2 * o.consumers), "nothing left");
    });
  }
});
