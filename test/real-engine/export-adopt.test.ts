// `backup-portal export` read by the Pulumi CLI itself: a portal whose names, registration numbers, notes and tags
// look like what yaml.v3 or YAML 1.1 read as something else (dates, numbers with `_`, YAML 1.1 booleans,
// octal). The exported stack file, run by the stacks/ program under the CLI, adopts everything with no write,
// and the next preview shows no change. (The CLI reads stack files with yaml.v3 and hands the program its text
// of what it decoded: an unquoted date arrived as "2024-01-01 00:00:00 +0000 UTC" and renamed the unit.)
import { strict as assert } from "node:assert";
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { plant } from "../export/support";
import { envFor, startEmulator, type Emulator } from "../support/portal";
import { REPO, Workspace } from "./cli";
import { PORTAL_PASSWORD, portalWrites, setAdminPassword, stacksWorkspace } from "./project";

/** Text each reader might take for something else than the same string. */
const TRICKY = [
  "2024-01-01",
  "2024-01-01T10:00:00Z",
  "2024-01-01 10:00:00",
  "1_000",
  "yes",
  "No",
  "on",
  "OFF",
  "y",
  "n",
  "0123",
  "0o17",
  "0x1F",
  "1e3",
  "true",
  "~",
  ".inf",
];

function runExport(emu: Emulator, out: string): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [path.join(REPO, "bin/backup-portal.js"), "export", "--bunit", "1", "--out", out, "--no-progress"],
      {
        env: { PATH: process.env.PATH ?? "", ...envFor(emu), BACKUP_PORTAL_PASSWORD: PORTAL_PASSWORD },
        stdio: ["ignore", "ignore", "pipe"],
      },
    );
    let stderr = "";
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stderr }));
  });
}

describe("real engine: an export of tricky tenant text, adopted by the Pulumi CLI", function () {
  this.timeout(10 * 60_000);
  let emu: Emulator;
  let ws: Workspace | undefined;

  before(async () => {
    emu = await startEmulator({ port: 0, quiet: true });
    setAdminPassword(emu);
  });
  after(async () => {
    await emu?.close();
    ws?.remove();
  });

  it("export, then up adopts with no write and the next preview shows no change", async () => {
    // One business unit per tricky text, as its name, registration number, note and tag, with a consumer named
    // the same (a consumer name is a key of the exported file too).
    plant(
      emu,
      TRICKY.map((text, i) => ({
        name: text,
        registrationNumber: text,
        timeZoneId: 1,
        settings: { note: `${text}`, tags: [text] },
        consumers: [{ name: text, note: text, tags: [text] }],
        ...(i === 0 ? { children: [{ name: "1_000", registrationNumber: "0123", timeZoneId: 1 }] } : {}),
      })),
    );
    const portalBefore = emu.state();

    const exported = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "export-")), "Pulumi.adopt.yaml");
    try {
      const r = await runExport(emu, exported);
      assert.equal(r.code, 0, r.stderr);
      // The export's file, which holds the connection it was made with, as the user's stack file.
      const text = fs.readFileSync(exported, "utf8");
      assert.match(text, new RegExp(`^  backup-portal:url: ${emu.url.replace(/[.]/g, "\\.")}$`, "m"), "the export names its portal");
      ws = stacksWorkspace("adopt", text.replace(/^config:\n/m, `config:\n  backup-portal:protectBusinessUnits: false\n`));
    } finally {
      fs.rmSync(path.dirname(exported), { recursive: true, force: true });
    }
    await ws.ok(["stack", "init"]);
    await ws.setSecret("backup-portal:password", PORTAL_PASSWORD);
    // What the CLI hands the program: every tricky text arrives as itself.
    const config = JSON.parse((await ws.ok(["config", "--json"])).stdout);
    const tenants = JSON.parse(config["backup-portal:tenants"].value);
    // The seed's own tenants come along (the export starts at business unit 1); the rest must be the texts as they are.
    const seeded = (name: unknown) => typeof name === "string" && name.startsWith("Tenant ");
    const names: unknown[] = Object.values(tenants).map((t: any) => t.name);
    assert.deepEqual(names.filter((n) => !seeded(n)).sort(), [...TRICKY].sort());
    for (const t of Object.values(tenants) as any[]) {
      if (seeded(t.name)) continue;
      assert.deepEqual([t.registrationNumber, t.note, t.tags], [t.name, t.name, [t.name]], `${t.name}: every value as the portal has it`);
    }

    emu.clearRequests();
    const up = await ws.ok(["up", "--yes"]);
    assert.deepEqual(portalWrites(emu), [], `the adoption wrote:\n${up.stdout}`);
    const after = emu.state();
    assert.deepEqual(after.businessUnits, portalBefore.businessUnits, "the business units are as they were");
    assert.deepEqual(after.consumers, portalBefore.consumers, "the consumers are as they were");

    emu.clearRequests();
    const preview = await ws.ok(["preview", "--diff"]);
    assert.doesNotMatch(preview.stdout, /to (create|update|delete|replace)/);
    assert.deepEqual(portalWrites(emu), []);
  });
});
