// A stack file (Pulumi.<stack>.yaml) read without the Pulumi CLI, as the CLI would hand its config to the program:
// `namespace:key` → text (strings as they are, everything else as JSON), each `secure:` value a secret whose text is
// its ciphertext (checked for where it is stored, not for its value: nothing here can decrypt it). The text is read
// with the `yaml` package, as export --merge reads it, and what yaml.v3 (the CLI's reader) would read as another
// number is refused by the same check the merge runs (source.ts: `adoptId: 0123` is 83 there, 123 here). And the
// project file: where Pulumi.yaml keeps its stack files (stackConfigDir). Nothing here talks to the portal.
import * as fs from "fs";
import * as path from "path";
import { Document, isMap, parseDocument } from "yaml";
import { cliConfigKey } from "../rules/config-keys";
import { NAMESPACE } from "../rules/stack-config";
import { Problem } from "../tenants/model";
import type { ConfigSource } from "./read";
import { cliReadingProblems, repeatedKeyProblems } from "./source";
import { parseYamlDocument } from "./yaml-document";

/** A stack file that could not be read as one: one line, naming the file. */
export class StackFileError extends Error {}

export interface StackFile {
  /** The file as given. */
  file: string;
  /** The config as the program gets it, secrets by their ciphertext (see `encrypted`). */
  source: ConfigSource;
  /** What the readers would read otherwise (a number with a leading zero), by key path under `backup-portal:`. */
  problems: Problem[];
}

const isSecure = (v: unknown): boolean =>
  !!v &&
  typeof v === "object" &&
  !Array.isArray(v) &&
  Object.keys(v).length === 1 &&
  typeof (v as { secure?: unknown }).secure === "string";

/**
 * The `config:` map of a stack file's text, each value as YAML holds it (a `secure:` value as its map), and what
 * the Pulumi CLI would read otherwise than this reader (a number with a leading zero, a plain date or 1_000 it
 * reads as a date or number where this reader reads text; by key path). A text that is
 * no YAML, or no map with a map at `config:`, is a StackFileError naming `file`. The one reader of stack files
 * this package has without the Pulumi CLI: `validate` and `--stack` here, the fleet's base file.
 */
export function parseStackFile(
  text: string,
  file: string,
  namespace: string = NAMESPACE,
): { config: Record<string, unknown>; problems: Problem[] } {
  const body = text.replace(/^\uFEFF/, "");
  // `<<: *base` merges the map it names, as yaml.v3 (the CLI's reader) does.
  const doc = parseYamlDocument(body, { merge: true });
  const error = doc.errors[0];
  if (error) {
    const at = error.linePos?.[0] ? ` (line ${error.linePos[0].line})` : "";
    const what = error.message.split("\n")[0].replace(/ at line \d+, column \d+:?$/, "");
    throw new StackFileError(`${file}: not YAML the Pulumi CLI can read${at}: ${what}`);
  }
  if (doc.contents !== null && !isMap(doc.contents)) throw new StackFileError(`${file}: a stack file is a YAML map with a config: key`);
  const configNode = doc.get("config");
  if (configNode !== undefined && configNode !== null && !isMap(configNode)) {
    throw new StackFileError(`${file}: config: must be a map of keys to values`);
  }
  const config = (doc.toJS({ maxAliasCount: 100 }) as { config?: Record<string, unknown> } | null)?.config ?? {};
  // Under `backup-portal:` only: a value elsewhere is its namespace's business.
  return { config, problems: cliReadingProblems(doc as unknown as Document, namespace, body) };
}

/**
 * The config map of a stack file's text, as the program gets it. `namespace` is the project's name, which a key
 * without one belongs to (the CLI reads `tenants:` in project backup-portal as `backup-portal:tenants`).
 */
export function stackFileSource(text: string, file: string, namespace: string = NAMESPACE): StackFile {
  const { config: raw, problems } = parseStackFile(text, file, namespace);
  const config: Record<string, string> = {};
  const secrets = new Set<string>();
  for (const [key, value] of Object.entries(raw)) {
    // As the CLI names it (`tenants`, `backup-portal:config:tenants`: backup-portal:tenants); one written twice is a
    // problem of the file (source.ts), and the later spelling stands here.
    const name = cliConfigKey(key, namespace) ?? key;
    if (isSecure(value)) secrets.add(name);
    config[name] = typeof value === "string" ? value : JSON.stringify(value ?? null);
  }
  const secret = (key: string) => secrets.has(key);
  return { file, source: { config, isSecret: secret, encrypted: secret }, problems };
}

/** Reads `file` (StackFileError when it cannot be read or is no stack file). */
export function readStackFile(file: string, namespace?: string): StackFile {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new StackFileError(`${file}: cannot be read (${code ?? (err as Error).message})`);
  }
  return stackFileSource(text, file, namespace);
}

/**
 * What the program cannot see in the config the CLI hands it: the keys the stack's file writes twice in the CLI's
 * spellings (`tenants:` and `backup-portal:tenants:`), of which the CLI handed it one at random. The file is the one
 * the project in `root` keeps for `stack`; none when it is not there or cannot be read (a `--config-file`).
 */
export function stackFileRepeatedKeys(root: string, stack: string, project: string): { file: string; problems: Problem[] } {
  const found = readProject(root);
  const file = stackFilePath(found ?? { dir: root, stackDir: root, hasStackConfigDir: false }, stack);
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8").replace(/^\uFEFF/, "");
  } catch {
    return { file, problems: [] };
  }
  const doc = parseYamlDocument(text);
  return { file, problems: doc.errors.length ? [] : repeatedKeyProblems(doc as unknown as Document, project, text) };
}

export interface Project {
  /** The folder holding Pulumi.yaml. */
  dir: string;
  /** The project's name, the namespace of its own config keys. */
  name?: string;
  /** Where its stack files are: stackConfigDir resolved, else `dir`. */
  stackDir: string;
  /** Whether Pulumi.yaml names a stackConfigDir. */
  hasStackConfigDir: boolean;
}

/** The Pulumi project in `dir` (Pulumi.yaml or Pulumi.yml), or undefined when there is none or it cannot be read. */
export function readProject(dir: string): Project | undefined {
  for (const name of ["Pulumi.yaml", "Pulumi.yml"]) {
    const file = path.join(dir, name);
    let text: string;
    try {
      text = fs.readFileSync(file, "utf8");
    } catch {
      continue;
    }
    const doc = parseDocument(text);
    const project = doc.errors.length ? undefined : (doc.toJS() as { name?: unknown; stackConfigDir?: unknown } | null);
    const configDir = typeof project?.stackConfigDir === "string" && project.stackConfigDir !== "" ? project.stackConfigDir : undefined;
    return {
      dir,
      name: typeof project?.name === "string" ? project.name : undefined,
      stackDir: configDir ? path.resolve(dir, configDir) : dir,
      hasStackConfigDir: configDir !== undefined,
    };
  }
  return undefined;
}

/**
 * The name of the project a stack file belongs to, the namespace of its keys written without one: that of the
 * nearest Pulumi.yaml in the file's folder or above (a stackConfigDir is below it), else in `cwd`.
 */
export function projectNameOf(file: string, cwd: string): string | undefined {
  let dir = path.dirname(path.resolve(cwd, file));
  for (;;) {
    const project = readProject(dir);
    if (project) return project.name;
    const up = path.dirname(dir);
    if (up === dir) return readProject(cwd)?.name;
    dir = up;
  }
}

/** A stack file's name: `Pulumi.<stack>.yaml` (or .yml). */
export const STACK_FILE = /^Pulumi\.(?!yaml$|yml$)(.+)\.ya?ml$/;

/** The stack of `org/project/prod` or `prod`: the last part, as the stack file names it. */
export const shortStack = (stack: string): string => stack.split("/").pop() ?? stack;

/** Where the CLI keeps `stack`'s config in `project`: `<stackDir>/Pulumi.<stack>.yaml`. */
export function stackFilePath(project: Project, stack: string): string {
  return path.join(project.stackDir, `Pulumi.${shortStack(stack)}.yaml`);
}

/** The stack files in the project's stack folder, sorted. */
export function stackFilesOf(project: Project): string[] {
  let names: string[];
  try {
    names = fs.readdirSync(project.stackDir);
  } catch {
    return [];
  }
  return names
    .filter((n) => STACK_FILE.test(n))
    .sort()
    .map((n) => path.join(project.stackDir, n));
}
