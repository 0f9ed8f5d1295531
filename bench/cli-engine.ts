// `--engine cli` of `npm run bench` and `npm run bench:plugin`: the bench's workload (bench/workload.ts) deployed
// by the real Pulumi CLI (built by scripts/pulumi-tools.sh into .tools/bin, docs/engine.md), with a file backend,
// through test/real-engine/cli.ts's workspace (its own PULUMI_HOME, a passphrase, every run asynchronous and
// killed with its whole process group on timeout). Three paths:
//
// - dynamic: the repository's stacks/ program (test/real-engine/project.ts) with a generated stack file that
//   declares the same tenants (business unit, consumers, their nodes, a password secret per node);
// - plugin: a generated Pulumi YAML program under pulumi-language-yaml, the `backupportal` plugin found on PATH
//   (REPO/bin), as test/real-engine/plugin.test.ts runs it;
// - echo: the same YAML program with bench/echo-provider.js as the `backupportal` plugin: a provider process that
//   speaks the wire and sends no request. Its phases are the engine's own floor under this CLI (CLI start,
//   language host, program, plugin start, every gRPC call), against which the others' targets are set.
//
// Phases: create (`up`: a preview and an update, as the ideal counts), no-op preview (`preview`: the whole
// program, its own portal reads included), no-op (`up` again), refresh and destroy (`--skip-preview`: one
// deployment each, as the ideal counts). Wall time is the CLI command's, from spawn to exit: unlike the
// stand-in's figures it includes the CLI's, the language host's and the providers' start-ups. Requests come
// from the emulator's log. `parallelDiff` sets PULUMI_PARALLEL_DIFF=true (pkg/v3 v3.260.0: env.ParallelDiff,
// read by up, preview, refresh and destroy; there is no flag for it).
import * as fs from "fs";
import * as os from "os";
import * as nodePath from "path";
import { performance } from "perf_hooks";
import type { RequestLogEntry } from "../emulator";
import { REPO, Workspace } from "../test/real-engine/cli";
import { nodeWorkspace, stacksWorkspace, yamlWorkspace } from "../test/real-engine/project";
import { ORIGIN } from "../test/support/portal";
import { Ideal, ideal, idealCreate, idealDestroy, idealRefresh } from "./ideal";
import type { PortalHandle } from "./portal-process";
import type { PostgresBackend } from "./backend";
import { KindUsage, SessionSampler } from "./process-tree";
import { exactlyOnce, workload, Workload } from "./workload";

export type CliPath = "dynamic" | "dynamic-ts" | "plugin" | "echo" | "echo-node";
export const CLI_PATHS: CliPath[] = ["dynamic", "dynamic-ts", "plugin", "echo", "echo-node"];

export interface CliBenchOptions {
  tenants: number;
  consumers: number;
  passwords: boolean;
  latency: number;
  /** `--parallel` of every CLI command: operations at once. */
  parallel: number;
  /** PULUMI_PARALLEL_DIFF=true for every CLI command. */
  parallelDiff: boolean;
  /** Business-unit and node name prefix (node names are unique on the portal). */
  prefix: string;
  /** Epoch ms by which every CLI run must have ended (each run is killed, with its plugins, before it). */
  deadline: number;
  /** A line of progress. */
  log?: (line: string) => void;
  /** Measure each phase's processes (bench/meter.py and bench/process-tree.ts) and the state's size. */
  meter?: boolean;
  /** The state in PostgreSQL (bench/backend.ts) instead of a file backend in the workspace. */
  postgres?: PostgresBackend;
  /** PULUMI_SKIP_CHECKPOINTS=true: the state written once per command instead of after every step. */
  skipCheckpoints?: boolean;
  /**
   * CPU profiles of every Node.js process the CLI starts (the program, the provider hosts) in the phases named,
   * written to `<dir>/<path>-<phase>/`; profiling costs CPU itself, so a profiled phase's figures are not results.
   */
  profile?: { dir: string; phases: string[] };
}

/** What the kernel charged to a CLI command's whole process tree (bench/meter.py). */
export interface TreeUsage {
  cpuUserMs: number;
  cpuSystemMs: number;
  maxRssKb: number;
  /** Bytes the tree caused to be written to storage: the file backend's state writes, mostly. */
  writeBytes: number;
  writeCalls: number;
  writtenChars: number;
}

export interface PhaseUsage {
  tree: TreeUsage;
  /** Per kind of process (the CLI, the language host, the program, the providers), sampled from /proc. */
  kinds: KindUsage[];
  /** The stack's state (the file backend's checkpoint) after the phase; 0 with PostgreSQL. */
  stateBytes: number;
  /** With PostgreSQL: what the server wrote in the phase (write-ahead log and data pages). */
  serverWriteBytes?: number;
}

export interface CliPhase {
  name: string;
  wallMs: number;
  /** The emulator's log of the phase. */
  log: RequestLogEntry[];
  ideal: Ideal;
  /** The CLI commands of the phase and each one's wall time. */
  commands: Array<{ args: string[]; wallMs: number }>;
  usage?: PhaseUsage;
}

export interface CliRun {
  path: CliPath;
  parallelDiff: boolean;
  workload: Workload;
  phases: CliPhase[];
}

/**
 * The most `backup-portal:tenants` JSON the bench puts in a stack file. The Node.js language host hands the program
 * the whole config in one environment variable, which Linux caps at 128 KiB (docs/stack-config.md): beyond it the
 * program takes the same tenants from a file instead (test/real-engine/project.ts, `tenantsFile`).
 */
export const TENANTS_IN_CONFIG_MAX = 100_000;

const PASSWORD_KEY = (tsmName: string) => `pw${tsmName.replace(/[^A-Za-z0-9]/g, "")}`;
const nodePassword = (tsmName: string) => `Pw-${tsmName}-x9`;

const NODE = { operatingSystem: "Linux", type: "File server", domain: "STANDARD", clientOptionSet: "DEDUP_AND_COMPRESS", cpuCount: 2 };

/** The workload's `backup-portal:tenants` block. */
export function tenantsFor(w: Workload, passwords: boolean): Record<string, unknown> {
  const tenants: Record<string, unknown> = {};
  w.tenants.forEach((t, i) => {
    tenants[t.name] = {
      name: t.name,
      registrationNumber: `R-${i}`,
      timeZone: "W. Europe Standard Time",
      consumers: Object.fromEntries(
        t.consumers.map((c) => [
          c.name,
          { name: c.name, node: { ...NODE, tsmName: c.tsmName, ...(passwords ? { passwordSecret: PASSWORD_KEY(c.tsmName) } : {}) } },
        ]),
      ),
    };
  });
  return tenants;
}

/**
 * The stacks/ program's stack file for the workload (the password secrets are set by the bench, not in the file);
 * without `tenants` when the program takes them from a file (TENANTS_IN_CONFIG_MAX).
 */
export function stackFileFor(w: Workload, url: string, passwords: boolean, withTenants = true): string {
  const tenants = tenantsFor(w, passwords);
  return [
    "config:",
    `  backup-portal:url: ${url}`,
    `  backup-portal:origin: ${ORIGIN}`,
    "  backup-portal:clientId: emulator",
    "  backup-portal:username: admin",
    `  backup-portal:rootBusinessUnitId: ${w.parentId}`,
    "  backup-portal:protectBusinessUnits: false",
    // JSON is YAML: every name is quoted, so yaml.v3 reads each as the string it is.
    ...(withTenants ? [`  backup-portal:tenants: ${JSON.stringify(tenants)}`] : []),
    "",
  ].join("\n");
}

/** The Pulumi YAML program for the workload on the `backupportal` plugin (or the echo provider in its place). */
export function yamlProgramFor(w: Workload, passwords: boolean): string {
  const resources: Record<string, unknown> = {};
  w.tenants.forEach((t, i) => {
    resources[t.name] = {
      type: "backupportal:index:BusinessUnit",
      properties: { parentId: w.parentId, name: t.name, registrationNumber: `R-${i}`, timeZone: "W. Europe Standard Time" },
    };
    for (const c of t.consumers) {
      const consumer = `${t.name}-${c.name}`;
      resources[consumer] = {
        type: "backupportal:index:Consumer",
        properties: { businessUnitId: `\${${t.name}.id}`, name: c.name, nodeName: c.tsmName },
      };
      resources[`${consumer}-node`] = {
        type: "backupportal:index:Node",
        properties: {
          businessUnitId: `\${${t.name}.id}`,
          consumerId: `\${${consumer}.id}`,
          ...NODE,
          tsmName: c.tsmName,
          ...(passwords ? { tsmPassword: { "fn::secret": nodePassword(c.tsmName) } } : {}),
        },
      };
    }
  });
  // JSON is YAML, and the CLI reads Pulumi.yaml with yaml.v3: quoted throughout.
  return JSON.stringify({ name: "bench", runtime: "yaml", resources }, null, 1) + "\n";
}

/**
 * The same resources declared by a Node.js program (plain JavaScript, the SDK's CustomResource with the plugin's
 * types) for the echo provider: what the Node.js runtime and SDK cost by themselves, the floor of any program in
 * TypeScript or JavaScript, as the YAML program on the echo provider is the engine's. Stack traces as the stacks/
 * program formats them (provider/program/stack-traces.ts).
 */
export function nodeProgramFor(w: Workload, passwords: boolean): string {
  const tenants = w.tenants.map((t, i) => ({
    name: t.name,
    registrationNumber: `R-${i}`,
    consumers: t.consumers.map((c) => ({ name: c.name, tsmName: c.tsmName, ...(passwords ? { password: nodePassword(c.tsmName) } : {}) })),
  }));
  return [
    `Error.prepareStackTrace = undefined;`,
    `const pulumi = require("@pulumi/pulumi");`,
    `const NODE = ${JSON.stringify(NODE)};`,
    `for (const t of ${JSON.stringify(tenants)}) {`,
    `  const bu = new pulumi.CustomResource("backupportal:index:BusinessUnit", t.name, { parentId: ${w.parentId}, name: t.name, registrationNumber: t.registrationNumber, timeZone: "W. Europe Standard Time" });`,
    `  for (const c of t.consumers) {`,
    `    const consumer = new pulumi.CustomResource("backupportal:index:Consumer", t.name + "-" + c.name, { businessUnitId: bu.id, name: c.name, nodeName: c.tsmName });`,
    `    new pulumi.CustomResource("backupportal:index:Node", t.name + "-" + c.name + "-node", { businessUnitId: bu.id, consumerId: consumer.id, ...NODE, tsmName: c.tsmName, ...(c.password ? { tsmPassword: pulumi.secret(c.password) } : {}) });`,
    `  }`,
    `}`,
    ``,
  ].join("\n");
}

/** A folder holding `pulumi-resource-backupportal` that starts the echo provider. */
function echoPluginDir(dir: string): string {
  const bin = nodePath.join(dir, "echo-bin");
  fs.mkdirSync(bin, { recursive: true });
  const file = nodePath.join(bin, "pulumi-resource-backupportal");
  fs.writeFileSync(file, `#!/bin/sh\nexec "${process.execPath}" "${nodePath.join(REPO, "bench", "echo-provider.js")}" "$@"\n`, {
    mode: 0o755,
  });
  return bin;
}

const CHANGES = /\b\d+ (to (create|update|delete|replace)|created|updated|deleted|replaced)\b/;

/** Runs the five phases of `path` on the CLI against `portal` (whose latency the caller has set). */
export async function runOnCli(path: CliPath, o: CliBenchOptions, portal: PortalHandle): Promise<CliRun> {
  const say = o.log ?? (() => undefined);
  const w = workload({ tenants: o.tenants, consumersPerTenant: o.consumers, passwords: o.passwords, prefix: o.prefix });
  const stack = "bench";
  let ws: Workspace;
  const dynamic = path === "dynamic" || path === "dynamic-ts";
  const scratch = fs.mkdtempSync(nodePath.join(os.tmpdir(), "bench-plugin-"));
  if (dynamic) {
    const tenants = JSON.stringify(tenantsFor(w, o.passwords));
    const fromFile = tenants.length > TENANTS_IN_CONFIG_MAX;
    if (fromFile && path === "dynamic-ts") throw new Error("dynamic-ts: the tenants are too many for one stack file's config");
    if (fromFile) say(`  the tenants (${tenants.length} bytes of JSON) from a file: the stack config would exceed the runtime's limit`);
    ws = stacksWorkspace(stack, stackFileFor(w, portal.url, o.passwords, !fromFile), {
      program: path === "dynamic" ? "js" : "ts",
      backendUrl: o.postgres?.url,
      ...(fromFile ? { tenantsJson: tenants } : {}),
    });
  } else if (path === "echo-node") {
    ws = nodeWorkspace(stack, nodeProgramFor(w, o.passwords), echoPluginDir(scratch), o.postgres?.url);
  } else {
    const pluginDir = path === "echo" ? echoPluginDir(scratch) : nodePath.join(REPO, "bin");
    ws = yamlWorkspace(stack, yamlProgramFor(w, o.passwords), pluginDir, o.postgres?.url);
  }
  const remove = ws.remove;
  ws.remove = () => (remove(), fs.rmSync(scratch, { recursive: true, force: true }));
  const env: Record<string, string> = {
    ...(o.parallelDiff ? { PULUMI_PARALLEL_DIFF: "true" } : {}),
    ...(o.skipCheckpoints ? { PULUMI_SKIP_CHECKPOINTS: "true" } : {}),
  };
  const timeoutMs = () => {
    const left = o.deadline - Date.now();
    if (left <= 1000) throw new Error(`no time left for the next CLI command (--timeout)`);
    return left;
  };
  const cli = async (args: string[], metered = false, extraEnv: Record<string, string> = {}) => {
    const out = metered ? nodePath.join(ws.dir, "meter.json") : undefined;
    let sampler: SessionSampler | undefined;
    const run = {
      env: { ...env, ...extraEnv },
      timeoutMs: timeoutMs(),
      ...(out
        ? {
            wrap: ["python3", nodePath.join(REPO, "bench", "meter.py"), out, "--"],
            onSpawn: (pid: number) => (sampler = new SessionSampler(pid)),
          }
        : {}),
    };
    const serverBefore = out && o.postgres ? await o.postgres.bytesWritten() : undefined;
    const t0 = performance.now();
    try {
      const r = await ws.ok(args, run);
      const wallMs = performance.now() - t0;
      const kinds = sampler?.stop() ?? [];
      const usage: PhaseUsage | undefined = out
        ? {
            tree: JSON.parse(fs.readFileSync(out, "utf8")) as TreeUsage,
            kinds,
            stateBytes: stateBytes(ws),
            ...(serverBefore !== undefined ? { serverWriteBytes: (await o.postgres!.bytesWritten()) - serverBefore } : {}),
          }
        : undefined;
      return { r, wallMs, usage };
    } finally {
      sampler?.stop();
    }
  };
  const io = { tenants: o.tenants, consumers: o.consumers, passwords: o.passwords, latency: o.latency, parallel: o.parallel };
  const phases: CliPhase[] = [];
  const phase = async (name: string, id: Ideal, args: string[], check?: (out: string) => void) => {
    const mark = (await portal.requests()).length;
    const { r, wallMs, usage } = await cli([...args, "--parallel", String(o.parallel)], o.meter, profileEnv(o, path, name));
    const log = (await portal.requests()).slice(mark);
    check?.(r.stdout + r.stderr);
    phases.push({ name, wallMs, log, ideal: id, commands: [{ args, wallMs }], usage });
    say(`  ${name.padEnd(12)} pulumi ${args.join(" ")}: ${Math.round(wallMs)} ms, ${log.length} requests`);
  };
  const unchanged = (what: string) => (out: string) => {
    if (CHANGES.test(out) || !/\d+ unchanged/.test(out)) throw new Error(`${path}: the ${what} found changes:\n${out}`);
  };
  try {
    // Set up (not measured): the stack and its config. Plain values in one command; each secret on stdin of its
    // own `config set --secret`, as a user's CI sets one, never on argv (about 0.4 s each).
    await cli(["stack", "init"]);
    const secrets: Array<[string, string]> = [];
    if (dynamic) {
      secrets.push(["backup-portal:password", "admin"]);
      if (o.passwords) {
        for (const t of w.tenants)
          for (const c of t.consumers) secrets.push([`backup-portal:${PASSWORD_KEY(c.tsmName)}`, nodePassword(c.tsmName)]);
      }
    } else {
      const plain = Object.entries({ url: portal.url, origin: ORIGIN, clientId: "emulator", username: "admin" });
      await cli(["config", "set-all", ...plain.flatMap(([k, v]) => ["--plaintext", `backupportal:${k}=${v}`])]);
      secrets.push(["backupportal:password", "admin"]);
    }
    // The portal password on stdin; the bench's generated node passwords (not anybody's secret) in batches of
    // `config set-all --json`: one command each would take about 0.4 s, 15 minutes for 2,000 nodes.
    const [portalPassword, ...nodePasswords] = secrets;
    await ws.ok(["config", "set", "--secret", portalPassword[0]], { input: portalPassword[1], timeoutMs: timeoutMs() });
    for (let i = 0; i < nodePasswords.length; i += 250) {
      const batch = Object.fromEntries(nodePasswords.slice(i, i + 250).map(([key, value]) => [key, { value, secret: true }]));
      await ws.ok(["config", "set-all", "--json", JSON.stringify(batch)], { timeoutMs: timeoutMs() });
    }

    const requests = path !== "echo" && path !== "echo-node";
    // The stacks/ program's name check reads what the resources' Checks do not share (bench/ideal.ts).
    await phase("create", idealCreate(io, { nameCheck: dynamic }), ["up", "--yes"]);
    if (requests) {
      const check = exactlyOnce(await portal.state(), w);
      if (check.missing.length || check.duplicates.length || check.unexpected.length)
        throw new Error(`${path}: the portal does not hold the declared objects exactly once: ${JSON.stringify(check)}`);
    }
    await phase("no-op preview", ideal({}, 0, io), ["preview"], unchanged("no-op preview"));
    await phase("no-op", ideal({}, 0, io), ["up", "--yes"], unchanged("no-op update"));
    await phase("refresh", idealRefresh(io), ["refresh", "--yes", "--skip-preview"], unchanged("refresh"));
    await phase("destroy", idealDestroy(io), ["destroy", "--yes", "--skip-preview"]);
    if (requests) {
      const left = exactlyOnce(await portal.state(), w);
      if (left.duplicates.length || left.unexpected.length || left.missing.length !== w.tenants.length * (1 + 2 * o.consumers))
        throw new Error(`${path}: destroy left objects behind: ${JSON.stringify(left)}`);
    }
  } finally {
    ws.remove();
  }
  return { path, parallelDiff: o.parallelDiff, workload: w, phases };
}

/** NODE_OPTIONS that make the CLI's Node.js processes write CPU profiles in this phase, when asked to. */
function profileEnv(o: CliBenchOptions, path: CliPath, phase: string): Record<string, string> {
  if (!o.profile?.phases.includes(phase)) return {};
  const dir = nodePath.join(o.profile.dir, `${path}-${phase.replace(/[^a-z0-9]+/g, "-")}`);
  fs.mkdirSync(dir, { recursive: true });
  // The engine stops a provider with SIGTERM: the preload turns it into an exit, which writes the profile.
  const onTerm = nodePath.join(REPO, "bench", "profile-exit-on-term.js");
  return { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${dir} -r ${onTerm}` };
}

/** The size of the stack's checkpoint in the workspace's file backend (0 when there is none yet). */
function stateBytes(ws: Workspace): number {
  const stacks = nodePath.join(ws.dir, "state", ".pulumi", "stacks");
  if (!fs.existsSync(stacks)) return 0;
  let bytes = 0;
  for (const project of fs.readdirSync(stacks)) {
    const file = nodePath.join(stacks, project, `${ws.stack}.json`);
    if (fs.existsSync(file)) bytes += fs.statSync(file).size;
  }
  return bytes;
}

/** `--parallel-diff`: off (default), on, or both (each path twice, without and then with). */
export function parallelDiffModes(v: string | undefined): boolean[] {
  if (v === undefined || v === "off") return [false];
  if (v === "on" || v === "true") return [true];
  if (v === "both") return [false, true];
  throw new Error(`--parallel-diff is off, on or both, got ${v}`);
}

/** The target of a phase: wall ≤ 1.2 × the ideal + the echo provider's wall for the same phase on the same CLI. */
export function target(p: CliPhase, floor: CliPhase | undefined): { wallMs: number; met: boolean } | undefined {
  if (!floor) return undefined;
  const wallMs = 1.2 * p.ideal.wallMs + floor.wallMs;
  return { wallMs, met: p.wallMs <= wallMs };
}
