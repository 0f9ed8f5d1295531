#!/usr/bin/env node
// `npm test`: the whole suite; `npm test -- test/portal/client.test.ts [more files or globs] [mocha options]`:
// just those files. Mocha adds files given on its command line to the `spec` of its config rather than
// replacing it, so the default spec lives here and is used only when no file is named.
"use strict";
const { spawn } = require("child_process");
const fs = require("fs");
const path = require("path");

const DEFAULT_SPEC = "test/**/*.test.ts";
const args = process.argv.slice(2);
const namesFiles = args.some((a) => !a.startsWith("-") && (/\.(ts|js)$/.test(a) || /[*?]/.test(a) || fs.existsSync(a)));
const mocha = require.resolve("mocha/bin/mocha.js");
const child = spawn(process.execPath, [mocha, ...args, ...(namesFiles ? [] : [DEFAULT_SPEC])], {
  stdio: "inherit",
  cwd: path.join(__dirname, ".."),
});
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
child.on("exit", (code, signal) => {
  process.exitCode = code ?? (signal ? 128 + require("os").constants.signals[signal] : 1);
});
