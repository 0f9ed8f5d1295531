#!/usr/bin/env node
// Which stacks a change touches, for the preview and up workflows. Run from the project's folder (where
// Pulumi.yaml is, the repository's root): `backup-portal init-workflows` copies this file into a project of your
// own, and it works there as it does in this repository.
//
//   git diff --name-only BASE...HEAD | node .github/scripts/changed-stacks.js
//   node .github/scripts/changed-stacks.js --all
//   node .github/scripts/changed-stacks.js --stacks dev,prod --all     (a chosen subset)
//
// The stacks are those with a Pulumi.<stack>.yaml file where Pulumi.yaml keeps them (its `stackConfigDir`, else
// beside it; `--dir` names another folder), except `local`, the emulator stack, which is never deployed; --stacks
// narrows them. Prints a JSON list (e.g. ["prod"]) for a job matrix. Rules:
//   <stack folder>/Pulumi.<stack>.yaml    that stack (if it is one of --stacks)
//   what is not the program (NOT_PROGRAM) no stack: Markdown, docs/, tests, .github/ but the preview and up
//                                         workflows and these scripts, and this repository's own tools
//   anything else                         every stack: the program and what it runs on (index.ts, src/,
//                                         Pulumi.yaml, package.json and its lock file, tsconfig.json, ...)
"use strict";

const fs = require("fs");
const path = require("path");

/** Stacks that exist only on a workstation (Pulumi.local.yaml: the portal emulator). */
const NEVER_DEPLOYED = new Set(["local"]);

/** Production last: up.yml updates the stacks one at a time in this order, so the others go first. */
const isProduction = (s) => (/^prod/i.test(s) ? 1 : 0);

/**
 * The folder of the stack files, relative to `cwd`: Pulumi.yaml's top-level `stackConfigDir`, else "." (beside
 * it). Read without a YAML library: this script runs before `npm ci`.
 */
function stackDir(cwd = ".") {
  const project = ["Pulumi.yaml", "Pulumi.yml"].map((f) => path.join(cwd, f)).find((f) => fs.existsSync(f));
  if (!project) throw new Error(`no Pulumi.yaml in ${path.resolve(cwd)}: run this in the project's folder (the workflows' work-dir)`);
  const m = /^stackConfigDir:[ \t]*(?:"([^"]*)"|'([^']*)'|([^#\r\n]*?))[ \t]*(?:#.*)?$/m.exec(fs.readFileSync(project, "utf8"));
  const dir = m ? (m[1] ?? m[2] ?? m[3]) : "";
  return dir.replace(/^\.\//, "").replace(/\/+$/, "") || ".";
}

/** The deployable stacks: one per Pulumi.<stack>.yaml (or .yml) in `dir`, sorted, production last. */
function stackFiles(dir = stackDir()) {
  return fs
    .readdirSync(dir)
    .map((f) => /^Pulumi\.([^/]+)\.ya?ml$/.exec(f))
    .filter(Boolean)
    .map((m) => m[1])
    .filter((s) => !NEVER_DEPLOYED.has(s))
    .sort((a, b) => isProduction(a) - isProduction(b) || a.localeCompare(b));
}

/** Files that cannot change what a stack deploys. The second line is this repository's own; edit it in yours. */
const NOT_PROGRAM = [
  /\.md$/i,
  /^(docs|test|tests|\.vscode|\.idea)\//,
  /^\.github\/(?!workflows\/(preview|up)\.ya?ml$)(?!scripts\/)/,
  /^(LICENSE[^/]*|\.gitignore|\.gitattributes|\.editorconfig|\.prettierrc[^/]*|\.prettierignore|\.nvmrc|\.node-version)$/,
  /^(emulator|bench|examples|sdk|tools|\.ci)\/|^stacks\/fleet\/|^scripts\/(?!plan-guard\.js$|build\.js$)/,
];

/** `dir` as a path prefix: "" for the project's own folder, else "stacks/". */
const prefixOf = (dir) => {
  const d = String(dir).replace(/^\.\//, "").replace(/\/+$/, "");
  return d === "" || d === "." ? "" : `${d}/`;
};
const escapeRe = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** The stacks touched by `files` (paths relative to the project's folder), in the order of `stacks`. */
function changedStacks(files, stacks, dir = stackDir()) {
  const own = new RegExp(`^${escapeRe(prefixOf(dir))}Pulumi\\.([^/]+)\\.ya?ml$`);
  const touched = new Set();
  for (const raw of files) {
    const file = raw.trim().replace(/^\.\//, "");
    if (!file) continue;
    const stack = own.exec(file);
    if (stack) {
      touched.add(stack[1]);
      continue;
    }
    if (!NOT_PROGRAM.some((re) => re.test(file))) return [...stacks];
  }
  return stacks.filter((s) => touched.has(s));
}

/**
 * Parses `--stacks a,b`, `--dir <stacks dir>` and `--all`; without --stacks, the stacks are the stack files'.
 * Stack names are checked (they end up in a job matrix), and a named stack must have its stack file.
 */
function parse(argv) {
  const opts = { stacks: undefined, all: false, dir: undefined };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--all") opts.all = true;
    else if (argv[i] === "--stacks")
      opts.stacks = String(argv[++i] || "")
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean);
    else if (argv[i] === "--dir") opts.dir = String(argv[++i] || "");
    else
      throw new Error(
        `unknown argument ${argv[i]}; usage: changed-stacks.js [--stacks a,b] [--dir <stack folder>] [--all] < changed-files`,
      );
  }
  if (opts.dir === undefined) opts.dir = stackDir();
  const where = opts.dir === "." ? "the project's folder" : `${opts.dir}/`;
  const known = stackFiles(opts.dir);
  if (opts.stacks === undefined) {
    opts.stacks = known;
    if (!opts.stacks.length) throw new Error(`no stack files in ${where}: add ${prefixOf(opts.dir)}Pulumi.<stack>.yaml`);
  }
  if (!opts.stacks.length) throw new Error("--stacks needs at least one stack name");
  const bad = opts.stacks.filter((s) => !/^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(s));
  if (bad.length) throw new Error(`not a stack name: ${bad.map((s) => JSON.stringify(s)).join(", ")}`);
  const missing = opts.stacks.filter((s) => !known.includes(s));
  if (missing.length)
    throw new Error(`no stack file for ${missing.join(", ")} in ${where} (deployable: ${known.join(", ") || "none"}); check --stacks`);
  return opts;
}

if (require.main === module) {
  try {
    const opts = parse(process.argv.slice(2));
    if (opts.all) {
      process.stdout.write(`${JSON.stringify(opts.stacks)}\n`);
    } else {
      const files = fs.readFileSync(0, "utf8").split("\n");
      process.stdout.write(`${JSON.stringify(changedStacks(files, opts.stacks, opts.dir))}\n`);
    }
  } catch (err) {
    process.stderr.write(`changed-stacks: ${err.message}\n`);
    process.exit(2);
  }
}

module.exports = { changedStacks, parse, stackDir, stackFiles };
