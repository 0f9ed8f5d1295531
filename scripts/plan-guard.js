#!/usr/bin/env node
// The GitOps plan guard (issue 23): reads what `pulumi preview --json` wrote and refuses a plan that deletes
// or replaces a business unit, or more consumers and nodes than allowed, unless the pull request allows it.
//
//   pulumi preview --refresh --json > preview.json
//   npm run plan-guard -- preview.json [--max-deletes N] [--allow]
//
//   --max-deletes N  consumers and nodes the plan may delete or replace together (default 0)
//   --allow          the pull request carries the label `allow-tenant-deletion`: print the table, pass
//
// Exit status: 0 the plan passes (or is allowed), 1 it is refused, 2 the file is no preview (fails closed).
// Every delete or replace in the plan is printed as a table (kind, name, URN, op), whatever the outcome.
//
// The input is the CLI's preview digest, as pulumi/pulumi v3.259.0 writes it (pkg/backend/display/json.go,
// ShowPreviewDigest; the shape in pkg/display/json.go, PreviewDigest/PreviewStep, and
// sdk/go/common/apitype/core.go, ResourceV3): `{ steps: [{ op, urn, oldState?, newState?, ... }],
// diagnostics, changeSummary, ... }`. Only steps that change something are listed (`same` only with
// --show-sames). A replacement is one `replace` step, or with --show-replacement-steps also
// `create-replacement` and `delete-replaced` for the same URN: all count as one replace. With --refresh, an
// object the refresh found gone on the portal is listed as `delete` too (counted: someone should look).
// The kind of a resource is its type token (oldState/newState `type`, else the URN's type): this product's
// resources register as `pulumi-nodejs:dynamic/backup-portal:<Kind>` (the module and type the classes in
// provider/resources/*.ts pass to dynamic.Resource; test/gitops/plan-guard.test.ts checks them).
"use strict";
const fs = require("node:fs");

const LABEL = "allow-tenant-deletion";
const TYPE_PREFIX = "pulumi-nodejs:dynamic/backup-portal:";
/** Kinds the guard counts: a business unit never goes without the label; consumers and nodes up to the limit. */
const GUARDED = { BusinessUnit: "never", Consumer: "limit", Node: "limit" };
const DELETE_OPS = new Set(["delete"]);
const REPLACE_OPS = new Set(["replace", "create-replacement", "delete-replaced"]);

/** The URN's parts: urn:pulumi:<stack>::<project>::<qualified type>::<name> (the name may hold "::"). */
function parseUrn(urn) {
  const parts = String(urn).split("::");
  if (parts.length < 4 || !parts[0].startsWith("urn:pulumi:")) return { type: "", name: String(urn) };
  const qualified = parts[2];
  // A child of a component: parent types first, joined by "$".
  return { type: qualified.slice(qualified.lastIndexOf("$") + 1), name: parts.slice(3).join("::") };
}

/** BusinessUnit, Consumer, Node, NodeProxy for this product's resources; otherwise the type token itself. */
function kindOf(step) {
  const type = (step.oldState && step.oldState.type) || (step.newState && step.newState.type) || parseUrn(step.urn).type;
  return type.startsWith(TYPE_PREFIX) ? type.slice(TYPE_PREFIX.length) : type;
}

/** The deletes and replaces of a preview digest, one row per URN (a replace wins over a delete). */
function changesOf(digest) {
  const rows = new Map();
  for (const step of digest.steps || []) {
    const op = DELETE_OPS.has(step.op) ? "delete" : REPLACE_OPS.has(step.op) ? "replace" : undefined;
    if (!op || typeof step.urn !== "string") continue;
    const row = rows.get(step.urn);
    if (row) {
      if (op === "replace") row.op = "replace";
      row.protected = row.protected || Boolean(step.oldState && step.oldState.protect);
      continue;
    }
    rows.set(step.urn, {
      kind: kindOf(step),
      name: parseUrn(step.urn).name,
      urn: step.urn,
      op,
      protected: Boolean(step.oldState && step.oldState.protect),
    });
  }
  return [...rows.values()];
}

/** The verdict on a digest: `refused` with the reasons, and the rows to print. */
function judge(digest, { maxDeletes = 0, allow = false } = {}) {
  const rows = changesOf(digest);
  const businessUnits = rows.filter((r) => GUARDED[r.kind] === "never");
  const limited = rows.filter((r) => GUARDED[r.kind] === "limit");
  const reasons = [];
  if (businessUnits.length > 0) {
    reasons.push(
      `the plan deletes or replaces ${businessUnits.length} business unit(s); a business unit is never removed without the label`,
    );
  }
  if (limited.length > maxDeletes) {
    reasons.push(`the plan deletes or replaces ${limited.length} consumer(s) and node(s); at most ${maxDeletes} may go without the label`);
  }
  return { rows, reasons, refused: reasons.length > 0 && !allow };
}

function table(rows) {
  const head = ["kind", "name", "URN", "op"];
  const body = rows.map((r) => [r.kind, r.name, r.urn, r.op + (r.protected ? " (protected: the up fails on it)" : "")]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const line = (cells) =>
    cells
      .map((c, i) => c.padEnd(widths[i]))
      .join("  ")
      .trimEnd();
  return [line(head), line(widths.map((w) => "-".repeat(w))), ...body.map(line)].join("\n");
}

const USAGE = "usage: npm run plan-guard -- <preview.json> [--max-deletes N] [--allow]";

/** Command-line arguments → options, or a usage error (thrown as a string). */
function parseArgs(argv) {
  const opts = { file: undefined, maxDeletes: 0, allow: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--allow") opts.allow = true;
    else if (a === "--max-deletes" || a.startsWith("--max-deletes=")) {
      const v = a.includes("=") ? a.slice(a.indexOf("=") + 1) : argv[++i];
      if (v === undefined || !/^\d+$/.test(v)) throw `--max-deletes: expected a whole number, got ${JSON.stringify(v ?? "")}; ${USAGE}`;
      opts.maxDeletes = Number(v);
    } else if (a.startsWith("-")) throw `unknown option ${a}; ${USAGE}`;
    else if (opts.file === undefined) opts.file = a;
    else throw `one preview file only (got ${opts.file} and ${a}); ${USAGE}`;
  }
  if (opts.file === undefined) throw `no preview file; ${USAGE}`;
  return opts;
}

/** The digest in `file`, or a one-line reason it is none (an empty file: the preview printed nothing). */
function readDigest(file) {
  let text;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (e) {
    throw `${file}: cannot read it (${e.code || e.message})`;
  }
  let digest;
  try {
    digest = JSON.parse(text);
  } catch {
    throw `${file}: not JSON; save the output of \`pulumi preview --json\` (did the preview fail before printing?)`;
  }
  if (
    typeof digest !== "object" ||
    digest === null ||
    Array.isArray(digest) ||
    (digest.steps !== undefined && !Array.isArray(digest.steps))
  ) {
    throw `${file}: not the output of \`pulumi preview --json\` (an object with "steps")`;
  }
  return digest;
}

/** Runs the guard; returns the exit status. */
function main(argv, out = console.log, err = console.error) {
  let opts;
  let digest;
  try {
    opts = parseArgs(argv);
    digest = readDigest(opts.file);
  } catch (e) {
    if (typeof e !== "string") throw e;
    err(`plan-guard: ${e}`);
    return 2;
  }
  const { rows, reasons, refused } = judge(digest, opts);
  const errors = (digest.diagnostics || []).filter((d) => d && d.severity === "error").length;
  if (errors > 0) out(`plan-guard: the preview reported ${errors} error(s); its own step fails on them`);
  if (rows.length === 0) {
    out("plan-guard: the plan deletes and replaces nothing");
    return 0;
  }
  out(`plan-guard: the plan deletes or replaces ${rows.length} resource(s):\n${table(rows)}`);
  if (reasons.length === 0) {
    out(`plan-guard: within the limits (business units: none; consumers and nodes: at most ${opts.maxDeletes})`);
    return 0;
  }
  if (!refused) {
    out(`plan-guard: allowed by the label "${LABEL}": ${reasons.join("; ")}`);
    return 0;
  }
  for (const r of reasons) err(`plan-guard: refused: ${r}`);
  err(
    `plan-guard: if this is meant, add the label "${LABEL}" to the pull request; a protected business unit also ` +
      "needs `protect: false` on it first (docs/stack-config.md, Removing a tenant on purpose)",
  );
  return 1;
}

module.exports = { changesOf, judge, kindOf, main, parseArgs, parseUrn, table, LABEL, TYPE_PREFIX };

if (require.main === module) process.exitCode = main(process.argv.slice(2));
