// Crash drills: the provider host dies while creates are in flight, and the run
// is resumed from the checkpoint a crashed `pulumi up` leaves behind: the state
// so far plus pending CREATE operations for the calls that never answered. The
// real engine then warns ("Attempting to deploy or update resources with N
// pending operations from previous deployment ... interrupted while creating")
// and goes on; a create that was in flight is not in state, so it is made
// again. When the portal had processed the lost request, that object is an
// orphan: a business unit or consumer is then on the portal twice (the portal
// allows duplicate names), and a node makes the next create fail with 409 until
// the operator adopts it (adoptId), as the error says.
//
// The crash: the host is frozen (SIGSTOP) once creates of the kind under test
// are in flight, the portal answers them (a server finishes a request it has
// received), then the host is killed (SIGKILL) without reading the answers.
//
// The drills measure the orphans and check what must hold regardless: every
// duplicate is a create the engine reported as interrupted, every declared
// object exists and is in state, and nothing that was in state is made again.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { DesiredResource, ref, StateSnapshot, TestEngine } from "../engine/engine";
import { engines } from "../resources/support";
import { Emulator, envFor, startEmulator } from "../support/portal";
import { exactlyOnce, Workload, workload } from "../../bench/workload";
import { RunOutcome, sleep, stateMatchesPortal, until, upOnce } from "./helpers";

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

/** The operator's fix the 409 error names: adopt the node already on the consumer. */
function adoptNodes(resources: DesiredResource[], names: string[]): DesiredResource[] {
  return resources.map((r) => {
    if (!names.includes(r.name)) return r;
    return { ...r, inputs: { ...r.inputs, adoptId: ref(r.name.replace(/\/node$/, ""), "id") } };
  });
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
      ready: (eng: TestEngine) => emu.requests().some((r) => r.path === "/v1/timezones" && r.status === 200) && pendingOf(eng, "BusinessUnit") >= 3,
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
      // 100 ms per request: creates are in flight (inside the portal) for a while.
      emu.setFaults({ latencyMs: 100 });
      const eng = e.engine({ parallel: 16, stateFile });
      const run1 = eng.up(w.resources).then(() => "completed", (err: Error) => err.message);
      assert.ok(await until(() => sc.ready(eng), 60_000), "the run never reached the point to crash at");
      await sleep(20); // requests just started reach the portal
      const host = eng.currentHost!;
      process.kill(host.pid, "SIGSTOP");
      // What a crashed CLI leaves: the last checkpoint, with the pending operations.
      const snap = JSON.parse(fs.readFileSync(stateFile, "utf8")) as StateSnapshot;
      await sleep(400); // the portal answers what it received; nobody reads the answers
      await host.kill();
      assert.match(await run1, /update failed/);
      emu.clearFaults();

      const pending = snap.pendingOperations.filter((o) => o.type === "creating").map((o) => o.urn.split("::").pop()!);
      assert.ok(pending.length >= 3, `pending creates in the checkpoint: ${pending.join(", ")}`);
      await sleep(100);
      const orphans = orphansOf(emu, w, snap);

      // `pulumi up` again from the checkpoint (a new engine, a new host).
      const runs: Array<RunOutcome & { adopted?: string[] }> = [];
      const eng2 = e.track(TestEngine.fromState(snap, { stack: "test", env: envFor(emu), stateFile }));
      let desired = w.resources;
      for (let k = 0; k < 3; k++) {
        const out = await upOnce(eng2, { ...w, resources: desired });
        runs.push(out);
        if (out.ok) break;
        // Only the error this drill expects: a node already on the consumer (an orphan of the crash).
        const failed = [...out.error!.matchAll(/([^\s;]+\/node) \(register\): consumer \d+ already has a node; to manage it, set adoptId/g)].map((m) => m[1]);
        assert.ok(failed.length > 0, `unexpected failure: ${out.error}`);
        desired = adoptNodes(desired, failed);
        runs[runs.length - 1].adopted = failed;
      }
      assert.ok(runs[runs.length - 1].ok, `did not complete: ${runs.map((r) => r.error).join(" | ")}`);
      assert.equal(eng2.warnings.length, snap.pendingOperations.length, "one warning per interrupted operation");
      for (const p of pending) assert.ok(eng2.warnings.some((x) => x.includes(`::${p}: interrupted while creating`)));

      const s = emu.state();
      const report = exactlyOnce(s, w);
      assert.deepEqual(report.missing, [], "everything declared exists");
      assert.deepEqual(stateMatchesPortal([...eng2.state.values()], s), [], "state points at live objects");
      assert.equal(eng2.state.size, w.resources.length);
      // Every duplicate is an interrupted create: nothing that was in state was made again.
      const dupNames = [...orphans.businessUnits, ...orphans.consumers];
      for (const d of dupNames) assert.ok(pending.includes(d), `${d} duplicated but its create was not pending`);
      assert.equal(report.duplicates.length, dupNames.length, `duplicates ${JSON.stringify(report.duplicates)} vs orphans ${JSON.stringify(orphans)}`);
      // Orphan consumers sit in the declared business units without a node; orphan business units are empty.
      assert.deepEqual(report.unexpected, [], "no node left unactivated (the 409 path adopts it)");
      const adopted = runs.flatMap((r) => r.adopted ?? []);
      assert.deepEqual([...adopted].sort(), [...orphans.nodes].sort(), "every orphan node was adopted, none other");

      console.log(`      crash drill "${sc.name}": killed with ${snap.resources.length} resources in state and ${pending.length} creates pending ` +
        `(${pending.join(", ")}); the portal had made ${dupNames.length + orphans.nodes.length} of them anyway. ` +
        `Resumed: ${runs.length} run(s)${adopted.length ? ` (node 409 → adoptId for ${adopted.join(", ")})` : ""}; ` +
        `ORPHAN DUPLICATES LEFT ON THE PORTAL: ${report.duplicates.length ? report.duplicates.join("; ") : "none"}`);
    });
  });
});
