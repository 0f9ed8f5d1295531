// README step 1 in a project made as a user makes one (issue 45 item 9): `npm init -y` (package.json `"main":
// "index.js"`), README's own index.ts and its `npm pkg set main=...` line, read out of README.md, under the real
// Pulumi CLI against the emulator. Without that line the preview warns that the entry point is missing and prints
// a DEP0128 deprecation warning; with it, neither. The package is linked from this checkout (as npm links a folder).
import { strict as assert } from "node:assert";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { REPO, workspace, Workspace } from "./cli";
import { connectionYaml, emulatorSuite, PORTAL_PASSWORD, portalWrites, setAdminPassword } from "./project";

const README = fs.readFileSync(path.join(REPO, "README.md"), "utf8");

/** README step 1: its index.ts (the ```ts block) and its `npm pkg set main=...` command. */
function stepOne(): { program: string; command: string[] } {
  const step = README.slice(README.indexOf("1. **Install.**"), README.indexOf("2. **Connect.**"));
  const program = /```ts\n([\s\S]*?)```/.exec(step)?.[1].replace(/^ {3}/gm, "");
  const command = /`(npm pkg set main=\S+)`/.exec(step)?.[1];
  assert.ok(program && command, "README step 1 has the program and the npm pkg set line");
  return { program, command: command.split(" ") };
}

const WARNINGS = /Could not find entry point|DeprecationWarning/;

describe("real engine: README step 1 in an `npm init -y` project", function () {
  this.timeout(10 * 60_000);
  const suite = emulatorSuite();

  function project(): Workspace {
    setAdminPassword(suite.emu);
    return suite.keep(
      workspace({
        stack: "dev",
        stackYaml: connectionYaml(suite.emu, "  backup-portal:tenants: {}\n"),
        project: (dir) => {
          const p = path.join(dir, "project");
          fs.mkdirSync(p);
          const init = spawnSync("npm", ["init", "-y"], { cwd: p, encoding: "utf8", timeout: 60_000 });
          assert.equal(init.status, 0, init.stderr);
          assert.equal(JSON.parse(fs.readFileSync(path.join(p, "package.json"), "utf8")).main, "index.js", "npm init -y's entry");
          fs.writeFileSync(path.join(p, "Pulumi.yaml"), "name: my-tenants\nruntime: nodejs\n");
          fs.writeFileSync(path.join(p, "index.ts"), stepOne().program);
          const modules = path.join(p, "node_modules");
          fs.mkdirSync(path.join(modules, "@pulumi"), { recursive: true });
          fs.symlinkSync(REPO, path.join(modules, "backup-portal-pulumi"), "dir");
          for (const dep of ["@pulumi/pulumi", "typescript"])
            fs.symlinkSync(path.join(REPO, "node_modules", dep), path.join(modules, dep), "dir");
          return p;
        },
      }),
    );
  }

  it("with README's npm pkg set line the preview runs index.ts with no warning; without it, both warnings", async () => {
    const ws = project();
    await ws.ok(["stack", "init"]);
    await ws.setSecret("backup-portal:password", PORTAL_PASSWORD);
    const before = await ws.ok(["preview"]);
    assert.match(before.stdout + before.stderr, /Could not find entry point 'index.js'/);
    assert.match(before.stdout + before.stderr, /DEP0128/);

    const [npm, ...args] = stepOne().command;
    const set = spawnSync(npm, args, { cwd: ws.project, encoding: "utf8", timeout: 60_000 });
    assert.equal(set.status, 0, set.stderr);
    const after = await ws.ok(["preview"]);
    assert.doesNotMatch(after.stdout + after.stderr, WARNINGS);
    assert.match(after.stdout, /pulumi:pulumi:Stack/);
    assert.deepEqual(portalWrites(suite.emu), []);
  });
});
