// `--stack <name>`: a command's portal settings from a stack file instead of (or on top of) the BACKUP_PORTAL_*
// environment: the stack file's plain `backup-portal:` connection keys, and its `secure:` ones decrypted by the
// Pulumi CLI (`pulumi config --show-secrets --json`, run in the project folder) when one is on PATH or in
// .tools/bin. A secret reaches this process through the CLI's stdout only: never an argument, never a log line.
import { spawnSync } from "child_process";
import * as fs from "fs";
import * as path from "path";
import { LIMIT_SOURCES, SETTING_SOURCES } from "../portal/settings";
import { readProject, readStackFile, Project, stackFilePath, StackFile, StackFileError } from "../stack-config/file";
import { TargetError } from "./args";

/** The keys a stack file may give a command: the connection and the answer size limit. */
const SOURCES = [...Object.values(SETTING_SOURCES), ...Object.values(LIMIT_SOURCES)];

/** How long `pulumi config` may take (it may load plugins and reach a remote backend). */
const PULUMI_TIMEOUT_MS = 120_000;

export interface StackSettings {
  project: Project;
  stack: StackFile;
  /** The environment to resolve the settings from: `env` with the stack's settings over it. */
  env: NodeJS.ProcessEnv;
  /** The line that says which settings the stack gave (undefined: none). */
  taken?: string;
  /** Lines to show on stderr: a secret that could not be read, and what is used instead. */
  notes: string[];
  /** Where each variable the stack set came from, by variable: `stacks/Pulumi.prod.yaml (backup-portal:url)`. */
  from: Record<string, string>;
}

/** The Pulumi CLI: the first `pulumi` on PATH, else one in .tools/bin of the project or of this package. */
export function findPulumi(env: NodeJS.ProcessEnv, dirs: string[]): string | undefined {
  const candidates = [
    ...(env.PATH ?? "").split(path.delimiter).filter((d) => d !== ""),
    ...dirs.map((d) => path.join(d, ".tools", "bin")),
  ].map((d) => path.join(d, "pulumi"));
  return candidates.find((file) => {
    try {
      fs.accessSync(file, fs.constants.X_OK);
      return fs.statSync(file).isFile();
    } catch {
      return false;
    }
  });
}

/** The first line of the CLI's complaint, short: it never holds a secret's value (it did not print them). */
const firstLine = (text: string) => (text.trim().split("\n")[0] ?? "").slice(0, 300);

/**
 * The stack's decrypted values of `keys`, from `pulumi config --show-secrets --json --stack <stack>` in the
 * project folder; `problem` says why none were read.
 */
export function pulumiSecrets(
  pulumi: string,
  project: Project,
  stack: string,
  keys: string[],
  env: NodeJS.ProcessEnv,
): { values: Record<string, string>; problem?: string } {
  const r = spawnSync(pulumi, ["config", "--show-secrets", "--json", "--stack", stack], {
    cwd: project.dir,
    env,
    encoding: "utf8",
    timeout: PULUMI_TIMEOUT_MS,
    stdio: ["ignore", "pipe", "pipe"],
    maxBuffer: 64 * 1024 * 1024,
  });
  if (r.error) return { values: {}, problem: `${pulumi} could not run (${(r.error as NodeJS.ErrnoException).code ?? r.error.message})` };
  if (r.status !== 0) return { values: {}, problem: `pulumi config --show-secrets failed: ${firstLine(r.stderr) || `exit ${r.status}`}` };
  let all: Record<string, { value?: unknown }>;
  try {
    all = JSON.parse(r.stdout) as Record<string, { value?: unknown }>;
  } catch {
    return { values: {}, problem: "pulumi config --show-secrets --json did not print JSON" };
  }
  const values: Record<string, string> = {};
  for (const key of keys) {
    const v = all[key]?.value;
    if (typeof v === "string") values[key] = v;
  }
  return { values };
}

/**
 * The settings of `stack` (as `--stack` names it) for a command run in `cwd`: the stack file found through
 * Pulumi.yaml, its plain connection keys, and its secret ones through the Pulumi CLI. A setting the stack does
 * not give stays as the environment has it. A missing project or stack file is a TargetError.
 */
export function stackSettings(stack: string, cwd: string, env: NodeJS.ProcessEnv, packageDirs: string[] = []): StackSettings {
  const project = readProject(cwd);
  if (!project) throw new TargetError(`--stack ${stack}: no Pulumi.yaml in ${cwd}; run the command in the project's folder`);
  const file = stackFilePath(project, stack);
  let read: StackFile;
  try {
    read = readStackFile(file, project.name);
  } catch (err) {
    if (err instanceof StackFileError && !fs.existsSync(file)) {
      throw new TargetError(`--stack ${stack}: no stack file ${path.relative(cwd, file) || file} (the stack's config is read from there)`);
    }
    throw err;
  }
  const out: NodeJS.ProcessEnv = { ...env };
  const notes: string[] = [];
  const from: Record<string, string> = {};
  const shown = path.relative(cwd, file) || file;
  const secret: string[] = [];
  const given: string[] = [];
  for (const src of SOURCES) {
    const value = read.source.config[src.config];
    if (value === undefined) continue;
    if (read.source.isSecret(src.config)) secret.push(src.config);
    else {
      out[src.env] = value;
      from[src.env] = `${shown} (${src.config})`;
      given.push(src.config);
    }
  }
  if (secret.length) {
    const pulumi = findPulumi(env, [project.dir, ...packageDirs]);
    const r = pulumi
      ? pulumiSecrets(pulumi, project, stack, secret, env)
      : { values: {} as Record<string, string>, problem: "no Pulumi CLI on PATH or in .tools/bin to decrypt it" };
    for (const src of SOURCES) {
      const value = r.values[src.config];
      if (value !== undefined) {
        out[src.env] = value;
        from[src.env] = `${shown} (${src.config}, decrypted by the Pulumi CLI)`;
        given.push(src.config);
      }
    }
    const unread = secret.filter((k) => r.values[k] === undefined);
    if (unread.length) {
      const envNames = SOURCES.filter((s) => unread.includes(s.config)).map((s) => s.env);
      notes.push(
        `${shown}: ${unread.join(", ")} not read (${r.problem ?? "not in the CLI's answer"}); ` +
          `${envNames.join(", ")} from the environment ${envNames.every((n) => env[n]) ? "is used instead" : "is not set either"}`,
      );
    }
  }
  const taken = given.length ? `${shown}: ${given.join(", ")} from the stack` : undefined;
  return { project, stack: read, env: out, taken, notes, from };
}
