/**
 * TEST CODE — the package as a user installs it: `npm pack` of the built tree, installed from its tarball into a
 * project folder (as README step 1 says, until the package is on the registry), so what runs comes from
 * node_modules, not from this checkout.
 */
import { strict as assert } from "node:assert";
import { execFileSync, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { REPO } from "./cli";

/** `npm pack` of the built tree into `dest`; the tarball's path. */
export function pack(dest: string): string {
  const built = path.join(REPO, "dist", "provider", "program", "index.js");
  assert.ok(fs.existsSync(built), "dist/ is missing or old: `npm test` builds it; alone, run `npm run build` first");
  // --ignore-scripts: prepack would build dist/ again.
  const out = execFileSync("npm", ["pack", "--silent", "--ignore-scripts", "--pack-destination", dest], { cwd: REPO, encoding: "utf8" });
  return path.join(dest, out.trim().split("\n").pop()!);
}

/** Packs the package into `dir` and installs the tarball into `project` (whose package.json names the rest). */
export function installPacked(dir: string, project: string): void {
  const tarball = pack(dir);
  const install = spawnSync("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error", tarball], {
    cwd: project,
    encoding: "utf8",
    timeout: 300_000,
  });
  assert.equal(install.status, 0, `npm install ${path.basename(tarball)}: ${install.stdout}${install.stderr}`);
}
