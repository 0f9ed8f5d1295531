// The import file in TypeScript, Python and Go projects: `pulumi import --file` with --generate-code=false (the
// Node.js and Python language hosts built here, from sdk/v3 v3.68.0, cannot generate code: "method GenerateProgram
// not implemented"; no Go host can be built at all), then a program on the language's SDK that declares the same
// resources with the same names and parents, whose preview is unchanged. Judged by the emulator's request log: no
// write anywhere.
import { strict as assert } from "node:assert";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { exportCli } from "../export/support";
import { archiveSdk, generateLanguageSdk } from "../../scripts/gen-sdk";
import { pulumiTools, REPO, workspace, type Workspace } from "./cli";
import { configurePlugin, emulatorSuite, portalWrites } from "./project";
import { counted, goArgFields, goProgram, plantHostile, pythonProgram, typescriptProgram } from "./import-file";
import { pythonVenv, runAsync, typescriptSdkModules } from "./sdk-projects";

describe("real engine: the import file in TypeScript, Python and Go projects, on their SDKs", function () {
  this.timeout(15 * 60_000);
  const suite = emulatorSuite();

  /**
   * A project `fill` writes, the plugin on PATH; the seeded portal exported into it and imported with
   * --generate-code=false (no write, each resource read twice); then the program `write` makes from the import
   * file and the state previews unchanged, with no write.
   */
  async function importThenPreview(
    stack: string,
    fill: (project: string) => void,
    write: (project: string, entries: any[], state: any) => void,
    env: (ws: Workspace) => Record<string, string> = () => ({}),
    preview: (ws: Workspace, entries: any[]) => Promise<void> = cliPreview,
  ): Promise<void> {
    plantHostile(suite.emu);
    const ws = suite.keep(
      workspace({
        stack,
        project: (dir) => {
          const project = path.join(dir, "project");
          fs.mkdirSync(project);
          fill(project);
          return project;
        },
      }),
    );
    Object.assign(ws.env, env(ws));
    ws.env.PATH = [path.join(REPO, "bin"), ws.env.PATH].join(path.delimiter);
    await ws.ok(["stack", "init"]);
    await configurePlugin(ws, suite.emu);
    const file = path.join(ws.dir, "import.json");
    const exported = await exportCli(suite.emu, ["--bunit", "1", "--format", "pulumi-import", "--out", file, "--no-progress"]);
    assert.equal(exported.code, 0, exported.err);
    const entries = JSON.parse(fs.readFileSync(file, "utf8")).resources;

    suite.emu.clearRequests();
    const imported = await ws.ok(["import", "--file", file, "--yes", "--generate-code=false"]);
    assert.match(imported.stdout, new RegExp(`${entries.length} imported`));
    assert.deepEqual(portalWrites(suite.emu), [], "the import only reads");
    assert.equal(counted(suite.emu).reads, 2 * entries.length, "each resource read twice: the import's preview, then the import");

    write(ws.project, entries, JSON.parse((await ws.ok(["stack", "export"])).stdout));
    suite.emu.clearRequests();
    await preview(ws, entries);
    assert.deepEqual(portalWrites(suite.emu), []);
  }

  /** `pulumi preview --diff`: the resources and the stack unchanged, nothing to create, update, delete or replace. */
  async function cliPreview(ws: Workspace, entries: any[]): Promise<void> {
    const preview = await ws.ok(["preview", "--diff"]);
    assert.match(preview.stdout, new RegExp(`${entries.length + 1} unchanged`), preview.stdout);
    assert.doesNotMatch(preview.stdout, /to (create|update|delete|replace)/);
  }

  it("TypeScript: import with --generate-code=false writes nothing; a program on sdk/nodejs declaring the same resources previews unchanged", async () => {
    await importThenPreview(
      "ts",
      (project) => {
        fs.writeFileSync(
          path.join(project, "Pulumi.yaml"),
          "name: adopted\nruntime:\n  name: nodejs\n  options:\n    typescript: true\nmain: index.ts\n",
        );
        fs.writeFileSync(path.join(project, "package.json"), '{ "name": "adopted", "private": true, "main": "index.ts" }\n');
        fs.writeFileSync(path.join(project, "index.ts"), "export {};\n");
        typescriptSdkModules(project);
      },
      (project, entries, state) => fs.writeFileSync(path.join(project, "index.ts"), typescriptProgram(entries, state)),
    );
  });

  it("Python: import with --generate-code=false writes nothing; a program on the generated Python SDK declaring the same resources previews unchanged", async function () {
    this.timeout(20 * 60_000);
    const venv = pythonVenv();
    const sdk = fs.mkdtempSync(path.join(os.tmpdir(), "import-file-python-sdk-"));
    try {
      // The release's archive, installed as `pip install` would (the SDK reads its version from the package's
      // metadata), into a folder of its own so the shared virtualenv stays as it is.
      await generateLanguageSdk("python", sdk, path.join(pulumiTools(), "pulumi-gen-sdk"));
      const archive = archiveSdk("python", sdk, path.join(sdk, "assets"));
      const pip = spawnSync(
        path.join(venv, "bin", "python"),
        ["-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation", "--no-index", "--target", path.join(sdk, "site"), archive],
        { encoding: "utf8", env: { ...process.env, PIP_NO_INPUT: "1" }, timeout: 240_000 },
      );
      assert.equal(pip.status, 0, `pip install of the Python SDK: ${pip.stdout}${pip.stderr}`);
      await importThenPreview(
        "py",
        (project) => {
          fs.writeFileSync(path.join(project, "Pulumi.yaml"), "name: adopted\nruntime: python\n");
          fs.writeFileSync(path.join(project, "__main__.py"), "");
        },
        (project, entries, state) => fs.writeFileSync(path.join(project, "__main__.py"), pythonProgram(entries, state)),
        // As the virtualenv's `activate` leaves the shell (the v3.68 Python host runs `python` from PATH), and the
        // generated SDK on PYTHONPATH (sdks.test.ts installs the release's archive of the same package).
        (ws) => ({
          PATH: [path.join(venv, "bin"), ws.env.PATH].join(path.delimiter),
          VIRTUAL_ENV: venv,
          PYTHONPATH: path.join(sdk, "site"),
          PYTHONDONTWRITEBYTECODE: "1",
        }),
      );
    } finally {
      fs.rmSync(sdk, { recursive: true, force: true });
    }
  });

  it("Go: import with --generate-code=false writes nothing; a program on the generated Go SDK declaring the same resources previews unchanged", async function () {
    this.timeout(25 * 60_000);
    const go = spawnSync("go", ["env", "GOVERSION"], { encoding: "utf8" });
    assert.equal(go.status, 0, "the Go case needs Go on PATH (go 1.26.6 or later, as scripts/pulumi-tools.sh)");
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "import-file-go-"));
    try {
      // test/real-engine/go-program's module (go.mod, go.sum, drive.go: the Automation API runs the program inline,
      // as no Go language host can be built here) with the generated Go SDK in its ./sdk (go.mod's replace).
      const src = path.join(dir, "program");
      fs.mkdirSync(src);
      for (const f of ["go.mod", "go.sum", "drive.go"])
        fs.copyFileSync(path.join(REPO, "test", "real-engine", "go-program", f), path.join(src, f));
      const sdk = await generateLanguageSdk("go", path.join(dir, "sdk"), path.join(pulumiTools(), "pulumi-gen-sdk"));
      fs.cpSync(sdk, path.join(src, "sdk", "go"), { recursive: true });
      const binary = path.join(dir, "go-program");
      await importThenPreview(
        "go",
        // The CLI loads the project's language host for the import too, and no Go host can be built here: the
        // import runs with the project as YAML (the same name and stack, so the same URNs), then it is Go again.
        (project) => fs.writeFileSync(path.join(project, "Pulumi.yaml"), "name: adopted\nruntime: yaml\n"),
        (project, entries, state) => {
          fs.writeFileSync(path.join(project, "Pulumi.yaml"), "name: adopted\nruntime: go\n");
          fs.writeFileSync(path.join(src, "main.go"), goProgram(entries, state, goArgFields(path.join(src, "sdk", "go", "backupportal"))));
          const built = spawnSync("go", ["build", "-trimpath", "-o", binary, "."], {
            cwd: src,
            encoding: "utf8",
            env: { ...process.env, GOFLAGS: "-mod=readonly", GOTOOLCHAIN: "local" },
            timeout: 20 * 60_000,
          });
          assert.equal(built.status, 0, `go build of the program: ${built.stdout}${built.stderr}`);
        },
        () => ({}),
        async (ws, entries) => {
          const r = await runAsync(binary, ["preview", ws.stack], { cwd: ws.project, env: ws.env, timeoutMs: 240_000 });
          assert.equal(r.code, 0, `go-program preview exited ${r.code}:\n${r.stdout}\n${r.stderr}`);
          const summary = JSON.parse(r.stdout.trim().split("\n").pop()!);
          assert.deepEqual(summary.changes, { same: entries.length + 1 }, r.stderr);
        },
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
