// Read-only access to a source tree at one version: either a checkout directory or a bare git
// repository plus a ref (tag, branch or commit). The derivation scripts only list and read files.
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";

export interface SourceTree {
  /** Where the files come from, as given (a directory or a bare repository). */
  location: string;
  /** The ref read (for a checkout: its HEAD, if it is a git work tree). */
  ref: string;
  /** The commit the files belong to, or "unknown" for a plain directory. */
  commit: string;
  /** Paths (relative, "/"-separated) of the files below `dir`, recursively. */
  list(dir: string): string[];
  /** The file's text. */
  read(file: string): string;
  exists(file: string): boolean;
}

function git(repo: string, args: string[]): string {
  return execFileSync("git", ["-C", repo, ...args], { encoding: "utf8", maxBuffer: 64 * 1024 * 1024, stdio: ["ignore", "pipe", "pipe"] });
}

function isBareRepo(location: string): boolean {
  try {
    return git(location, ["rev-parse", "--is-bare-repository"]).trim() === "true";
  } catch {
    return false;
  }
}

/** A bare repository at `ref`. */
function bareTree(repo: string, ref: string): SourceTree {
  const commit = git(repo, ["rev-parse", "--verify", `${ref}^{commit}`]).trim();
  let files: string[] | undefined;
  const all = () =>
    (files ??= git(repo, ["ls-tree", "-r", "--name-only", commit])
      .split("\n")
      .filter((f) => f !== ""));
  return {
    location: repo,
    ref,
    commit,
    list: (dir) => all().filter((f) => f.startsWith(dir.replace(/\/*$/, "/"))),
    read: (file) => git(repo, ["show", `${commit}:${file}`]),
    exists: (file) => all().includes(file),
  };
}

/** A checkout directory (its HEAD commit when it is a git work tree). */
function dirTree(root: string): SourceTree {
  let commit = "unknown";
  let ref = "working tree";
  try {
    commit = git(root, ["rev-parse", "HEAD"]).trim();
    const tag = git(root, ["describe", "--tags", "--exact-match", "HEAD"]).trim();
    ref = tag || commit;
  } catch {
    // not a git work tree, or HEAD has no tag: keep what is known
    if (commit !== "unknown") ref = commit;
  }
  const walk = (dir: string): string[] => {
    const abs = path.join(root, dir);
    if (!fs.existsSync(abs)) return [];
    return fs.readdirSync(abs, { withFileTypes: true }).flatMap((e) => {
      const rel = dir === "" ? e.name : `${dir}/${e.name}`;
      return e.isDirectory() ? walk(rel) : e.isFile() ? [rel] : [];
    });
  };
  return {
    location: root,
    ref,
    commit,
    list: (dir) => walk(dir.replace(/\/+$/, "")),
    read: (file) => fs.readFileSync(path.join(root, file), "utf8"),
    exists: (file) => fs.existsSync(path.join(root, file)),
  };
}

/** Opens `location` (a bare repository needs `ref`; a checkout is read as it is on disk). */
export function openSource(location: string, ref?: string): SourceTree {
  if (isBareRepo(location)) {
    if (!ref) throw new Error(`${location} is a bare repository: give the ref to read (a tag such as v2.1.18)`);
    return bareTree(location, ref);
  }
  if (ref) throw new Error(`${location} is a checkout: check out ${ref} there, or point at a bare repository`);
  return dirTree(location);
}
