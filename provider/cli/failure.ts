// How a command reports a failure: a user error (bad input, a refusing portal, a missing file) is one line,
// never a stack trace; a bug (an error JavaScript itself raises, or a throw of something not an Error) is
// the trace and a line asking to report it, since only the trace lets anyone find it.
import * as fs from "fs";
import * as path from "path";
import { packageRoot } from "../dynamic/specifier";

/** Errors the language raises for code that is wrong, not for input that is: a bug wherever they come from. */
const BUG_TYPES = [TypeError, ReferenceError, SyntaxError, EvalError];

export function isBug(err: unknown): boolean {
  return !(err instanceof Error) || BUG_TYPES.some((t) => err instanceof t);
}

function version(): string {
  try {
    return (JSON.parse(fs.readFileSync(path.join(packageRoot(__filename), "package.json"), "utf8")) as { version: string }).version;
  } catch {
    return "(version unknown)";
  }
}

/**
 * The text for a failure: `<label>: <message>` for a user error; for a bug, the trace and the request to report
 * it. `clean` removes secrets (the client's redaction) from what is shown.
 */
export function failureText(label: string, err: unknown, clean: (text: string) => string = (t) => t): string {
  if (!isBug(err)) return `${label}: ${clean((err as Error).message)}\n`;
  const trace = err instanceof Error ? (err.stack ?? `${err.name}: ${err.message}`) : `thrown: ${String(err)}`;
  return (
    `${label}: internal error: ${clean(trace)}\n` +
    `${label}: this is a bug in backup-portal-pulumi ${version()}, not in what you gave it: please report it with the ` +
    `command you ran (without secrets) and the lines above\n`
  );
}
