// `backup-portal export`: the portal's business-unit tree as a stack file's `backup-portal:tenants` block, every
// object adopted; or, with --merge, the business units a stack file lacks added to it. Reads only.
import * as fs from "fs";
import * as path from "path";
import { exportPortal, summaryLine } from "../export";
import { loadStackOutputs, ManagedIds } from "../export/managed";
import { mergeInto, MergeError, mergeReport } from "../export/merge";
import { CliIo, DATA_EPILOG, processIo, Progress, progressWanted, runCommand, TIMEOUT_OPTION, UsageError } from "./output";
import { CommandSpec, existingPath, fileToWrite, parseCommandArgs, usageFailure, Values } from "./args";

export const COMMAND: CommandSpec = {
  label: "backup-portal export",
  usage: ["backup-portal export [--bunit <id>] [--out <file> [--force]] [--merge <file> [--stack-outputs <file>]] [--format yaml|json]"],
  about: `Writes the business units below --bunit (their settings, consumers, nodes and proxy relations) as the
backup-portal:tenants block of a stack file, each object adopted (adoptId, adopt: true), so that the first
pulumi up takes them over instead of creating them. Reference data is written by name. What stack config
cannot hold, or its rules refuse, is a comment marked review: at its place; the last line on stderr counts
them. Node passwords cannot be read back and are never written. Reads only: nothing on the portal changes.`,
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
    format: { kind: "string", value: "yaml|json", description: "yaml (with comments) or json (review notes on stderr)", default: "yaml" },
    progress: {
      kind: "flag",
      description: "show progress (reads done/total) on stderr",
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

/**
 * Writes `text` to `file` whole or not at all (a temporary file in the target's directory renamed over it). A
 * symlink is written through to its target, not replaced; an existing file keeps its mode, and its CRLF line
 * ends and UTF-8 BOM if it had them.
 */
function writeWhole(file: string, text: string): void {
  const target = writeTarget(file);
  let mode = 0o644;
  let old: Buffer | undefined;
  try {
    mode = fs.statSync(target).mode & 0o7777;
    old = fs.readFileSync(target);
  } catch {
    // a new file
  }
  if (old) {
    const bom = old[0] === 0xef && old[1] === 0xbb && old[2] === 0xbf;
    const crlf = old.includes("\r\n");
    text = text.replace(/^\uFEFF/, "");
    if (crlf) text = text.replace(/\r?\n/g, "\r\n");
    if (bom) text = `\uFEFF${text}`;
  }
  const tmp = path.join(path.dirname(target), `.${path.basename(target)}.${process.pid}.tmp`);
  try {
    fs.writeFileSync(tmp, text, { mode });
    fs.chmodSync(tmp, mode); // the umask leaves the mode alone
    fs.renameSync(tmp, target);
  } catch (err) {
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

/** What is wrong across the flags, before the connection settings are read. */
function flagProblem(o: Values): string | undefined {
  const format = (o.format as string | undefined) ?? "yaml";
  if (format !== "yaml" && format !== "json") return `--format needs yaml or json, got ${JSON.stringify(format)}`;
  if (o.merge !== undefined && format !== "yaml") return "--merge writes the stack file's YAML; it takes no --format json";
  try {
    if (typeof o.merge === "string") existingPath("--merge", o.merge);
    if (o["stack-outputs"] !== undefined && o.merge === undefined) return "--stack-outputs goes with --merge <file>";
    if (typeof o["stack-outputs"] === "string") existingPath("--stack-outputs", o["stack-outputs"]);
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

export function run(argv: string[], io: CliIo = processIo): Promise<number> {
  let parsed: Values | undefined;
  try {
    parsed = parseCommandArgs(COMMAND, argv);
  } catch {
    parsed = undefined; // runCommand reports it
  }
  const problem = parsed && !parsed.help ? flagProblem(parsed) : undefined;
  if (problem) return Promise.resolve(usageFailure(io, COMMAND, problem));
  // One line, without the usage: the arguments are right, the file system is not.
  const outIssue = parsed && !parsed.help && typeof parsed.out === "string" ? outProblem(parsed) : undefined;
  if (outIssue) {
    io.err(`${COMMAND.label}: ${outIssue}\n`);
    return Promise.resolve(2);
  }
  return runCommand(COMMAND, argv, io, async ({ client, options: o }) => {
    const format = (o.format as string | undefined) ?? "yaml";
    const merge = o.merge as string | undefined;
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
    const progress = new Progress(io, want.enabled, "export: portal reads", want.tty);
    let result;
    try {
      result = await exportPortal(client, rootId, {
        format: format as "yaml" | "json",
        onProgress: (done, total) => progress.update(done, total),
      });
    } finally {
      progress.done();
    }
    let text = result.text;
    if (merge) {
      let merged;
      try {
        merged = mergeInto(original!, merge, result.parts, result.tree.references, managed);
      } catch (err) {
        if (!(err instanceof MergeError)) throw err;
        io.err(`backup-portal export: ${err.message}\n`);
        return 1;
      }
      text = merged.text;
      for (const line of mergeReport(merged, (o.out as string | undefined) ?? merge)) io.err(`${line}\n`);
    }
    if (format === "json") for (const r of result.reviews) io.err(`review ${r.path}: ${r.message}\n`);
    const out = (o.out as string | undefined) ?? merge;
    // A merge that adds nothing to its own file writes nothing: not a byte, nor its mode or time, changes.
    if (out && !(out === merge && text === original)) writeWhole(out, text);
    else io.out(text);
    io.err(`${summaryLine(result)}\n`);
    return 0;
  });
}
