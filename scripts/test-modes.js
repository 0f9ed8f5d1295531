#!/usr/bin/env node
// `node scripts/test-modes.js [--all] [--mode "<flags>"] [mocha options]`: runs the suites whose code paths
// differ by the portal's reading once per emulator mode (emulator/readings.ts), the emulator's reading flags
// passed in BACKUP_PORTAL_EMULATOR_READINGS (test/support/portal.ts starts every test emulator in that reading).
// The default reading (the Go client's answers) is `npm test`'s own run, so it is not repeated here.
// `--all` runs the whole client and data suites instead (test/portal, test/data); `--mode` runs one mode only.
// Ends with `modes: N passed, N failed, N skipped`, which .ci/run adds to its summary (docs/testing.md).
"use strict";
const { spawn } = require("child_process");
const path = require("path");

/** Every reading but the default, one mode each. */
const MODES = [
  "--put-replaces",
  "--audit-dates time",
  "--audit-dates date",
  "--jobs-list first",
  "--jobs-list jobs",
  "--spname json --node-delete empty",
  "--node-delete 204",
  "--refresh refused",
  "--refresh none",
];

/**
 * The suites that talk to the emulator through the client: the client, the data commands, token renewal over
 * time, and the resources' in-process lifecycle (every provider call). The other files of test/portal and
 * test/data talk to their own fake servers or none, so the emulator's reading cannot change what they see.
 */
const SUITES = [
  "test/portal/client.test.ts",
  "test/portal/client-long.test.ts",
  "test/data/activity.test.ts",
  "test/data/billing.test.ts",
  "test/data/cli.test.ts",
  "test/data/reference.test.ts",
  "test/resources/lifecycle-in-process.test.ts",
];
/** Suites whose code differs in one reading only: `backup-portal register` updates a node with a PUT. */
const ONLY_IN = { "--put-replaces": ["test/registration/register.test.ts"] };
const ALL = ["test/portal/*.test.ts", "test/data/*.test.ts", "test/resources/lifecycle-in-process.test.ts"];

function parse(argv) {
  const o = { all: false, modes: MODES, mocha: [] };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--all") o.all = true;
    else if (argv[i] === "--mode") {
      if (argv[i + 1] === undefined) throw new Error("--mode needs the emulator's reading flags, e.g. --mode '--put-replaces'");
      o.modes = [argv[++i]];
    } else o.mocha.push(argv[i]);
  }
  return o;
}

const count = (text, word) => {
  const all = [...text.matchAll(new RegExp(`^ *(\\d+) ${word}`, "gm"))];
  return all.length ? Number(all[all.length - 1][1]) : 0;
};

function runMode(mode, files, mochaArgs) {
  return new Promise((resolve) => {
    const started = Date.now();
    const mocha = require.resolve("mocha/bin/mocha.js");
    const child = spawn(process.execPath, [mocha, ...mochaArgs, ...files], {
      cwd: path.join(__dirname, ".."),
      env: { ...process.env, BACKUP_PORTAL_EMULATOR_READINGS: mode },
      stdio: ["ignore", "pipe", "inherit"],
    });
    const forward = (signal) => child.kill(signal);
    for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, forward);
    let out = "";
    child.stdout.on("data", (chunk) => {
      out += chunk;
      process.stdout.write(chunk);
    });
    child.on("close", (code) => {
      for (const signal of ["SIGINT", "SIGTERM"]) process.off(signal, forward);
      const r = { passed: count(out, "passing"), failed: count(out, "failing"), skipped: count(out, "pending") };
      // A run that failed without a failing test (a crash, a bad reading) counts as one failure.
      if (code !== 0 && r.failed === 0) r.failed = 1;
      r.seconds = Math.round((Date.now() - started) / 1000);
      resolve(r);
    });
  });
}

async function main() {
  let o;
  try {
    o = parse(process.argv.slice(2));
  } catch (err) {
    console.error(`test-modes: ${err.message}`);
    process.exitCode = 2;
    return;
  }
  const total = { passed: 0, failed: 0, skipped: 0 };
  const lines = [];
  for (const mode of o.modes) {
    console.log(`\n=== emulator reading: ${mode} (BACKUP_PORTAL_EMULATOR_READINGS="${mode}")`);
    const r = await runMode(mode, [...(o.all ? ALL : SUITES), ...(ONLY_IN[mode] ?? [])], o.mocha);
    for (const k of Object.keys(total)) total[k] += r[k];
    lines.push(`  ${mode}: ${r.passed} passed, ${r.failed} failed, ${r.skipped} skipped (${r.seconds} s)`);
  }
  console.log(`\nreadings:\n${lines.join("\n")}`);
  console.log(`modes: ${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped`);
  process.exitCode = total.failed === 0 ? 0 : 1;
}

main();
