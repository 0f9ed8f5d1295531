// Programs on the backupportal plugin's SDKs under the real Pulumi CLI (scripts/pulumi-tools.sh), each against the
// emulator and judged by its request log: the committed TypeScript SDK (examples/sdk-typescript), a Python
// program on the SDK generated from the plugin's schema (the Pulumi SDK from PyPI, scripts/python-venv.sh), and a
// Go program on the generated Go SDK (test/real-engine/go-program). Why the Python and Go paths take the roads
// they do (the hosts the Go module proxy serves): docs/engine.md, "Python" and "Go".
import { strict as assert } from "node:assert";
import { spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { hashSecret } from "../../emulator/util";
import { ORIGIN, type Emulator } from "../support/portal";
import { pulumiTools, REPO, workspace, Workspace } from "./cli";
import { configurePlugin, portalWrites, emulatorSuite } from "./project";

const NODE_PASSWORD = "Node-pw-sdk-3b7e91";

/** Runs a command to its end without blocking the event loop (the emulator answers from this process). */
function runAsync(
  command: string,
  args: string[],
  opts: { cwd: string; env: Record<string, string>; timeoutMs: number },
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: opts.cwd, env: opts.env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), opts.timeoutMs);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Runs a setup step (no portal involved); fails naming `what`, with the end of its output. */
function step(what: string, command: string, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}) {
  const r = spawnSync(command, args, { encoding: "utf8", cwd: opts.cwd, env: opts.env, timeout: opts.timeoutMs ?? 240_000 });
  if (r.error || r.status !== 0) {
    const last = `${r.stderr ?? ""}${r.stdout ?? ""}`.trim().split("\n").slice(-15).join("\n");
    throw new Error(`${what} failed (${r.error?.message ?? `exit ${r.status}`}):\n${last}`);
  }
  return r.stdout;
}

/** The plugin's schema (what GetSchema answers), written to `dir`/schema.json. */
function writeSchema(dir: string): string {
  const file = path.join(dir, "schema.json");
  fs.writeFileSync(
    file,
    step("the plugin's --schema (npm run build first)", process.execPath, [
      path.join(REPO, "bin/pulumi-resource-backupportal"),
      "--schema",
    ]),
  );
  return file;
}

/** `pulumi-gen-sdk <schema> --language <language> --out <out>`: writes <out>/<language> (docs/engine.md, "Python"). */
function genSdk(schema: string, language: "python" | "go", out: string): string {
  step(`pulumi-gen-sdk --language ${language}`, path.join(pulumiTools(), "pulumi-gen-sdk"), [schema, "--language", language, "--out", out]);
  return path.join(out, language);
}

/** The tests' Python virtualenv (.tools/python-venv, made once by scripts/python-venv.sh); its one line when it cannot be made. */
function pythonVenv(): string {
  const r = spawnSync("bash", [path.join(REPO, "scripts/python-venv.sh")], { encoding: "utf8", timeout: 20 * 60_000 });
  if (r.status !== 0) {
    throw new Error(`the Python case needs its virtualenv: ${r.stderr.trim().split("\n").pop() ?? "scripts/python-venv.sh failed"}`);
  }
  return r.stdout.trim().split("\n").pop()!;
}

/** Go on PATH, or one line saying it is missing. */
function goCommand(): string {
  const r = spawnSync("go", ["env", "GOVERSION"], { encoding: "utf8" });
  if (r.error || r.status !== 0) throw new Error("the Go case needs Go on PATH (go 1.26.6 or later, as scripts/pulumi-tools.sh)");
  return "go";
}

/** A workspace whose project folder `fill` writes; the plugin on PATH as a user's installed plugin would be found. */
function sdkWorkspace(stack: string, fill: (project: string, dir: string) => void): Workspace {
  const ws = workspace({
    stack,
    project: (dir) => {
      const project = path.join(dir, "project");
      fs.mkdirSync(project);
      fill(project, dir);
      return project;
    },
  });
  ws.env.PATH = [path.join(REPO, "bin"), ws.env.PATH].join(path.delimiter);
  return ws;
}

/** The backupportal:* config of the default provider, for the emulator's admin. */
/** A new stack for a program on an SDK: the provider config for the emulator, the parent business unit, the node's password. */
async function initSdkStack(ws: Workspace, emu: Emulator): Promise<void> {
  await ws.ok(["stack", "init"]);
  await configurePlugin(ws, emu);
  await ws.ok(["config", "set", "parentBusinessUnitId", "1"]);
  await ws.ok(["config", "set", "--secret", "web01Password", NODE_PASSWORD]);
}

/** The business unit named `name` on the portal with its consumer web01 and that consumer's node WEB01, password set. */
function tenantOnPortal(emu: Emulator, name: string) {
  const s = emu.state();
  const units = s.businessUnits.filter((b) => b.name === name);
  assert.equal(units.length, 1, `one business unit "${name}" on the portal`);
  const consumers = s.consumers.filter((c) => c.businessUnitId === units[0].id);
  assert.deepEqual(
    consumers.map((c) => c.name),
    ["web01"],
    "its one consumer",
  );
  const nodes = s.nodes.filter((n) => n.consumerId === consumers[0].id);
  assert.equal(nodes.length, 1, "the consumer's one node");
  assert.equal(nodes[0].tsmName, "WEB01");
  return { unit: units[0], consumer: consumers[0], node: nodes[0] };
}

/** The node password is nowhere in plain text in the stack's state. */
async function assertNoPlainSecrets(ws: Workspace): Promise<void> {
  const state = (await ws.ok(["stack", "export"])).stdout;
  assert.ok(!state.includes(NODE_PASSWORD), "the node password is not in the state in plain text");
}

/**
 * The lifecycle every case checks: `up` creates the tenant; an unchanged preview and up write nothing; `destroy`
 * deletes it. `run` runs one CLI command of the case's own kind and answers its output.
 */
async function lifecycle(
  emu: Emulator,
  ws: Workspace,
  name: string,
  run: (command: "up" | "preview" | "destroy") => Promise<string>,
  expect: { created: RegExp; unchanged: RegExp },
): Promise<void> {
  emu.clearRequests();
  assert.match(await run("up"), expect.created);
  const { node } = tenantOnPortal(emu, name);
  assert.equal(node.passwordHash, hashSecret(NODE_PASSWORD, `node-${node.id}`), "the node's password is the program's secret");
  assert.ok(
    portalWrites(emu).every((w) => w.startsWith("POST ") || w.startsWith("PUT ")),
    `the first up only creates: ${portalWrites(emu).join(", ")}`,
  );
  await assertNoPlainSecrets(ws);

  emu.clearRequests();
  assert.match(await run("preview"), expect.unchanged);
  assert.match(await run("up"), expect.unchanged);
  assert.deepEqual(portalWrites(emu), [], "an unchanged preview and up write nothing");

  emu.clearRequests();
  await run("destroy");
  assert.ok(!emu.state().businessUnits.some((b) => b.name === name), "destroy deleted the business unit");
  assert.ok(portalWrites(emu).some((w) => w.startsWith("DELETE ")));
}

describe("real engine: programs on the plugin's SDKs under the Pulumi CLI", function () {
  this.timeout(30 * 60_000);
  const suite = emulatorSuite();
  const open = suite.keep;

  it("examples/sdk-typescript on the TypeScript SDK (sdk/nodejs): up creates, an unchanged preview and up write nothing, destroy", async function () {
    this.timeout(10 * 60_000);
    const example = path.join(REPO, "examples", "sdk-typescript");
    const ws = open(
      sdkWorkspace("dev", (project) => {
        for (const f of ["Pulumi.yaml", "package.json", "index.ts"]) fs.copyFileSync(path.join(example, f), path.join(project, f));
        // node_modules as `npm install` would leave it: @pulumi/pulumi and TypeScript from the repository's own
        // install (the lockfile's versions), and the SDK package built from sdk/nodejs as its `npm run build` does.
        const modules = path.join(project, "node_modules");
        for (const dep of ["@pulumi/pulumi", "typescript"]) {
          fs.mkdirSync(path.dirname(path.join(modules, dep)), { recursive: true });
          fs.symlinkSync(path.join(REPO, "node_modules", dep), path.join(modules, dep), "dir");
        }
        const sdk = path.join(modules, "@backup-portal", "backupportal");
        fs.mkdirSync(sdk, { recursive: true });
        fs.copyFileSync(path.join(REPO, "sdk", "nodejs", "package.json"), path.join(sdk, "package.json"));
        const tsc = path.join(REPO, "node_modules", "typescript", "bin", "tsc");
        step("tsc -p sdk/nodejs", process.execPath, [tsc, "-p", path.join(REPO, "sdk", "nodejs"), "--outDir", path.join(sdk, "bin")]);
      }),
    );
    await ws.ok(["stack", "init"]);
    const config: Array<[string, string, boolean?]> = [
      ["portalUrl", suite.emu.url],
      ["portalOrigin", ORIGIN],
      ["portalClientId", "emulator"],
      ["portalUsername", "admin"],
      ["portalPassword", "admin", true],
      ["parentBusinessUnitId", "1"],
      ["web01Password", NODE_PASSWORD, true],
    ];
    for (const [key, value, secret] of config) await ws.ok(["config", "set", ...(secret ? ["--secret"] : []), key, value]);

    await lifecycle(
      suite.emu,
      ws,
      "Acme Ltd",
      async (command) => {
        const args = command === "preview" ? ["preview", "--diff"] : [command, "--yes"];
        const out = (await ws.ok(args)).stdout;
        if (command === "up" && /created/.test(out)) {
          const outputs = JSON.parse((await ws.ok(["stack", "output", "--json"])).stdout);
          const { unit, consumer } = tenantOnPortal(suite.emu, "Acme Ltd");
          assert.deepEqual(outputs, {
            businessUnitId: unit.id,
            consumerId: consumer.id,
            nodeName: "WEB01",
            nodePassword: "[secret]",
            portalName: "Acme Ltd",
          });
        }
        return out;
      },
      { created: /\+ 5 created/, unchanged: /5 unchanged/ },
    );
  });

  it("a Python program on the SDK generated from the plugin's schema (the Pulumi SDK from PyPI): up, unchanged preview and up, destroy", async function () {
    this.timeout(20 * 60_000);
    const venv = pythonVenv();
    const python = path.join(venv, "bin", "python");
    const ws = open(
      sdkWorkspace("dev", (project, dir) => {
        const sdk = genSdk(writeSchema(dir), "python", path.join(dir, "sdk"));
        // The generated package, installed as `pip install ./sdk/python` would, into a folder of its own
        // (PYTHONPATH), so the shared virtualenv stays as tools/python/requirements.txt made it.
        step(
          "pip install the generated SDK",
          python,
          ["-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation", "--no-index", "--target", path.join(dir, "site"), sdk],
          { env: { ...process.env, PIP_NO_INPUT: "1" } },
        );
        fs.writeFileSync(path.join(project, "Pulumi.yaml"), "name: backupportal-python\nruntime: python\n");
        fs.writeFileSync(
          path.join(project, "__main__.py"),
          [
            "import pulumi",
            "import pulumi_backupportal as backupportal",
            "",
            "config = pulumi.Config()",
            "acme = backupportal.BusinessUnit(",
            '    "acme",',
            '    parent_id=config.require_int("parentBusinessUnitId"),',
            '    name="Acme Python Ltd",',
            '    registration_number="556677-8899",',
            '    time_zone="W. Europe Standard Time",',
            '    note="Managed from Python",',
            ")",
            'web = backupportal.Consumer("web", business_unit_id=acme.id, name="web01", node_name="WEB01")',
            "node = backupportal.Node(",
            '    "web",',
            "    business_unit_id=acme.id,",
            "    consumer_id=web.id,",
            '    operating_system="Linux",',
            '    type="File server",',
            '    domain="STANDARD",',
            "    cpu_count=2,",
            '    tsm_name="WEB01",',
            '    tsm_password=config.require_secret("web01Password"),',
            ")",
            'pulumi.export("businessUnitId", acme.business_unit_id)',
            'pulumi.export("nodeName", node.activated_name)',
            "",
          ].join("\n"),
        );
      }),
    );
    // The v3.68.0 Python host runs `python` from PATH (the CLI no longer hands it Pulumi.yaml's virtualenv
    // option): the virtualenv first on PATH, as `activate` puts it, and the generated SDK on PYTHONPATH.
    Object.assign(ws.env, {
      PATH: [path.join(venv, "bin"), ws.env.PATH].join(path.delimiter),
      VIRTUAL_ENV: venv,
      PYTHONPATH: path.join(ws.dir, "site"),
      PYTHONDONTWRITEBYTECODE: "1",
    });
    await initSdkStack(ws, suite.emu);

    await lifecycle(
      suite.emu,
      ws,
      "Acme Python Ltd",
      async (command) => {
        const args = command === "preview" ? ["preview", "--diff"] : [command, "--yes"];
        const out = (await ws.ok(args)).stdout;
        if (command === "up" && /created/.test(out)) {
          const outputs = JSON.parse((await ws.ok(["stack", "output", "--json"])).stdout);
          assert.deepEqual(outputs, { businessUnitId: tenantOnPortal(suite.emu, "Acme Python Ltd").unit.id, nodeName: "WEB01" });
        }
        return out;
      },
      { created: /\+ 4 created/, unchanged: /4 unchanged/ },
    );
  });

  it("a Go program on the generated Go SDK builds, and runs inline through the Automation API and the CLI", async function () {
    this.timeout(25 * 60_000);
    const go = goCommand();
    let program = "";
    const ws = open(
      sdkWorkspace("dev", (project, dir) => {
        // A copy of test/real-engine/go-program with the generated SDK in its ./sdk (go.mod's replace).
        const src = path.join(dir, "go-program");
        fs.mkdirSync(src);
        for (const f of ["go.mod", "go.sum", "main.go", "drive.go"]) {
          fs.copyFileSync(path.join(REPO, "test", "real-engine", "go-program", f), path.join(src, f));
        }
        genSdk(writeSchema(dir), "go", path.join(src, "sdk"));
        // The generated Go SDK has no go.mod of its own: the module its import path names, needing what its code imports.
        fs.writeFileSync(
          path.join(src, "sdk", "go.mod"),
          "module example.com/pulumi-backupportal/sdk\n\ngo 1.24\n\nrequire (\n\tgithub.com/blang/semver v3.5.1+incompatible\n\tgithub.com/pulumi/pulumi/sdk/v3 v3.260.0\n)\n",
        );
        program = path.join(src, "go-program");
        // -mod=readonly: go.mod and go.sum as committed (nothing resolved anew); -trimpath as the CLI's build,
        // whose build cache then serves most packages.
        step("go build of test/real-engine/go-program", go, ["build", "-trimpath", "-o", program, "."], {
          cwd: src,
          env: { ...process.env, GOFLAGS: "-mod=readonly", GOTOOLCHAIN: "local" },
          timeoutMs: 20 * 60_000,
        });
        fs.writeFileSync(path.join(project, "Pulumi.yaml"), "name: backupportal-go\nruntime: go\n");
      }),
    );
    await initSdkStack(ws, suite.emu);

    await lifecycle(
      suite.emu,
      ws,
      "Acme Go Ltd",
      async (command) => {
        const r = await runAsync(program, [command, ws.stack], { cwd: ws.project, env: ws.env, timeoutMs: 240_000 });
        assert.equal(r.code, 0, `go-program ${command} exited ${r.code}:\n${r.stdout}\n${r.stderr}`);
        const summary = JSON.parse(r.stdout.trim().split("\n").pop()!);
        if (command === "up" && summary.changes.create) {
          assert.deepEqual(summary.outputs, {
            businessUnitId: tenantOnPortal(suite.emu, "Acme Go Ltd").unit.id,
            nodeName: "WEB01",
            nodePassword: "[secret]",
          });
        }
        return JSON.stringify(summary.changes);
      },
      { created: /^\{"create":4\}$/, unchanged: /^\{"same":4\}$/ },
    );
  });
});
