#!/usr/bin/env node
// One issue per stack for drift between the code and the portal, for drift.yml.
//
//   pulumi preview --refresh --diff --expect-no-changes --stack dev > preview.txt 2>&1; echo $? > status
//   node .github/scripts/drift-issue.js --stack dev --status "$(cat status)" --output preview.txt
//
// With GITHUB_TOKEN and GITHUB_REPOSITORY set (GITHUB_API_URL optional, GITHUB_SERVER_URL and GITHUB_RUN_ID for
// the link to the run), it opens the stack's drift issue, updates the one already open, or closes it when the
// stack is clean again. The outcome of the preview decides:
//   exit 0                                   clean: close the open drift issue, if any
//   "no changes were expected but ..."       drift: open or update the issue with the preview's output
//   any other failure                        the preview itself failed (login, state lock, a crash): the
//                                            issue is left as it is and the step fails, so the run shows red
// Exit codes: 0 clean or drift recorded, 1 the preview failed or GitHub refused, 2 bad arguments.
"use strict";

const fs = require("fs");

const LABEL = "drift";
// What the CLI prints when --expect-no-changes finds changes (pulumi/pulumi pkg/backend/backenderr/backenderr.go).
const DRIFT_MARKER = /no changes were expected (for \S+ )?but changes were proposed/i;
// GitHub refuses an issue body over 65,536 characters.
const MAX_BODY = 60000;

/** `Drift: stack <name>`: how the stack's issue is found again. */
function issueTitle(stack) {
  return `Drift: stack ${stack}`;
}

/** What the preview says: "clean", "drift" or "failed". */
function outcome(status, output) {
  if (status === 0) return "clean";
  return DRIFT_MARKER.test(output) ? "drift" : "failed";
}

/** The issue's text: the preview's output (its tail when too long) and what to do about it. */
function issueBody(stack, output, runUrl) {
  let diff = output.replace(/```/g, "`\u200b``"); // never end the code block early
  if (diff.length > MAX_BODY)
    diff = `… (the first ${diff.length - MAX_BODY} characters are cut; the run has it all)\n${diff.slice(-MAX_BODY)}`;
  return [
    `The portal no longer matches the code of stack \`${stack}\`: \`pulumi preview --refresh --expect-no-changes\` proposes changes.`,
    runUrl ? `\nRun: ${runUrl}` : "",
    "",
    'What to do (docs/gitops.md, "Drift between reviews"):',
    "- the change on the portal is wanted: write it into `stacks/Pulumi." +
      stack +
      ".yaml` (or the program) in a pull request, " +
      "so the preview shows no change; or accept it into the state with `pulumi refresh --stack " +
      stack +
      "` where the code does not set that field;",
    "- the change is not wanted: run the `up` workflow for `" +
      stack +
      "` (or `pulumi up --stack " +
      stack +
      "`): it puts the code's values back.",
    "",
    "This issue is updated on every drift run and closed by the first run that finds the stack clean.",
    "",
    "```diff",
    diff.trimEnd(),
    "```",
  ].join("\n");
}

/**
 * What to do with the stack's issue: `{ action: "create" | "update" | "close" | "none", ... }`.
 * `open` is the stack's open drift issue (`{ number, body }`) or undefined.
 */
function plan({ stack, status, output, open, runUrl }) {
  const result = outcome(status, output);
  if (result === "failed") return { action: "none", outcome: result };
  if (result === "clean") return open ? { action: "close", outcome: result, number: open.number } : { action: "none", outcome: result };
  const body = issueBody(stack, output, runUrl);
  if (!open) return { action: "create", outcome: result, title: issueTitle(stack), body };
  return { action: "update", outcome: result, number: open.number, body };
}

/** A small client for the issues API: only what `apply` needs. */
function github({ token, repository, apiUrl = "https://api.github.com", fetchImpl = fetch }) {
  const call = async (method, path, body) => {
    const res = await fetchImpl(`${apiUrl}/repos/${repository}${path}`, {
      method,
      headers: {
        Authorization: `Bearer ${token}`,
        Accept: "application/vnd.github+json",
        "X-GitHub-Api-Version": "2022-11-28",
        ...(body ? { "Content-Type": "application/json" } : {}),
      },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`GitHub answered ${res.status} to ${method} ${path}: ${text.slice(0, 200)}`);
    return text ? JSON.parse(text) : undefined;
  };
  return {
    /** The open issue of that title with the drift label, if any (pull requests are not issues here). */
    async findOpen(title) {
      const items = await call("GET", `/issues?state=open&labels=${LABEL}&per_page=100`);
      return items.find((i) => i.title === title && !i.pull_request);
    },
    create: (title, body) => call("POST", "/issues", { title, body, labels: [LABEL] }),
    update: (number, body) => call("PATCH", `/issues/${number}`, { body }),
    close: (number, comment) =>
      call("POST", `/issues/${number}/comments`, { body: comment }).then(() =>
        call("PATCH", `/issues/${number}`, { state: "closed", state_reason: "completed" }),
      ),
  };
}

/** Finds the stack's issue, plans, and carries the plan out. Returns the plan with the issue number. */
async function apply({ stack, status, output, runUrl, client }) {
  const open = await client.findOpen(issueTitle(stack));
  const p = plan({ stack, status, output, open, runUrl });
  if (p.action === "create") p.number = (await client.create(p.title, p.body)).number;
  else if (p.action === "update") await client.update(p.number, p.body);
  else if (p.action === "close") await client.close(p.number, `The stack is clean again${runUrl ? ` (${runUrl})` : ""}.`);
  return p;
}

function parse(argv) {
  const opts = {};
  for (let i = 0; i < argv.length; i++) {
    const key = argv[i];
    if (!["--stack", "--status", "--output"].includes(key)) throw new Error(`unknown argument ${key}`);
    const value = argv[++i];
    if (value === undefined) throw new Error(`${key} needs a value`);
    opts[key.slice(2)] = value;
  }
  if (!opts.stack || !/^[A-Za-z0-9][A-Za-z0-9_./-]*$/.test(opts.stack)) throw new Error("--stack needs a stack name");
  if (!/^\d+$/.test(opts.status ?? "")) throw new Error("--status needs the preview's exit code");
  if (!opts.output) throw new Error("--output needs the file holding the preview's output");
  return { stack: opts.stack, status: Number(opts.status), output: opts.output };
}

const USAGE = "usage: drift-issue.js --stack <name> --status <exit code> --output <file>";

async function main(argv, env) {
  let opts;
  try {
    opts = parse(argv);
  } catch (err) {
    process.stderr.write(`drift-issue: ${err.message}\n${USAGE}\n`);
    return 2;
  }
  const output = fs.readFileSync(opts.output, "utf8");
  const runUrl = env.GITHUB_RUN_ID
    ? `${env.GITHUB_SERVER_URL || "https://github.com"}/${env.GITHUB_REPOSITORY}/actions/runs/${env.GITHUB_RUN_ID}`
    : undefined;
  if (!env.GITHUB_TOKEN || !env.GITHUB_REPOSITORY) {
    process.stderr.write("drift-issue: GITHUB_TOKEN and GITHUB_REPOSITORY must be set\n");
    return 2;
  }
  const client = github({ token: env.GITHUB_TOKEN, repository: env.GITHUB_REPOSITORY, apiUrl: env.GITHUB_API_URL || undefined });
  const p = await apply({ stack: opts.stack, status: opts.status, output, runUrl, client });
  const said = {
    create: `drift found: opened issue #${p.number}`,
    update: `drift found: updated issue #${p.number}`,
    close: `clean: closed issue #${p.number}`,
    none: p.outcome === "clean" ? "clean: no drift issue open" : "the preview failed (not drift); the issue is left as it is",
  }[p.action];
  process.stdout.write(`stack ${opts.stack}: ${said}\n`);
  return p.outcome === "failed" ? 1 : 0;
}

if (require.main === module) {
  main(process.argv.slice(2), process.env).then(
    (code) => {
      process.exitCode = code;
    },
    (err) => {
      process.stderr.write(`drift-issue: ${err.message}\n`);
      process.exitCode = 1;
    },
  );
}

module.exports = { plan, apply, github, outcome, issueTitle, issueBody, parse, main, LABEL };
