// A stack config's problems as the user reads them: one line each, `<stack file>: backup-portal:<path>: <problem>`.
// Free of the Pulumi SDK, so that the CLI's commands (export --merge) print them without loading it.
import { qualified } from "../rules/stack-config";
import { Problem } from "../tenants/model";

/** By path (stable: a path's own problems keep their order). */
export function sortProblems(problems: Problem[]): Problem[] {
  return [...problems].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** One line per problem, sorted by path: `<stack file>: backup-portal:<path>: <problem>; <fix>`. */
export function formatConfigProblems(file: string, problems: Problem[]): string[] {
  return sortProblems(problems).map((p) => `${file}: ${qualified(p.path)}: ${p.message}`);
}

/** The message of a failed read: a count, then one line per problem; no stack trace belongs to it. */
export function configProblemsText(file: string, problems: Problem[], outcome = "nothing was changed"): string {
  const n = problems.length;
  return [`the stack config has ${n} problem${n === 1 ? "" : "s"}; ${outcome}:`, ...formatConfigProblems(file, problems)].join("\n");
}
