// The GitOps workflows a project of its own takes from the installed package (`backup-portal init-workflows`): the
// preview, up and drift workflows and the scripts they run, copied as they are in this repository, where they run
// the same way (stack files where Pulumi.yaml's stackConfigDir puts them; the plan guard from the package).
import * as fs from "fs";
import * as path from "path";

/** The files, relative to the repository's root (the package ships them: package.json `files`). */
export const WORKFLOW_FILES = [
  ".github/workflows/preview.yml",
  ".github/workflows/up.yml",
  ".github/workflows/drift.yml",
  ".github/scripts/changed-stacks.js",
  ".github/scripts/drift-issue.js",
] as const;

export interface Copied {
  file: string;
  /** written (new), replaced (--force), unchanged (the same bytes were there), refused (there, and no --force) */
  outcome: "written" | "replaced" | "unchanged" | "refused";
}

/**
 * What copying the files from `from` (the package's root) into `to` would do, file by file; nothing is written
 * unless `write` (then only when no file is refused: all or nothing).
 */
export function copyWorkflows(from: string, to: string, opts: { force?: boolean; write?: boolean } = {}): Copied[] {
  const plan: Copied[] = WORKFLOW_FILES.map((file) => {
    const target = path.join(to, file);
    if (!fs.existsSync(target)) return { file, outcome: "written" };
    if (fs.readFileSync(target).equals(fs.readFileSync(path.join(from, file)))) return { file, outcome: "unchanged" };
    return { file, outcome: opts.force ? "replaced" : "refused" };
  });
  if (!opts.write || plan.some((c) => c.outcome === "refused")) return plan;
  for (const c of plan) {
    if (c.outcome === "unchanged") continue;
    const target = path.join(to, c.file);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.copyFileSync(path.join(from, c.file), target);
    if (c.file.endsWith(".js")) fs.chmodSync(target, 0o755);
  }
  return plan;
}
