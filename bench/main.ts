// `npm run bench`: provisions N tenants through the engine stand-in against the
// emulator with added latency, then a no-op update, a refresh and a destroy, and
// compares each phase with the fewest requests the API allows (docs/benchmark.md).
// `--engine cli` deploys the same tenants with the real Pulumi CLI instead (the stacks/ program, bench/cli-engine.ts):
// create, no-op preview, no-op update, refresh, destroy; its floor is the echo provider under the same CLI.
//
//   npm run bench -- [--tenants 50] [--consumers 4] [--latency 20] [--parallel 16] [--no-passwords]
//                    [--emulator process|inproc] [--no-floor] [--timeout 600]
//                    [--engine standin|cli] [--parallel-diff [off|on|both]]
import * as os from "os";
import { performance } from "perf_hooks";
import { startEmulator, RequestLogEntry } from "../emulator";
import { TestEngine } from "../test/engine/engine";
import { envFor } from "../test/support/portal";
import { PortalHandle, processCpuMs, startPortalProcess } from "./portal-process";
import { countByEndpoint, endpoint, Ideal, ideal, idealCreate, idealDestroy, idealRefresh, TOKEN } from "./ideal";
import { exactlyOnce, workload } from "./workload";
import { profileDir, profileNodeArgs, profileSelf } from "./profile";
import { CliPhase, CliRun, parallelDiffModes, runOnCli, target } from "./cli-engine";

const USAGE =
  "usage: npm run bench -- [--tenants 50] [--consumers 4] [--latency 20] [--parallel 16] [--no-passwords] " +
  "[--emulator process|inproc] [--no-floor] [--timeout 600] [--engine standin|cli] [--parallel-diff [off|on|both]]";

interface Options {
  tenants: number;
  consumers: number;
  latency: number;
  parallel: number;
  passwords: boolean;
  timeout: number;
  /** The emulator in its own process (default, like a remote portal) or in the bench's process. */
  emulator: "process" | "inproc";
  /** Also run create and destroy at latency 0: the CPU floor of the run (on the CLI: the echo provider's phases). */
  floor: boolean;
  /** The engine stand-in (test/engine/) or the real Pulumi CLI (bench/cli-engine.ts). */
  engine: "standin" | "cli";
  /** With `--engine cli`: without PULUMI_PARALLEL_DIFF, with it, or both in turn. */
  parallelDiff: boolean[];
}

function parseArgs(argv: string[]): Options {
  const o: Options = {
    tenants: 50,
    consumers: 4,
    latency: 20,
    parallel: 16,
    passwords: true,
    timeout: 600,
    emulator: "process",
    floor: true,
    engine: "standin",
    parallelDiff: [false],
  };
  const ints: Record<string, keyof Options> = {
    "--tenants": "tenants",
    "--consumers": "consumers",
    "--latency": "latency",
    "--parallel": "parallel",
    "--timeout": "timeout",
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const [flag, inline] = a.includes("=") ? a.split("=", 2) : [a, undefined];
    if (flag === "--no-passwords") o.passwords = false;
    else if (flag === "--passwords") o.passwords = true;
    else if (flag === "--no-floor") o.floor = false;
    else if (flag === "--emulator") {
      const v = inline ?? argv[++i];
      if (v !== "process" && v !== "inproc") throw new Error(`--emulator is process or inproc, got ${v}`);
      o.emulator = v;
    } else if (flag === "--engine") {
      const v = inline ?? argv[++i];
      if (v !== "standin" && v !== "cli") throw new Error(`--engine is standin or cli, got ${v}`);
      o.engine = v;
    } else if (flag === "--parallel-diff") {
      // A bare --parallel-diff means on; a value (off, on, both) may follow.
      const v = inline ?? (["off", "on", "both"].includes(argv[i + 1]) ? argv[++i] : "on");
      o.parallelDiff = parallelDiffModes(v);
    } else if (flag in ints) {
      const v = Number(inline ?? argv[++i]);
      const min = flag === "--latency" ? 0 : 1;
      if (!Number.isInteger(v) || v < min) throw new Error(`${flag} needs an integer ≥ ${min}, got ${inline ?? argv[i]}`);
      (o as unknown as Record<string, number>)[ints[flag]] = v;
    } else if (flag === "--help" || flag === "-h") {
      console.log(USAGE);
      process.exit(0);
    } else throw new Error(`unknown option ${a} (try --help)`);
  }
  if (o.engine === "standin" && o.parallelDiff.includes(true)) throw new Error("--parallel-diff needs --engine cli");
  return o;
}

// ---------------------------------------------------------------- measuring

interface Cpu {
  /** The provider host process (our code + the SDK's host). */
  host?: number;
  /** The bench process: the engine stand-in (and the emulator when in-process); not measured on the CLI. */
  engine?: number;
  /** The emulator process. */
  portal?: number;
}

interface Measured {
  name: string;
  wallMs: number;
  log: RequestLogEntry[];
  byMethod: Record<string, number>;
  tokens: number;
  total: number;
  writes: number;
  failed: number;
  byEndpoint: Record<string, number>;
  ideal: Ideal;
  cpu: Cpu;
}

function summarize(name: string, wallMs: number, cpu: Cpu, log: RequestLogEntry[], id: Ideal): Measured {
  const byMethod: Record<string, number> = { GET: 0, POST: 0, PUT: 0, DELETE: 0 };
  const byEndpoint = countByEndpoint(log);
  let tokens = 0;
  let writes = 0;
  let failed = 0;
  for (const r of log) {
    const ep = endpoint(r);
    if (ep === TOKEN) tokens++;
    else byMethod[r.method] = (byMethod[r.method] ?? 0) + 1;
    // Activation is a GET that changes the node.
    if (ep !== TOKEN && (r.method !== "GET" || ep.endsWith("/node/activate"))) writes++;
    if (r.status === 0 || r.status >= 400) failed++;
  }
  return { name, wallMs, log, byMethod, tokens, total: log.length, writes, failed, byEndpoint, ideal: id, cpu };
}

const fmtMs = (ms: number | undefined) => (ms === undefined ? "-" : ms >= 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms)} ms`);
const ratio = (measured: number, best: number) => (best > 0 ? (measured / best).toFixed(2) : measured === 0 ? "1.00" : "∞");
const pad = (s: string | number, n: number) => String(s).padStart(n);

/** `nameWidth`: the phase column's width (the CLI's "no-op preview" is wider than the stand-in's names). */
function table(rows: Measured[], nameWidth = 9): string {
  const head = [
    "phase",
    "wall",
    "GET",
    "POST",
    "PUT",
    "DELETE",
    "tokens",
    "total",
    "failed",
    "ideal req",
    "req ratio",
    "ideal wall",
    "wall ratio",
    "cpu host",
    "cpu engine",
    "cpu portal",
  ];
  const w = [nameWidth, 9, 5, 5, 4, 7, 7, 6, 7, 10, 10, 11, 11, 9, 11, 11];
  const line = (cells: Array<string | number>) => cells.map((c, i) => (i === 0 ? String(c).padEnd(w[i]) : pad(c, w[i]))).join(" ");
  const out = [line(head)];
  for (const m of rows) {
    const wallRatio = m.ideal.wallMs > 0 ? (m.wallMs / m.ideal.wallMs).toFixed(2) : "n/a";
    out.push(
      line([
        m.name,
        fmtMs(m.wallMs),
        m.byMethod.GET,
        m.byMethod.POST,
        m.byMethod.PUT,
        m.byMethod.DELETE,
        m.tokens,
        m.total,
        m.failed,
        m.ideal.total,
        ratio(m.total, m.ideal.total),
        fmtMs(m.ideal.wallMs),
        wallRatio,
        fmtMs(m.cpu.host),
        fmtMs(m.cpu.engine),
        fmtMs(m.cpu.portal),
      ]),
    );
  }
  return out.join("\n");
}

/** Endpoints where the phase differs from its ideal. */
function differences(m: Measured): string[] {
  const keys = new Set([...Object.keys(m.byEndpoint), ...Object.keys(m.ideal.byEndpoint)]);
  const out: string[] = [];
  for (const k of [...keys].sort()) {
    const got = m.byEndpoint[k] ?? 0;
    const want = m.ideal.byEndpoint[k] ?? 0;
    if (got !== want) out.push(`    ${k}: ${got} (ideal ${want}, ${got > want ? "+" : ""}${got - want})`);
  }
  return out;
}

async function startPortal(o: Options, profiles: string | undefined): Promise<PortalHandle> {
  if (o.emulator === "process") return startPortalProcess({ nodeArgs: profiles ? profileNodeArgs(profiles, "emulator") : [] });
  const emu = await startEmulator({ port: 0, quiet: true });
  return {
    url: emu.url,
    requests: async () => emu.requests(),
    setFaults: async (f) => void emu.setFaults(f),
    state: async () => emu.state(),
    close: () => emu.close(),
  };
}

// ---------------------------------------------------------------- main

async function main(): Promise<void> {
  const o = parseArgs(process.argv.slice(2));
  if (o.engine === "cli") return mainCli(o);
  const started = performance.now();
  let portalPid: number | undefined;
  const guard = setTimeout(() => {
    console.error(
      `bench: ABORTED after ${o.timeout} s (--timeout): a phase did not finish in time; ` +
        `the figures above are incomplete. The provider hosts and the emulator are killed on exit.`,
    );
    if (portalPid) process.kill(portalPid, "SIGKILL");
    process.exit(2);
  }, o.timeout * 1000);
  guard.unref();

  const w = workload({ tenants: o.tenants, consumersPerTenant: o.consumers, passwords: o.passwords, prefix: "bench" });
  const count = w.resources.length;
  console.log(
    `bench: ${o.tenants} tenants × (1 business unit + ${o.consumers} consumers + ${o.consumers} nodes) = ${count} resources; ` +
      `latency ${o.latency} ms per request; ${o.parallel} operations at once; node passwords ${o.passwords ? "set (1 POST each)" : "not set"}`,
  );
  console.log(
    `       node ${process.version}, ${os.cpus().length} cpus, load ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")}; ` +
      `emulator ${o.emulator === "process" ? "in its own process" : "in the bench process"}; a fresh provider host per deployment (an up is a preview and an update)`,
  );

  const profiles = profileDir();
  if (profiles) console.log(`       writing CPU profiles to ${profiles} (profiling costs CPU: these figures are not results)`);
  const stopProfile = profiles ? profileSelf(profiles) : undefined;
  const portal = await startPortal(o, profiles);
  portalPid = portal.pid;
  const env = envFor({ url: portal.url } as Parameters<typeof envFor>[0]);
  // One fresh host per deployment (an up is a preview and an update deployment): each host's CPU is
  // taken from when it is up and configured to just before it stops, and its start-up time is not counted.
  const hostCpu0 = new Map<number, number | undefined>();
  let hostCpuMs: number | undefined = 0;
  let hostStartMs = 0;
  let hostsStarted = 0;
  // Each deployment's time, from its host being ready to its host stopping: an up's preview, then its update.
  let deploymentMs: number[] = [];
  const deploymentStart = new Map<number, number>();
  const engine = new TestEngine({
    stack: "bench",
    env,
    parallel: o.parallel,
    hostNodeArgs: profiles ? profileNodeArgs(profiles, "host") : undefined,
    onHostStarted: (h, startMs) => {
      hostCpu0.set(h.pid, processCpuMs(h.pid));
      hostStartMs += startMs;
      hostsStarted++;
      deploymentStart.set(h.pid, performance.now());
    },
    onHostStopping: (h) => {
      deploymentMs.push(performance.now() - (deploymentStart.get(h.pid) ?? NaN));
      const before = hostCpu0.get(h.pid);
      const now = processCpuMs(h.pid);
      hostCpuMs = hostCpuMs === undefined || before === undefined || now === undefined ? undefined : hostCpuMs + now - before;
    },
  });
  try {
    // Serialize the providers once (the SDK caches per provider object) before timing anything.
    const providers = new Map<object | string, number>();
    for (const r of w.resources) {
      if (!providers.has(r.provider!)) providers.set(r.provider!, (await engine.serializeProvider(r.provider!)).text.length);
    }
    const providerBytes = w.resources.reduce((a, r) => a + providers.get(r.provider!)!, 0) / count;
    await portal.setFaults({ latencyMs: o.latency });

    const results: Measured[] = [];
    const phase = async (name: string, id: Ideal, run: () => Promise<unknown>): Promise<Measured> => {
      const mark = (await portal.requests()).length;
      hostCpuMs = 0;
      hostStartMs = 0;
      hostsStarted = 0;
      deploymentMs = [];
      const cpu0 = { engine: process.cpuUsage(), portal: processCpuMs(portal.pid) };
      const t0 = performance.now();
      await run();
      const wallMs = performance.now() - t0 - hostStartMs;
      const engineCpu = process.cpuUsage(cpu0.engine);
      const portalCpu = processCpuMs(portal.pid);
      const cpu: Cpu = {
        host: hostCpuMs,
        engine: (engineCpu.user + engineCpu.system) / 1000,
        portal: portalCpu !== undefined && cpu0.portal !== undefined ? portalCpu - cpu0.portal : undefined,
      };
      const m = summarize(name, wallMs, cpu, (await portal.requests()).slice(mark), id);
      results.push(m);
      console.log(
        `  ${name.padEnd(9)} done in ${fmtMs(wallMs)}: deployment(s) ${deploymentMs.map(fmtMs).join(" + ")} ` +
          `(${hostsStarted} host start(s), ${fmtMs(hostStartMs)}, not counted)`,
      );
      return m;
    };

    const create = await phase("create", idealCreate(o), () => engine.up(w.resources));
    const check = exactlyOnce(await portal.state(), w);
    if (check.missing.length || check.duplicates.length || check.unexpected.length) {
      throw new Error(`the portal does not hold the declared objects exactly once: ${JSON.stringify(check)}`);
    }
    const perUrn = engine.stateBytesPerResource();
    const stateBytes = Object.values(perUrn);
    const stateBytesPerResource = stateBytes.reduce((a, b) => a + b, 0) / stateBytes.length;
    const byType = new Map<string, number[]>();
    for (const r of engine.state.values()) {
      const t = r.type.split(":").pop()!;
      byType.set(t, [...(byType.get(t) ?? []), perUrn[r.urn]]);
    }

    const noop = await phase("no-op", ideal({}, 0, o), () =>
      engine.up(w.resources).then((r) => {
        const changed = r.steps.filter((s) => s.op !== "same");
        if (changed.length)
          throw new Error(
            `no-op update changed ${changed.length} resources: ${changed
              .slice(0, 5)
              .map((s) => `${s.urn} ${s.op}`)
              .join(", ")}`,
          );
      }),
    );
    const refresh = await phase("refresh", idealRefresh(o), () =>
      engine.refresh().then((steps) => {
        const changed = steps.filter((s) => s.op !== "same");
        if (changed.length)
          throw new Error(
            `refresh found ${changed.length} changes: ${changed
              .slice(0, 5)
              .map((s) => `${s.urn} ${s.op} ${s.diffs}`)
              .join(", ")}`,
          );
      }),
    );
    await phase("destroy", idealDestroy(o), () => engine.destroy());
    const assertGone = async () => {
      const left = exactlyOnce(await portal.state(), w);
      if (left.duplicates.length || left.unexpected.length || left.missing.length !== w.tenants.length * (1 + 2 * o.consumers)) {
        throw new Error(`destroy left objects behind: ${JSON.stringify(left)}`);
      }
    };
    await assertGone();

    let floor: Measured | undefined;
    if (o.floor) {
      // The same create without added latency: what the processes' CPU alone needs.
      await portal.setFaults({ latencyMs: 0 });
      floor = await phase("create@0ms", { ...idealCreate(o), wallMs: 0 }, () => engine.up(w.resources));
      await phase("destroy@0ms", { ...idealDestroy(o), wallMs: 0 }, () => engine.destroy());
      await assertGone();
    }

    console.log("");
    console.log(table(results));
    console.log("");
    console.log(
      "ideal = fewest requests the API allows (docs/benchmark.md); ideal wall = max(requests × latency / parallel, depth × latency);",
    );
    console.log("cpu = CPU time of the provider host / the bench process (engine stand-in) / the emulator during the phase");
    console.log(
      `  create: depth ${create.ideal.depth} (preview: token → reference data; update: token → time zones → business unit → consumer → node${o.passwords ? " → password" : ""} → activation)`,
    );
    for (const m of results) {
      const d = differences(m);
      console.log(`  ${m.name}: ${d.length ? "differs from the ideal at" : "exactly the ideal requests"}`);
      for (const line of d) console.log(line);
    }
    console.log("");
    console.log(
      `serialized provider: ${[...providers.values()].join(" / ")} bytes (business unit / consumer / node); ${providerBytes.toFixed(0)} bytes per resource`,
    );
    console.log(
      `state: ${stateBytesPerResource.toFixed(0)} bytes per resource (${[...byType].map(([t, v]) => `${t} ${(v.reduce((a, b) => a + b, 0) / v.length).toFixed(0)}`).join(", ")}); ` +
        `__provider is stored twice in each (inputs and outputs)`,
    );

    const renewals = Math.max(0, create.tokens - 1);
    const reads = refresh.total - refresh.tokens;
    const goals: Array<[string, boolean]> = [
      [
        `create requests ≤ API minimum + token renewals (${create.total} ≤ ${create.ideal.total} + ${renewals})`,
        create.total <= create.ideal.total + renewals,
      ],
      [`no-op update makes no write (${noop.writes})`, noop.writes === 0],
      [`refresh reads each resource once (${reads} reads for ${count} resources)`, reads === count && refresh.byMethod.GET === count],
      [`create wall ≤ 1.5 × ideal (${fmtMs(create.wallMs)} vs ${fmtMs(create.ideal.wallMs)})`, create.wallMs <= 1.5 * create.ideal.wallMs],
    ];
    console.log("");
    for (const [text, met] of goals) console.log(`goal ${met ? "met   " : "MISSED"}: ${text}`);
    if (noop.total > 0)
      console.log(
        `note: the no-op update reads ${noop.total - noop.tokens} times (+${noop.tokens} token) to validate names in Check; ideal 0`,
      );
    if (floor && create.wallMs > 1.5 * create.ideal.wallMs) {
      console.log(
        `note: without latency the same create takes ${fmtMs(floor.wallMs)} (cpu: host ${fmtMs(floor.cpu.host)}, engine stand-in ${fmtMs(floor.cpu.engine)}, ` +
          `emulator ${fmtMs(floor.cpu.portal)}): the wall time is set by CPU, not by the ${o.latency} ms latency`,
      );
    }
    console.log(`total bench time ${fmtMs(performance.now() - started)}`);
    console.log(
      `bench: requests/ideal=${ratio(create.total, create.ideal.total)} wall/ideal=${(create.wallMs / create.ideal.wallMs).toFixed(2)} ` +
        `noop-writes=${noop.writes} provider-bytes=${providerBytes.toFixed(0)}`,
    );
  } finally {
    await engine.close().catch(() => undefined);
    await portal.close();
    await stopProfile?.();
    clearTimeout(guard);
  }
}

// ---------------------------------------------------------------- the real CLI

/** `--engine cli`: the stacks/ program under the real Pulumi CLI, and the echo provider's floor on the same CLI. */
async function mainCli(o: Options): Promise<void> {
  const started = performance.now();
  const deadline = Date.now() + o.timeout * 1000 - 5_000;
  let portalPid: number | undefined;
  const guard = setTimeout(() => {
    console.error(`bench: ABORTED after ${o.timeout} s (--timeout); each CLI run was killed with its plugins before this.`);
    if (portalPid) process.kill(portalPid, "SIGKILL");
    process.exit(2);
  }, o.timeout * 1000);
  guard.unref();
  const count = o.tenants * (1 + 2 * o.consumers);
  console.log(
    `bench: ${o.tenants} tenants × (1 business unit + ${o.consumers} consumers + ${o.consumers} nodes) = ${count} resources; ` +
      `latency ${o.latency} ms per request; --parallel ${o.parallel}; node passwords ${o.passwords ? "set (1 POST each)" : "not set"}`,
  );
  console.log(
    `       engine: the real Pulumi CLI (.tools/bin, file backend), the stacks/ program under pulumi-language-nodejs; ` +
      `node ${process.version}, ${os.cpus().length} cpus, load ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(" ")}; emulator ${o.emulator === "process" ? "in its own process" : "in the bench process"}`,
  );
  console.log("       wall = the CLI command's, spawn to exit: the CLI's, the language host's and the providers' start-ups included");
  const portal = await startPortal(o, undefined);
  portalPid = portal.pid;
  try {
    await portal.setFaults({ latencyMs: o.latency });
    for (const parallelDiff of o.parallelDiff) {
      const opts = { ...o, parallelDiff, deadline, log: (line: string) => console.log(line) };
      console.log(`\nPULUMI_PARALLEL_DIFF ${parallelDiff ? "true" : "unset"}`);
      let floor: CliRun | undefined;
      if (o.floor) {
        console.log("echo provider (the engine's floor: the same tenants as a YAML program on a provider that sends no request):");
        floor = await runOnCli("echo", { ...opts, prefix: "echo" }, portal);
      }
      console.log("stacks/ program:");
      const run = await runOnCli("dynamic", { ...opts, prefix: "bench" }, portal);
      const rows = run.phases.map((p) => summarize(p.name, p.wallMs, {}, p.log, p.ideal));
      console.log("");
      console.log(table(rows, 13));
      console.log("");
      console.log(
        "ideal = fewest requests the API allows (docs/benchmark.md); ideal wall = max(requests × latency / parallel, depth × latency)",
      );
      for (const m of rows) {
        const d = differences(m);
        console.log(`  ${m.name}: ${d.length ? "differs from the ideal at" : "exactly the ideal requests"}`);
        for (const line of d) console.log(line);
      }
      console.log("");
      console.log(cliTargets(run.phases, floor));
      console.log("");
      for (const m of rows) {
        const met = m.total === m.ideal.total;
        console.log(`goal ${met ? "met   " : "MISSED"}: ${m.name} requests at the minimum (${m.total} vs ${m.ideal.total})`);
      }
      const noop = rows.find((m) => m.name === "no-op")!;
      const create = rows[0];
      console.log(
        `bench: engine=cli parallel-diff=${parallelDiff ? "on" : "off"} requests/ideal=${ratio(create.total, create.ideal.total)} ` +
          `wall/ideal=${(create.wallMs / create.ideal.wallMs).toFixed(2)} noop-writes=${noop.writes} ` +
          `noop-preview-requests=${rows.find((m) => m.name === "no-op preview")!.total}`,
      );
    }
    console.log(`total bench time ${fmtMs(performance.now() - started)}`);
  } finally {
    await portal.close();
    clearTimeout(guard);
  }
}

/** Per phase: the wall time next to 1.2 × the ideal plus the echo provider's wall time for that phase. */
function cliTargets(phases: CliPhase[], floor: CliRun | undefined): string {
  const w = [14, 9, 11, 11, 19, 7];
  const line = (cells: Array<string | number>) => cells.map((c, i) => (i === 0 ? String(c).padEnd(w[i]) : pad(c, w[i]))).join(" ");
  const out = [line(["phase", "wall", "ideal wall", "echo floor", "1.2×ideal + floor", "target"])];
  for (const p of phases) {
    const f = floor?.phases.find((x) => x.name === p.name);
    const t = target(p, f);
    out.push(
      line([p.name, fmtMs(p.wallMs), fmtMs(p.ideal.wallMs), fmtMs(f?.wallMs), fmtMs(t?.wallMs), t ? (t.met ? "met" : "MISSED") : "-"]),
    );
  }
  return out.join("\n");
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(`bench: FAILED: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exit(1);
  },
);
