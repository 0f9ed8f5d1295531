// Runs one Pulumi operation on every group's stack with the Automation API:
// the same project (Pulumi.yaml, `main: stacks/index.js`) as a local program, one stack
// per group, a bounded number of groups at once. A failing group is reported
// and never stops the others.
import { spawn } from "node:child_process";
import * as path from "node:path";
import { ConfigMap, stackConfigPath, writePlainConfig } from "./config";

export type FleetCommand = "preview" | "up" | "destroy" | "refresh";
export const FLEET_COMMANDS: readonly FleetCommand[] = ["preview", "up", "destroy", "refresh"];

/** Counts by operation, as in the engine's summary (`create`, `update`, `delete`, `replace`, `same`, ...). */
export type OpCounts = Partial<Record<string, number>>;

/** Options passed to each operation (a subset of the Automation API's). */
export interface OperationOptions {
  onOutput?: (out: string) => void;
  /** Refresh before preview or up, so drift shows in the diff. */
  refresh?: boolean;
  /** Show a detailed diff (preview, up). */
  diff?: boolean;
  color?: "always" | "never" | "raw" | "auto";
}

/** What runFleet needs of a stack: a structural subset of the Automation API's `Stack`. */
export interface StackLike {
  setAllConfig(config: ConfigMap): Promise<void>;
  preview(opts?: OperationOptions): Promise<{ changeSummary: OpCounts }>;
  up(opts?: OperationOptions): Promise<{ summary: { resourceChanges?: OpCounts } }>;
  destroy(opts?: OperationOptions): Promise<{ summary: { resourceChanges?: OpCounts } }>;
  refresh(opts?: OperationOptions): Promise<{ summary: { resourceChanges?: OpCounts } }>;
}

export type CreateStack = (stackName: string, workDir: string) => Promise<StackLike>;

export interface ChangeCounts {
  created: number;
  updated: number;
  deleted: number;
  replaced: number;
  unchanged: number;
}

export interface GroupResult {
  group: string;
  stack: string;
  ok: boolean;
  /** Changes (planned by a preview, made by the other commands). Zero for a failed group. */
  changes: ChangeCounts;
  /** The engine's counts as reported. */
  raw: OpCounts;
  /** For a failed group: the error lines of the failure. */
  error?: string;
  durationMs: number;
}

export interface FleetResult {
  command: FleetCommand;
  results: GroupResult[];
  ok: boolean;
  failed: string[];
  totals: ChangeCounts;
}

export interface RunFleetOptions {
  /** The project directory (holding Pulumi.yaml). */
  workDir: string;
  /** Group name → the group's stack config (from fleetStackConfig). */
  groups: Record<string, ConfigMap>;
  command: FleetCommand;
  /** Stack names are `<stackPrefix>-<group>`, e.g. `acme/prod` → `acme/prod-g03`. */
  stackPrefix: string;
  /** Groups run at once (default 4). Each runs its own engine with its own parallelism. */
  parallel?: number;
  /** Every line of engine output, with its group. */
  onOutput?: (group: string, line: string) => void;
  /** Each group's result as soon as it is known. */
  onResult?: (result: GroupResult) => void;
  /** Refresh before preview or up (drift shows in the result). */
  refresh?: boolean;
  /** Detailed diff in the engine output. */
  diff?: boolean;
  /** The stack factory; defaults to LocalWorkspace.createOrSelectStack with the Pulumi CLI on PATH. */
  createStack?: CreateStack;
}

export const DEFAULT_PARALLEL = 4;

export function stackNameOf(stackPrefix: string, group: string): string {
  return `${stackPrefix}-${group}`;
}

/**
 * The groups of existing stacks named `<stackPrefix>-<group>` that are not in `groups`, sorted: groups
 * the grouping no longer has, whose stacks still hold what they last deployed. `stackNames` come from
 * `pulumi stack ls`, with or without the organization (and project); an organization is compared
 * only when both names carry one.
 */
export function staleGroups(stackNames: string[], stackPrefix: string, groups: string[]): string[] {
  const split = (n: string) => {
    const parts = n.split("/");
    return { org: parts.length > 1 ? parts[0] : undefined, name: parts[parts.length - 1] };
  };
  const prefix = split(stackPrefix);
  const current = new Set(groups);
  const stale = new Set<string>();
  for (const listed of stackNames) {
    const s = split(listed);
    if (prefix.org !== undefined && s.org !== undefined && prefix.org !== s.org) continue;
    if (!s.name.startsWith(`${prefix.name}-`)) continue;
    const group = s.name.slice(prefix.name.length + 1);
    if (group && !current.has(group)) stale.add(group);
  }
  return [...stale].sort();
}

export function changeCounts(ops: OpCounts | undefined): ChangeCounts {
  const n = (k: string) => (ops && typeof ops[k] === "number" ? ops[k]! : 0);
  return {
    created: n("create"),
    updated: n("update"),
    deleted: n("delete"),
    replaced: n("replace") || n("create-replacement"),
    unchanged: n("same"),
  };
}

const ZERO: ChangeCounts = { created: 0, updated: 0, deleted: 0, replaced: 0, unchanged: 0 };

function addCounts(a: ChangeCounts, b: ChangeCounts): ChangeCounts {
  return {
    created: a.created + b.created,
    updated: a.updated + b.updated,
    deleted: a.deleted + b.deleted,
    replaced: a.replaced + b.replaced,
    unchanged: a.unchanged + b.unchanged,
  };
}

/**
 * The useful lines of a failure. The Automation API's CommandError message holds the whole
 * stdout and stderr; the engine's own diagnostics are its `error:` lines.
 */
export function errorSummary(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  const lines = text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean);
  const errors = [...new Set(lines.filter((l) => /^error:/i.test(l) && !/^error: (update|preview|destroy|refresh) failed$/i.test(l)))];
  const picked = errors.length ? errors.join(" | ") : (lines[0] ?? "unknown error");
  return picked.length > 1000 ? `${picked.slice(0, 1000)}...` : picked;
}

export class PulumiCliMissingError extends Error {
  constructor(detail?: string) {
    super(
      "the fleet needs the Pulumi CLI, which is not installed here or could not be downloaded: install it " +
        "(curl -fsSL https://get.pulumi.com | sh, or brew install pulumi) and run the command again" +
        (detail ? ` (${detail})` : ""),
    );
    this.name = "PulumiCliMissingError";
  }
}

/** Finds the Pulumi CLI on PATH, or throws PulumiCliMissingError with one clear line. */
export async function findPulumiCli(): Promise<import("@pulumi/pulumi/automation").PulumiCommand> {
  const { PulumiCommand } = await import("@pulumi/pulumi/automation");
  try {
    return await PulumiCommand.get();
  } catch (err) {
    const text = err instanceof Error ? err.message : String(err);
    const detail = /ENOENT/.test(text)
      ? "pulumi: command not found"
      : /fetch failed|Downloading pulumi/i.test(text)
        ? "the npm `pulumi` launcher could not download it"
        : /version/i.test(text)
          ? (text.split("\n").find((l) => /version/i.test(l)) ?? "").trim()
          : undefined;
    throw new PulumiCliMissingError(detail);
  }
}

/** The largest value handed to `pulumi config set-all` as an argument; larger ones go into the stack file. */
export const MAX_CONFIG_ARG_BYTES = 96 * 1024;

/**
 * Splits a config into values small enough for `pulumi config set-all` arguments and plain values that are not.
 * Secrets stay in `args` whatever their size: the factory sets them one by one through stdin, never as arguments.
 */
export function splitConfigForArgs(config: ConfigMap, maxBytes = MAX_CONFIG_ARG_BYTES): { args: ConfigMap; file: Record<string, string> } {
  const file: Record<string, string> = {};
  const args: ConfigMap = {};
  for (const [key, v] of Object.entries(config)) {
    if (!v.secret && Buffer.byteLength(`${key}=${v.value}`) > maxBytes) file[key] = v.value;
    else args[key] = v;
  }
  return { args, file };
}

/**
 * Sets one secret config value of a stack with `pulumi config set --secret <key>`, the value on standard input
 * (which the CLI reads when no value argument is given and stdin is not a terminal, dropping one final newline):
 * a process's arguments are readable by every user of the machine (`ps`, /proc/<pid>/cmdline), its stdin is not.
 * The error names the key, never the value.
 */
export function setSecretConfig(pulumiPath: string, stackName: string, workDir: string, key: string, value: string): Promise<void> {
  const env: NodeJS.ProcessEnv = { ...process.env, PULUMI_AUTOMATION_API: "true" };
  // As the Automation API does: the CLI's own folder first, for the plugins bundled with it.
  if (path.isAbsolute(pulumiPath)) env.PATH = `${path.dirname(pulumiPath)}${path.delimiter}${process.env.PATH ?? ""}`;
  const args = ["config", "set", "--stack", stackName, "--secret", "--non-interactive", "--", key];
  return new Promise((resolve, reject) => {
    const child = spawn(pulumiPath, args, { cwd: workDir, env, stdio: ["pipe", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (d: string) => {
      if (stderr.length < 4000) stderr += d;
    });
    child.on("error", (err) => reject(new Error(`pulumi config set ${key} --secret: ${err.message}`)));
    child.on("close", (code) => {
      if (code === 0) return resolve();
      const why = stderr.split(value).join("***").trim().split("\n").filter(Boolean).pop() ?? `exit code ${code}`;
      reject(new Error(`pulumi config set ${key} --secret failed on stack ${stackName}: ${why}`));
    });
    // A closed stdin (the CLI failing early) must not crash the fleet: the close handler reports it.
    child.stdin.on("error", () => undefined);
    child.stdin.end(`${value}\n`);
  });
}

/** The default stack factory: the project in `workDir` as a local program, through the CLI `cmd`. */
export function localStackFactory(cmd?: import("@pulumi/pulumi/automation").PulumiCommand): CreateStack {
  return async (stackName, workDir) => {
    const { LocalWorkspace, PulumiCommand } = await import("@pulumi/pulumi/automation");
    const pulumi = cmd ?? (await PulumiCommand.get());
    const stack = await LocalWorkspace.createOrSelectStack({ stackName, workDir }, { pulumiCommand: pulumi });
    return {
      async setAllConfig(config: ConfigMap) {
        // Oversized values first, straight into the stack file; set-all then keeps them. Plain values go
        // through set-all's arguments; secrets never do: each goes on stdin of its own `config set --secret`.
        const { args, file } = splitConfigForArgs(config);
        if (Object.keys(file).length) writePlainConfig(stackConfigPath(workDir, stackName), file);
        const plain = Object.fromEntries(Object.entries(args).filter(([, v]) => !v.secret));
        if (Object.keys(plain).length) await stack.setAllConfig(plain);
        for (const [key, v] of Object.entries(args)) if (v.secret) await setSecretConfig(pulumi.command, stackName, workDir, key, v.value);
      },
      preview: (opts) => stack.preview(opts),
      up: (opts) => stack.up(opts),
      destroy: (opts) => stack.destroy(opts),
      refresh: (opts) => stack.refresh(opts),
    };
  };
}

/** Splits chunks of output into lines, per group. */
function lineSink(group: string, onOutput?: (group: string, line: string) => void) {
  let buf = "";
  return {
    write(chunk: string) {
      if (!onOutput) return;
      buf += chunk;
      const lines = buf.split(/\r?\n/);
      buf = lines.pop()!;
      for (const l of lines) onOutput(group, l);
    },
    flush() {
      if (onOutput && buf) onOutput(group, buf);
      buf = "";
    },
  };
}

/**
 * Runs `command` on every group's stack: create or select the stack, set its config, run the
 * operation, count the changes. At most `parallel` groups at once; a failure is recorded in that
 * group's result and the other groups go on. Resolves with every result (sorted by group).
 */
export async function runFleet(opts: RunFleetOptions): Promise<FleetResult> {
  if (!FLEET_COMMANDS.includes(opts.command)) throw new Error(`command must be one of ${FLEET_COMMANDS.join(", ")}, got "${opts.command}"`);
  const parallel = opts.parallel ?? DEFAULT_PARALLEL;
  if (!Number.isInteger(parallel) || parallel < 1) throw new Error(`parallel must be an integer ≥ 1, got ${parallel}`);
  if (!opts.stackPrefix || /\s/.test(opts.stackPrefix))
    throw new Error(`stackPrefix must name the stacks, e.g. "acme/prod" (got "${opts.stackPrefix}")`);
  const createStack = opts.createStack ?? localStackFactory(await findPulumiCli());

  const names = Object.keys(opts.groups).sort();
  const results: GroupResult[] = new Array(names.length);

  async function runGroup(group: string): Promise<GroupResult> {
    const stackName = stackNameOf(opts.stackPrefix, group);
    const started = Date.now();
    const sink = lineSink(group, opts.onOutput);
    const opOpts: OperationOptions = { onOutput: (s) => sink.write(s), color: "never" };
    if (opts.command === "preview" || opts.command === "up") {
      if (opts.refresh) opOpts.refresh = true;
      if (opts.diff) opOpts.diff = true;
    }
    try {
      const stack = await createStack(stackName, opts.workDir);
      await stack.setAllConfig(opts.groups[group]);
      let raw: OpCounts;
      switch (opts.command) {
        case "preview":
          raw = (await stack.preview(opOpts)).changeSummary ?? {};
          break;
        case "up":
          raw = (await stack.up(opOpts)).summary?.resourceChanges ?? {};
          break;
        case "destroy":
          raw = (await stack.destroy(opOpts)).summary?.resourceChanges ?? {};
          break;
        case "refresh":
          raw = (await stack.refresh(opOpts)).summary?.resourceChanges ?? {};
          break;
      }
      return { group, stack: stackName, ok: true, changes: changeCounts(raw), raw, durationMs: Date.now() - started };
    } catch (err) {
      return {
        group,
        stack: stackName,
        ok: false,
        changes: { ...ZERO },
        raw: {},
        error: errorSummary(err),
        durationMs: Date.now() - started,
      };
    } finally {
      sink.flush();
    }
  }

  let next = 0;
  async function worker(): Promise<void> {
    while (next < names.length) {
      const i = next++;
      const result = await runGroup(names[i]);
      results[i] = result;
      try {
        opts.onResult?.(result);
      } catch {
        // a reporting callback never stops the fleet
      }
    }
  }
  await Promise.all(Array.from({ length: Math.min(parallel, names.length) }, worker));

  const failed = results.filter((r) => !r.ok).map((r) => r.group);
  return {
    command: opts.command,
    results,
    ok: failed.length === 0,
    failed,
    totals: results.reduce((t, r) => addCounts(t, r.changes), { ...ZERO }),
  };
}

const pad = (s: string, n: number) => (s.length >= n ? s : s + " ".repeat(n - s.length));

/** `+2 ~1 -0 +-0 =40`: created, updated, deleted, replaced, unchanged (the CLI's symbols). */
export function formatCounts(c: ChangeCounts): string {
  return `+${c.created} ~${c.updated} -${c.deleted} +-${c.replaced} =${c.unchanged}`;
}

/** One line per group, then the totals. */
export function formatFleetReport(r: FleetResult): string {
  const width = Math.max(5, ...r.results.map((x) => x.stack.length));
  const lines = r.results.map((x) =>
    x.ok
      ? `${pad(x.stack, width)}  ok      ${formatCounts(x.changes)}  (${(x.durationMs / 1000).toFixed(1)}s)`
      : `${pad(x.stack, width)}  FAILED  ${x.error}`,
  );
  const verb = r.command === "preview" ? "planned" : "made";
  lines.push(
    `${r.command}: ${r.results.length - r.failed.length} of ${r.results.length} stacks ok; changes ${verb}: ${formatCounts(r.totals)}` +
      (r.failed.length ? `; failed: ${r.failed.join(", ")}` : ""),
  );
  return lines.join("\n");
}
