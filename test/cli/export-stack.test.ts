// `--stack <name>` (export, validate, doctor): the portal settings from the stack's file instead of BACKUP_PORTAL_*, its
// secret ones decrypted by the Pulumi CLI (`pulumi config --show-secrets --json`, the secret on the CLI's stdout,
// never in an argument). The real CLI with a file backend and a passphrase, in a project whose stack files live
// in stackConfigDir; the real binary run there as a user runs it; the emulator on loopback, with an account whose
// password only the stack holds.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { backupPortal as binaryIn } from "./process";
import { startEmulator, Emulator } from "../../emulator";
import { hashSecret } from "../../emulator/util";
import { findPulumi, stackSettings } from "../../provider/cli/stack-settings";
import { ORIGIN, writes } from "../support/portal";
import { workspace, Workspace } from "../real-engine/cli";

/** The account's password: in the stack as a secret, nowhere else. */
const PASSWORD = "Stack-Only-Secret-7f3a";
const USERNAME = "stack-operator";

interface Ran {
  code: number | null;
  out: string;
  err: string;
}

/** The real binary (asynchronous: the emulator answers from this process). */
function backupPortal(args: string[], cwd: string, env: Record<string, string>, timeoutMs = 120_000): Promise<Ran> {
  return binaryIn(args, { cwd, env, timeoutMs });
}

const TENANTS = ["  backup-portal:tenants:", "    acme:", '      registrationNumber: "556000-0001"', "      timeZone: UTC", ""].join("\n");

describe("--stack: the portal settings from the stack file and its secrets through the Pulumi CLI", function () {
  this.timeout(600_000);
  let emu: Emulator;
  let ws: Workspace;
  before(async () => {
    emu = await startEmulator({ quiet: true });
    emu.update((s) => {
      s.users.push({
        id: 90,
        createdDate: "2024-01-01T00:00:00Z",
        username: USERNAME,
        passwordSalt: "stack-salt",
        passwordHash: hashSecret(PASSWORD, "stack-salt"),
        businessUnitId: 1,
      });
    });
    ws = workspace({
      stack: "prod",
      project: (dir) => {
        const project = path.join(dir, "project");
        fs.mkdirSync(path.join(project, "stacks"), { recursive: true });
        fs.writeFileSync(path.join(project, "Pulumi.yaml"), "name: backup-portal\nruntime: nodejs\nstackConfigDir: stacks\n");
        return project;
      },
    });
    await ws.ok(["stack", "init"]);
    for (const [key, value] of [
      ["url", emu.url],
      ["origin", ORIGIN],
      ["clientId", "emulator"],
      ["username", USERNAME],
    ]) {
      await ws.ok(["config", "set", `backup-portal:${key}`, value]);
    }
    await ws.setSecret("backup-portal:password", PASSWORD);
    const file = path.join(ws.project, "stacks", "Pulumi.prod.yaml");
    fs.appendFileSync(file, TENANTS);
    assert.match(fs.readFileSync(file, "utf8"), /backup-portal:password:\n\s+secure: /, "the CLI stored the password encrypted");
  });
  after(async () => {
    ws?.remove();
    await emu?.close();
  });

  it("export --stack prod: logs in with the stack's settings (the password decrypted by the CLI), says which, and never shows it", async () => {
    const r = await backupPortal(["export", "--stack", "prod", "--bunit", "1"], ws.project, ws.env);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /^ {4}tenant-a:$/m);
    assert.equal(
      r.err.split("\n")[0],
      "backup-portal export: stacks/Pulumi.prod.yaml: backup-portal:url, backup-portal:origin, backup-portal:clientId, " +
        "backup-portal:username, backup-portal:password from the stack",
    );
    assert.doesNotMatch(r.out + r.err, new RegExp(PASSWORD));
    assert.deepEqual(writes(emu), []);
  });

  it("validate --stack prod: the stack's file, checked against the portal its settings name", async () => {
    const r = await backupPortal(["validate", "--stack", "prod"], ws.project, ws.env);
    assert.equal(r.code, 0, r.err);
    assert.equal(
      r.out,
      `stacks/Pulumi.prod.yaml: valid: 1 business unit, 0 consumers, 0 nodes; names and ids checked against ${emu.url} (reads only)\n`,
    );
    assert.doesNotMatch(r.out + r.err, new RegExp(PASSWORD));
  });

  it("doctor --stack prod: each setting's line names the stack file as where it came from; the password is not shown", async () => {
    const r = await backupPortal(["doctor", "--stack", "prod", "--json"], ws.project, ws.env);
    const report = JSON.parse(r.out) as { ok: boolean; checks: Array<{ id: string; status: string; detail: string }> };
    const line = (id: string) => JSON.stringify(report.checks.find((c) => c.id === id));
    assert.match(line("setting-url"), /"ok".*from stacks\/Pulumi\.prod\.yaml \(backup-portal:url\)/);
    assert.match(line("setting-username"), new RegExp(`${USERNAME}, from stacks/Pulumi\\.prod\\.yaml \\(backup-portal:username\\)`));
    assert.match(
      line("setting-password"),
      /set, from stacks\/Pulumi\.prod\.yaml \(backup-portal:password, decrypted by the Pulumi CLI\) \(not shown\)/,
    );
    assert.equal(r.code, 0, `${r.err}\n${r.out}`);
    assert.equal(report.ok, true);
    assert.doesNotMatch(r.out + r.err, new RegExp(PASSWORD));
  });

  it("a stack that is not there: exit 2, one line naming the file it looked for, no request; the same in every command", async () => {
    const mark = emu.requests().length;
    for (const command of ["export", "validate", "doctor"]) {
      const r = await backupPortal([command, "--stack", "staging"], ws.project, ws.env);
      assert.equal(r.code, 2, `${command}: ${r.err}`);
      assert.equal(
        r.err,
        `backup-portal ${command}: --stack staging: no stack file stacks/Pulumi.staging.yaml (the stack's config is read from there)\n`,
      );
    }
    assert.equal(emu.requests().length, mark);
  });

  it("the CLI is asked with no secret in its arguments; a CLI that fails leaves the environment's password, said in one line", () => {
    // A stand-in `pulumi` first on PATH that records its arguments and fails as a CLI without a login does.
    const bin = fs.mkdtempSync(path.join(os.tmpdir(), "bp-fake-pulumi-"));
    try {
      const argsFile = path.join(bin, "args");
      fs.writeFileSync(
        path.join(bin, "pulumi"),
        `#!/bin/sh\nprintf '%s\\n' "$@" > "${argsFile}"\necho "error: PULUMI_ACCESS_TOKEN must be set for login during non-interactive CLI sessions" >&2\nexit 255\n`,
        { mode: 0o755 },
      );
      const env = { PATH: `${bin}${path.delimiter}${process.env.PATH ?? ""}`, BACKUP_PORTAL_PASSWORD: "from-env" };
      assert.equal(findPulumi(env, []), path.join(bin, "pulumi"));
      const s = stackSettings("prod", ws.project, env);
      assert.deepEqual(fs.readFileSync(argsFile, "utf8").trimEnd().split("\n"), ["config", "--show-secrets", "--json", "--stack", "prod"]);
      assert.equal(s.env.BACKUP_PORTAL_PASSWORD, "from-env");
      assert.equal(s.env.BACKUP_PORTAL_USERNAME, USERNAME);
      assert.equal(s.env.BACKUP_PORTAL_URL, emu.url);
      assert.equal(
        s.taken,
        "stacks/Pulumi.prod.yaml: backup-portal:url, backup-portal:origin, backup-portal:clientId, backup-portal:username from the stack",
      );
      assert.equal(s.from.BACKUP_PORTAL_URL, "stacks/Pulumi.prod.yaml (backup-portal:url)");
      assert.equal(s.from.BACKUP_PORTAL_PASSWORD, undefined, "the password is the environment's");
      assert.deepEqual(s.notes, [
        "stacks/Pulumi.prod.yaml: backup-portal:password not read (pulumi config --show-secrets failed: error: PULUMI_ACCESS_TOKEN must be " +
          "set for login during non-interactive CLI sessions); BACKUP_PORTAL_PASSWORD from the environment is used instead",
      ]);
      // No CLI at all: said the same way; nothing in the environment either.
      const none = stackSettings("prod", ws.project, { PATH: "/nonexistent" });
      assert.equal(none.env.BACKUP_PORTAL_PASSWORD, undefined);
      assert.equal(
        none.notes[0],
        "stacks/Pulumi.prod.yaml: backup-portal:password not read (no Pulumi CLI on PATH or in .tools/bin to decrypt it); " +
          "BACKUP_PORTAL_PASSWORD from the environment is not set either",
      );
    } finally {
      fs.rmSync(bin, { recursive: true, force: true });
    }
  });
});
