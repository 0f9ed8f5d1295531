// Crash drills: the provider host dies while creates are in flight, and the run
// is resumed from the checkpoint a crashed `pulumi up` leaves behind: the state
// so far plus pending CREATE operations for the calls that never answered. The
// real engine then warns ("Attempting to deploy or update resources with N
// pending operations from previous deployment ... interrupted while creating")
// and goes on; a create that was in flight is not in state, so it is made
// again. When the portal had processed the lost request, that object is an
// orphan. The resumed run uses recovery (BACKUP_PORTAL_RECOVER_INTERRUPTED, see
// provider/dynamic/recovery.ts): business units and consumers carry a marker
// derived from the resource's identity, and the resumed create takes over the
// object carrying it. A node left on its consumer is taken over without it.
//
// The crash: the host is frozen (SIGSTOP) once creates of the kind under test
// are in flight, the portal answers them (a server finishes a request it has
// received), then the host is killed (SIGKILL) without reading the answers.
//
// What must hold: the resumed run completes, every declared object exists once
// and is in state, and nothing is duplicated.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { StateSnapshot, TestEngine } from "../engine/engine";
import { engines } from "../resources/support";
import { Emulator, envFor, startEmulator } from "../support/portal";
import { exactlyOnce, Workload, workload } from "../../bench/workload";
import { sleep, stateMatchesPortal, until, upOnce } from "./helpers";

interface Orphans {
  businessUnits: string[];
  consumers: string[];
  nodes: string[];
}

/** Portal objects of the workload that the checkpoint does not know. */
function orphansOf(emu: Emulator, w: Workload, snap: StateSnapshot): Orphans {
  const s = emu.state();
  const ids = (type: string) => new Set(snap.resources.filter((r) => r.type.endsWith(`:${type}`)).map((r) => Number(r.id)));
  const bus = ids("BusinessUnit");
  const consumers = ids("Consumer");
  const nodes = ids("Node");
  const out: Orphans = { businessUnits: [], consumers: [], nodes: [] };
  for (const t of w.tenants) {
    const mine = s.businessUnits.filter((b) => b.parentId === w.parentId && b.name === t.name);
    for (const b of mine) if (!bus.has(b.id)) out.businessUnits.push(t.resource);
    for (const c of s.consumers.filter((x) => mine.some((b) => b.id === x.businessUnitId))) {
      const declared = t.consumers.find((d) => d.name === c.name);
      if (!consumers.has(c.id)) out.consumers.push(declared?.resource ?? `${t.name}/${c.name}`);
      else if (s.nodes.some((n) => n.consumerId === c.id) && !nodes.has(c.id)) out.nodes.push(declared?.nodeResource ?? `node of ${c.id}`);
    }
  }
  return out;
}

describe("crash drills: provider host killed with creates in flight, resumed from the checkpoint", function () {
  this.timeout(180_000);
  let emu: Emulator;
  let dir: string;
  const e = engines(() => emu);

  before(async () => {
    emu = await startEmulator({ port: 0, quiet: true });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "crash-drill-"));
  });
  after(async () => {
    await e.closeAll();
    await emu.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(() => emu.reset());
  afterEach(() => e.closeAll());

  const pendingOf = (eng: TestEngine, type: string) =>
    eng.pendingOperations.filter((o) => o.type === "creating" && o.urn.split("::")[2].endsWith(`:${type}`)).length;
  const SCENARIOS = [
    {
      name: "business units in flight",
      // After the time zones are read, each business unit's POST follows at once.
      ready: (eng: TestEngine) =>
        emu.requests().some((r) => r.path === "/v1/timezones" && r.status === 200) && pendingOf(eng, "BusinessUnit") >= 3,
    },
    {
      name: "consumers in flight",
      ready: (eng: TestEngine) => pendingOf(eng, "Consumer") >= 3,
    },
    {
      name: "nodes made, password and activation in flight",
      // Node POSTs answered for nodes not yet in state: their password or activation is under way.
      ready: (eng: TestEngine) => {
        const made = emu.requests().filter((r) => r.method === "POST" && /\/consumers\/\d+\/node$/.test(r.path) && r.status === 200).length;
        const recorded = [...eng.state.values()].filter((r) => r.type.endsWith(":Node")).length;
        return made - recorded >= 3;
      },
    },
  ];

  SCENARIOS.forEach((sc, i) => {
    it(sc.name, async () => {
      const w = workload({ tenants: 5, prefix: `crash${i}-` });
      const stateFile = path.join(dir, `state-${i}.json`);
      // 400 ms per request: creates stay in flight (inside the portal) long enough
      // for the host to have sent them before it is frozen, even on a loaded machine.
      emu.setFaults({ latencyMs: 400 });
      const eng = e.engine({ parallel: 16, stateFile });
      const run1 = eng.up(w.resources).then(
        () => "completed",
        (err: Error) => err.message,
      );
      assert.ok(await until(() => sc.ready(eng), 60_000), "the run never reached the point to crash at");
      await sleep(150); // requests just started reach the portal (and are still inside its latency)
      const host = eng.currentHost!;
      process.kill(host.pid, "SIGSTOP");
      // What a crashed CLI leaves: the last checkpoint, with the pending operations.
      const snap = JSON.parse(fs.readFileSync(stateFile, "utf8")) as StateSnapshot;
      await sleep(900); // the portal answers what it received; nobody reads the answers
      await host.kill();
      assert.match(await run1, /update failed/);
      emu.clearFaults();

      const pending = snap.pendingOperations.filter((o) => o.type === "creating").map((o) => o.urn.split("::").pop()!);
      assert.ok(pending.length >= 3, `pending creates in the checkpoint: ${pending.join(", ")}`);
      await sleep(100);
      const orphans = orphansOf(emu, w, snap);

      // `pulumi up` again from the checkpoint (a new engine, a new host), with recovery on.
      const eng2 = e.track(
        TestEngine.fromState(snap, {
          stack: "test",
          env: { ...envFor(emu), BACKUP_PORTAL_RECOVER_INTERRUPTED: "true" },
          stateFile,
        }),
      );
      const out = await upOnce(eng2, w);
      assert.ok(out.ok, `the resumed run did not complete: ${out.error}`);
      // The engine's one warning names every interrupted operation (deployment_executor.go).
      assert.equal(eng2.warnings.length, 1);
      for (const p of pending) assert.ok(eng2.warnings[0].includes(`::${p}, interrupted while creating\n`), p);
      // The pending creates stay in the state (pkg/backend/snapshot.go) although their objects were taken over,
      // until `pulumi refresh --clear-pending-creates` (docs/gitops.md, "CI was killed during pulumi up").
      assert.deepEqual(eng2.pendingOperations.map((o) => o.urn.split("::").pop()).sort(), [...pending].sort());

      const s = emu.state();
      const report = exactlyOnce(s, w);
      assert.deepEqual(report.missing, [], "everything declared exists");
      assert.deepEqual(report.duplicates, [], "nothing duplicated");
      assert.deepEqual(report.unexpected, [], "no node left unactivated");
      assert.deepEqual(stateMatchesPortal([...eng2.state.values()], s), [], "state points at live objects");
      assert.equal(eng2.state.size, w.resources.length);
      const before = eng2.exportState().resources;
      await eng2.refresh({ clearPendingCreates: true });
      assert.deepEqual(eng2.pendingOperations, []);
      assert.deepEqual(
        eng2.exportState().resources.map((r) => r.id),
        before.map((r) => r.id),
        "the refresh found every object",
      );
      const takenOver = [...orphans.businessUnits, ...orphans.consumers, ...orphans.nodes];
      assert.ok(takenOver.length > 0, "the crash left objects the portal made but state did not record");
      for (const name of takenOver) {
        const urnEnd = `::${name}`;
        assert.ok(
          [...eng2.state.values()].some((r) => r.urn.endsWith(urnEnd)),
          `${name} is in state`,
        );
      }

      console.log(
        `      crash drill "${sc.name}": killed with ${snap.resources.length} resources in state and ${pending.length} creates pending; ` +
          `the portal had made ${takenOver.length} of them anyway (${takenOver.join(", ")}); the resumed run took them over: no duplicates`,
      );
    });
  });
});
