// The nightly drift check: drift.yml runs the preview, .github/scripts/drift-issue.js keeps one issue per
// stack. The script is tested against a stand-in of GitHub's issues API on loopback, and run as the workflow
// runs it (a child process with the workflow's arguments and environment).
import { strict as assert } from "assert";
import { execFile } from "child_process";
import * as fs from "fs";
import * as http from "http";
import { AddressInfo } from "net";
import * as os from "os";
import * as path from "path";
import { ROOT } from "./helpers";

const yaml: { load(s: string): unknown } = require("js-yaml");

const drift = require(path.join(ROOT, ".github/scripts/drift-issue.js")) as {
  plan(a: { stack: string; status: number; output: string; open?: { number: number }; runUrl?: string }): {
    action: string;
    outcome: string;
    number?: number;
    title?: string;
    body?: string;
  };
  LABEL: string;
};

const SCRIPT = path.join(ROOT, ".github/scripts/drift-issue.js");
const DRIFT_OUTPUT = [
  "Previewing update (dev):",
  "    ~ pulumi-nodejs:dynamic:Resource acme update [diff: ~name]",
  "error: no changes were expected but changes were proposed",
].join("\n");
const FAILED_OUTPUT = "error: failed to decrypt encrypted configuration value 'backup-portal:password': bad passphrase";

interface Issue {
  number: number;
  title: string;
  body: string;
  state: string;
  labels: string[];
  comments: string[];
}

/** Just enough of GitHub's issues API: list by label and state, create, edit, comment. */
async function fakeGitHub(token: string) {
  const issues: Issue[] = [];
  const calls: string[] = [];
  const server = http.createServer((req, res) => {
    let text = "";
    req.on("data", (c) => (text += c));
    req.on("end", () => {
      const url = new URL(req.url!, "http://x");
      calls.push(`${req.method} ${url.pathname}`);
      const send = (status: number, body: unknown) => {
        res.writeHead(status, { "Content-Type": "application/json" });
        res.end(JSON.stringify(body));
      };
      if (req.headers.authorization !== `Bearer ${token}`) return send(401, { message: "Bad credentials" });
      const body = text ? JSON.parse(text) : {};
      const m = /^\/repos\/acme\/infra\/issues(?:\/(\d+)(\/comments)?)?$/.exec(url.pathname);
      if (!m) return send(404, { message: "Not Found" });
      const issue = m[1] ? issues.find((i) => i.number === Number(m[1])) : undefined;
      if (req.method === "GET" && !m[1]) {
        const label = url.searchParams.get("labels");
        return send(
          200,
          issues.filter((i) => i.state === url.searchParams.get("state") && (!label || i.labels.includes(label))),
        );
      }
      if (req.method === "POST" && !m[1]) {
        const created = {
          number: issues.length + 1,
          title: body.title,
          body: body.body,
          state: "open",
          labels: body.labels ?? [],
          comments: [],
        };
        issues.push(created);
        return send(201, created);
      }
      if (!issue) return send(404, { message: "Not Found" });
      if (req.method === "POST" && m[2]) {
        issue.comments.push(body.body);
        return send(201, {});
      }
      if (req.method === "PATCH") {
        Object.assign(issue, body.body !== undefined ? { body: body.body } : {}, body.state ? { state: body.state } : {});
        return send(200, issue);
      }
      return send(405, { message: "Method Not Allowed" });
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { issues, calls, url, close: () => new Promise<void>((r) => server.close(() => r())) };
}

/** Runs the script as drift.yml does; resolves with its exit code and output. */
function run(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [SCRIPT, ...args],
      { env: { PATH: process.env.PATH ?? "", ...env }, timeout: 20000 },
      (err, stdout, stderr) => {
        resolve({ code: err ? (typeof err.code === "number" ? err.code : 1) : 0, stdout, stderr });
      },
    );
  });
}

describe("drift: the nightly check of every stack", () => {
  let dir: string;
  before(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), "drift-"))));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  const outputFile = (name: string, text: string) => {
    const f = path.join(dir, name);
    fs.writeFileSync(f, text);
    return f;
  };

  it("drift.yml: nightly and by hand, a refreshed preview that expects no change, then the script, per stack", () => {
    const wf = yaml.load(fs.readFileSync(path.join(ROOT, ".github/workflows/drift.yml"), "utf8")) as any;
    assert.ok(wf.on.schedule?.[0]?.cron, "a schedule");
    assert.ok(wf.on.workflow_dispatch, "runnable by hand");
    const job = wf.jobs.drift;
    // id-token: the OIDC login to Pulumi Cloud (pulumi/auth-actions).
    assert.deepEqual(job.permissions, { contents: "read", "id-token": "write", issues: "write" });
    assert.equal(job.concurrency["cancel-in-progress"], false);
    const runs: string[] = job.steps.map((s: { run?: string }) => s.run ?? "");
    const preview = runs.findIndex((r) => /pulumi preview .*--refresh.*--expect-no-changes/.test(r));
    const script = runs.findIndex((r) => r.includes("drift-issue.js --stack"));
    assert.ok(preview > 0 && script > preview, "the preview, then the script");
    assert.match(runs[preview], /set \+e/, "a drifting preview exits non-zero: its status is recorded, not fatal");
    // In a user's project a build script is optional: --if-present builds this repository's providers and skips none.
    const build = runs.indexOf("npm run build --if-present");
    assert.ok(build > 0 && build < preview, "the providers are built first");
  });

  it("plans: drift opens or updates, clean closes, a failed preview touches nothing", () => {
    assert.equal(drift.plan({ stack: "dev", status: 255, output: DRIFT_OUTPUT }).action, "create");
    assert.equal(drift.plan({ stack: "dev", status: 255, output: DRIFT_OUTPUT, open: { number: 7 } }).action, "update");
    assert.equal(drift.plan({ stack: "dev", status: 0, output: "no changes", open: { number: 7 } }).action, "close");
    assert.equal(drift.plan({ stack: "dev", status: 0, output: "no changes" }).action, "none");
    const failed = drift.plan({ stack: "dev", status: 255, output: FAILED_OUTPUT, open: { number: 7 } });
    assert.deepEqual([failed.action, failed.outcome], ["none", "failed"]);
    // The CLI's other spelling of the same error names the operation.
    const named = "error: no changes were expected for preview but changes were proposed";
    assert.equal(drift.plan({ stack: "dev", status: 255, output: named }).outcome, "drift");
  });

  it("an issue body holds the diff in one code block, never longer than GitHub takes", () => {
    const long = `${"x".repeat(70000)}\n\`\`\`\n${DRIFT_OUTPUT}`;
    const p = drift.plan({ stack: "prod", status: 255, output: long, runUrl: "https://github.com/acme/infra/actions/runs/1" });
    assert.ok(p.body!.length < 65536, `body of ${p.body!.length} characters`);
    assert.equal(p.body!.split("```").length - 1, 2, "one fenced block: the output's own fences are broken up");
    assert.match(p.body!, /pulumi refresh --stack prod/);
    assert.match(p.body!, /pulumi up --stack prod/);
    assert.match(p.body!, /actions\/runs\/1/);
    assert.match(p.body!, /changes were proposed/, "the tail, with the verdict, is kept");
  });

  it("one issue per stack: opened on drift, updated on the next drift, closed when clean", async () => {
    const token = "ghs_drift-token-9c1f2b7e";
    const gh = await fakeGitHub(token);
    const env = { GITHUB_TOKEN: token, GITHUB_REPOSITORY: "acme/infra", GITHUB_API_URL: gh.url, GITHUB_RUN_ID: "42" };
    try {
      const drifted = outputFile("drift.txt", DRIFT_OUTPUT);
      let r = await run(["--stack", "dev", "--status", "255", "--output", drifted], env);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /opened issue #1/);
      r = await run(["--stack", "prod", "--status", "255", "--output", drifted], env);
      assert.match(r.stdout, /opened issue #2/);
      assert.deepEqual(
        gh.issues.map((i) => [i.title, i.labels]),
        [
          ["Drift: stack dev", [drift.LABEL]],
          ["Drift: stack prod", [drift.LABEL]],
        ],
      );

      fs.writeFileSync(drifted, DRIFT_OUTPUT.replace("~name", "~note"));
      r = await run(["--stack", "dev", "--status", "255", "--output", drifted], env);
      assert.match(r.stdout, /updated issue #1/);
      assert.equal(gh.issues.length, 2, "no second issue for the same stack");
      assert.match(gh.issues[0].body, /~note/);

      r = await run(["--stack", "dev", "--status", "0", "--output", outputFile("clean.txt", "Resources: 12 unchanged")], env);
      assert.equal(r.code, 0);
      assert.match(r.stdout, /closed issue #1/);
      assert.deepEqual(
        gh.issues.map((i) => i.state),
        ["closed", "open"],
      );
      assert.equal(gh.issues[0].comments.length, 1);

      const before = gh.issues.map((i) => ({ ...i }));
      r = await run(["--stack", "prod", "--status", "255", "--output", outputFile("failed.txt", FAILED_OUTPUT)], env);
      assert.equal(r.code, 1, "a failed preview fails the step");
      assert.deepEqual(gh.issues, before, "and leaves the issue as it was");
    } finally {
      await gh.close();
    }
  });

  it("refuses bad arguments with exit 2, and reports GitHub's refusal without the token", async () => {
    let r = await run(["--stack", "dev; rm -rf /", "--status", "0", "--output", "x"], {
      GITHUB_TOKEN: "t",
      GITHUB_REPOSITORY: "acme/infra",
    });
    assert.equal(r.code, 2);
    r = await run(["--stack", "dev", "--status", "abc", "--output", "x"], { GITHUB_TOKEN: "t", GITHUB_REPOSITORY: "acme/infra" });
    assert.equal(r.code, 2);
    const gh = await fakeGitHub("the-right-token-5e0a");
    try {
      const f = outputFile("d.txt", DRIFT_OUTPUT);
      r = await run(["--stack", "dev", "--status", "255", "--output", f], {
        GITHUB_TOKEN: "wrong-token-77aa1c",
        GITHUB_REPOSITORY: "acme/infra",
        GITHUB_API_URL: gh.url,
      });
      assert.equal(r.code, 1);
      assert.match(r.stderr, /GitHub answered 401/);
      assert.ok(!r.stderr.includes("wrong-token-77aa1c"));
    } finally {
      await gh.close();
    }
  });
});
