// Shared helpers of the data commands (reports, jobs, audit, invoices, billing): their options
// (read with ./args), the portal client from the environment, aligned tables, JSON, a progress indicator
// on stderr, and the common run wrapper (exit 0 ok, 1 error, 2 bad arguments).
import { PortalClient } from "../portal/client";
import { PortalError } from "../portal/errors";
import { resolveSettings } from "../portal/settings";
import { UnknownReferenceError } from "../dynamic/references";
import { CommandIo, integer, parseArgv, processIo, runCommand as runParsed, seconds, unknownOption, usageFailure, UsageError } from "./args";

export { processIo, UsageError };

export interface CliIo extends CommandIo {
  /** Environment with the BACKUP_PORTAL_* connection; default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Whether stderr is a terminal (progress on by default); default process.stderr.isTTY. */
  errIsTTY?: boolean;
  /** A client to use instead of one from the environment (not closed by the command). */
  client?: PortalClient;
}

// ---------------------------------------------------------------------------------------------
// Arguments

export type OptionKind = "string" | "int" | "flag" | "list";

export interface OptionSpec {
  kind: OptionKind;
  /** Smallest value of an int option. */
  min?: number;
  /** Another spelling, e.g. "-j". */
  alias?: string;
}

export type Parsed = Record<string, string | number | boolean | string[] | undefined>;

/** The deadline of a portal command over all its tries, unless `--timeout` says otherwise. */
export const DEFAULT_TIMEOUT_SECONDS = 60;

/**
 * Parses `--flag value`, `--flag=value` and boolean `--flag`/`--no-flag` options against a spec;
 * keys are the flags without dashes. `list` options may repeat and take comma-separated values.
 * Every portal command also takes `--timeout <seconds>` (as `timeoutMs`).
 */
export function parseOptions(argv: string[], spec: Record<string, OptionSpec>): Parsed {
  const out: Parsed = {};
  const byFlag = new Map<string, string>();
  for (const [name, s] of Object.entries(spec)) {
    byFlag.set(`--${name}`, name);
    if (s.alias) byFlag.set(s.alias, name);
  }
  parseArgv(argv, (a) => {
    if (a.arg === "-h" || a.arg === "--help") {
      out.help = true;
      return;
    }
    if (a.flag === "--timeout") {
      out.timeoutMs = seconds(a.flag, a.value());
      return;
    }
    let name = byFlag.get(a.flag);
    let negated = false;
    if (!name && a.flag.startsWith("--no-") && spec[a.flag.slice(5)]?.kind === "flag") {
      name = a.flag.slice(5);
      negated = true;
    }
    if (!name) throw a.flag.startsWith("-") ? unknownOption(a.flag) : new UsageError(`unexpected argument ${JSON.stringify(a.arg)}`);
    const s = spec[name];
    if (s.kind === "flag") {
      a.noValue();
      out[name] = !negated;
      return;
    }
    const value = a.value();
    if (s.kind === "int") {
      out[name] = integer(a.flag, value, s.min ?? 0, undefined, true);
    } else if (s.kind === "list") {
      const items = value.split(",").map((v) => v.trim()).filter((v) => v !== "");
      out[name] = [...((out[name] as string[] | undefined) ?? []), ...items];
    } else {
      out[name] = value;
    }
  }, { dashDashIsValue: true });
  return out;
}

/** The options every data command takes: the business unit, a time span, a row limit, JSON. */
export const UNIT_SPEC: Readonly<Record<string, OptionSpec>> = {
  bunit: { kind: "int", min: 1 }, from: { kind: "string" }, to: { kind: "string" }, limit: { kind: "int", min: 0 }, json: { kind: "flag" },
};

/** UNIT_SPEC and the consumer, for the commands about one consumer. */
export const CONSUMER_SPEC: Readonly<Record<string, OptionSpec>> = { ...UNIT_SPEC, consumer: { kind: "int", min: 1 } };

/** The option every portal command takes, for its usage. */
export const TIMEOUT_USAGE = `portal option (every portal command):
  --timeout <seconds> give up after this long, retries included (default ${DEFAULT_TIMEOUT_SECONDS});
                      on a terminal, each retry is reported on stderr`;

/** The last lines of a data command's usage. */
export const USAGE_END = `${TIMEOUT_USAGE}

The portal connection comes from the BACKUP_PORTAL_* environment variables.
exit codes: 0 done, 1 error, 2 bad arguments`;

/** A required integer option. */
export function required(p: Parsed, name: string): number {
  const v = p[name];
  if (typeof v !== "number") throw new UsageError(`--${name} <id> is required`);
  return v;
}

// ---------------------------------------------------------------------------------------------
// Output

export interface Column {
  header: string;
  /** Numbers read better right-aligned. */
  align?: "left" | "right";
}

/** An aligned text table: a header row, then one line per row; columns two spaces apart. */
export function formatTable(columns: Array<Column | string>, rows: Array<Array<string | number | undefined | null>>): string {
  const cols = columns.map((c) => (typeof c === "string" ? { header: c } : c));
  const cells = rows.map((r) => cols.map((_, i) => {
    const v = r[i];
    return v === undefined || v === null ? "" : String(v).replace(/[\r\n\t]+/g, " ");
  }));
  const widths = cols.map((c, i) => Math.max(c.header.length, ...cells.map((r) => r[i].length)));
  const line = (values: string[]) => values
    .map((v, i) => (cols[i].align === "right" ? v.padStart(widths[i]) : i === values.length - 1 ? v : v.padEnd(widths[i])))
    .join("  ")
    .replace(/\s+$/, "");
  return [line(cols.map((c) => c.header)), ...cells.map(line)].join("\n") + "\n";
}

/** A two-column "key  value" listing for one object. */
export function formatRecord(pairs: Array<[string, string | number | boolean | undefined | null]>): string {
  const shown = pairs.filter(([, v]) => v !== undefined && v !== null && v !== "");
  const width = Math.max(0, ...shown.map(([k]) => k.length));
  return shown.map(([k, v]) => `${`${k}:`.padEnd(width + 1)}  ${String(v)}`).join("\n") + "\n";
}

export function formatJson(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

const UNITS = ["B", "kB", "MB", "GB", "TB", "PB"];

/** Bytes in decimal units with three significant digits (`53.0 GB`). */
export function formatBytes(n: number | undefined): string {
  if (n === undefined || n === null || !Number.isFinite(n)) return "";
  let v = Math.abs(n);
  let u = 0;
  while (v >= 1000 && u < UNITS.length - 1) {
    v /= 1000;
    u++;
  }
  const text = u === 0 ? String(v) : v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2);
  return `${n < 0 ? "-" : ""}${text} ${UNITS[u]}`;
}

/** `YYYY-MM-DD hh:mm:ss` (UTC) from an ISO timestamp; other text as it is. */
export function formatTime(ts: string | undefined): string {
  if (!ts) return "";
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})(\.\d+)?Z$/.exec(ts);
  return m ? `${m[1]} ${m[2]}` : ts;
}

export function formatAmount(n: number | undefined, currency?: string): string {
  if (n === undefined || n === null || !Number.isFinite(n)) return "";
  return `${n.toFixed(2)}${currency ? ` ${currency}` : ""}`;
}

/** Writes a table, or a note when there are no rows. */
export function printTable(io: CliIo, columns: Array<Column | string>, rows: Array<Array<string | number | undefined | null>>, none: string): void {
  if (rows.length === 0) io.out(`(${none})\n`);
  else io.out(formatTable(columns, rows));
}

// ---------------------------------------------------------------------------------------------
// Progress

/**
 * Progress of a long read on stderr: one line rewritten in place on a terminal, one line per
 * update otherwise (only when asked for with --progress). Disabled: does nothing.
 */
export class Progress {
  private shown = false;
  private last = 0;

  constructor(private readonly io: CliIo, readonly enabled: boolean, private readonly label: string, private readonly tty: boolean, private readonly minIntervalMs = 100) {}

  update(seen: number, total?: number): void {
    if (!this.enabled) return;
    const now = Date.now();
    const final = total !== undefined && seen >= total;
    if (this.tty && !final && this.shown && now - this.last < this.minIntervalMs) return;
    this.last = now;
    const pct = total ? ` (${Math.min(100, Math.floor((seen / total) * 100))}%)` : "";
    const text = `${this.label}: ${seen}${total !== undefined ? `/${total}` : ""} entries${pct}`;
    if (this.tty) this.io.err(`\r\x1b[K${text}`);
    else this.io.err(`${text}\n`);
    this.shown = true;
  }

  /** Ends the progress line (a terminal's line is cleared). */
  done(): void {
    if (this.enabled && this.tty && this.shown) this.io.err("\r\x1b[K");
    this.shown = false;
  }
}

/** Whether to show progress: --progress / --no-progress, else only when stderr is a terminal. */
export function progressWanted(p: Parsed, io: CliIo): { enabled: boolean; tty: boolean } {
  const tty = io.errIsTTY ?? (io === processIo ? Boolean(process.stderr.isTTY) : false);
  const flag = p.progress;
  return { enabled: typeof flag === "boolean" ? flag : tty, tty };
}

// ---------------------------------------------------------------------------------------------
// Running a command

export interface CommandContext {
  client: PortalClient;
  io: CliIo;
  options: Parsed;
}

/**
 * Parses the options, shows help, builds the client from the environment and runs the body.
 * Exit codes: 0 done, 1 error (reason on stderr), 2 bad arguments.
 */
export function runCommand(
  name: string, usage: string, spec: Record<string, OptionSpec>, argv: string[], io: CliIo,
  body: (ctx: CommandContext) => Promise<number | void>,
): Promise<number> {
  const label = `backup-portal ${name}`;
  return runParsed(label, usage, argv, io, (args) => parseOptions(args, spec), async (options) => {
    let client: PortalClient | undefined = io.client;
    const own = !client;
    try {
      // A retry prints one line on a terminal: an unresponsive portal is not silence until the deadline.
      const tty = io.errIsTTY ?? (io === processIo ? Boolean(process.stderr.isTTY) : false);
      client ??= new PortalClient(
        { ...resolveSettings(undefined, io.env ?? process.env), deadlineMs: (options.timeoutMs as number | undefined) ?? DEFAULT_TIMEOUT_SECONDS * 1000 },
        { log: tty ? (line) => io.err(`${label}: ${line}\n`) : undefined });
      return (await body({ client, io, options })) ?? 0;
    } catch (err) {
      if (err instanceof UsageError || err instanceof RangeError) return usageFailure(io, label, usage, err.message);
      const message = err instanceof Error ? err.message : String(err);
      io.err(`${label}: ${client ? client.redact(message) : message}\n`);
      if (err instanceof PortalError && err.code === "NotReseller") io.err("hint: billing data exists only for a reseller business unit\n");
      if (err instanceof UnknownReferenceError) return 2;
      return 1;
    } finally {
      if (own) client?.close();
    }
  });
}
