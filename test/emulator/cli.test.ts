import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { tokenRequest } from "./helpers";
import { parseArgs } from "../../emulator/main";

const ROOT = path.resolve(__dirname, "..", "..");
const LINE = /^portal emulator listening on (http:\/\/127\.0\.0\.1:(\d+))$/m;

/** Starts `npm run emulator -- <args>` in its own process group; resolves with the URL from the printed line. */
function runCli(args: string[]): { child: ChildProcess; url: Promise<string>; exited: Promise<number | null> } {
  const child = spawn("npm", ["run", "emulator", "--", ...args], { cwd: ROOT, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const url = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no listening line within 25 s; stdout: ${out}; stderr: ${err}`)), 25_000);
    child.stdout?.on("data", (c: Buffer) => {
      out += c.toString();
      const m = LINE.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.stderr?.on("data", (c: Buffer) => {
      err += c.toString();
    });
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`exited (${code}) before listening; stdout: ${out}; stderr: ${err}`));
    });
  });
  return { child, url, exited };
}

/** Stops the process group we started (npm, sh and ts-node) and waits, bounded. */
async function stop(child: ChildProcess, exited: Promise<number | null>): Promise<void> {
  if (child.pid === undefined || child.exitCode !== null) return;
  try {
    process.kill(-child.pid, "SIGTERM");
  } catch {
    /* already gone */
  }
  const done = await Promise.race([exited.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 10_000))]);
  if (!done) {
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {
      /* already gone */
    }
  }
}

describe("emulator: command line", function () {
  this.timeout(60_000);

  it("`npm run emulator -- --port 0` prints the listening line and serves", async () => {
    const { child, url, exited } = runCli(["--port", "0"]);
    try {
      const u = await url;
      assert.notEqual(new URL(u).port, "0");
      const res = await fetch(`${u}/v1/fullVersion`, { headers: { Origin: "http://localhost" } });
      assert.equal(res.status, 200);
    } finally {
      await stop(child, exited);
    }
  });

  it("--data and --token-ttl", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "portal-emulator-cli-"));
    const file = path.join(dir, "state.json");
    const { child, url, exited } = runCli(["--port", "0", "--data", file, "--token-ttl", "5", "--quiet"]);
    try {
      const u = await url;
      const tok = await tokenRequest(u, { client_id: "emulator", grant_type: "password", username: "admin", password: "admin" });
      assert.equal(tok.body.expires_in, 5);
      assert.ok(fs.existsSync(file));
    } finally {
      await stop(child, exited);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("unit: --put-replaces and --quiet are read; an unknown flag is refused", () => {
    assert.deepEqual(parseArgs(["--port", "0", "--put-replaces", "--quiet"]), { port: 0, putReplaces: true, quiet: true });
    assert.deepEqual(parseArgs(["--port=8080"]), { port: 8080 });
    assert.throws(() => parseArgs(["--put-replace"]), /unknown argument "--put-replace"/);
  });

  it("refuses unknown arguments with exit code 2", async () => {
    const { child, url, exited } = runCli(["--port", "0", "--bogus"]);
    url.catch(() => undefined);
    try {
      assert.equal(await Promise.race([exited, new Promise((r) => setTimeout(() => r("timeout"), 25_000))]), 2);
    } finally {
      await stop(child, exited);
    }
  });
});
