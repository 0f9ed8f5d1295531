// The command line of the `backup-portal` commands (and the billing receiver). Each command
// declares its options once (a CommandSpec); from that one declaration come both the parser's
// configuration (node's util.parseArgs) and the command's help text. Also: typed values, the usage
// error, and the common start of a command's run (bad arguments: the message, the usage line and
// where the help is on stderr, exit 2; --help: the help on stdout, exit 0).
//
// Why util.parseArgs and not commander: it ships with node (no dependency in a package users
// install), and it only reads argv, which leaves the exit codes, the messages and the help layout
// here, where the documented behaviour (exit 2 with the usage line, typed values) is kept. Node 20's
// parseArgs has no `--no-<flag>` negation (allowNegative is node 22+): the declaration layer adds it.
import * as fs from "fs";
import * as path from "path";
import { parseArgs } from "util";
import { MAX_INTEGER, portalId } from "../rules/fields";
import { suggest } from "../rules/suggest";
import { toDay, toTimestamp } from "../data/dates";
import { failureText } from "./failure";

/** Bad arguments: the command prints the message and its usage line and exits with 2. */
export class UsageError extends Error {}

/**
 * A well-formed argument that names what is not there or cannot be used: a stack with no stack file, a file
 * that does not exist, a folder for --out that is missing. Exit 2 as any usage error, in one line: the usage
 * line would not help, since the arguments were written right.
 */
export class TargetError extends UsageError {}

export interface CommandIo {
  out(text: string): void;
  err(text: string): void;
}

export const processIo: CommandIo = {
  out: (text) => {
    process.stdout.write(text);
  },
  err: (text) => {
    process.stderr.write(text);
  },
};

// ---------------------------------------------------------------------------------------------
// Declaring a command

/**
 * How an option's value is read: `flag` takes none; `int` a whole number (`min`, `max`); `id` a portal id
 * (a positive integer up to 2^53 - 1, the rule of provider/rules/fields.ts); `url` an
 * http(s) URL; `seconds` a duration (read as milliseconds); `list` may repeat and takes
 * comma-separated values; `date` a moment (YYYY-MM-DD, ISO 8601, or ago like 7d) and `day` a
 * YYYY-MM-DD, both checked here and kept as written; `string` any non-empty text.
 */
export type OptionKind = "flag" | "string" | "int" | "id" | "url" | "seconds" | "list" | "date" | "day";

export interface OptionSpec {
  kind: OptionKind;
  /** What the help text shows for the value, e.g. `id` for `--bunit <id>`. */
  value?: string;
  /** One sentence for the help text (wrapped there). */
  description?: string;
  /**
   * What applies when the option is absent, as the help text shows it. The parser does not fill it
   * in: the library behind the command applies its own default (the constant shown here).
   */
  default?: string | number;
  /** The command refuses to run without it (after --help). */
  required?: boolean;
  /** A one-letter spelling, e.g. `q` for `-q`. */
  short?: string;
  /** Bounds of an `int` (min defaults to 0). */
  min?: number;
  max?: number;
  /** The help text of a `--no-<name>` form; with it the option's value is `false`. */
  negation?: string;
  /** The heading the help text lists it under (default `options`). */
  group?: string;
}

export type OptionSpecs = Readonly<Record<string, OptionSpec>>;

export interface CommandSpec {
  /** What starts each message, e.g. `backup-portal metadata`. */
  label: string;
  /** The usage lines, e.g. `backup-portal metadata [options]`. */
  usage: string[];
  /** The paragraphs between the usage and the options. */
  about?: string;
  options: OptionSpecs;
  /** The text after the options: environment, exit codes. */
  epilog?: string;
}

/** The values read, by option name (`--page-size` is `page-size`); `help` for -h/--help. */
export type Values = Record<string, string | number | boolean | string[] | undefined>;

const HELP: OptionSpec = { kind: "flag", short: "h", description: "show this help" };

function withHelp(options: OptionSpecs): OptionSpecs {
  return { ...options, help: HELP };
}

// ---------------------------------------------------------------------------------------------
// Reading the arguments

/**
 * Reads `argv` by the command's declaration: `--flag value`, `--flag=value`, `-x`, `--no-flag` where
 * declared. Refuses (UsageError) unknown options, unexpected arguments, a missing or empty value, a
 * value for a flag, a bad typed value, and (unless --help is given) a missing required option.
 */
export function parseCommandArgs(command: CommandSpec, argv: string[]): Values {
  const specs = withHelp(command.options);
  const config: Record<string, { type: "boolean" | "string"; short?: string }> = {};
  for (const [name, s] of Object.entries(specs)) {
    config[name] = { type: s.kind === "flag" ? "boolean" : "string", ...(s.short ? { short: s.short } : {}) };
  }
  // Not strict: the parser splits argv into tokens and each is judged here, so that every refusal is
  // a UsageError naming the option as given, and a value may start with one dash (`--from -7d`). A
  // `--no-<name>` is not declared to the parser: it reads an undeclared option as a flag, which a
  // negation is, and the loop below tells a declared negation from an unknown option.
  const { tokens } = parseArgs({ args: argv, options: config, strict: false, allowPositionals: true, tokens: true });
  const values: Values = {};
  for (const t of tokens) {
    if (t.kind === "option-terminator") continue;
    if (t.kind === "positional") throw new UsageError(`unexpected argument ${JSON.stringify(t.value)}`);
    const flag = t.rawName;
    // Own properties only: `--constructor` is no option.
    const spec = (n: string): OptionSpec | undefined => (Object.hasOwn(specs, n) ? specs[n] : undefined);
    const negated = !spec(t.name) && t.name.startsWith("no-") && spec(t.name.slice(3))?.negation !== undefined;
    const name = negated ? t.name.slice(3) : t.name;
    const s = spec(name);
    if (!s) throw new UsageError(`unknown option ${JSON.stringify(flag)}${didYouMean(flag, specs)}`);
    if (s.kind === "flag" || negated) {
      if (t.value !== undefined) throw new UsageError(`${flag} takes no value`);
      values[name] = !negated;
      continue;
    }
    // The parser takes the next argument as the value whatever it is; one that is an option is not.
    if (t.value === undefined || t.value === "" || (!t.inlineValue && t.value.startsWith("--"))) {
      throw new UsageError(`${flag} needs a value`);
    }
    values[name] = typedValue(s, flag, t.value, values[name]);
  }
  if (!values.help) {
    const missing = Object.entries(command.options).filter(([name, s]) => s.required && values[name] === undefined);
    if (missing.length > 0) throw new UsageError(`missing ${missing.map(([name, s]) => optionText(name, s)).join(", ")}`);
  }
  return values;
}

/** `; did you mean --x?` for an unknown option near a declared one (its `--no-` form included), else "". */
function didYouMean(flag: string, specs: OptionSpecs): string {
  if (!flag.startsWith("--")) return "";
  const names = Object.entries(specs).flatMap(([n, s]) => (s.negation !== undefined ? [n, `no-${n}`] : [n]));
  const near = suggest(flag.slice(2).split("=")[0], names);
  return near === undefined ? "" : `; did you mean --${near}?`;
}

function typedValue(s: OptionSpec, flag: string, text: string, before: Values[string]): Values[string] {
  switch (s.kind) {
    case "int":
      return integer(flag, text, s.min ?? 0, s.max);
    case "id":
      return portalIdValue(flag, text);
    case "url":
      return httpUrl(flag, text);
    case "seconds":
      return seconds(flag, text);
    case "date":
    case "day":
      return dateText(flag, text, s.kind);
    case "list": {
      const items = text
        .split(",")
        .map((v) => v.trim())
        .filter((v) => v !== "");
      return [...(Array.isArray(before) ? before : []), ...items];
    }
    default:
      return text;
  }
}

/** `o` without its undefined properties: an option not given leaves the library's default in place. */
export function definedOnly<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

// ---------------------------------------------------------------------------------------------
// Typed values

/** A whole number written in digits that a double holds exactly, at least `min` (and at most `max` when given). */
export function integer(flag: string, text: string, min: number, max?: number): number {
  const n = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(n) || n < min || (max !== undefined && n > max)) {
    const range = max === undefined ? `>= ${min}` : `from ${min} to ${max}`;
    throw new UsageError(`${flag} needs an integer ${range}, got ${JSON.stringify(text)}`);
  }
  return n;
}

/** A portal id written in digits (no sign, space or leading zero); beyond 2^53 - 1 it would read as another id. */
export function portalIdValue(flag: string, text: string): number {
  const id = /^[1-9][0-9]*$/.test(text) ? portalId(text) : undefined;
  if (id === undefined) throw new UsageError(`${flag} needs an id: a positive integer up to ${MAX_INTEGER}, got ${JSON.stringify(text)}`);
  return id;
}

/** A duration in seconds (a decimal fraction allowed, above 0 and at most a day), in milliseconds. */
export function seconds(flag: string, text: string): number {
  const n = Number(text);
  if (!/^\d+(\.\d+)?$/.test(text) || !(n > 0) || n > 86_400) {
    throw new UsageError(`${flag} needs a number of seconds above 0 and at most 86400, got ${JSON.stringify(text)}`);
  }
  return Math.round(n * 1000);
}

/** A date as written, checked as the data functions will read it (a bad one names the flag, not "Invalid time value"). */
export function dateText(flag: string, text: string, kind: "date" | "day"): string {
  try {
    if (kind === "day") toDay(text);
    else toTimestamp(text);
  } catch (err) {
    if (!(err instanceof RangeError)) throw err;
    const form = kind === "day" ? "a day YYYY-MM-DD" : "a date: YYYY-MM-DD, ISO 8601, or a duration ago (7d, 24h)";
    throw new UsageError(
      `${flag} needs ${form}, got ${JSON.stringify(text)}${/before the earliest/.test(err.message) ? " (too far back)" : ""}`,
    );
  }
  return text;
}

/** The path's status, or undefined when nothing is there (a missing entry, or a file where a directory would be). */
function statIfAny(p: string): fs.Stats | undefined {
  try {
    return fs.statSync(p);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    throw new UsageError(`${p}: ${(err as Error).message}`);
  }
}

/**
 * A file the command will write (or create): not an existing directory or device, and its nearest existing
 * ancestor a directory (missing directories are made). Checked before the first request, not after the portal
 * has changed.
 */
export function fileToWrite(flag: string, file: string): string {
  const at = path.resolve(file);
  const st = statIfAny(at);
  if (st?.isDirectory()) throw new UsageError(`${flag} ${JSON.stringify(file)} is a directory, not a file`);
  if (st && !st.isFile()) throw new UsageError(`${flag} ${JSON.stringify(file)} is not a regular file`);
  for (let dir = path.dirname(at), up = 0; up < 256; dir = path.dirname(dir), up++) {
    const d = statIfAny(dir);
    if (d) {
      if (!d.isDirectory()) throw new UsageError(`${flag} ${JSON.stringify(file)}: ${dir} is not a directory`);
      break;
    }
    if (dir === path.dirname(dir)) break;
  }
  return file;
}

/** A path that must exist (a directory, file or device the command reads). */
export function existingPath(flag: string, file: string): string {
  if (!fs.existsSync(file)) throw new UsageError(`${flag} ${JSON.stringify(file)}: no such file or directory`);
  return file;
}

/** An http: or https: URL, as given. */
export function httpUrl(flag: string, text: string): string {
  let ok = false;
  try {
    ok = ["http:", "https:"].includes(new URL(text).protocol);
  } catch {
    // not a URL at all
  }
  if (!ok) throw new UsageError(`${flag} needs an http(s) URL, got ${JSON.stringify(text)}`);
  return text;
}

// ---------------------------------------------------------------------------------------------
// The help text

const WIDTH = 80;
/** Option columns wider than this put the description on the next line. */
const MAX_OPTION_COLUMN = 26;

function optionText(name: string, s: OptionSpec): string {
  const value = s.kind === "flag" ? "" : ` <${s.value ?? (s.kind === "int" ? "n" : s.kind)}>`;
  return `--${name}${value}`;
}

function describe(s: OptionSpec): string {
  const notes = [s.required ? "required" : undefined, s.default !== undefined ? `default ${s.default}` : undefined].filter(Boolean);
  const text = `${s.description ?? ""}${notes.length ? ` (${notes.join("; ")})` : ""}`;
  return s.kind === "list" ? `${text}; repeatable, or comma-separated` : text;
}

function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/).filter((w) => w !== "")) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line ? `${line} ${word}` : word;
    }
  }
  return line ? [...lines, line] : lines;
}

/** The command's help: usage, about, its options by group (from the declaration), epilog. */
export function formatHelp(command: CommandSpec): string {
  const groups = new Map<string, Array<[string, string]>>();
  for (const [name, s] of Object.entries(withHelp(command.options))) {
    const rows = groups.get(s.group ?? "options") ?? [];
    rows.push([`${s.short ? `-${s.short}, ` : ""}${optionText(name, s)}`, describe(s)]);
    if (s.negation !== undefined) rows.push([`--no-${name}`, s.negation]);
    groups.set(s.group ?? "options", rows);
  }
  const widest = Math.max(
    ...[...groups.values()]
      .flat()
      .map(([left]) => left.length)
      .filter((n) => n <= MAX_OPTION_COLUMN),
  );
  const indent = " ".repeat(2 + widest + 2);
  const sections = [...groups].map(([title, rows]) =>
    [
      `${title}:`,
      ...rows.flatMap(([left, text]) => {
        const lines = wrap(text, WIDTH - indent.length);
        if (left.length > widest) return [`  ${left}`, ...lines.map((l) => `${indent}${l}`)];
        return [`  ${left.padEnd(widest)}  ${lines[0] ?? ""}`.trimEnd(), ...lines.slice(1).map((l) => `${indent}${l}`)];
      }),
    ].join("\n"),
  );
  const usage = command.usage.map((u, i) => `${i === 0 ? "usage:" : "   or:"} ${u}`).join("\n");
  return [usage, command.about, ...sections, command.epilog].filter((p) => p !== undefined && p !== "").join("\n\n");
}

// ---------------------------------------------------------------------------------------------
// Running a command

/** The usage line a usage error shows: the first that starts with `backup-portal` (the command as installed), else the first. */
function usageLine(command: CommandSpec): string {
  return command.usage.find((u) => u.startsWith("backup-portal")) ?? command.usage[0] ?? command.label;
}

/** The words of a usage line that name the command (`backup-portal jobs`): those before its first option or placeholder. */
function commandWords(usage: string): string {
  const words = usage.split(/\s+/);
  const end = words.findIndex((w) => /^[-<[]/.test(w));
  return words.slice(0, end === -1 ? words.length : end).join(" ");
}

/**
 * The text of a usage error: `<label>: <message>`, the command's usage line and where its help is, three lines.
 * Not the whole help: the message is what to read, and 30 lines of options under it hide it.
 */
export function usageErrorText(command: CommandSpec, message: string): string {
  const usage = usageLine(command);
  return `${command.label}: ${message}\nusage: ${usage}\nsee ${commandWords(usage)} --help\n`;
}

/** Reports bad arguments on stderr (usageErrorText); returns 2. */
export function usageFailure(io: CommandIo, command: CommandSpec, message: string): number {
  io.err(usageErrorText(command, message));
  return 2;
}

/** Reports a UsageError: with the usage line, or in one line for a TargetError; returns 2. */
export function argumentFailure(io: CommandIo, command: CommandSpec, err: Error): number {
  if (!(err instanceof TargetError)) return usageFailure(io, command, err.message);
  io.err(`${command.label}: ${err.message}\n`);
  return 2;
}

/**
 * The start every command shares: reads the arguments and prints the help for --help (0); else
 * `prepare` turns the values into what the body needs (checks across options go there), and the
 * body runs. A UsageError from either step is reported with the usage line (2).
 */
export async function runCommand<P, R>(
  command: CommandSpec,
  argv: string[],
  io: CommandIo,
  prepare: (values: Values) => P,
  body: (prepared: P) => Promise<R>,
): Promise<R | number> {
  let prepared: P;
  try {
    const values = parseCommandArgs(command, argv);
    if (values.help) {
      io.out(`${formatHelp(command)}\n`);
      return 0;
    }
    prepared = prepare(values);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    return argumentFailure(io, command, err);
  }
  try {
    return await body(prepared);
  } catch (err) {
    // What a body does not report itself: a usage error found late, a user error in one line, a bug with its trace.
    if (err instanceof UsageError) return argumentFailure(io, command, err);
    io.err(failureText(command.label, err));
    return 1;
  }
}
