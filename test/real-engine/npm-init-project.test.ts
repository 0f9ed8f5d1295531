// README step 1 in a project made as a user makes one: `npm init -y` (package.json `"main": "index.js"`), README's
// own index.js (the ```js block) and its Pulumi.yaml (the ```yaml block, `typescript: false`, no `main`), read out of
// README.md, under the real Pulumi CLI against the emulator. The program runs as it is, from the entry npm init
// wrote: no "Could not find entry point" and no DEP0128 deprecation warning, an `up` makes the tenant, and the
// preview after it plans nothing and writes nothing. The package is linked from this checkout (as npm links a
// folder), with @pulumi/pulumi and nothing else: no typescript, no tsconfig.json.
import { strict as assert } from "node:assert";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import YAML from "yaml";
import { REPO, workspace, Workspace } from "./cli";
import { connectionYaml, emulatorSuite, PORTAL_PASSWORD, portalWrites, setAdminPassword } from "./project";

const README = fs.readFileSync(path.join(REPO, "README.md"), "utf8");

/** README step 1: its index.js (the ```js block) and its Pulumi.yaml (the ```yaml block). */
function stepOne(): { program: string; pulumiYaml: string } {
  const step = README.slice(README.indexOf("1. **Install.**"), README.indexOf("2. **Connect.**"));
  const block = (lang: string) => new RegExp("```" + lang + "\\n([\\s\\S]*?)```").exec(step)?.[1].replace(/^ {3}/gm, "");
  const program = block("js");
  const pulumiYaml = block("yaml");
  assert.ok(program && pulumiYaml, "README step 1 has the program (```js) and its Pulumi.yaml (```yaml)");
  return { program, pulumiYaml };
}

const WARNINGS = /Could not find entry point|DeprecationWarning|DEP0128/;

const TENANTS = [
  "  backup-portal:protectBusinessUnits: false",
  "  backup-portal:tenants:",
  "    acme:",
  "      name: Acme AB",
  '      registrationNumber: "556677-8899"',
  "      timeZone: W. Europe Standard Time",
  "",
].join("\n");

describe("real engine: README step 1 in an `npm init -y` project", function () {
  this.timeout(10 * 60_000);
  const suite = emulatorSuite();

  function project(): Workspace {
    setAdminPassword(suite.emu);
    return suite.keep(
      workspace({
        stack: "dev",
        stackYaml: connectionYaml(suite.emu, TENANTS),
        project: (dir) => {
          const p = path.join(dir, "project");
          fs.mkdirSync(p);
          const init = spawnSync("npm", ["init", "-y"], { cwd: p, encoding: "utf8", timeout: 60_000 });
          assert.equal(init.status, 0, init.stderr);
          assert.equal(JSON.parse(fs.readFileSync(path.join(p, "package.json"), "utf8")).main, "index.js", "npm init -y's entry");
          const { program, pulumiYaml } = stepOne();
          fs.writeFileSync(path.join(p, "Pulumi.yaml"), pulumiYaml);
          fs.writeFileSync(path.join(p, "index.js"), program);
          const modules = path.join(p, "node_modules");
          fs.mkdirSync(path.join(modules, "@pulumi"), { recursive: true });
          fs.symlinkSync(REPO, path.join(modules, "backup-portal-pulumi"), "dir");
          fs.symlinkSync(path.join(REPO, "node_modules", "@pulumi", "pulumi"), path.join(modules, "@pulumi", "pulumi"), "dir");
          return p;
        },
      }),
    );
  }

  it("README's index.js and Pulumi.yaml run from npm init's entry with no warning; the preview after the up plans nothing", async () => {
    const ws = project();
    // What README says the project needs: JavaScript as it is, and no `main` of its own (package.json's is right).
    const yaml = YAML.parse(fs.readFileSync(path.join(ws.project, "Pulumi.yaml"), "utf8")) as {
      runtime: { name: string; options?: { typescript?: boolean } };
      main?: string;
    };
    assert.deepEqual([yaml.runtime.name, yaml.runtime.options?.typescript, yaml.main], ["nodejs", false, undefined]);

    await ws.ok(["stack", "init"]);
    await ws.setSecret("backup-portal:password", PORTAL_PASSWORD);
    const first = await ws.ok(["preview"]);
    assert.doesNotMatch(first.stdout + first.stderr, WARNINGS);
    assert.match(first.stdout, /BusinessUnit\s+acme\s+create/);

    const up = await ws.ok(["up", "--yes"]);
    assert.doesNotMatch(up.stdout + up.stderr, WARNINGS);
    assert.ok(
      suite.emu.state().businessUnits.some((b) => b.name === "Acme AB"),
      "the tenant on the portal",
    );

    suite.emu.clearRequests();
    const again = await ws.ok(["preview", "--json"]);
    assert.doesNotMatch(again.stdout + again.stderr, WARNINGS);
    const digest = JSON.parse(again.stdout) as { steps?: { op: string; urn: string }[]; changeSummary?: Record<string, number> };
    const changes = (digest.steps ?? []).filter((s) => s.op !== "same").map((s) => `${s.op} ${s.urn}`);
    assert.deepEqual(changes, [], "the second preview plans nothing");
    assert.deepEqual(Object.keys(digest.changeSummary ?? {}), ["same"], JSON.stringify(digest.changeSummary));
    assert.deepEqual(portalWrites(suite.emu), []);
  });
});
