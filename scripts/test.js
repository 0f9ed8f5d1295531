#!/usr/bin/env node
// `npm test`: the whole suite, after a line with the number of test files and how long it takes;
// `npm test -- test/portal/client.test.ts [more files or globs] [mocha options]`: just those files. Mocha adds
// files given on its command line to the `spec` of its config rather than replacing it, so the default spec lives
// here and is used only when no file is named. (`pretest` builds first: scripts/build.js, free when nothing changed.)
"use strict";
const { spawn } = require("child_process");
const fs = require("fs");
const path = require("path");

const DEFAULT_SPEC = "test/**/*.test.ts";
const ROOT = path.join(__dirname, "..");

/**
 * How long the whole run takes, in minutes, as measured on a 2-core machine (the README and docs/testing.md say the
 * same; test/docs/ holds them to it): the suite, and of it the real-engine tier (test/real-engine/, the Pulumi CLI).
 */
const SUITE_MINUTES = 33;
const REAL_ENGINE_MINUTES = 15;

/** The test files under `dir` (relative to the repository), as DEFAULT_SPEC matches them. */
function testFiles(dir = "test") {
  const found = [];
  const walk = (d) => {
    for (const e of fs.readdirSync(path.join(ROOT, d), { withFileTypes: true })) {
      const rel = path.posix.join(d, e.name);
      if (e.isDirectory() && e.name !== "node_modules") walk(rel);
      else if (e.isFile() && e.name.endsWith(".test.ts")) found.push(rel);
    }
  };
  walk(dir);
  return found.sort();
}

/** The line the whole run starts with: how much there is and how long it takes. */
function startLine() {
  const all = testFiles();
  const engine = all.filter((f) => f.startsWith("test/real-engine/")).length;
  return (
    `npm test: ${all.length} test files (${DEFAULT_SPEC}); the whole suite takes about ${SUITE_MINUTES} minutes on 2 cores, ` +
    `the real-engine tier (test/real-engine/, ${engine} files) about ${REAL_ENGINE_MINUTES} of them. ` +
    "One file: npm test -- test/cli/suggest.test.ts"
  );
}

function main() {
  const args = process.argv.slice(2);
  const namesFiles = args.some((a) => !a.startsWith("-") && (/\.(ts|js)$/.test(a) || /[*?]/.test(a) || fs.existsSync(a)));
  if (!namesFiles) console.log(startLine());
  const mocha = require.resolve("mocha/bin/mocha.js");
  const child = spawn(process.execPath, [mocha, ...args, ...(namesFiles ? [] : [DEFAULT_SPEC])], {
    stdio: "inherit",
    cwd: ROOT,
  });
  for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
  child.on("exit", (code, signal) => {
    process.exitCode = code ?? (signal ? 128 + require("os").constants.signals[signal] : 1);
  });
}

if (require.main === module) main();

module.exports = { SUITE_MINUTES, REAL_ENGINE_MINUTES, startLine, testFiles };
