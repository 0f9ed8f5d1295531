// `npm run bench:plugin`: the same workload (bench/workload.ts) through both paths in one run, against one
// emulator (in its own process, as in bench/main.ts) with `--latency` ms added to every request. Both paths
// are driven by the engine stand-in (test/engine/engine.ts), so the engine's scheduling is the same for both:
// serial Check and Diff, `--parallel` operations at once, a fresh provider process per deployment (an up is a
// preview and an update). The dynamic path runs the dynamic-provider host; the plugin path the `backupportal`
// plugin (test/plugin/plugin-host.ts), which also gets the preview's Create (it supports preview). Phases:
// create, no-op update, refresh, destroy. Prints per path and phase the wall time next to the ideal
// (bench/ideal.ts: max(requests × latency / parallel, depth × latency)), the provider process's CPU per
// resource operation (Check, Diff, Create, Read, Update, Delete), the stand-in's own CPU per operation (it is
// on the same serial path as the provider, where the Go engine's cost is small), each provider process's
// start-up, and state bytes per resource (docs/benchmark.md, "Plugin path beside the dynamic path").
//
// `--paths dynamic-0.2.0` runs the dynamic path with the `__provider` text 0.2.0 stored (the closure serializer's
// 2.6 KB, test/dynamic/fixtures/provider-0.2.0/): the cost of that text beside the current one, in one run.
// Two floors: `--paths echo` runs a provider process that speaks the plugin's wire and does nothing else
// (bench/echo-provider.js): what any provider process costs under the stand-in. `--paths floor` runs a provider
// that does no work in the bench's own process (bench/floor-host.ts): the stand-in's own scheduling.
//
// `--engine cli` runs the paths on the real Pulumi CLI instead (bench/cli-engine.ts): dynamic is the stacks/ program,
// plugin a generated Pulumi YAML program under pulumi-language-yaml, echo the same program on the echo provider (run
// first unless left out of --paths: the engine's own floor, against which each phase's target is set);
// dynamic-0.2.0 and floor are the stand-in's only. Phases there: create, no-op preview, no-op, refresh, destroy.
//
//   npm run bench:plugin -- [--tenants 10] [--consumers 4] [--latency 20] [--parallel 16] [--paths dynamic,plugin,dynamic-0.2.0,echo,floor]
//                           [--engine standin|cli] [--parallel-diff off|on|both] [--timeout 1800]
import * as fs from "fs";
import * as os from "os";
import * as nodePath from "path";
import { performance } from "perf_hooks";
import { DesiredResource, TestEngine } from "../test/engine/engine";
import type { ProviderHost } from "../test/engine/host";
import { envFor, ORIGIN } from "../test/support/portal";
import { pluginType, startPluginHost } from "../test/plugin/plugin-host";
import { Ideal, ideal, idealCreate, idealDestroy, idealRefresh } from "./ideal";
import { processCpuMs, startPortalProcess } from "./portal-process";
import { exactlyOnce, workload } from "./workload";
import { startFloorHost } from "./floor-host";
import { CLI_PATHS, CliPath, CliRun, parallelDiffModes, runOnCli, target } from "./cli-engine";
import { countByEndpoint } from "./ideal";

function arg(name: string, dflt: number, min = 1): number {
  const i = process.argv.indexOf(name);
  const v = i < 0 ? dflt : Number(process.argv[i + 1]);
  if (!Number.isInteger(v) || v < min) throw new Error(`${name} needs an integer ≥ ${min}`);
  return v;
}

/** The `__provider` 0.2.0 stored for a dynamic type. */
function legacyProvider(type: string): string {
  const file = type
    .split(":")
    .pop()!
    .replace(/([a-z])([A-Z])/g, "$1-$2")
    .toLowerCase();
  return fs.readFileSync(nodePath.join(__dirname, "..", "test", "dynamic", "fixtures", "provider-0.2.0", `${file}.txt`), "utf8");
}

const OPERATIONS = new Set(["Check", "Diff", "Create", "Read", "Update", "Delete"]);

interface PhaseResult {
  phase: string;
  wallMs: number;
  ideal: Ideal;
  requests: number;
  hostCpuMs: number;
  operations: number;
  /** Provider processes started in the phase, and their time from spawn to configured (not in wallMs). */
  starts: number;
  startMs: number;
  /** CPU of this process, the engine stand-in (the emulator runs in its own): on the same critical path. */
  standInCpuMs: number;
}

const fmt = (ms: number) => `${Math.round(ms)} ms`;
const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(" ");

function stringArg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i < 0 ? undefined : process.argv[i + 1];
}

async function main(): Promise<void> {
  const engine = stringArg("--engine") ?? "standin";
  if (engine !== "standin" && engine !== "cli") throw new Error(`--engine is standin or cli, got ${engine}`);
  if (engine === "cli") return mainCli();
  if (process.argv.includes("--parallel-diff")) throw new Error("--parallel-diff needs --engine cli");
  const tenants = arg("--tenants", 10);
  const consumers = arg("--consumers", 4);
  const latency = arg("--latency", 20, 0);
  const parallel = arg("--parallel", 16);
  const pi = process.argv.indexOf("--paths");
  const paths = (pi < 0 ? "dynamic,plugin" : process.argv[pi + 1]).split(",");
  const o = { tenants, consumers, passwords: true, latency, parallel };
  console.log(
    `workload: ${tenants} tenants × (1 business unit + ${consumers} consumers + ${consumers} nodes); latency ${latency} ms; ` +
      `${parallel} operations at once; node ${process.version}, ${os.cpus().length} cpus, load ${load()}`,
  );
  const portal = await startPortalProcess({ nodeArgs: [] });
  const summary: string[] = [];
  try {
    await portal.setFaults({ latencyMs: latency });
    for (const path of paths) {
      if (!["dynamic", "plugin", "dynamic-0.2.0", "echo", "floor"].includes(path))
        throw new Error(`--paths: dynamic, plugin, dynamic-0.2.0, echo or floor, got ${path}`);
      const native = path === "plugin" || path === "echo" || path === "floor";
      const requests = path === "dynamic" || path === "dynamic-0.2.0" || path === "plugin";
      const w = workload({ tenants, consumersPerTenant: consumers, prefix: path === "dynamic-0.2.0" ? "o" : path[0] });
      const resources: DesiredResource[] =
        path === "dynamic"
          ? w.resources
          : path === "dynamic-0.2.0"
            ? w.resources.map((r) => ({ ...r, provider: legacyProvider(r.type) }))
            : w.resources.map(({ provider: _p, inputs: { createKey: _k, ...inputs }, ...r }) => ({
                ...r,
                type: pluginType(r.type),
                inputs,
              }));
      // Per phase: the provider processes' CPU (up and configured to just before they stop) and their resource
      // operations; their start-up time is not counted in the wall time, as in bench/main.ts.
      let cpu = 0;
      let operations = 0;
      let startMs = 0;
      let starts = 0;
      const cpu0 = new Map<number, number>();
      const engine = new TestEngine({
        stack: "bench",
        env: envFor({ url: portal.url } as Parameters<typeof envFor>[0]),
        parallel,
        ...(path === "plugin" && {
          startHost: (config: Record<string, string>, secretKeys: string[], project: string) =>
            startPluginHost(config, secretKeys, project),
        }),
        ...(path === "echo" && {
          startHost: (config: Record<string, string>, secretKeys: string[], project: string) =>
            startPluginHost(config, secretKeys, project, nodePath.join(__dirname, "echo-provider.js")),
        }),
        ...(path === "floor" && { startHost: (_c: Record<string, string>, _s: string[], project: string) => startFloorHost(project) }),
        // The plugin has no environment fallback: it gets the connection as provider configuration.
        ...(native && {
          config: { url: portal.url, origin: ORIGIN, clientId: "emulator", username: "admin", password: "admin" },
          secretConfigKeys: ["password"],
        }),
        onHostStarted: (h: ProviderHost, ms: number) => {
          cpu0.set(h.pid, processCpuMs(h.pid) ?? 0);
          startMs += ms;
          starts += 1;
        },
        onHostStopping: (h: ProviderHost) => {
          cpu += (processCpuMs(h.pid) ?? 0) - (cpu0.get(h.pid) ?? 0);
          operations += h.calls.filter((c) => OPERATIONS.has(c.method)).length;
        },
      });
      const results: PhaseResult[] = [];
      const phase = async (name: string, id: Ideal, run: () => Promise<unknown>) => {
        const mark = (await portal.requests()).length;
        cpu = 0;
        operations = 0;
        startMs = 0;
        starts = 0;
        const t0 = performance.now();
        const c0 = process.cpuUsage();
        await run();
        const c = process.cpuUsage(c0);
        const wallMs = performance.now() - t0 - startMs;
        const requests = (await portal.requests()).length - mark;
        results.push({
          phase: name,
          wallMs,
          ideal: id,
          requests,
          hostCpuMs: cpu,
          operations,
          starts,
          startMs,
          standInCpuMs: (c.user + c.system) / 1000,
        });
      };
      let stateBytes = 0;
      try {
        await phase("create", idealCreate(o), () => engine.up(resources));
        const check = requests ? exactlyOnce(await portal.state(), w) : { missing: [], duplicates: [], unexpected: [] };
        if (check.missing.length || check.duplicates.length || check.unexpected.length)
          throw new Error(`${path}: the portal does not hold the declared objects exactly once: ${JSON.stringify(check)}`);
        const bytes = Object.values(engine.stateBytesPerResource());
        stateBytes = bytes.reduce((a, b) => a + b, 0) / bytes.length;
        await phase("no-op", ideal({}, 0, o), async () => {
          const changed = (await engine.up(resources)).steps.filter((s) => s.op !== "same");
          if (changed.length) throw new Error(`${path}: the no-op update changed ${changed.map((s) => `${s.urn} ${s.op}`).join(", ")}`);
        });
        await phase("refresh", idealRefresh(o), async () => {
          const changed = (await engine.refresh()).filter((s) => s.op !== "same");
          if (changed.length) throw new Error(`${path}: refresh found changes: ${changed.map((s) => `${s.urn} ${s.op}`).join(", ")}`);
        });
        await phase("destroy", idealDestroy(o), () => engine.destroy());
      } finally {
        await engine.close();
      }
      console.log(`\n${path}: state ${stateBytes.toFixed(0)} bytes per resource; load ${load()}`);
      console.log("  phase      wall      ideal   wall/ideal  requests (ideal)  host cpu   operations  cpu/op   stand-in cpu/op");
      for (const r of results) {
        const ratio = r.ideal.wallMs > 0 ? (r.wallMs / r.ideal.wallMs).toFixed(2) : "n/a";
        console.log(
          `  ${r.phase.padEnd(8)} ${fmt(r.wallMs).padStart(8)} ${fmt(r.ideal.wallMs).padStart(9)} ${ratio.padStart(9)}  ` +
            `${String(r.requests).padStart(8)} (${r.ideal.total})  ${fmt(r.hostCpuMs).padStart(9)} ${String(r.operations).padStart(10)}  ` +
            `${r.operations ? (r.hostCpuMs / r.operations).toFixed(2) : "-"} ms  ${r.operations ? (r.standInCpuMs / r.operations).toFixed(2) : "-"} ms`,
        );
      }
      const started = results.reduce((a, r) => ({ n: a.n + r.starts, ms: a.ms + r.startMs }), { n: 0, ms: 0 });
      const startup = started.n ? started.ms / started.n : 0;
      console.log(`  start-up (spawn to configured, not in the wall times): ${fmt(startup)} per provider process, ${started.n} processes`);
      const create = results[0];
      const all = results.reduce((a, r) => ({ cpu: a.cpu + r.hostCpuMs, ops: a.ops + r.operations }), { cpu: 0, ops: 0 });
      summary.push(
        `bench:plugin ${path} create-wall/ideal=${(create.wallMs / create.ideal.wallMs).toFixed(2)} ` +
          `cpu/op=${(all.cpu / all.ops).toFixed(2)}ms state=${stateBytes.toFixed(0)}B startup=${Math.round(startup)}ms`,
      );
    }
  } finally {
    await portal.close();
  }
  console.log("");
  for (const line of summary) console.log(line);
}

/** `--engine cli`: each path on the real Pulumi CLI, with the echo provider's phases as the floor. */
async function mainCli(): Promise<void> {
  const tenants = arg("--tenants", 10);
  const consumers = arg("--consumers", 4);
  const latency = arg("--latency", 20, 0);
  const parallel = arg("--parallel", 16);
  const timeout = arg("--timeout", 1800);
  // A bare --parallel-diff means on; a value (off, on, both) may follow.
  const pd = process.argv.indexOf("--parallel-diff");
  const modes = parallelDiffModes(pd < 0 ? undefined : ["off", "on", "both"].includes(process.argv[pd + 1]) ? process.argv[pd + 1] : "on");
  const asked = (stringArg("--paths") ?? "echo,dynamic,plugin").split(",");
  for (const p of asked) if (!CLI_PATHS.includes(p as CliPath)) throw new Error(`--paths on the CLI: ${CLI_PATHS.join(", ")}, got ${p}`);
  // The floor first, so every other path's targets can be printed beside it.
  const paths = [...asked].sort((a, b) => Number(b === "echo") - Number(a === "echo")) as CliPath[];
  const deadline = Date.now() + timeout * 1000 - 5_000;
  const guard = setTimeout(() => {
    console.error(`bench:plugin: ABORTED after ${timeout} s (--timeout); each CLI run was killed with its plugins before this`);
    process.exit(2);
  }, timeout * 1000);
  guard.unref();
  console.log(
    `workload: ${tenants} tenants × (1 business unit + ${consumers} consumers + ${consumers} nodes); latency ${latency} ms; ` +
      `--parallel ${parallel}; engine: the real Pulumi CLI (.tools/bin, file backend); node ${process.version}, ${os.cpus().length} cpus, load ${load()}`,
  );
  console.log("wall = the CLI command's, spawn to exit: the CLI's, the language host's and the provider's start-ups included");
  const portal = await startPortalProcess({ nodeArgs: [] });
  const summary: string[] = [];
  try {
    await portal.setFaults({ latencyMs: latency });
    for (const parallelDiff of modes) {
      let floor: CliRun | undefined;
      for (const path of paths) {
        console.log(`\n${path}, PULUMI_PARALLEL_DIFF ${parallelDiff ? "true" : "unset"}:`);
        const run = await runOnCli(
          path,
          {
            tenants,
            consumers,
            passwords: true,
            latency,
            parallel,
            parallelDiff,
            prefix: path === "dynamic-ts" ? "t" : path[0],
            deadline,
            log: (l) => console.log(l),
          },
          portal,
        );
        if (path === "echo") floor = run;
        console.log(`\n${path}: load ${load()}`);
        console.log("  phase          wall      ideal   wall/ideal  requests (ideal)  echo floor  1.2×ideal+floor  target");
        for (const p of run.phases) {
          // The echo provider sends no request: the ideal is not its measure.
          const echo = path === "echo";
          const ratio = p.ideal.wallMs > 0 && !echo ? (p.wallMs / p.ideal.wallMs).toFixed(2) : "n/a";
          const f = echo ? undefined : floor?.phases.find((x) => x.name === p.name);
          const t = target(p, f);
          console.log(
            `  ${p.name.padEnd(13)} ${fmt(p.wallMs).padStart(8)} ${fmt(p.ideal.wallMs).padStart(9)} ${ratio.padStart(9)}  ` +
              `${String(p.log.length).padStart(8)} (${echo ? "-" : p.ideal.total})  ${(f ? fmt(f.wallMs) : "-").padStart(10)}  ` +
              `${(t ? fmt(t.wallMs) : "-").padStart(15)}  ${t ? (t.met ? "met" : "MISSED") : "-"}`,
          );
        }
        if (path !== "echo") {
          for (const p of run.phases) {
            const got = countByEndpoint(p.log);
            const keys = [...new Set([...Object.keys(got), ...Object.keys(p.ideal.byEndpoint)])].sort();
            const diff = keys.filter((k) => (got[k] ?? 0) !== (p.ideal.byEndpoint[k] ?? 0));
            if (diff.length)
              console.log(
                `  ${p.name} differs from the ideal at: ${diff.map((k) => `${k} ${got[k] ?? 0} (ideal ${p.ideal.byEndpoint[k] ?? 0})`).join("; ")}`,
              );
          }
        }
        const create = run.phases[0];
        const preview = run.phases.find((p) => p.name === "no-op preview")!;
        summary.push(
          `bench:plugin engine=cli parallel-diff=${parallelDiff ? "on" : "off"} ${path} ${path === "echo" ? `create-wall=${Math.round(create.wallMs)}ms` : `create-wall/ideal=${(create.wallMs / create.ideal.wallMs).toFixed(2)}`} ` +
            `requests=${run.phases.map((p) => `${p.log.length}/${p.ideal.total}`).join(",")} noop-preview=${Math.round(preview.wallMs)}ms`,
        );
      }
    }
  } finally {
    await portal.close();
    clearTimeout(guard);
  }
  console.log("");
  for (const line of summary) console.log(line);
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e instanceof Error ? e.stack : String(e));
    process.exit(1);
  },
);
