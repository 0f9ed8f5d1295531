// `backup-portal plan-guard <preview.json>`: the GitOps plan guard (provider/gitops/plan-guard.ts) as a command of the
// installed package, for the preview workflow of a project of its own; the same exits, table and lines as this
// repository's `npm run plan-guard`. Its arguments are read as every command's are (a bad one: the message, the
// usage line, see --help).
import { guard } from "../gitops/plan-guard";
import { CommandIo, CommandSpec, formatHelp, parseCommandArgs, processIo, usageFailure, UsageError, Values } from "./args";

export const COMMAND: CommandSpec = {
  label: "backup-portal plan-guard",
  usage: ["backup-portal plan-guard <preview.json> [--max-deletes N] [--allow] [--markdown <file>]"],
  about: `Reads what \`pulumi preview --json\` wrote and refuses a plan that deletes or replaces a business unit or the
backupportal provider, or deletes or replaces more consumers and nodes than --max-deletes, unless --allow (the pull
request carries the label allow-tenant-deletion). Every delete and replace is printed as a table (kind, name, URN,
op), whatever the outcome. A file that is no preview digest the guard knows fails closed.`,
  options: {
    "max-deletes": { kind: "int", value: "N", description: "consumers and nodes the plan may delete or replace together", default: 0 },
    allow: { kind: "flag", description: "the pull request carries the label allow-tenant-deletion: print the table and pass" },
    markdown: {
      kind: "string",
      value: "file",
      description: "also append the whole plan, the preview's errors and the verdict as Markdown (a pull request comment)",
    },
  },
  epilog: "exit codes: 0 the plan passes (or is allowed), 1 it is refused, 2 no preview the guard knows, or bad arguments",
};

/** The options that take a value: the word after one is that value, not the preview file. */
const VALUED = new Set(["--max-deletes", "--markdown"]);

export function run(argv: string[], io: CommandIo = processIo): Promise<number> {
  const files: string[] = [];
  const options: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    if (!argv[i].startsWith("-")) files.push(argv[i]);
    else options.push(...(VALUED.has(argv[i]) && i + 1 < argv.length ? [argv[i], argv[++i]] : [argv[i]]));
  }
  let values: Values;
  try {
    values = parseCommandArgs(COMMAND, options);
    if (!values.help && files.length !== 1) {
      throw new UsageError(files.length ? `one preview file only, got ${files.length}: ${files.join(" ")}` : "no preview file");
    }
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    return Promise.resolve(usageFailure(io, COMMAND, err.message));
  }
  if (values.help) {
    io.out(`${formatHelp(COMMAND)}\n`);
    return Promise.resolve(0);
  }
  const line = (write: (t: string) => void) => (text: string) => write(`${text}\n`);
  const opts = {
    file: files[0],
    maxDeletes: (values["max-deletes"] as number | undefined) ?? 0,
    allow: values.allow === true,
    markdown: values.markdown as string | undefined,
  };
  return Promise.resolve(guard(opts, line(io.out), line(io.err)));
}
