// `backup-portal init-workflows`: writes the GitOps workflows (preview with the plan guard, up, drift) and their
// scripts into the repository of the project in this folder, from the installed package (provider/gitops/workflows.ts).
import * as path from "path";
import { packageRoot } from "../dynamic/specifier";
import { copyWorkflows } from "../gitops/workflows";
import { readProject } from "../stack-config/file";
import { CommandIo, CommandSpec, formatHelp, parseCommandArgs, processIo, usageFailure, UsageError, Values } from "./args";

export const COMMAND: CommandSpec = {
  label: "backup-portal init-workflows",
  usage: ["backup-portal init-workflows [--force]"],
  about: `Writes .github/workflows/preview.yml, up.yml and drift.yml and the scripts they run (.github/scripts/) into
the project in this folder, which must hold Pulumi.yaml and be the repository's root: the workflows run pulumi
there. They find the stacks from the stack files (where Pulumi.yaml's stackConfigDir puts them, else beside
Pulumi.yaml) and run the plan guard of the installed package (backup-portal plan-guard). A file that is there
with other content is refused, all of them in one go, and nothing is written; --force replaces them.
docs/gitops.md says which secrets and variables they read.`,
  options: { force: { kind: "flag", description: "replace workflow files that are there with other content" } },
  epilog: "exit codes: 0 written (or already the same), 1 a file is there with other content, 2 bad arguments or no Pulumi.yaml here",
};

export interface InitWorkflowsIo extends CommandIo {
  /** The folder the command runs in; default process.cwd(). */
  cwd?: string;
}

export async function run(argv: string[], io: InitWorkflowsIo = processIo): Promise<number> {
  let values: Values;
  try {
    values = parseCommandArgs(COMMAND, argv);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    return usageFailure(io, COMMAND, err.message);
  }
  if (values.help) {
    io.out(`${formatHelp(COMMAND)}\n`);
    return 0;
  }
  const cwd = io.cwd ?? process.cwd();
  if (!readProject(cwd)) {
    io.err(
      `${COMMAND.label}: no Pulumi.yaml in ${cwd}: run it in the project's folder, at the repository's root (the workflows run pulumi there)\n`,
    );
    return 2;
  }
  const copied = copyWorkflows(packageRoot(__filename), cwd, { force: values.force === true, write: true });
  const refused = copied.filter((c) => c.outcome === "refused");
  if (refused.length) {
    for (const c of refused)
      io.err(`${COMMAND.label}: ${c.file}: there with other content; compare it, then run again with --force to replace it\n`);
    io.err(`${COMMAND.label}: nothing was written\n`);
    return 1;
  }
  for (const c of copied) io.out(`${c.outcome} ${path.join(c.file)}\n`);
  io.out(
    "next: set the repository's secrets and variables as docs/gitops.md says (PULUMI_ACCESS_TOKEN or PULUMI_CONFIG_PASSPHRASE, BACKUP_PORTAL_PASSWORD), and commit .github/\n",
  );
  return 0;
}
