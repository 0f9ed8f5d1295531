#!/usr/bin/env node
// `npm run build` (and `npm test`'s pretest): tsc over tsconfig.json into dist/, at no cost when nothing changed.
//
// Two layers, both correct under edits:
// - a stamp: a hash of every input of the last build that succeeded (the sources by content, installed packages by
//   size and time, tsconfig.json, the TypeScript version and Node's major version), kept in dist/.build-stamp. When
//   the inputs hash the same and every source still has its output, tsc is not started at all;
// - otherwise tsc --incremental, with its build info in dist/.tsbuildinfo (git-ignored with dist/): it re-checks and
//   re-emits only what an edit can change. A missing output makes it start from scratch (tsc would not re-emit a file
//   it thinks is current).
// `rm -rf dist` forgets both. The inputs are the files tsconfig.json names (new files included) and every file the
// last build's program read (its build info lists them: imported JSON, the types of node_modules).
"use strict";
const crypto = require("crypto");
const fs = require("fs");
const path = require("path");
const { spawnSync } = require("child_process");

const ROOT = path.join(__dirname, "..");
const CONFIG = path.join(ROOT, "tsconfig.json");
const DIST = path.join(ROOT, "dist");
const BUILD_INFO = path.join(DIST, ".tsbuildinfo");
const STAMP = path.join(DIST, ".build-stamp");

/** The files the build reads: tsconfig.json's own, and those the last build's program read. */
function inputs(ts) {
  const host = { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined };
  const parsed = ts.getParsedCommandLineOfConfigFile(CONFIG, {}, host);
  const files = new Set([CONFIG, ...(parsed ? parsed.fileNames : [])]);
  try {
    // tsc writes the program's files relative to the build info's folder.
    const info = JSON.parse(fs.readFileSync(BUILD_INFO, "utf8"));
    for (const f of info.fileNames ?? []) files.add(path.resolve(DIST, f));
  } catch {
    // No build info yet: the stamp cannot match either.
  }
  return { files: [...files].sort(), sources: parsed ? parsed.fileNames : [] };
}

/** A hash of the inputs: the repository's files by content, installed ones by size and modification time. */
function fingerprint(ts, files) {
  const h = crypto.createHash("sha256");
  h.update(`typescript ${ts.version}; node ${process.versions.node.split(".")[0]}\n`);
  for (const f of files) {
    let st;
    try {
      st = fs.statSync(f);
    } catch {
      h.update(`${f}: missing\n`);
      continue;
    }
    if (path.relative(ROOT, f).split(path.sep).includes("node_modules")) h.update(`${f}: ${st.size} ${st.mtimeMs}\n`);
    else h.update(`${f}: `).update(fs.readFileSync(f)).update("\n");
  }
  return h.digest("hex");
}

/** Whether every source (not a declaration file) has its compiled .js under dist/. */
function outputsPresent(sources) {
  return sources
    .filter((f) => !f.endsWith(".d.ts"))
    .every((f) => fs.existsSync(path.join(DIST, path.relative(ROOT, f)).replace(/\.ts$/, ".js")));
}

function main() {
  const ts = require("typescript");
  const before = inputs(ts);
  const stamp = fingerprint(ts, before.files);
  const present = outputsPresent(before.sources);
  if (present && fs.existsSync(STAMP) && fs.readFileSync(STAMP, "utf8") === stamp) {
    console.error("build: dist/ is up to date (no input changed since the last build)");
    return 0;
  }
  fs.rmSync(STAMP, { force: true });
  if (!present) fs.rmSync(BUILD_INFO, { force: true });
  const tsc = require.resolve("typescript/bin/tsc");
  const r = spawnSync(process.execPath, [tsc, "-p", CONFIG, "--incremental", "--tsBuildInfoFile", BUILD_INFO], {
    cwd: ROOT,
    stdio: "inherit",
  });
  if (r.status !== 0) return r.status ?? 1;
  // A file edited while tsc ran may not be in dist/: then no stamp, and the next build looks again.
  if (fingerprint(ts, before.files) !== stamp) return 0;
  fs.writeFileSync(STAMP, fingerprint(ts, inputs(ts).files));
  return 0;
}

if (require.main === module) process.exitCode = main();

module.exports = { inputs, fingerprint, outputsPresent };
