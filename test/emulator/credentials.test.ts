// `npm run emulator` prints, under its address, the credentials to use: lines a user can paste. Checked by using
// them: the printed variables, as printed, are the environment of the real `backup-portal` binary, which reads
// the portal with them (and the tenant account the lines name sees its own business unit only).
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import * as path from "node:path";
import { backupPortal } from "../cli/process";

const ROOT = path.resolve(__dirname, "..", "..");

/** Starts emulator/main.ts on a free port; resolves with what it printed once the credential lines are there. */
function startPrinting(): Promise<{ text: string; stop(): void }> {
  const child = spawn(process.execPath, ["-r", "ts-node/register/transpile-only", "emulator/main.ts", "--port", "0", "--quiet"], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const stop = () => {
    if (child.exitCode === null) child.kill("SIGTERM");
  };
  let out = "";
  let err = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      stop();
      reject(new Error(`no credential lines within 30 s; stdout: ${out}; stderr: ${err}`));
    }, 30_000);
    child.stderr.on("data", (c: Buffer) => {
      err += c.toString();
    });
    child.stdout.on("data", (c: Buffer) => {
      out += c.toString();
      if ((out.match(/^ {2}export /gm) ?? []).length >= 2 && out.endsWith("\n")) {
        clearTimeout(timer);
        resolve({ text: out, stop });
      }
    });
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`exited (${code}) before printing; stdout: ${out}; stderr: ${err}`));
    });
  });
}

/** The NAME=value pairs of the `export` lines (a `#` ends a line's words). */
function exported(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of text.split("\n").filter((l) => /^ {2}export /.test(l))) {
    for (const word of line.replace(/#.*$/, "").trim().split(/\s+/).slice(1)) {
      const [name, value] = word.split(/=(.*)/s, 2);
      env[name] = value;
    }
  }
  return env;
}

describe("emulator: prints the credentials to use", function () {
  this.timeout(90_000);

  it("under the address: export lines of every BACKUP_PORTAL_* variable, which log the CLI in; the tenant account too", async () => {
    const emu = await startPrinting();
    try {
      const lines = emu.text.trimEnd().split("\n");
      const url = /^portal emulator listening on (http:\/\/127\.0\.0\.1:\d+)$/.exec(lines[0])?.[1];
      assert.ok(url, emu.text);
      const env = exported(emu.text);
      assert.deepEqual(Object.keys(env).sort(), [
        "BACKUP_PORTAL_CLIENT_ID",
        "BACKUP_PORTAL_ORIGIN",
        "BACKUP_PORTAL_PASSWORD",
        "BACKUP_PORTAL_URL",
        "BACKUP_PORTAL_USERNAME",
      ]);
      assert.equal(env.BACKUP_PORTAL_URL, url);
      const admin = await backupPortal(["business-units", "--json"], { env });
      assert.equal(admin.code, 0, admin.err);
      const units = JSON.parse(admin.out) as Array<{ id: number; depth: number }>;
      assert.ok(units.length > 1, admin.out);

      // The other account, as the comment names it: `or <user> / <password>: business unit <id> only`.
      const other = /or (\S+) \/ (\S+): business unit (\d+) only/.exec(emu.text);
      assert.ok(other, emu.text);
      const tenant = await backupPortal(["business-units", "--json"], {
        env: { ...env, BACKUP_PORTAL_USERNAME: other[1], BACKUP_PORTAL_PASSWORD: other[2] },
      });
      assert.equal(tenant.code, 0, tenant.err);
      assert.equal((JSON.parse(tenant.out) as Array<{ id: number }>)[0].id, Number(other[3]));
    } finally {
      emu.stop();
    }
  });
});
