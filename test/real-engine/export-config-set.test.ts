// The stack file `backup-portal export` writes, and the lines a merge adds to one, as the Pulumi CLI itself leaves
// them: after `pulumi stack init` and `pulumi config set --secret backup-portal:password`, every byte export wrote
// is still there (the CLI writes each top-level config value back as a string, so `rootBusinessUnitId: 1` came back
// as `"1"`: a diff in the user's first commit nobody asked for). Only the CLI's own lines are added.
import { strict as assert } from "node:assert";
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { plant } from "../export/support";
import { envFor, type Emulator } from "../support/portal";
import { REPO, workspace } from "./cli";
import { emulatorSuite } from "./project";

/** `backup-portal export <args>` by the real binary, in `cwd`, as a user runs it. */
function backupPortal(emu: Emulator, cwd: string, args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(REPO, "bin/backup-portal.js"), ...args, "--no-progress"], {
      cwd,
      env: { PATH: process.env.PATH ?? "", ...envFor(emu) },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (d) => (stderr += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.on("error", reject);
    child.on("close", (code) => (clearTimeout(timer), resolve({ code, stderr })));
  });
}

/** The file without the lines the CLI adds of its own: the password's secure value and the stack's salt. */
const withoutCliLines = (text: string) =>
  text.replace(/^ {2}backup-portal:password:\n {4}secure: \S+\n/m, "").replace(/^encryptionsalt: \S+\n/m, "");

/** A project folder (Pulumi.yaml only: neither command runs the program). */
const project = (dir: string) => {
  const p = path.join(dir, "project");
  fs.mkdirSync(p);
  fs.writeFileSync(path.join(p, "Pulumi.yaml"), "name: exported\nruntime: nodejs\n");
  return p;
};

/** Text a writer might spell another way than yaml.v3 does: long, multi-line, quoted, non-ASCII. */
function plantTricky(emu: Emulator): void {
  plant(emu, [
    {
      name: "Acme Labs",
      registrationNumber: "0123",
      timeZoneId: 1,
      settings: {
        note: `a note longer than eighty characters, ${"so that a writer that folds lines would fold it ".repeat(2)}`,
        tags: ["yes", "1_000"],
      },
      consumers: [
        { name: "db: 01", note: "first line\nsecond line", tags: ["ü", '"quoted"'], node: { os: 1, type: 1, domain: 1, cpuCount: 2 } },
      ],
    },
  ]);
}

describe("real engine: the exported stack file, after pulumi stack init and config set", function () {
  this.timeout(5 * 60_000);
  const suite = emulatorSuite();

  it("export --out, then stack init and config set: the exported bytes are all still there", async () => {
    plantTricky(suite.emu);
    const ws = suite.keep(workspace({ stack: "dev", project }));
    const r = await backupPortal(suite.emu, ws.project, ["export", "--bunit", "1", "--out", "Pulumi.dev.yaml"]);
    assert.equal(r.code, 0, r.stderr);
    const exported = fs.readFileSync(ws.stackFile, "utf8");
    assert.match(exported, /rootBusinessUnitId/);

    await ws.ok(["stack", "init"]);
    await ws.setSecret("backup-portal:password", "admin");
    const after = fs.readFileSync(ws.stackFile, "utf8");
    assert.match(after, /backup-portal:password:\n {4}secure: /, "the CLI wrote the password");
    assert.equal(withoutCliLines(after), exported, "the CLI changed what export wrote");
  });

  it("config set, then export --merge, then config set: the lines the merge added are all still there", async () => {
    plantTricky(suite.emu);
    const ws = suite.keep(workspace({ stack: "dev", project }));
    await ws.ok(["stack", "init"]);
    await ws.ok(["config", "set", "backup-portal:url", suite.emu.url]);
    const r = await backupPortal(suite.emu, ws.project, ["export", "--bunit", "1", "--merge", "Pulumi.dev.yaml"]);
    assert.equal(r.code, 0, r.stderr);
    const merged = fs.readFileSync(ws.stackFile, "utf8");
    assert.match(merged, /rootBusinessUnitId/, "the merge added the root business unit");

    await ws.setSecret("backup-portal:password", "admin");
    assert.equal(withoutCliLines(fs.readFileSync(ws.stackFile, "utf8")), withoutCliLines(merged), "the CLI changed what the merge wrote");
  });
});
