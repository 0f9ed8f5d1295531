// `backup-portal export`: the portal's business-unit tree as a stack file's `backup-portal:tenants` block, every
// object adopted; or, with --merge, the business units a stack file lacks added to it. Reads only.
import { randomBytes } from "crypto";
import * as fs from "fs";
import * as path from "path";
import { packageRoot } from "../dynamic/specifier";
import { exportPortal, leftOutLine, summaryLine } from "../export";
import { loadStackOutputs, ManagedIds } from "../export/managed";
import { mergeInto, MergeError, mergeReport } from "../export/merge";
import { usesCrlf } from "../export/splice";
import { stackFileSizeProblem } from "../stack-config/config-size";
import { projectNameOf, readProject, STACK_FILE, StackFileError } from "../stack-config/file";
import { formatConfigProblems } from "../stack-config/problems";
import { CliIo, DATA_EPILOG, processIo, Progress, progressWanted, runCommand, TIMEOUT_OPTION, UsageError } from "./output";
import { escapeControls } from "../text/controls";
import { CommandSpec, existingPath, fileToWrite, parseCommandArgs, usageFailure, Values } from "./args";
import { stackSettings } from "./stack-settings";
import { connectionConfig, missingConnectionLines } from "../export/connection";
import { SETTING_SOURCES } from "../portal/settings";
import { mergedFileLines, stackOf } from "./merged-file";
import {
  ImportProvider,
  importFileText,
  importSummaryLine,
  parseProvider,
  readStackState,
  StackResources,
  toImportFile,
} from "../export/pulumi-import";

/** --format pulumi-import: the file of `pulumi import --file`. */
const PULUMI_IMPORT = "pulumi-import";

export const COMMAND: CommandSpec = {
  label: "backup-portal export",
  usage: [
    "backup-portal export [--bunit <id>] [--out <file> [--force]] [--merge <file> [--stack-outputs <file>]] [--format yaml|json] [--stack <name>]",
    "backup-portal export --format pulumi-import [--bunit <id>] [--out <file> [--force]] [--provider <name>=<urn>] [--stack-state <file>] [--stack <name>]",
  ],
  about: `Writes the business units below --bunit (their settings, consumers, nodes and proxy relations) as the
backup-portal:tenants block of a stack file, each object adopted (adoptId, adopt: true), so that the first
pulumi up takes them over instead of creating them. Reference data is written by name. What stack config
cannot hold, or its rules refuse, is a comment marked review: at its place; the last line on stderr counts
them. Node passwords cannot be read back and are never written. Reads only: nothing on the portal changes.
A bare --out or --merge Pulumi.<stack>.yaml goes where Pulumi.yaml keeps the stack files (stackConfigDir).
The YAML's first line names the stack files' JSON Schema in the installed package, for editors.
--format pulumi-import writes the same objects as the file of pulumi import --file instead, for a
program in code on the plugin's types (backupportal:index:*); a node the stack would refuse is left out,
and each value to review is a line on stderr.`,
  options: {
    bunit: { kind: "id", description: "export what is below this business unit", default: "the account's own" },
    out: {
      kind: "string",
      value: "file",
      description:
        "write to this file (its directory must exist); an existing file is refused: --merge <file> updates it, --force replaces it",
      default: "stdout; with --merge, the merged file",
    },
    force: {
      kind: "flag",
      description: "replace an existing --out file (keeping its mode, its CRLF line ends and BOM, and a symlink pointing at it)",
    },
    merge: {
      kind: "string",
      value: "file",
      description:
        "add the business units this stack file lacks, keep every other byte of it, and list the entries whose portal values differ and what the portal no longer has",
    },
    "stack-outputs": {
      kind: "string",
      value: "file",
      description:
        "with --merge: the stack's outputs (pulumi stack output --json), so that no object the stack manages is added again, even one renamed or moved on the portal",
    },
    format: {
      kind: "string",
      value: "yaml|json|pulumi-import",
      description:
        "yaml (with comments), json (review notes on stderr), or pulumi-import: the file of `pulumi import --file` (review notes on stderr)",
      default: "yaml",
    },
    provider: {
      kind: "string",
      value: "name=urn",
      description: "with --format pulumi-import: every resource takes this backupportal provider of the stack (`pulumi stack --show-urns`)",
    },
    "stack-state": {
      kind: "string",
      value: "file",
      description:
        "with --format pulumi-import: the stack's state (pulumi stack export), so that what it already has is left out and only the rest is imported",
    },
    json: { kind: "flag", description: "the same as --format json" },
    stack: {
      kind: "string",
      value: "name",
      description:
        "take the portal settings from this stack's file (its backup-portal: keys; its secrets through the Pulumi CLI when there is one), the environment for the rest",
    },
    progress: {
      kind: "flag",
      description: "show progress on stderr (reads so far, then done/total); off a terminal, a line a second at most",
      default: "only when stderr is a terminal",
      negation: "never show progress",
    },
    timeout: TIMEOUT_OPTION,
  },
  epilog: DATA_EPILOG,
};

/** The file a write to `file` lands in: a symlink's target (followed to the end), else `file` itself. */
function writeTarget(file: string): string {
  try {
    return fs.realpathSync(file);
  } catch {
    let at = path.resolve(file);
    // A dangling symlink: its target, to be created.
    for (let hops = 0; hops < 40; hops++) {
      let link: string;
      try {
        link = fs.readlinkSync(at);
      } catch {
        return at;
      }
      at = path.resolve(path.dirname(at), link);
    }
    return at;
  }
}

/** The file changed between the merge's read and its write: the user's edit wins, nothing is written. */
class ChangedSinceRead extends Error {}

/**
 * Writes `text` to `file` whole or not at all (a temporary file in the target's directory, of a name nobody can
 * guess and created only if nothing is there, synced and renamed over it). A symlink is written through to its
 * target, not replaced; an existing file keeps its mode, and its CRLF line ends (when every line has them) and UTF-8
 * BOM if it had them. `expected`: the text the file must still hold (the merge read it before walking the portal,
 * which can take minutes); another is ChangedSinceRead.
 */
function writeWhole(file: string, text: string, expected?: string): void {
  const target = writeTarget(file);
  let mode = 0o644;
  let old: Buffer | undefined;
  try {
    mode = fs.statSync(target).mode & 0o7777;
    old = fs.readFileSync(target);
  } catch {
    // a new file
  }
  if (expected !== undefined && old?.toString("utf8") !== expected) throw new ChangedSinceRead();
  if (old) {
    const bom = old[0] === 0xef && old[1] === 0xbb && old[2] === 0xbf;
    text = text.replace(/^\uFEFF/, "");
    if (usesCrlf(old.toString("latin1"))) text = text.replace(/\r?\n/g, "\r\n");
    if (bom) text = `\uFEFF${text}`;
  }
  const tmp = path.join(path.dirname(target), `.${path.basename(target)}.${randomBytes(8).toString("hex")}.tmp`);
  let fd: number | undefined;
  try {
    // wx: O_CREAT|O_EXCL, so a file or symlink planted at the name is never written through.
    fd = fs.openSync(tmp, "wx", mode);
    fs.writeFileSync(fd, text);
    fs.fchmodSync(fd, mode); // the umask leaves the mode alone
    fs.fsyncSync(fd);
    fs.closeSync(fd);
    fd = undefined;
    fs.renameSync(tmp, target);
  } catch (err) {
    if (fd !== undefined) fs.closeSync(fd);
    fs.rmSync(tmp, { force: true });
    throw err;
  }
}

/** Whether `a` and `b` name the same existing file. */
function sameFile(a: string, b: string): boolean {
  try {
    const x = fs.statSync(a);
    const y = fs.statSync(b);
    return x.dev === y.dev && x.ino === y.ino;
  } catch {
    return false;
  }
}

/**
 * --out's own problems: an existing file without --force (the export would drop its encryptionsalt, secure
 * values and other keys), and a directory that is missing or not writable (found before the first request, not
 * after the whole walk).
 */
function outProblem(o: Values): string | undefined {
  const out = o.out as string;
  const merge = o.merge as string | undefined;
  let exists = true;
  try {
    fs.lstatSync(out);
  } catch {
    exists = false;
  }
  if (exists && !o.force && !(merge !== undefined && sameFile(out, merge))) {
    return `--out ${JSON.stringify(out)} exists; --merge ${JSON.stringify(out)} updates it, --force replaces it`;
  }
  const dir = path.dirname(writeTarget(out));
  let st: fs.Stats | undefined;
  try {
    st = fs.statSync(dir);
  } catch {
    st = undefined;
  }
  if (!st?.isDirectory()) return `--out ${JSON.stringify(out)}: directory ${dir} does not exist`;
  try {
    fs.accessSync(dir, fs.constants.W_OK);
  } catch {
    return `--out ${JSON.stringify(out)}: directory ${dir} is not writable`;
  }
  return undefined;
}

/** --format, or json for --json. */
function formatOf(o: Values): string {
  return (o.format as string | undefined) ?? (o.json ? "json" : "yaml");
}

/** What is wrong across the flags, before the connection settings are read. */
function flagProblem(o: Values): string | undefined {
  const format = formatOf(o);
  if (format !== "yaml" && format !== "json" && format !== PULUMI_IMPORT) {
    return `--format needs yaml, json or ${PULUMI_IMPORT}, got ${JSON.stringify(format)}`;
  }
  if (o.provider !== undefined && format !== PULUMI_IMPORT) return `--provider goes with --format ${PULUMI_IMPORT}`;
  if (o["stack-state"] !== undefined && format !== PULUMI_IMPORT) return `--stack-state goes with --format ${PULUMI_IMPORT}`;
  if (typeof o.provider === "string") {
    const provider = parseProvider(o.provider);
    if (typeof provider === "string") return provider;
  }
  if (o.json && format !== "json") return `--json is --format json; it cannot go with --format ${format}`;
  if (o.merge !== undefined && format !== "yaml") return `--merge writes the stack file's YAML; it takes no --format ${format}`;
  try {
    if (typeof o.merge === "string") existingPath("--merge", o.merge);
    if (o["stack-outputs"] !== undefined && o.merge === undefined) return "--stack-outputs goes with --merge <file>";
    if (typeof o["stack-outputs"] === "string") existingPath("--stack-outputs", o["stack-outputs"]);
    if (typeof o["stack-state"] === "string") existingPath("--stack-state", o["stack-state"]);
    if (typeof o.out === "string") {
      fileToWrite("--out", o.out);
    }
    if (o.force && typeof o.out !== "string") return "--force replaces an existing --out file; give --out <file>";
  } catch (err) {
    if (err instanceof UsageError) return err.message;
    throw err;
  }
  return undefined;
}

/**
 * Where a bare `Pulumi.<stack>.yaml` (--out or --merge) goes: Pulumi reads stack files only from Pulumi.yaml's
 * stackConfigDir, so one written beside Pulumi.yaml would never be read. A path with a folder, a name of another
 * form, or a folder without Pulumi.yaml stays as given; a --merge file that is there stays too.
 */
export function inStackDir(flag: "--out" | "--merge", file: string, cwd: string): { file: string; note?: string } {
  if (path.basename(file) !== file || !STACK_FILE.test(file)) return { file };
  const project = readProject(cwd);
  if (!project?.hasStackConfigDir || path.resolve(project.stackDir) === path.resolve(cwd)) return { file };
  if (flag === "--merge" && fs.existsSync(path.join(cwd, file))) return { file };
  const dir = path.relative(cwd, project.stackDir) || ".";
  if (!fs.existsSync(project.stackDir)) {
    throw new UsageError(
      `${flag} ${file}: Pulumi.yaml keeps the stack files in ${dir} (stackConfigDir), which does not exist; create it, or give ${flag} ${path.join(dir, file)}`,
    );
  }
  const moved = path.join(dir, file);
  return { file: moved, note: `${flag} ${file}: ${moved}, where Pulumi.yaml keeps the stack files (stackConfigDir)` };
}

/**
 * Posix separators (editors on every system read the line; the YAML language server resolves it from the file's
 * folder), and `./` before a file in that folder, as this repository's stack files write it.
 */
const posix = (p: string) => {
  const text = p.split(path.sep).join("/");
  return text.includes("/") ? text : `./${text}`;
};

/**
 * The schema line's path, relative to the folder of the file written (`dir`): this package's schema as the project
 * installs it (node_modules/backup-portal-pulumi/stacks/tenants.schema.json in the nearest project folder above
 * `dir`), or, in a checkout of this package itself, its own stacks/tenants.schema.json.
 */
export function schemaPath(dir: string): string {
  const own = packageRoot(__filename);
  const schema = path.join("stacks", "tenants.schema.json");
  const at = path.resolve(dir);
  if (at === own || at.startsWith(`${own}${path.sep}`)) return posix(path.relative(at, path.join(own, schema)));
  let project: string | undefined;
  for (let d = at, up = 0; up < 64; d = path.dirname(d), up++) {
    const installed = path.join(d, "node_modules", "backup-portal-pulumi", schema);
    if (fs.existsSync(installed)) return posix(path.relative(at, installed));
    if (project === undefined && readProject(d)) project = d;
    if (d === path.dirname(d)) break;
  }
  // Not installed yet: where it will be once the project installs the package.
  return posix(path.relative(at, path.join(project ?? at, "node_modules", "backup-portal-pulumi", schema)));
}

/** Off a terminal, one progress line a second at most, and the last one: a walk of 1,000 reads is not 2,000 lines. */
export const PROGRESS_LINE_EVERY_MS = 1000;

export interface ExportIo extends CliIo {
  /** The folder the command runs in (where Pulumi.yaml is looked for); default process.cwd(). */
  cwd?: string;
}

export function run(argv: string[], given: ExportIo = processIo): Promise<number> {
  let io: CliIo = given;
  const cwd = given.cwd ?? process.cwd();
  let parsed: Values | undefined;
  try {
    parsed = parseCommandArgs(COMMAND, argv);
  } catch {
    parsed = undefined; // runCommand reports it
  }
  let out = parsed?.out as string | undefined;
  let merge = parsed?.merge as string | undefined;
  const notes: string[] = [];
  if (parsed && !parsed.help) {
    try {
      const o = out === undefined ? undefined : inStackDir("--out", out, cwd);
      const m = merge === undefined ? undefined : inStackDir("--merge", merge, cwd);
      // A relative path is the folder's the command runs in (a caller's `cwd`, else the process's).
      const at = (f: string) => (path.isAbsolute(f) || path.resolve(cwd) === process.cwd() ? f : path.join(cwd, f));
      out = o && at(o.file);
      merge = m && at(m.file);
      for (const r of [o, m]) if (r?.note) notes.push(r.note);
    } catch (err) {
      if (!(err instanceof UsageError)) throw err;
      io.err(`${COMMAND.label}: ${err.message}\n`);
      return Promise.resolve(2);
    }
    parsed = { ...parsed, out, merge };
  }
  const problem = parsed && !parsed.help ? flagProblem(parsed) : undefined;
  if (problem) return Promise.resolve(usageFailure(io, COMMAND, problem));
  // One line, without the usage: the arguments are right, the file system is not.
  const outIssue = parsed && !parsed.help && typeof parsed.out === "string" ? outProblem(parsed) : undefined;
  if (outIssue) {
    io.err(`${COMMAND.label}: ${outIssue}\n`);
    return Promise.resolve(2);
  }
  let stackFile: string | undefined;
  if (parsed && !parsed.help && typeof parsed.stack === "string") {
    try {
      const s = stackSettings(parsed.stack, cwd, given.env ?? process.env, [packageRoot(__filename)]);
      io = { ...given, env: s.env };
      stackFile = s.stack.file;
      notes.push(...(s.taken ? [s.taken] : []), ...s.notes);
    } catch (err) {
      if (!(err instanceof UsageError) && !(err instanceof StackFileError)) throw err;
      io.err(`${COMMAND.label}: ${err.message}\n`);
      return Promise.resolve(err instanceof UsageError ? 2 : 1);
    }
  }
  for (const note of notes) io.err(`${COMMAND.label}: ${note}\n`);
  if (stackFile) {
    // The stack's file and the environment leave a setting unset: said at the file's key, not as a variable alone.
    const env = io.env ?? process.env;
    const have = Object.fromEntries(Object.values(SETTING_SOURCES).map((s) => [s.config, env[s.env] ?? ""]));
    const lines = missingConnectionLines(path.relative(cwd, stackFile) || stackFile, stackOf(stackFile), have, {});
    for (const line of lines) io.err(`${COMMAND.label}: ${line}\n`);
    if (lines.length) return Promise.resolve(1);
  }
  return runCommand(COMMAND, argv, io, async ({ client, options: o }) => {
    const format = formatOf(o);
    let importLine: string | undefined;
    let state: StackResources | undefined;
    if (typeof o["stack-state"] === "string") {
      const file = o["stack-state"];
      let read: StackResources | string;
      try {
        read = readStackState(fs.readFileSync(file, "utf8"), file);
      } catch (err) {
        read = `${file}: cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`;
      }
      if (typeof read === "string") {
        io.err(`${COMMAND.label}: ${read}\n`);
        return 1;
      }
      state = read;
    }
    let original: string | undefined;
    let managed: ManagedIds | undefined;
    if (merge) {
      try {
        original = fs.readFileSync(merge, "utf8");
      } catch (err) {
        io.err(`backup-portal export: ${merge}: cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})\n`);
        return 1;
      }
      try {
        if (typeof o["stack-outputs"] === "string") managed = loadStackOutputs(o["stack-outputs"]);
      } catch (err) {
        if (!(err instanceof MergeError)) throw err;
        io.err(`backup-portal export: ${err.message}\n`);
        return 1;
      }
    }
    const rootId = (o.bunit as number | undefined) ?? (await client.reference.me()).businessUnit?.id;
    if (rootId === undefined) throw new UsageError("the portal does not say which business unit the account belongs to; give --bunit");
    const want = progressWanted(o, io);
    // The walk finds its reads as it goes: `N so far` until the last has started, then done/total.
    const progress = new Progress(io, want.enabled, "export: portal reads", want.tty, undefined, {
      lineEveryMs: PROGRESS_LINE_EVERY_MS,
      soFar: true,
    });
    // The written file's folder, or (stdout) where this project keeps its stack files.
    const written = out ?? merge;
    const fileDir = written !== undefined ? path.dirname(path.resolve(cwd, written)) : (readProject(cwd)?.stackDir ?? cwd);
    let result;
    try {
      result = await exportPortal(client, rootId, {
        format: format === "yaml" ? "yaml" : "json",
        onProgress: (done, total) => progress.update(done, total),
        schema: schemaPath(fileDir),
        connection: merge ? undefined : connectionConfig(io.env ?? process.env),
      });
    } finally {
      progress.done();
    }
    if (result.tree.rootConsumers?.length) {
      const parentId = await client.businessUnits.get(rootId).then(
        (bu) => bu.parentBusinessUnit?.id,
        () => undefined,
      );
      const line = escapeControls(leftOutLine(result.tree, parentId)!);
      if (result.counts.businessUnits === 0) {
        // Nothing below the root: a file without tenants would say nothing of what the portal holds.
        io.err(`${COMMAND.label}: ${line}; nothing was written\n`);
        return 1;
      }
      io.err(`${COMMAND.label}: ${line}\n`);
    }
    let text = result.text;
    let reviews = result.reviews;
    if (format === PULUMI_IMPORT) {
      const made = toImportFile(result, typeof o.provider === "string" ? (parseProvider(o.provider) as ImportProvider) : undefined, state);
      text = importFileText(made.file);
      reviews = made.reviews;
      importLine = importSummaryLine(made.file, result);
      if (state) io.err(`${COMMAND.label}: ${made.inState} of the portal's resources are in the stack already (--stack-state), left out\n`);
    }
    if (merge) {
      let merged;
      try {
        merged = mergeInto(original!, merge, result.parts, result.tree.references, managed, projectNameOf(merge, cwd));
      } catch (err) {
        if (!(err instanceof MergeError)) throw err;
        io.err(`backup-portal export: ${err.message}\n`);
        return 1;
      }
      text = merged.text;
      for (const line of mergeReport(merged, out ?? merge)) io.err(`${line}\n`);
      // Without the outputs, a unit the user took out of the file to delete it (the stack's up deletes it) is on the
      // portal still, and comes back as an addition: say so where it happens.
      if (!managed && merged.added.length) {
        io.err(
          `note: without --stack-outputs, a business unit removed from ${out ?? merge} so that the next up deletes it is ` +
            "added back (the portal still has it); review the added units, or give --stack-outputs <file> (`pulumi stack output --json`)\n",
        );
      }
    }
    if (format !== "yaml") for (const r of reviews) io.err(`review ${r.path}: ${r.message}\n`);
    const target = out ?? merge;
    if (!target) io.out(text);
    // A merge that adds nothing to its own file writes nothing: not a byte, nor its mode or time, changes.
    else if (!(target === merge && text === original)) {
      try {
        writeWhole(target, text, target === merge ? original : undefined);
      } catch (err) {
        if (!(err instanceof ChangedSinceRead)) throw err;
        io.err(
          `backup-portal export: ${merge}: changed while the portal was read; nothing was written (the change is kept): merge again\n`,
        );
        return 1;
      }
    }
    if (!merge) io.err(`${importLine ?? summaryLine(result)}\n`);
    else {
      for (const line of await mergedFileLines(target!, target!, projectNameOf(target!, cwd), connectionConfig(io.env ?? process.env))) {
        io.err(`${line}\n`);
      }
    }
    // A stack file the Node.js runtime cannot start (its config over one environment variable's limit): written all
    // the same, since the reads behind it are the adoption's work, and said in one line with exit 1.
    const tooLarge = format === PULUMI_IMPORT ? undefined : sizeLine(text, target, cwd);
    if (tooLarge) {
      io.err(`${COMMAND.label}: ${tooLarge}\n`);
      return 1;
    }
    return 0;
  });
}

/**
 * The line for an exported or merged stack file (`target`, stdout when undefined) whose config the Node.js runtime
 * cannot take in PULUMI_CONFIG (provider/rules/config-env.ts); undefined when it fits.
 */
function sizeLine(text: string, target: string | undefined, cwd: string): string | undefined {
  const shown = target === undefined ? "Pulumi.<stack>.yaml" : path.relative(cwd, path.resolve(cwd, target)) || target;
  const namespace = target === undefined ? readProject(cwd)?.name : projectNameOf(target, cwd);
  const problem = stackFileSizeProblem(text, shown, namespace);
  if (!problem) return undefined;
  const [line] = formatConfigProblems(shown, [problem]);
  // The fleet's command ends the line, to be copied as it is.
  const where = target === undefined ? "on stdout" : "written";
  return `${where} all the same (the reads are kept); split it before its first preview: ${line}`;
}
