#!/usr/bin/env node
// `npm run plan-guard -- preview.json [--max-deletes N] [--allow] [--markdown <file>]` in this repository: the plan
// guard of provider/gitops/plan-guard.ts (built into dist/ by `npm run build`), which a project that installed the
// package runs as `npx backup-portal plan-guard`. The same exits and table; see that file.
"use strict";
const path = require("node:path");

let guard;
try {
  guard = require(path.join(__dirname, "..", "dist", "provider", "gitops", "plan-guard.js"));
} catch (err) {
  if (err && err.code !== "MODULE_NOT_FOUND") throw err;
  console.error("plan-guard: dist/provider/gitops/plan-guard.js is missing: run `npm run build` first");
  process.exit(2);
}
module.exports = guard;

if (require.main === module) process.exitCode = guard.main(process.argv.slice(2), console.log, console.error, "npm run plan-guard --");
