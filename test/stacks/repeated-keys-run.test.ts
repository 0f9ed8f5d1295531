// A stack file that writes one config key twice (`tenants:` and `backup-portal:tenants:` in project backup-portal):
// the Pulumi CLI hands the program one of the two at random, so the program reads the stack's file itself and
// refuses it, both lines named. The program runs through the real runtime entry (`@pulumi/pulumi/cmd/run`, as the
// Node.js language host starts it: cli.ts) in a project folder of its own, with the config the CLI would hand it.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { Emulator, startEmulator } from "../../emulator";
import { pwdMain, readProject, runPreview, startFakeEngine } from "./cli";

const ROOT = path.join(__dirname, "..", "..");

describe("the stack program and a key its stack file writes twice", function () {
  // The program under the language host's runner, on a shared 2-core machine.
  this.timeout(600_000);
  let emu: Emulator;
  let dir: string;
  before(async () => {
    emu = await startEmulator({ port: 0, quiet: true });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "repeated-keys-"));
  });
  after(async () => {
    await emu?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("is refused before anything is registered or asked of the portal, each spelling with its line", async () => {
    const main = path.join(ROOT, "stacks", "index.js");
    fs.writeFileSync(
      path.join(dir, "Pulumi.yaml"),
      `name: backup-portal\nruntime:\n  name: nodejs\n  options:\n    typescript: false\nmain: ${main}\nstackConfigDir: stacks\n`,
    );
    fs.mkdirSync(path.join(dir, "stacks"));
    fs.writeFileSync(
      path.join(dir, "stacks", "Pulumi.twice.yaml"),
      "config:\n  backup-portal:rootBusinessUnitId: 1\n  tenants: {}\n  backup-portal:tenants:\n    beta:\n      adoptId: 3\n",
    );
    const project = readProject(dir);
    const engine = await startFakeEngine(project.name, "twice");
    const before = emu.requests().length;
    try {
      // What the CLI hands the program: one of the two blocks, here the empty one (valid on its own).
      const r = await runPreview({
        root: dir,
        location: pwdMain(dir, project.main),
        project,
        stack: "twice",
        engine,
        config: { "backup-portal:rootBusinessUnitId": 1, "backup-portal:tenants": {}, "backup-portal:url": emu.url },
        env: { BACKUP_PORTAL_PASSWORD: "admin" },
        timeoutMs: 400_000,
      });
      const report = `exit ${r.code ?? r.signal}\n${r.output}\n${engine.logs.join("\n")}`;
      const errors = engine.logs.filter((l) => l.startsWith("ERROR: ")).flatMap((l) => l.slice("ERROR: ".length).split("\n"));
      assert.notEqual(r.code, 0, report);
      assert.deepEqual(
        errors,
        [
          "the stack config has 1 problem; nothing was changed:",
          "Pulumi.twice.yaml: backup-portal:tenants: is written twice, as `tenants` (line 3) and `backup-portal:tenants` " +
            "(line 4), which the Pulumi CLI reads as one key, taking one of the values at random on each run; keep one of them",
        ],
        report,
      );
      assert.deepEqual(
        engine.registrations.map((x) => x.type).filter((t) => t !== "pulumi:pulumi:Stack"),
        [],
        report,
      );
      assert.equal(emu.requests().length - before, 0, "not one request to the portal");
    } finally {
      await engine.close();
    }
  });
});
