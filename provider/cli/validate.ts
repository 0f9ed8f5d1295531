// `backup-portal validate [Pulumi.<stack>.yaml]`: checks a stack file without the Pulumi CLI, with the stack
// program's own reader (provider/stack-config/read.ts) and its messages, one line each; with a portal connection,
// also the names and ids the program checks against the portal before its first resource (reads only).
import * as fs from "fs";
import * as path from "path";
import { packageRoot } from "../dynamic/specifier";
import { References } from "../dynamic/references";
import { PortalClient } from "../portal/client";
import { cliHints } from "../portal/hints";
import { maskUrl } from "../http/mask-url";
import { resolveSettings, SETTING_SOURCES } from "../portal/settings";
import { stackFileSizeProblem } from "../stack-config/config-size";
import { projectNameOf, readProject, readStackFile, StackFile, stackFilesOf, StackFileError } from "../stack-config/file";
import { formatConfigProblems } from "../stack-config/problems";
import { Problem, TenantsConfig } from "../tenants/model";
import { validateNames } from "../tenants/names";
import { countsText, declaredCounts } from "../tenants/counts";
import { CommandSpec, runCommand, TargetError, UsageError, Values } from "./args";
import { failureText } from "./failure";
import { CliIo, DEFAULT_TIMEOUT_SECONDS, processIo, terminalIo, TIMEOUT_OPTION } from "./output";
import { stackSettings } from "./stack-settings";

export const COMMAND: CommandSpec = {
  label: "backup-portal validate",
  usage: ["backup-portal validate [Pulumi.<stack>.yaml | --stack <name>] [--offline] [--timeout <seconds>]"],
  about: `Checks a stack file as the stack program checks it before its first resource, without the Pulumi
CLI: every backup-portal: key against the table, the tenants, the registry and the billing receiver by their
rules, numbers the Pulumi CLI would read otherwise, and the config's size: the Node.js runtime gets it in one
environment variable, which Linux caps at 131072 bytes. One line per problem: the file, the key path and the
fix. secure: values are secrets it cannot decrypt: it counts them as set. With a portal connection (the
file's own backup-portal:url, origin, clientId and username, then BACKUP_PORTAL_*; with --stack its secrets
through the Pulumi CLI) it also checks, reading only, what the program checks on the portal:
rootBusinessUnitId, the tenants' adoptIds, and the names of time zones, operating systems, node types, domains
and client option sets. Without a file it takes the one stack file of the project in this folder (Pulumi.yaml's
stackConfigDir).`,
  options: {
    stack: {
      kind: "string",
      value: "name",
      description:
        "the stack's file (Pulumi.<name>.yaml where Pulumi.yaml keeps them) and its portal settings; its secrets through the Pulumi CLI when there is one",
    },
    offline: { kind: "flag", description: "check the file only, never the portal" },
    timeout: TIMEOUT_OPTION,
  },
  epilog: `The portal connection comes from the stack file's own keys and the BACKUP_PORTAL_* environment
variables for what it lacks (the password, stored encrypted, from the environment, or with --stack the Pulumi CLI).
exit codes: 0 valid, 1 problems (or the portal could not be asked), 2 bad arguments or no stack file`,
};

/** The options that take a value (`--stack prod`): the word after one is its value, not the file. */
function takesValue(name: string): boolean {
  const spec = Object.hasOwn(COMMAND.options, name) ? COMMAND.options[name] : undefined;
  return spec !== undefined && spec.kind !== "flag";
}

/** `argv` split into the options (for the parser) and the words that are no option (the file). */
export function splitFile(argv: string[]): { options: string[]; files: string[] } {
  const options: string[] = [];
  const files: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--") {
      files.push(...argv.slice(i + 1));
      break;
    }
    if (a.startsWith("-") && a !== "-") {
      options.push(a);
      if (a.startsWith("--") && !a.includes("=") && takesValue(a.slice(2)) && i + 1 < argv.length) options.push(argv[++i]);
      continue;
    }
    files.push(a);
  }
  return { options, files };
}

interface Plan {
  file: string;
  /** How the file is named in messages: relative to the working folder. */
  shown: string;
  stack?: string;
  offline: boolean;
  timeoutMs: number;
}

/** The stack file to check: the one given, the stack's, or the project's only one. */
function planOf(values: Values, files: string[], cwd: string): Plan {
  const stack = values.stack as string | undefined;
  if (files.length > 1) throw new UsageError(`one stack file at a time, got ${files.length}: ${files.join(" ")}`);
  if (files.length && stack !== undefined) throw new UsageError("give the stack file or --stack, not both");
  let file = files[0];
  if (file === undefined && stack === undefined) {
    const project = readProject(cwd);
    if (!project) throw new TargetError(`give the stack file (no Pulumi.yaml in ${cwd} to find it from)`);
    const found = stackFilesOf(project);
    const where = path.relative(cwd, project.stackDir) || ".";
    if (found.length === 0) throw new TargetError(`no Pulumi.<stack>.yaml in ${where}: give the stack file`);
    if (found.length > 1) {
      throw new UsageError(
        `${where} holds ${found.length} stack files (${found.map((f) => path.basename(f)).join(", ")}): give one, or --stack <name>`,
      );
    }
    file = found[0];
  }
  const plan = {
    stack,
    offline: values.offline === true,
    timeoutMs: (values.timeout as number | undefined) ?? DEFAULT_TIMEOUT_SECONDS * 1000,
  };
  if (file === undefined) return { ...plan, file: "", shown: "" }; // --stack: its settings name the file
  const at = path.resolve(cwd, file);
  if (!fs.existsSync(at)) throw new TargetError(`${JSON.stringify(file)}: no such file or directory`);
  if (fs.statSync(at).isDirectory()) throw new TargetError(`${JSON.stringify(file)} is a directory, not a stack file`);
  return { ...plan, file: at, shown: path.relative(cwd, at) || file };
}

export interface ValidateIo extends CliIo {
  /** The folder the command runs in; default process.cwd(). */
  cwd?: string;
}

/** The problems of the portal's side: the program's own name checks (reads only). */
async function portalProblems(client: PortalClient, tenants: TenantsConfig, rootBusinessUnitId: number): Promise<Problem[]> {
  return validateNames(tenants, new References(client), rootBusinessUnitId);
}

export function run(argv: string[], given: ValidateIo = processIo): Promise<number> {
  const io = terminalIo(given);
  const cwd = given.cwd ?? process.cwd();
  const { options, files } = splitFile(argv);
  return runCommand(
    COMMAND,
    options,
    io,
    (values) => planOf(values, files, cwd),
    async (plan) => {
      let env = given.env ?? process.env;
      let stackFile: StackFile;
      let { shown } = plan;
      try {
        if (plan.stack !== undefined) {
          const s = stackSettings(plan.stack, cwd, env, [packageRoot(__filename)]);
          stackFile = s.stack;
          env = s.env;
          shown = path.relative(cwd, s.stack.file) || s.stack.file;
          for (const note of [...(s.taken ? [s.taken] : []), ...s.notes]) io.err(`${COMMAND.label}: ${note}\n`);
        } else {
          stackFile = readStackFile(plan.file, projectNameOf(plan.file, cwd));
        }
      } catch (err) {
        if (!(err instanceof StackFileError)) throw err;
        // A file that is there but cannot be read as a stack file: a problem of the file, not of the arguments.
        io.err(`${COMMAND.label}: ${plan.file ? err.message.replace(plan.file, shown) : err.message}\n`);
        return 1;
      }
      // Deferred: loads the Pulumi SDK (the program's reader hands secrets on as its secret outputs).
      const { readStackConfig } = await import("../stack-config/read");
      const read = readStackConfig(stackFile.source);
      // A config larger than one environment variable may hold: the Node.js runtime cannot start the program at all.
      const size = stackFileSizeProblem(fs.readFileSync(stackFile.file, "utf8"), shown, projectNameOf(stackFile.file, cwd));
      // The file's own problems (what the CLI would read otherwise), the reader's and the size, each once.
      const all = [...stackFile.problems, ...read.problems, ...(size ? [size] : [])];
      const problems = [...new Map(all.map((p) => [`${p.path}\n${p.message}`, p])).values()];
      if (!read.config || problems.length) {
        for (const line of formatConfigProblems(shown, problems)) io.out(`${line}\n`);
        io.err(`${shown}: ${problems.length} problem${problems.length === 1 ? "" : "s"}; the portal was not asked (fix these first)\n`);
        return 1;
      }
      const summary = `${shown}: valid: ${countsText(declaredCounts(read.config.tenants))}`;
      if (plan.offline) {
        io.out(`${summary}; not checked against a portal (--offline)\n`);
        return 0;
      }
      // As the program resolves them: the file's own plain keys, then the environment (a secret's ciphertext is
      // no setting: its value comes from the environment, or with --stack from the Pulumi CLI).
      const fromFile = (key: string) => (stackFile.source.isSecret(key) ? undefined : stackFile.source.config[key]);
      const unset = Object.values(SETTING_SOURCES).filter((s) => !fromFile(s.config) && !env[s.env]);
      if (unset.length) {
        const names = unset.map((s) => s.env).join(", ");
        io.out(`${summary}; not checked against a portal (${names} ${unset.length === 1 ? "is" : "are"} not set)\n`);
        return 0;
      }
      let settings;
      try {
        settings = resolveSettings(fromFile, env, "cli");
      } catch (err) {
        io.err(`${COMMAND.label}: ${(err as Error).message}\n`);
        return 2;
      }
      const portal = maskUrl(settings.url);
      const client = new PortalClient({ ...settings, hintContext: cliHints([], "--timeout"), deadlineMs: plan.timeoutMs });
      try {
        const found = await portalProblems(client, read.config.tenants, read.config.rootBusinessUnitId);
        if (found.length) {
          for (const line of formatConfigProblems(shown, found)) io.out(`${line}\n`);
          io.err(`${shown}: ${found.length} problem${found.length === 1 ? "" : "s"} on the portal ${portal}\n`);
          return 1;
        }
        io.out(`${summary}; names and ids checked against ${portal} (reads only)\n`);
        return 0;
      } catch (err) {
        io.err(failureText(COMMAND.label, err, (t) => client.redact(t)));
        return 1;
      } finally {
        client.close();
      }
    },
  );
}
