// The GitOps workflows in a project of the user's own (issue 45 item 1), run as CI runs them: a project laid out as
// README step 1 says (Pulumi.yaml, `index.js` the package's program, the stack file beside Pulumi.yaml), the package
// installed from its packed tarball, the workflows written by `backup-portal init-workflows`, and each step's shell
// lines read out of the written workflow YAML and run by bash, with the real Pulumi CLI against the emulator. The
// change deletes a tenant: changed-stacks.js picks the stack, one preview writes the JSON, the guard refuses it, and
// with the label it passes. The connection comes from the environment, as the workflows pass it from variables.
import { strict as assert } from "node:assert";
import { spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import YAML from "yaml";
import { ORIGIN } from "../support/portal";
import { REPO, workspace, Workspace } from "./cli";
import { installPacked } from "./packed";
import { emulatorSuite, portalWrites } from "./project";

const EXAMPLE = path.join(REPO, "examples", "tenants-as-data");

interface Step {
  id?: string;
  name?: string;
  run?: string;
  env?: Record<string, string>;
}
interface Job {
  env?: Record<string, string>;
  steps: Step[];
}

/** A workflow's job, as the project holds it (written by init-workflows). */
const jobOf = (project: string, file: string, job: string): Job =>
  (YAML.parse(fs.readFileSync(path.join(project, ".github", "workflows", file), "utf8")) as { jobs: Record<string, Job> }).jobs[job];

/** The step whose id is `id`, or whose shell lines match `id`. */
function stepOf(job: Job, id: string | RegExp): Step {
  const step = job.steps.find((s) => (typeof id === "string" ? s.id === id : id.test(s.run ?? "")));
  assert.ok(step?.run, `a step ${id} with shell lines`);
  return step;
}

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
  /** What the step wrote to $GITHUB_OUTPUT. */
  outputs: Record<string, string>;
}

/**
 * A step's shell lines as the runner runs them (`bash -e {0}` for `shell: bash`, the default of ubuntu-latest,
 * with pipefail), in `cwd`, with the environment given: asynchronous, so that the emulator in this process answers.
 * `env` may only name variables the workflow gives the step (its own env or the job's), and only those are set
 * besides the runner's (PATH, HOME and the Pulumi CLI's own settings).
 */
function runStep(step: Step, job: Job, cwd: string, base: Record<string, string>, env: Record<string, string>): Promise<Ran> {
  const declared = new Set([...Object.keys(job.env ?? {}), ...Object.keys(step.env ?? {})]);
  for (const key of Object.keys(env)) assert.ok(declared.has(key), `the workflow gives ${step.id ?? step.name} ${key}`);
  const output = path.join(cwd, `.github-output-${process.hrtime.bigint()}`);
  fs.writeFileSync(output, "");
  return new Promise((resolve, reject) => {
    const child = spawn("bash", ["--noprofile", "--norc", "-eo", "pipefail", "-c", step.run!], {
      cwd,
      env: { ...base, ...env, GITHUB_OUTPUT: output, GITHUB_STEP_SUMMARY: path.join(cwd, ".step-summary") },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), 300_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      const outputs = Object.fromEntries(
        fs
          .readFileSync(output, "utf8")
          .split("\n")
          .filter((l) => l.includes("="))
          .map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]),
      );
      fs.rmSync(output);
      resolve({ code, stdout, stderr, outputs });
    });
  });
}

function git(cwd: string, ...args: string[]): string {
  const r = spawnSync("git", args, {
    cwd,
    encoding: "utf8",
    timeout: 30_000,
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: "t",
      GIT_AUTHOR_EMAIL: "t@example.com",
      GIT_COMMITTER_NAME: "t",
      GIT_COMMITTER_EMAIL: "t@example.com",
    },
  });
  assert.equal(r.status, 0, `git ${args.join(" ")}: ${r.stderr}`);
  return r.stdout.trim();
}

/** The stack file: tenants only; the connection comes from the environment (the workflows' variables). */
const stackYaml = (tenants: string[]) =>
  YAML.stringify({
    config: {
      "backup-portal:rootBusinessUnitId": 1,
      "backup-portal:protectBusinessUnits": false,
      "backup-portal:tenants": Object.fromEntries(
        tenants.map((t) => [t, { name: `${t} AB`, registrationNumber: "556677-8899", timeZone: "W. Europe Standard Time" }]),
      ),
    },
  });

describe("real engine: the GitOps workflows' steps in a project of its own, from the packed package", function () {
  this.timeout(20 * 60_000);
  const suite = emulatorSuite();
  let ws: Workspace;

  before(() => {
    ws = suite.keep(
      workspace({
        stack: "dev",
        stackYaml: stackYaml(["acme", "globex"]),
        project: (dir) => {
          const project = path.join(dir, "project");
          fs.mkdirSync(project);
          // README step 1: Pulumi.yaml (plain JavaScript, package.json's main), index.js the package's program, and
          // the package installed.
          fs.writeFileSync(
            path.join(project, "Pulumi.yaml"),
            "name: tenants\nruntime:\n  name: nodejs\n  options:\n    typescript: false\n",
          );
          fs.writeFileSync(path.join(project, "index.js"), 'module.exports = require("backup-portal-pulumi").tenantsFromConfig();\n');
          fs.copyFileSync(path.join(EXAMPLE, "package.json"), path.join(project, "package.json"));
          installPacked(dir, project);
          return project;
        },
      }),
    );
  });

  it("changed-stacks picks the stack, one preview, the guard refuses the deleted tenant and passes it with the label", async () => {
    const project = ws.project;
    const npxEnv = { ...ws.env };
    const init = spawnSync("npx", ["--no-install", "backup-portal", "init-workflows"], {
      cwd: project,
      env: npxEnv,
      encoding: "utf8",
      timeout: 60_000,
    });
    assert.equal(init.status, 0, `${init.stdout}${init.stderr}`);
    const changes = jobOf(project, "preview.yml", "changes");
    const preview = jobOf(project, "preview.yml", "preview");
    // What the job passes from the repository's variables and secrets, here the emulator's.
    const connection = {
      BACKUP_PORTAL_URL: suite.emu.url,
      BACKUP_PORTAL_ORIGIN: ORIGIN,
      BACKUP_PORTAL_CLIENT_ID: "emulator",
      BACKUP_PORTAL_USERNAME: "admin",
      BACKUP_PORTAL_PASSWORD: "admin",
    };
    // The runner's own: PATH (the CLI, node, npx), HOME, the backend and passphrase (the job's env in CI).
    const runner = ws.env;

    // The stack exists before CI touches it (docs/gitops.md, Setting it up), and its tenants were merged and made.
    await ws.ok(["stack", "init"]);
    await ws.ok(["up", "--yes"], { env: connection });
    git(project, "init", "-q", "-b", "main");
    fs.writeFileSync(path.join(project, ".gitignore"), "node_modules/\n");
    git(project, "add", ".");
    git(project, "commit", "-q", "-m", "base");
    const base = git(project, "rev-parse", "HEAD");
    // The pull request: globex removed from the stack file, and the README touched.
    fs.writeFileSync(ws.stackFile, stackYaml(["acme"]));
    fs.writeFileSync(path.join(project, "README.md"), "tenants\n");
    git(project, "commit", "-q", "-am", "remove globex");
    git(project, "add", "README.md");
    git(project, "commit", "-q", "-m", "readme");
    const head = git(project, "rev-parse", "HEAD");

    const changed = await runStep(stepOf(changes, "changed"), changes, project, runner, { BASE_SHA: base, HEAD_SHA: head });
    assert.equal(changed.code, 0, changed.stderr);
    assert.equal(changed.outputs.stacks, '["dev"]', changed.stdout);

    const installed = await runStep(stepOf(preview, "guard-installed"), preview, project, runner, {});
    assert.equal(installed.code, 0, `${installed.stdout}${installed.stderr}`);

    suite.emu.clearRequests();
    const ran = await runStep(stepOf(preview, "preview"), preview, project, runner, { ...connection, STACK: "dev" });
    assert.equal(ran.code, 0, ran.stderr);
    assert.equal(ran.outputs.status, "0", ran.stderr);
    assert.deepEqual(portalWrites(suite.emu), [], "a preview writes nothing");
    const digest = JSON.parse(fs.readFileSync(path.join(project, "preview.json"), "utf8")) as { steps: { op: string; urn: string }[] };
    assert.deepEqual(
      digest.steps.filter((s) => s.op === "delete").map((s) => s.urn.split("::").pop()),
      ["globex"],
    );

    const guardStep = stepOf(preview, /backup-portal plan-guard preview\.json/);
    const refused = await runStep(guardStep, preview, project, runner, { STACK: "dev", MAX_DELETES: "0", ALLOW: "false" });
    assert.equal(refused.code, 1, `${refused.stdout}${refused.stderr}`);
    assert.match(refused.stdout, /^BusinessUnit\s+globex\s+urn:pulumi:dev::tenants::\S+BusinessUnit::globex\s+delete$/m);
    assert.match(refused.stderr, /plan-guard: refused: the plan deletes or replaces 1 business unit\(s\)/);
    assert.match(refused.stderr, /add the label "allow-tenant-deletion"/);
    const comment = fs.readFileSync(path.join(project, "plan.md"), "utf8");
    assert.ok(comment.startsWith("<!-- backup-portal plan: dev -->\n### pulumi preview dev\n"), comment);
    assert.match(comment, /^- BusinessUnit globex$/m, "the comment shows the plan the guard judged");
    assert.match(comment, /plan-guard: refused/);

    const allowed = await runStep(guardStep, preview, project, runner, { STACK: "dev", MAX_DELETES: "0", ALLOW: "true" });
    assert.equal(allowed.code, 0, `${allowed.stdout}${allowed.stderr}`);
    assert.match(allowed.stdout, /^BusinessUnit\s+globex\s+\S+\s+delete$/m);
    assert.match(allowed.stdout, /plan-guard: allowed by the label "allow-tenant-deletion"/);
    assert.equal(suite.emu.state().businessUnits.filter((b) => b.name === "globex AB").length, 1, "globex is still on the portal");
  });

  it("an exported file passes its first CI preview with only the secret; an adopted consumer deleted on the portal comes back as the docs say", async () => {
    const project = ws.project;
    const preview = jobOf(project, "preview.yml", "preview");
    const secretOnly = { BACKUP_PORTAL_PASSWORD: "admin" };
    /** A shell line of the runner's own (not the workflow's), e.g. the user's `pulumi stack init`. */
    const sh = (line: string, env: Record<string, string> = {}) =>
      runStep({ run: line }, { steps: [] }, project, { ...ws.env, ...env }, {});
    const exported = await sh("npx --no-install backup-portal export --out Pulumi.prod.yaml --no-progress", {
      BACKUP_PORTAL_URL: suite.emu.url,
      BACKUP_PORTAL_ORIGIN: ORIGIN,
      BACKUP_PORTAL_CLIENT_ID: "emulator",
      BACKUP_PORTAL_USERNAME: "admin",
      BACKUP_PORTAL_PASSWORD: "admin",
    });
    assert.equal(exported.code, 0, exported.stderr);
    const file = path.join(project, "Pulumi.prod.yaml");
    const init = await sh("pulumi stack init prod --non-interactive");
    assert.equal(init.code, 0, init.stderr);

    // CI: the workflow's preview step, with the password secret and no connection variable.
    suite.emu.clearRequests();
    const first = await runStep(stepOf(preview, "preview"), preview, project, ws.env, { ...secretOnly, STACK: "prod" });
    const digest = fs.readFileSync(path.join(project, "preview.json"), "utf8");
    assert.equal(first.outputs.status, "0", `${first.stderr}\n${digest.slice(0, 4000)}`);
    assert.deepEqual(portalWrites(suite.emu), []);

    // The merge's up adopts every object; then a consumer (and its node) is deleted on the portal.
    const up = await sh("pulumi up --stack prod --yes --non-interactive", secretOnly);
    assert.equal(up.code, 0, `${up.stdout}${up.stderr}`);
    const doc = YAML.parseDocument(fs.readFileSync(file, "utf8"));
    const tenants = doc.getIn(["config", "backup-portal:tenants"]) as YAML.YAMLMap;
    let at: string[] | undefined;
    for (const t of tenants.items) {
      const consumers = (t.value as YAML.YAMLMap).get("consumers") as YAML.YAMLMap | undefined;
      const c = consumers?.items.find((i) => (i.value as YAML.YAMLMap).hasIn(["node", "adopt"]));
      if (c)
        at = ["config", "backup-portal:tenants", String((t.key as YAML.Scalar).value), "consumers", String((c.key as YAML.Scalar).value)];
      if (at) break;
    }
    assert.ok(at, "an exported consumer with an adopted node");
    const id = Number(doc.getIn([...at, "adoptId"]));
    suite.emu.update((st) => {
      st.consumers = st.consumers.filter((c) => c.id !== id);
      st.nodes = st.nodes.filter((n) => n.consumerId !== id);
    });
    // Kept, its adoptId fails the refreshed preview, with the fix.
    const refused = await runStep(stepOf(preview, "preview"), preview, project, ws.env, { ...secretOnly, STACK: "prod" });
    assert.notEqual(refused.outputs.status, "0");
    const errors = (
      JSON.parse(fs.readFileSync(path.join(project, "preview.json"), "utf8")) as { diagnostics?: { message: string; severity: string }[] }
    ).diagnostics
      ?.filter((d) => d.severity === "error")
      .map((d) => d.message)
      .join("\n");
    assert.match(
      errors ?? "",
      new RegExp(`adoptId: consumer ${id} of business unit \\d+ does not exist on .*; check the id or remove adoptId to create one`),
      errors,
    );
    // The way back the docs give: remove its adoptId and its node's adopt: true, and up creates it, with a new id.
    doc.deleteIn([...at, "adoptId"]);
    doc.deleteIn([...at, "node", "adopt"]);
    fs.writeFileSync(file, doc.toString());
    const back = await sh("pulumi up --stack prod --refresh --yes --non-interactive", secretOnly);
    assert.equal(back.code, 0, `${back.stdout}${back.stderr}`);
    const name = String(doc.getIn([...at, "name"]));
    const made = suite.emu.state().consumers.filter((c) => c.name === name && c.id !== id);
    assert.equal(made.length, 1, `the consumer ${name} made again`);
    assert.equal(suite.emu.state().nodes.filter((n) => n.consumerId === made[0].id).length, 1, "and its node");
    const clean = await sh("pulumi preview --stack prod --refresh --expect-no-changes --non-interactive", secretOnly);
    assert.equal(clean.code, 0, `${clean.stdout}${clean.stderr}`);
  });

  it("a project without the package: the guard's absence fails the check in a line that says so", async () => {
    const preview = jobOf(ws.project, "preview.yml", "preview");
    const bare = path.join(ws.dir, "bare");
    fs.mkdirSync(bare, { recursive: true });
    fs.writeFileSync(path.join(bare, "package.json"), '{ "name": "bare", "private": true }\n');
    const r = await runStep(stepOf(preview, "guard-installed"), preview, bare, ws.env, {});
    assert.equal(r.code, 2);
    assert.match(
      r.stdout,
      /^::error::the plan guard is missing: backup-portal-pulumi is not installed in this project; npm install backup-portal-pulumi/m,
    );
  });
});
