// The import file in a TypeScript project: `pulumi import --file` with --generate-code=false (the Node.js language
// host built here, from sdk/v3 v3.68.0, cannot generate code: "method GenerateProgram not implemented"), then a
// program on the TypeScript SDK (sdk/nodejs) that declares the same resources with the same names and parents, whose
// preview is unchanged. Judged by the emulator's request log: no write anywhere.
import { strict as assert } from "node:assert";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { exportCli } from "../export/support";
import { REPO, workspace } from "./cli";
import { configurePlugin, emulatorSuite, portalWrites } from "./project";
import { counted, plantHostile, typescriptProgram } from "./import-file";

/** node_modules as `npm install` leaves it for a program on the SDK: @pulumi/pulumi from the repository, the SDK built from sdk/nodejs. */
function typescriptModules(project: string): void {
  const modules = path.join(project, "node_modules");
  for (const dep of ["@pulumi/pulumi", "typescript"]) {
    fs.mkdirSync(path.dirname(path.join(modules, dep)), { recursive: true });
    fs.symlinkSync(path.join(REPO, "node_modules", dep), path.join(modules, dep), "dir");
  }
  const sdk = path.join(modules, "@backup-portal", "backupportal");
  fs.mkdirSync(sdk, { recursive: true });
  fs.copyFileSync(path.join(REPO, "sdk", "nodejs", "package.json"), path.join(sdk, "package.json"));
  const tsc = path.join(REPO, "node_modules", "typescript", "bin", "tsc");
  const r = spawnSync(process.execPath, [tsc, "-p", path.join(REPO, "sdk", "nodejs"), "--outDir", path.join(sdk, "bin")], {
    encoding: "utf8",
    timeout: 240_000,
  });
  assert.equal(r.status, 0, `tsc -p sdk/nodejs: ${r.stdout}${r.stderr}`);
}

describe("real engine: the import file in a TypeScript project, on the TypeScript SDK", function () {
  this.timeout(15 * 60_000);
  const suite = emulatorSuite();

  it("import with --generate-code=false writes nothing; a program declaring the same resources previews unchanged", async () => {
    plantHostile(suite.emu);
    const ws = suite.keep(
      workspace({
        stack: "ts",
        project: (dir) => {
          const project = path.join(dir, "project");
          fs.mkdirSync(project);
          fs.writeFileSync(
            path.join(project, "Pulumi.yaml"),
            "name: adopted\nruntime:\n  name: nodejs\n  options:\n    typescript: true\nmain: index.ts\n",
          );
          fs.writeFileSync(path.join(project, "package.json"), '{ "name": "adopted", "private": true, "main": "index.ts" }\n');
          fs.writeFileSync(path.join(project, "index.ts"), "export {};\n");
          typescriptModules(project);
          return project;
        },
      }),
    );
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

    const state = JSON.parse((await ws.ok(["stack", "export"])).stdout);
    fs.writeFileSync(path.join(ws.project, "index.ts"), typescriptProgram(entries, state));
    suite.emu.clearRequests();
    const preview = await ws.ok(["preview", "--diff"]);
    // The resources and the stack; nothing to create, update, delete or replace.
    assert.match(preview.stdout, new RegExp(`${entries.length + 1} unchanged`), preview.stdout);
    assert.doesNotMatch(preview.stdout, /to (create|update|delete|replace)/);
    assert.deepEqual(portalWrites(suite.emu), []);
  });
});
