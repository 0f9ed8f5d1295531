#!/usr/bin/env node
// Which stacks a change touches, for the preview and up workflows.
//
//   git diff --name-only BASE...HEAD | node .github/scripts/changed-stacks.js --stacks dev,prod
//   node .github/scripts/changed-stacks.js --stacks dev,prod --all
//
// Prints a JSON list (e.g. ["prod"]) for a job matrix. Rules:
//   stacks/Pulumi.<stack>.yaml            that stack (if it is one of --stacks)
//   the program and what it runs on       every stack: provider/, stacks/ (but stacks/fleet/ and other
//                                         stack files), Pulumi.yaml, package.json, package-lock.json,
//                                         tsconfig.json, these workflows and scripts, and the plan guard
//   anything else (docs, tests, ...)      no stack
"use strict";

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

/** Parses `--stacks a,b` and `--all`; stack names are checked (they end up in a job matrix). */
function parse(argv) {
  const opts = { stacks: ["dev", "prod"], all: false };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--all") opts.all = true;
    else if (argv[i] === "--stacks")
      opts.stacks = String(argv[++i] || "")
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean);
    else throw new Error(`unknown argument ${argv[i]}; usage: changed-stacks.js --stacks dev,prod [--all] < changed-files`);
  }
  if (!opts.stacks.length) throw new Error("--stacks needs at least one stack name");
  const bad = opts.stacks.filter((s) => !/^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(s));
  if (bad.length) throw new Error(`not a stack name: ${bad.map((s) => JSON.stringify(s)).join(", ")}`);
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

module.exports = { changedStacks, parse };
