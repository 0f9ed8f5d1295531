// The command line of the `backup-portal` commands (and the billing receiver): one reader for
// `--flag value`, `--flag=value` and bare flags, the usage error, typed values, and the common
// start of a command's run (bad arguments: the message and the usage on stderr, exit 2;
// --help: the usage on stdout, exit 0).

/** Bad arguments: the command prints the message and its usage and exits with 2. */
export class UsageError extends Error {}

export interface CommandIo {
  out(text: string): void;
  err(text: string): void;
}

export const processIo: CommandIo = {
  out: (text) => { process.stdout.write(text); },
  err: (text) => { process.stderr.write(text); },
};

// ---------------------------------------------------------------------------------------------
// Reading the arguments

/** How strict `Arg.value()` is; the commands differ here and each keeps its own rules. */
export interface ArgRules {
  /** Refuse an empty value (`--flag=` or `--flag ""`). */
  nonEmpty?: boolean;
  /** A lone `--` may be the value of the option before it. */
  dashDashIsValue?: boolean;
}

/** One argument of the command line, as the handler given to `parseArgv` sees it. */
export interface Arg {
  /** The argument as given, e.g. `--url=http://x`. */
  readonly arg: string;
  /** The option without its `=value`, e.g. `--url` (short options and operands as given). */
  readonly flag: string;
  /** The value after `=` of a long option, if any. */
  readonly inline: string | undefined;
  /** The option's value: the inline one, else the next argument (consumed). */
  value(): string;
  /** Refuses an inline value (`--flag=x`) for an option that takes none. */
  noValue(): void;
}

/** Hands each argument to `handle` in order; `handle` throws a UsageError for what it refuses. */
export function parseArgv(argv: string[], handle: (arg: Arg) => void, rules: ArgRules = {}): void {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const eq = arg.startsWith("--") ? arg.indexOf("=") : -1;
    const flag = eq > 0 ? arg.slice(0, eq) : arg;
    const inline = eq > 0 ? arg.slice(eq + 1) : undefined;
    const empty = (v: string): boolean => rules.nonEmpty === true && v === "";
    handle({
      arg, flag, inline,
      value: () => {
        if (inline !== undefined) {
          if (empty(inline)) throw new UsageError(`${flag} needs a value`);
          return inline;
        }
        const next = argv[i + 1];
        const option = next !== undefined && next.startsWith("--") && !(rules.dashDashIsValue && next === "--");
        if (next === undefined || option || empty(next)) throw new UsageError(`${flag} needs a value`);
        i++;
        return next;
      },
      noValue: () => {
        if (inline !== undefined) throw new UsageError(`${flag} takes no value`);
      },
    });
  }
}

/** The error for an option no command knows: `unknown option "<text>"`. */
export function unknownOption(text: string): UsageError {
  return new UsageError(`unknown option ${JSON.stringify(text)}`);
}

// ---------------------------------------------------------------------------------------------
// Typed values

/**
 * A whole number written in digits, at least `min` (and at most `max` when given);
 * `safe`: also refuse one too large to hold exactly.
 */
export function integer(flag: string, text: string, min: number, max?: number, safe = false): number {
  const n = Number(text);
  if (!/^\d+$/.test(text) || (safe && !Number.isSafeInteger(n)) || n < min || (max !== undefined && n > max)) {
    const range = max === undefined ? `>= ${min}` : `from ${min} to ${max}`;
    throw new UsageError(`${flag} needs an integer ${range}, got ${JSON.stringify(text)}`);
  }
  return n;
}

/** A duration in seconds (a decimal fraction allowed, above 0 and at most a day), in milliseconds. */
export function seconds(flag: string, text: string): number {
  const n = Number(text);
  if (!/^\d+(\.\d+)?$/.test(text) || !(n > 0) || n > 86_400) {
    throw new UsageError(`${flag} needs a number of seconds above 0 and at most 86400, got ${JSON.stringify(text)}`);
  }
  return Math.round(n * 1000);
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
// Running a command

/** Reports bad arguments: `<label>: <message>`, a blank line and the usage on stderr; returns 2. */
export function usageFailure(io: CommandIo, label: string, usage: string, message: string): number {
  io.err(`${label}: ${message}\n\n${usage}\n`);
  return 2;
}

/**
 * The start every command shares: parses the arguments (a UsageError: reported, 2), prints the
 * usage for --help (0), else runs the body with what was parsed. `label` starts each message,
 * e.g. `backup-portal metadata`.
 */
export async function runCommand<P extends { help?: unknown }, R>(
  label: string, usage: string, argv: string[], io: CommandIo,
  parse: (argv: string[]) => P, body: (parsed: P) => Promise<R>,
): Promise<R | number> {
  let parsed: P;
  try {
    parsed = parse(argv);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    return usageFailure(io, label, usage, err.message);
  }
  if (parsed.help) {
    io.out(`${usage}\n`);
    return 0;
  }
  return body(parsed);
}
