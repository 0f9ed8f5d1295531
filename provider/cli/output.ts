// Shared helpers of the data commands (reports, jobs, audit, invoices, billing): their options
// (declared for ./args), the portal client from the environment, aligned tables, JSON, a progress indicator
// on stderr, and the common run wrapper (exit 0 ok, 1 error, 2 bad arguments).
import { PortalClient } from "../portal/client";
import { PortalError } from "../portal/errors";
import { resolveSettings } from "../portal/settings";
import { cliHints } from "../portal/hints";
import { UnknownReferenceError } from "../dynamic/references";
import { toTimestamp } from "../data/dates";
import { BIDI_CONTROLS, escapeControls } from "../text/controls";
import { failureText } from "./failure";
import {
  CommandIo,
  CommandSpec,
  OptionSpec,
  OptionSpecs,
  processIo,
  runCommand as runParsed,
  argumentFailure,
  UsageError,
  Values,
} from "./args";

export { processIo, UsageError };

export interface CliIo extends CommandIo {
  /** The io before terminalIo wrapped it: only for the progress line's own control sequences. */
  raw?: CommandIo;
  /** Environment with the BACKUP_PORTAL_* connection; default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Whether stderr is a terminal (progress on by default); default process.stderr.isTTY. */
  errIsTTY?: boolean;
  /** A client to use instead of one from the environment (not closed by the command). */
  client?: PortalClient;
}

// ---------------------------------------------------------------------------------------------
// Arguments

/** The deadline of a portal command over all its tries, unless `--timeout` says otherwise. */
export const DEFAULT_TIMEOUT_SECONDS = 60;

/** The option every portal command takes (its value in milliseconds). */
export const TIMEOUT_OPTION: OptionSpec = {
  kind: "seconds",
  value: "seconds",
  group: "portal option (every portal command)",
  default: DEFAULT_TIMEOUT_SECONDS,
  description: "give up after this long, retries included; on a terminal, each retry is reported on stderr",
};

/** The options every data command takes: the business unit, a time span, a row limit, JSON. */
export const UNIT_OPTIONS: OptionSpecs = {
  bunit: { kind: "id", required: true, description: "business unit" },
  from: { kind: "date", value: "date", description: "first moment: YYYY-MM-DD, ISO 8601, or ago (7d, 24h)" },
  to: { kind: "date", value: "date", description: "last moment (a day includes all of it)" },
  limit: { kind: "int", min: 0, description: "at most n rows (the latest n)" },
  json: { kind: "flag", description: "JSON instead of a table" },
};

/** UNIT_OPTIONS and the consumer, for the commands about one consumer. */
export const CONSUMER_OPTIONS: OptionSpecs = (({ bunit, ...rest }) => ({
  bunit: { ...bunit, description: "business unit of the consumer" },
  consumer: { kind: "id", required: true, description: "consumer" },
  ...rest,
}))(UNIT_OPTIONS);

/** The last lines of a data command's help. */
export const DATA_EPILOG = `The portal connection comes from the BACKUP_PORTAL_* environment variables.
exit codes: 0 done, 1 error, 2 bad arguments`;

/**
 * A data command: `backup-portal <name>`, its options (--limit and --json listed last), --timeout
 * (every portal command's), and the data commands' epilog.
 */
export function dataCommand(name: string, usage: string, about: string, options: OptionSpecs): CommandSpec {
  const { limit, json, ...own } = options;
  return {
    label: `backup-portal ${name}`,
    usage: [`backup-portal ${name} ${usage}`],
    about,
    options: { ...own, limit, json, timeout: TIMEOUT_OPTION },
    epilog: DATA_EPILOG,
  };
}

// ---------------------------------------------------------------------------------------------
// Output

/**
 * The io every command prints through: whatever reaches stdout or stderr has its control characters escaped
 * (line breaks kept), so portal data cannot steer the operator's terminal whichever path prints it. `raw` is the
 * io as given, for the progress line's own `\r ESC[K`.
 */
export function terminalIo<T extends CommandIo & { raw?: CommandIo }>(io: T): T {
  if (io.raw) return io;
  return {
    ...io,
    out: (text: string) => io.out(escapeControls(text, ["\n"])),
    err: (text: string) => io.err(escapeControls(text, ["\n"])),
    raw: io,
  };
}

export interface Column {
  header: string;
  /** Numbers read better right-aligned. */
  align?: "left" | "right";
}

/** An aligned text table: a header row, then one line per row; columns two spaces apart. */
export function formatTable(columns: Array<Column | string>, rows: Array<Array<string | number | undefined | null>>): string {
  const cols = columns.map((c) => (typeof c === "string" ? { header: c } : c));
  const cells = rows.map((r) =>
    cols.map((_, i) => {
      const v = r[i];
      return v === undefined || v === null ? "" : escapeControls(String(v).replace(/[\r\n\t]+/g, " "));
    }),
  );
  const widths = cols.map((c, i) => Math.max(c.header.length, ...cells.map((r) => r[i].length)));
  const line = (values: string[]) =>
    values
      .map((v, i) => (cols[i].align === "right" ? v.padStart(widths[i]) : v.padEnd(widths[i])))
      .join("  ")
      // The last column's padding, and the gap before an empty last cell.
      .replace(/\s+$/, "");
  return [line(cols.map((c) => c.header)), ...cells.map(line)].join("\n") + "\n";
}

/** A two-column "key  value" listing for one object. */
export function formatRecord(pairs: Array<[string, string | number | boolean | undefined | null]>): string {
  const shown = pairs.filter(([, v]) => v !== undefined && v !== null && v !== "");
  const width = Math.max(0, ...shown.map(([k]) => k.length));
  return shown.map(([k, v]) => `${`${k}:`.padEnd(width + 1)}  ${escapeControls(String(v))}`).join("\n") + "\n";
}

const JSON_RAW_CONTROLS = new RegExp(`[\\u007f-\\u009f${BIDI_CONTROLS}]`, "g");

/**
 * JSON text; JSON.stringify escapes C0 controls in strings but leaves DEL, C1 and the bidi controls as they are:
 * those are written as `\uXXXX` (still the same JSON value).
 */
export function formatJson(value: unknown): string {
  const text = JSON.stringify(value, null, 2) ?? "null";
  return `${text.replace(JSON_RAW_CONTROLS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)}\n`;
}

const UNITS = ["B", "kB", "MB", "GB", "TB", "PB"];

/** A number to show: not undefined, null (portal data may hold it), NaN or an infinity. */
function finite(n: number | undefined): n is number {
  return Number.isFinite(n);
}

/** Bytes in decimal units with three significant digits (`53.0 GB`). */
export function formatBytes(n: number | undefined): string {
  if (!finite(n)) return "";
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
  if (!finite(n)) return "";
  return `${n.toFixed(2)}${currency ? ` ${currency}` : ""}`;
}

/** The latest `limit` rows (the last ones: data comes oldest first), or all without --limit. */
export function latestRows<T>(rows: T[], limit: Values[string]): T[] {
  if (typeof limit !== "number") return rows;
  return limit === 0 ? [] : rows.slice(-limit);
}

/** Writes a table, or a note when there are no rows. */
export function printTable(
  io: CliIo,
  columns: Array<Column | string>,
  rows: Array<Array<string | number | undefined | null>>,
  none: string,
): void {
  if (rows.length === 0) io.out(`(${none})\n`);
  else io.out(formatTable(columns, rows));
}

// ---------------------------------------------------------------------------------------------
// Progress

/** How a Progress writes off a terminal, and while its total is unknown. */
export interface ProgressOptions {
  /** Off a terminal, at most one line per this many ms (the last one always); default: a line per update. */
  lineEveryMs?: number;
  /** While the total is unknown, `<label>: <n> so far` (a walk that finds its reads as it goes) instead of `<n> entries`. */
  soFar?: boolean;
}

/**
 * Progress of a long read on stderr: one line rewritten in place on a terminal, one line per
 * update otherwise (only when asked for with --progress). Disabled: does nothing.
 */
export class Progress {
  private shown = false;
  private last = 0;

  constructor(
    private readonly io: CliIo,
    readonly enabled: boolean,
    private readonly label: string,
    private readonly tty: boolean,
    private readonly minIntervalMs = 100,
    private readonly options: ProgressOptions = {},
  ) {}

  update(seen: number, total?: number): void {
    if (!this.enabled) return;
    const now = Date.now();
    const final = total !== undefined && seen >= total;
    const interval = this.tty ? this.minIntervalMs : (this.options.lineEveryMs ?? 0);
    if (!final && this.shown && now - this.last < interval) return;
    this.last = now;
    const pct = total ? ` (${Math.min(100, Math.floor((seen / total) * 100))}%)` : "";
    const text =
      total === undefined && this.options.soFar
        ? `${this.label}: ${seen} so far`
        : `${this.label}: ${seen}${total !== undefined ? `/${total}` : ""} entries${pct}`;
    if (this.tty) (this.io.raw ?? this.io).err(`\r\x1b[K${text}`);
    else this.io.err(`${text}\n`);
    this.shown = true;
  }

  /** Ends the progress line (a terminal's line is cleared). */
  done(): void {
    if (this.enabled && this.tty && this.shown) (this.io.raw ?? this.io).err("\r\x1b[K");
    this.shown = false;
  }
}

/**
 * Says on stderr that a command waits for something that may not answer, while it waits: nothing for an answer
 * within `firstAfterMs`; then `<label>: waiting for <what>` with how long it will wait at most, and one line every
 * `everyMs` after that with the time so far and `status()` (the last thing that happened). Returns the function
 * that ends it (call it in a finally).
 */
export function waitNotice(
  io: CommandIo,
  label: string,
  wait: { what: string; atMostMs: number; status: () => string | undefined },
  timing: { firstAfterMs: number; everyMs: number } = { firstAfterMs: 3000, everyMs: 10_000 },
): () => void {
  const started = Date.now();
  const seconds = (ms: number) => `${Number((ms / 1000).toFixed(1))} s`;
  let timer: NodeJS.Timeout | undefined;
  const tick = (first: boolean): void => {
    const status = wait.status();
    io.err(
      first
        ? `${label}: waiting for ${wait.what}; gives up after ${seconds(wait.atMostMs)} at most\n`
        : `${label}: still waiting, ${seconds(Date.now() - started)} of at most ${seconds(wait.atMostMs)}${status ? `; last: ${status}` : ""}\n`,
    );
    timer = setTimeout(() => tick(false), timing.everyMs);
  };
  timer = setTimeout(() => tick(true), timing.firstAfterMs);
  return () => clearTimeout(timer);
}

/**
 * Whether the command's stderr is a terminal: as the io says, else only the process's own stderr can be (the io
 * as given, `raw`: terminalIo's wrapper is never processIo itself).
 */
function stderrIsTTY(io: CliIo): boolean {
  return io.errIsTTY ?? ((io.raw ?? io) === processIo ? Boolean(process.stderr.isTTY) : false);
}

/** Whether to show progress: --progress / --no-progress, else only when stderr is a terminal. */
export function progressWanted(p: Values, io: CliIo): { enabled: boolean; tty: boolean } {
  const tty = stderrIsTTY(io);
  const flag = p.progress;
  return { enabled: typeof flag === "boolean" ? flag : tty, tty };
}

// ---------------------------------------------------------------------------------------------
// Running a command

/** --from after --to is refused before any request, naming both (each was checked alone by the parser). */
function checkRange(values: Values): Values {
  const { from, to } = values;
  if (typeof from === "string" && typeof to === "string" && Date.parse(toTimestamp(from, "start")) > Date.parse(toTimestamp(to, "end")))
    throw new UsageError(`--from ${from} lies after --to ${to}`);
  return values;
}

export interface CommandContext {
  client: PortalClient;
  io: CliIo;
  options: Values;
}

/**
 * Parses the options, shows help, runs `check` (the command's checks across its flags, UsageError), builds the
 * client from the environment and runs the body.
 * Exit codes: 0 done, 1 error (reason on stderr), 2 bad arguments.
 */
export function runCommand(
  command: CommandSpec,
  argv: string[],
  io: CliIo,
  body: (ctx: CommandContext) => Promise<number | void>,
  check: (values: Values) => void = () => undefined,
): Promise<number> {
  const { label } = command;
  return runParsed(
    command,
    argv,
    io,
    (values) => {
      // Every flag before the connection settings and the first request: a bad argument is exit 2 whatever else is wrong.
      check(checkRange(values));
      return values;
    },
    async (options) => {
      let client: PortalClient | undefined = io.client;
      const own = !client;
      try {
        // A retry prints one line on a terminal: an unresponsive portal is not silence until the deadline.
        const tty = stderrIsTTY(io);
        client ??= new PortalClient(
          {
            ...resolveSettings(undefined, io.env ?? process.env, "cli"),
            // A not-found names the flags that named the object, not `pulumi refresh`.
            hintContext: cliHints(["--bunit", "--consumer"].filter((f) => Object.hasOwn(command.options, f.slice(2)))),
            deadlineMs: (options.timeout as number | undefined) ?? DEFAULT_TIMEOUT_SECONDS * 1000,
          },
          { log: tty ? (line) => io.err(`${label}: ${line}\n`) : undefined },
        );
        return (await body({ client, io, options })) ?? 0;
      } catch (err) {
        if (err instanceof UsageError || err instanceof RangeError) return argumentFailure(io, command, err);
        io.err(failureText(label, err, (text) => (client ? client.redact(text) : text)));
        if (err instanceof PortalError && err.code === "NotReseller")
          io.err("hint: billing data exists only for a reseller business unit\n");
        if (err instanceof UnknownReferenceError) return 2;
        return 1;
      } finally {
        if (own) client?.close();
      }
    },
  );
}
