import { strict as assert } from "assert";
import * as fs from "fs";
import * as path from "path";
import { ROOT } from "./helpers";

const yaml: { load(s: string): unknown } = require("js-yaml");

const { changedStacks, parse, stackDir, stackFiles } = require(path.join(ROOT, ".github/scripts/changed-stacks.js")) as {
  changedStacks(files: string[], stacks: string[], dir?: string): string[];
  parse(argv: string[]): { stacks: string[]; all: boolean; dir: string };
  stackDir(cwd?: string): string;
  stackFiles(dir?: string): string[];
};
/** The major of pulumi/actions the workflows use (the current one: v7, May 2026). */
const PULUMI_ACTION = "pulumi/actions@v7";

interface Step {
  id?: string;
  name?: string;
  if?: string;
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
  env?: Record<string, string>;
}
interface Job {
  name?: string;
  steps: Step[];
  needs?: string | string[];
  if?: string;
  permissions?: Record<string, string>;
  concurrency?: { group: string; "cancel-in-progress": boolean };
  environment?: string;
  env?: Record<string, string>;
  strategy?: { matrix: Record<string, unknown>; "max-parallel"?: number; "fail-fast"?: boolean };
}
interface Workflow {
  name: string;
  on: Record<string, any>;
  permissions?: Record<string, string>;
  jobs: Record<string, Job>;
}

const text = (f: string) => fs.readFileSync(path.join(ROOT, ".github/workflows", f), "utf8");
const load = (f: string) => yaml.load(text(f)) as Workflow;

/** The index of the first step matching, or -1. */
const stepIndex = (job: Job, pred: (s: Step) => boolean) => job.steps.findIndex(pred);

function checkSetup(job: Job) {
  const checkout = stepIndex(job, (s) => /^actions\/checkout@v\d+$/.test(s.uses ?? ""));
  const node = stepIndex(job, (s) => /^actions\/setup-node@v\d+$/.test(s.uses ?? ""));
  const ci = stepIndex(job, (s) => s.run?.trim() === "npm ci");
  // A project of its own has no build script: the step runs this repository's and skips where there is none.
  const build = stepIndex(job, (s) => s.run?.trim() === "npm run build --if-present");
  const pulumi = stepIndex(job, (s) => s.uses === PULUMI_ACTION);
  assert.ok(
    checkout === 0 && checkout < node && node < ci && ci < build && build < pulumi,
    "checkout, setup-node, npm ci, npm run build --if-present, then pulumi",
  );
  // The CLI of the SDK the project installed (a project of its own has no `pulumi` package, only @pulumi/pulumi).
  assert.ok(
    job.steps.some((s) => s.run?.includes("require('@pulumi/pulumi/package.json').version")),
    "the CLI version from @pulumi/pulumi",
  );
  for (const key of ["URL", "ORIGIN", "CLIENT_ID", "USERNAME"]) {
    assert.equal(job.env?.[`BACKUP_PORTAL_${key}`], `\${{ vars.BACKUP_PORTAL_${key} }}`, `the connection's ${key} from a variable`);
  }
  const setup = job.steps[node].with!;
  assert.equal(String(setup["node-version"]), "22", "the oldest supported Node.js");
  assert.equal(setup.cache, "npm");
  return job.steps[pulumi].with!;
}

describe("fleet: GitHub Actions workflows", () => {
  it("preview.yml: a refreshed preview with its diff on the pull request, per changed stack", () => {
    const wf = load("preview.yml");
    assert.deepEqual(wf.on.pull_request.branches, ["main"]);
    // No paths filter: which files touch a stack depends on the project's layout, and changed-stacks.js knows it.
    assert.equal(wf.on.pull_request.paths, undefined);
    assert.equal(wf.on.pull_request_target, undefined, "never run pull request code with the base repository's secrets");
    assert.deepEqual(wf.permissions, { contents: "read" });

    const job = wf.jobs.preview;
    const w = checkSetup(job);
    assert.equal(w.command, undefined, "the action installs the CLI; the one preview is the step after it");
    const preview = job.steps.find((s) => s.id === "preview")!;
    assert.match(preview.env!.STACK, /vars\.PULUMI_ORG/);
    assert.match(preview.env!.STACK, /matrix\.stack/);
    assert.equal((preview.run!.match(/pulumi preview/g) ?? []).length, 1);
    assert.equal(
      job.steps.filter((s) => /^\s*pulumi preview /m.test(s.run ?? "")).length,
      1,
      "one preview: the guard and the comment read its JSON",
    );
    assert.match(
      job.steps.find((s) => /gh pr comment/.test(s.run ?? ""))!.if!,
      /always\(\)/,
      "the plan is posted when the guard refuses it",
    );
    assert.equal(job.permissions!["pull-requests"], "write");
    assert.equal(job.needs, "changes");
    assert.equal(job.strategy!.matrix.stack, "${{ fromJSON(needs.changes.outputs.stacks) }}");
    assert.match(job.concurrency!.group, /matrix\.stack/);
    assert.match(job.if!, /needs\.changes\.outputs\.stacks != '\[\]'/);
    // The stacks come from the stack files, not from a list in the workflow.
    assert.match(wf.jobs.changes.steps[1].run!, /changed-stacks\.js\)/);
    assert.doesNotMatch(wf.jobs.changes.steps[1].run!, /--stacks/);
    assert.equal(wf.jobs.test, undefined, "the tests run in test.yml, which has no paths filter");
  });

  it("preview.yml: the plan guard reads the refreshed preview's JSON, after the preview, with the label as --allow", () => {
    const wf = load("preview.yml");
    assert.ok(
      ["labeled", "unlabeled", "synchronize"].every((t) => wf.on.pull_request.types.includes(t)),
      "a label change runs it again",
    );
    const job = wf.jobs.preview;
    // The installed package's command, never `npm run --silent`, which hides npm's "Missing script" as a refusal.
    const at = stepIndex(job, (s) => /npx --no-install backup-portal plan-guard preview\.json/.test(s.run ?? ""));
    const previewAt = stepIndex(job, (s) => s.id === "preview");
    assert.ok(at > previewAt && previewAt > stepIndex(job, (s) => s.uses === PULUMI_ACTION), "after the preview, after the CLI");
    assert.ok(stepIndex(job, (s) => s.id === "guard-installed") < previewAt, "a missing guard is said before the preview");
    assert.doesNotMatch(text("preview.yml"), /npm run --silent/);
    const step = job.steps[at];
    const run = step.run!;
    assert.match(
      job.steps[previewAt].run!,
      /pulumi preview --stack "\$STACK" --refresh --json --non-interactive > preview\.json \|\| status=\$\?/,
    );
    assert.match(run, /--max-deletes "\$MAX_DELETES" --markdown plan\.md "\$\{allow\[@\]\}"/);
    const last = job.steps[job.steps.length - 1];
    assert.match(last.if!, /steps\.preview\.outputs\.status != '0'/, "a failed preview still fails the check");
    assert.equal(step.env!.ALLOW, "${{ contains(github.event.pull_request.labels.*.name, 'allow-tenant-deletion') }}");
    assert.equal(step.env!.MAX_DELETES, "${{ vars.PLAN_GUARD_MAX_DELETES || '0' }}");
    const guard = require(path.join(ROOT, "scripts/plan-guard.js")) as { LABEL: string };
    assert.ok(step.env!.ALLOW.includes(`'${guard.LABEL}'`), "the label the guard names in its message");
  });

  it("test.yml: the tests on every pull request, with no paths filter (a required check must always run)", () => {
    const wf = load("test.yml");
    assert.deepEqual(wf.on.pull_request.branches, ["main"]);
    assert.equal(wf.on.pull_request.paths, undefined);
    assert.equal(wf.on.pull_request["paths-ignore"], undefined);
    assert.deepEqual(wf.permissions, { contents: "read" });
    const test = wf.jobs.test;
    assert.deepEqual(test.strategy!.matrix.node, [22, 24], "every supported Node.js version");
    const node = stepIndex(test, (s) => /^actions\/setup-node@v\d+$/.test(s.uses ?? ""));
    assert.equal(test.steps[node].with!["node-version"], "${{ matrix.node }}");
    const run = (cmd: string) => stepIndex(test, (s) => s.run?.trim() === cmd);
    assert.ok(node >= 0 && node < run("npm ci") && run("npm ci") < run("npm test"), "setup-node, npm ci, then npm test");
    assert.ok(run("npm run lint") > 0 && run("bash scripts/pack-smoke.sh") > run("npm test"), "lint and the package smoke test too");
    assert.equal(test.needs, undefined);
  });

  it("up.yml: pulumi up on push to main, prod behind the production environment, never cancelled", () => {
    const wf = load("up.yml");
    assert.deepEqual(wf.on.push.branches, ["main"]);
    assert.equal(wf.on.push.paths, undefined, "changed-stacks.js decides, in any project layout");
    const job = wf.jobs.up;
    const w = checkSetup(job);
    assert.equal(w.command, "up");
    assert.equal(w["work-dir"], ".");
    assert.match(String(w["stack-name"]), /matrix\.stack/);
    assert.match(job.environment!, /matrix\.stack == 'prod' && 'production'/);
    assert.equal(job.concurrency!["cancel-in-progress"], false);
    assert.match(job.concurrency!.group, /matrix\.stack/);
    assert.equal(job.strategy!["max-parallel"], 1);
    assert.ok(!/pull-requests/.test(JSON.stringify(job.permissions ?? {})));
  });

  it("up.yml and drift.yml: a Pulumi Cloud token through OIDC when PULUMI_OIDC is set, else the secret; no dev,prod list", () => {
    for (const [f, jobName] of [
      ["up.yml", "up"],
      ["drift.yml", "drift"],
    ] as const) {
      const job = load(f).jobs[jobName];
      assert.equal(job.permissions!["id-token"], "write", `${f}: the OIDC token needs id-token: write`);
      const oidc = stepIndex(job, (s) => /^pulumi\/auth-actions@v\d+$/.test(s.uses ?? ""));
      const secret = stepIndex(job, (s) => s.env?.PULUMI_ACCESS_TOKEN === "${{ secrets.PULUMI_ACCESS_TOKEN }}");
      const pulumiCommand = stepIndex(job, (s) => /pulumi (up|preview)/.test(s.name ?? ""));
      assert.ok(oidc > 0 && secret > 0 && oidc < pulumiCommand && secret < pulumiCommand, `${f}: the token before the command`);
      assert.equal(job.steps[oidc].if, "vars.PULUMI_OIDC == 'true'", f);
      assert.equal(job.steps[secret].if, "vars.PULUMI_OIDC != 'true'", f);
      assert.equal(job.steps[oidc].with!["requested-token-type"], "urn:pulumi:token-type:access_token:organization", f);
      assert.equal(job.env?.PULUMI_ACCESS_TOKEN, undefined, `${f}: a job-wide token would shadow the OIDC one`);
    }
    for (const f of ["preview.yml", "up.yml", "drift.yml"]) {
      assert.doesNotMatch(text(f), /dev,prod/, `${f}: the stacks come from stacks/Pulumi.*.yaml`);
      assert.doesNotMatch(text(f), /pulumi\/actions@v(?!7\b)/, `${f}: ${PULUMI_ACTION}`);
    }
  });

  it("hold no plaintext secret: every secret comes from ${{ secrets.* }}", () => {
    for (const f of ["preview.yml", "up.yml", "drift.yml"]) {
      const wf = load(f);
      const envs: Array<[string, string]> = [];
      for (const job of Object.values(wf.jobs)) {
        envs.push(...Object.entries(job.env ?? {}));
        for (const s of job.steps)
          envs.push(...Object.entries(s.env ?? {}), ...Object.entries(s.with ?? {}).map(([k, v]) => [k, String(v)] as [string, string]));
      }
      // requested-token-type names a kind of token (pulumi/auth-actions), it holds none.
      const secretish = envs.filter(
        ([k]) => /token|password|passphrase|secret|credential|private.?key/i.test(k) && k !== "requested-token-type",
      );
      assert.ok(secretish.length >= 3, f);
      for (const [k, v] of secretish) assert.match(v, /^\$\{\{ secrets\.[A-Z_]+ \}\}$/, `${f}: ${k}`);
      const names = secretish.map(([k]) => k);
      for (const k of ["PULUMI_ACCESS_TOKEN", "PULUMI_CONFIG_PASSPHRASE", "BACKUP_PORTAL_PASSWORD"])
        assert.ok(names.includes(k), `${f}: ${k}`);
      const src = text(f);
      assert.ok(!/--show-secrets/.test(src), f);
      assert.ok(
        !/(password|passphrase|token)\s*[:=]\s*["']?[A-Za-z0-9+/]{8,}/i.test(
          src.replace(/\$\{\{[^}]*\}\}/g, "").replace(/requested-token-type: .*$/gm, ""),
        ),
        `${f}: a literal credential?`,
      );
      for (const [k, v] of envs) if (/\bsecrets\./.test(v)) assert.ok(/^\$\{\{ secrets\.[A-Z_]+ \}\}$/.test(v), `${f}: ${k}`);
    }
  });

  describe("changed-stacks.js", () => {
    const stacks = ["dev", "prod"];
    it("previews a stack whose file changed, every stack when the program changed, none for docs", () => {
      assert.deepEqual(changedStacks(["stacks/Pulumi.prod.yaml", "docs/gitops.md"], stacks), ["prod"]);
      assert.deepEqual(changedStacks(["stacks/Pulumi.prod.yaml", "stacks/Pulumi.dev.yaml"], stacks), ["dev", "prod"]);
      for (const f of [
        "provider/resources/node.ts",
        "stacks/program.ts",
        "provider/tenants/validate.ts",
        "Pulumi.yaml",
        "package-lock.json",
        ".github/workflows/up.yml",
        "scripts/plan-guard.js",
      ]) {
        assert.deepEqual(changedStacks([f], stacks), stacks, f);
      }
      for (const f of [
        "docs/gitops.md",
        "README.md",
        "test/fleet/run.test.ts",
        "stacks/fleet/run.ts",
        "stacks/Pulumi.local.yaml",
        "scripts/schema.js",
        "",
      ]) {
        assert.deepEqual(changedStacks([f], stacks), [], f);
      }
    });
    it("takes the stacks from the stack files: every stacks/Pulumi.<stack>.yaml but local, production last", () => {
      const dir = fs.mkdtempSync(path.join(require("os").tmpdir(), "stacks-"));
      try {
        for (const f of ["Pulumi.prod.yaml", "Pulumi.staging.yml", "Pulumi.local.yaml", "Pulumi.dev.yaml", "Pulumi.yaml", "index.ts"])
          fs.writeFileSync(path.join(dir, f), "");
        assert.deepEqual(stackFiles(dir), ["dev", "staging", "prod"]);
        assert.deepEqual(parse(["--dir", dir, "--all"]).stacks, ["dev", "staging", "prod"]);
        assert.throws(() => parse(["--dir", dir, "--stacks", "qa"]), /no stack file for qa/);
        fs.rmSync(path.join(dir, "Pulumi.dev.yaml"));
        assert.deepEqual(parse(["--dir", dir]).stacks, ["staging", "prod"]);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
      // This repository's stacks, as the workflows see them.
      assert.deepEqual(parse([]).stacks, ["dev", "prod"]);
    });
    it("in a project laid out as README step 1 says: the stack files beside Pulumi.yaml, or where stackConfigDir puts them", () => {
      const dir = fs.mkdtempSync(path.join(require("os").tmpdir(), "project-"));
      try {
        fs.writeFileSync(path.join(dir, "Pulumi.yaml"), "name: tenants\nruntime: nodejs\nmain: index.ts\n");
        for (const f of ["Pulumi.prod.yaml", "Pulumi.dev.yaml", "index.ts"]) fs.writeFileSync(path.join(dir, f), "");
        assert.equal(stackDir(dir), ".");
        assert.deepEqual(stackFiles(path.join(dir, ".")), ["dev", "prod"]);
        assert.deepEqual(changedStacks(["Pulumi.prod.yaml", "README.md"], stacks, "."), ["prod"]);
        for (const f of ["index.ts", "src/tenants.ts", "package-lock.json", "Pulumi.yaml", ".github/scripts/changed-stacks.js"])
          assert.deepEqual(changedStacks([f], stacks, "."), stacks, f);
        for (const f of ["docs/runbook.md", ".github/workflows/drift.yml", "test/a.test.ts"])
          assert.deepEqual(changedStacks([f], stacks, "."), [], f);
        // The stack folder's files are stack files only there: a Pulumi.<x>.yaml elsewhere is the program's.
        assert.deepEqual(changedStacks(["stacks/Pulumi.prod.yaml"], stacks, "."), stacks);
        for (const [line, want] of [
          ["stackConfigDir: infra/stacks", "infra/stacks"],
          ['stackConfigDir: "./infra/stacks/"  # the stack files', "infra/stacks"],
          ["stackConfigDir: '.'", "."],
        ]) {
          fs.writeFileSync(path.join(dir, "Pulumi.yaml"), `name: tenants\n${line}\nruntime: nodejs\n`);
          assert.equal(stackDir(dir), want, line);
        }
        assert.deepEqual(changedStacks(["infra/stacks/Pulumi.dev.yaml"], stacks, "infra/stacks"), ["dev"]);
        fs.rmSync(path.join(dir, "Pulumi.yaml"));
        assert.throws(() => stackDir(dir), /no Pulumi\.yaml in .*: run this in the project's folder/);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
    it("accepts only stack names (they end up in a job matrix)", () => {
      assert.deepEqual(parse(["--stacks", "dev, prod", "--all"]), { stacks: ["dev", "prod"], all: true, dir: "stacks" });
      assert.throws(() => parse(["--stacks", "dev,$(curl x)"]), /not a stack name/);
      assert.throws(() => parse(["--stacks", ""]), /at least one/);
    });
  });
});
