#!/usr/bin/env node
// Which stacks a change touches, for the preview and up workflows.
//
//   git diff --name-only BASE...HEAD | node .github/scripts/changed-stacks.js
//   node .github/scripts/changed-stacks.js --all
//   node .github/scripts/changed-stacks.js --stacks dev,prod --all     (a chosen subset)
//
// The stacks are those with a stacks/Pulumi.<stack>.yaml file (run from the repository root),
// except `local`, the emulator stack, which is never deployed; --stacks narrows them.
// Prints a JSON list (e.g. ["prod"]) for a job matrix. Rules:
//   stacks/Pulumi.<stack>.yaml            that stack (if it is one of --stacks)
//   the program and what it runs on       every stack: provider/, stacks/ (but stacks/fleet/ and other
//                                         stack files), Pulumi.yaml, package.json, package-lock.json,
//                                         tsconfig.json, these workflows and scripts, and the plan guard
//   anything else (docs, tests, ...)      no stack
"use strict";

const fs = require("fs");

/** Stacks that exist only on a workstation (stacks/Pulumi.local.yaml: the portal emulator). */
const NEVER_DEPLOYED = new Set(["local"]);

/** Production last: up.yml updates the stacks one at a time in this order, so the others go first. */
const isProduction = (s) => (/^prod/i.test(s) ? 1 : 0);

/** The deployable stacks: one per stacks/Pulumi.<stack>.yaml (or .yml), sorted, production last. */
function stackFiles(dir = "stacks") {
  return fs
    .readdirSync(dir)
    .map((f) => /^Pulumi\.([^/]+)\.ya?ml$/.exec(f))
    .filter(Boolean)
    .map((m) => m[1])
    .filter((s) => !NEVER_DEPLOYED.has(s))
    .sort((a, b) => isProduction(a) - isProduction(b) || a.localeCompare(b));
}

const EVERY_STACK = [
  /^provider\//,
  /^stacks\/(?!fleet\/)(?!Pulumi\.[^/]+\.ya?ml$)/,
  /^Pulumi\.ya?ml$/,
  /^package(-lock)?\.json$/,
  /^tsconfig\.json$/,
  /^\.github\/workflows\/(preview|up)\.ya?ml$/,
  /^\.github\/scripts\//,
  /^scripts\/plan-guard\.js$/,
];

/** The stacks touched by `files` (paths relative to the repository root), in the order of `stacks`. */
function changedStacks(files, stacks) {
  const touched = new Set();
  for (const raw of files) {
    const file = raw.trim().replace(/^\.\//, "");
    if (!file) continue;
    const own = /^stacks\/Pulumi\.([^/]+)\.ya?ml$/.exec(file);
    if (own) {
      touched.add(own[1]);
      continue;
    }
    if (EVERY_STACK.some((re) => re.test(file))) return [...stacks];
  }
  return stacks.filter((s) => touched.has(s));
}

/**
 * Parses `--stacks a,b`, `--dir <stacks dir>` and `--all`; without --stacks, the stacks are the stack files'.
 * Stack names are checked (they end up in a job matrix), and a named stack must have its stack file.
 */
function parse(argv) {
  const opts = { stacks: undefined, all: false, dir: "stacks" };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--all") opts.all = true;
    else if (argv[i] === "--stacks")
      opts.stacks = String(argv[++i] || "")
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean);
    else if (argv[i] === "--dir") opts.dir = String(argv[++i] || "");
    else throw new Error(`unknown argument ${argv[i]}; usage: changed-stacks.js [--stacks a,b] [--dir stacks] [--all] < changed-files`);
  }
  const known = stackFiles(opts.dir);
  if (opts.stacks === undefined) {
    opts.stacks = known;
    if (!opts.stacks.length) throw new Error(`no stack files in ${opts.dir}/: add ${opts.dir}/Pulumi.<stack>.yaml`);
  }
  if (!opts.stacks.length) throw new Error("--stacks needs at least one stack name");
  const bad = opts.stacks.filter((s) => !/^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(s));
  if (bad.length) throw new Error(`not a stack name: ${bad.map((s) => JSON.stringify(s)).join(", ")}`);
  const missing = opts.stacks.filter((s) => !known.includes(s));
  if (missing.length)
    throw new Error(`no stack file for ${missing.join(", ")} in ${opts.dir}/ (deployable: ${known.join(", ") || "none"}); check --stacks`);
  return opts;
}

if (require.main === module) {
  try {
    const opts = parse(process.argv.slice(2));
    if (opts.all) {
      process.stdout.write(`${JSON.stringify(opts.stacks)}\n`);
    } else {
      const files = require("fs").readFileSync(0, "utf8").split("\n");
      process.stdout.write(`${JSON.stringify(changedStacks(files, opts.stacks))}\n`);
    }
  } catch (err) {
    process.stderr.write(`changed-stacks: ${err.message}\n`);
    process.exit(2);
  }
}

module.exports = { changedStacks, parse, stackFiles };
