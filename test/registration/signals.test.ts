// `backup-portal register` stopped by Ctrl-C or SIGTERM (issue 15): the real command in a child process, against
// a metadata service and a portal that takes requests and never answers, so the run is held with its lock taken.
// It must remove its lock file and exit with 128 + the signal's number.
import assert from "node:assert/strict";
import { ChildProcess, spawn } from "child_process";
import * as fs from "fs";
import * as http from "http";
import { AddressInfo } from "net";
import * as path from "path";
import { MetadataService, startMetadataService } from "../../emulator/metadata-service";
import { instanceDocument, removeTempDirs, tempDir } from "./helpers";
import { waitFor } from "../support/wait";

const ROOT = path.resolve(__dirname, "..", "..");
const PASSWORD = "Signal-Test-Portal-Password-5521+&=";

function exited(child: ChildProcess, timeoutMs = 20000): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolve, reject) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve({ code: child.exitCode, signal: child.signalCode });
    const t = setTimeout(() => reject(new Error(`no exit within ${timeoutMs} ms`)), timeoutMs);
    child.once("exit", (code, signal) => {
      clearTimeout(t);
      resolve({ code, signal });
    });
  });
}

describe("registration: register stopped by a signal", function () {
  this.timeout(60000);
  let svc: MetadataService;
  let portal: http.Server;
  let portalRequests: number;
  let portalUrl: string;

  before(async () => {
    svc = await startMetadataService({ metadata: instanceDocument({ backup_bunit: "2" }), userData: null });
    // A portal that takes every request and never answers: the run waits on it with its lock held.
    portal = http.createServer(() => {
      portalRequests++;
    });
    await new Promise<void>((r) => portal.listen(0, "127.0.0.1", r));
    portalUrl = `http://127.0.0.1:${(portal.address() as AddressInfo).port}`;
  });
  beforeEach(() => {
    portalRequests = 0;
  });
  after(async () => {
    await svc.close();
    portal.closeAllConnections();
    await new Promise((r) => portal.close(r));
    removeTempDirs();
  });

  for (const [signal, code] of [
    ["SIGTERM", 143],
    ["SIGINT", 130],
  ] as const) {
    it(`${signal}: removes the lock file and exits ${code}`, async () => {
      const lock = path.join(tempDir(), "register.lock");
      const env = {
        ...process.env,
        BACKUP_PORTAL_URL: portalUrl,
        BACKUP_PORTAL_ORIGIN: "http://localhost",
        BACKUP_PORTAL_CLIENT_ID: "client-1",
        BACKUP_PORTAL_USERNAME: "tenant",
        BACKUP_PORTAL_PASSWORD: PASSWORD,
      };
      const child = spawn(
        process.execPath,
        [
          path.join(ROOT, "bin", "backup-portal.js"),
          "register",
          "--url",
          svc.url,
          "--no-config-drive",
          "--lock-file",
          lock,
          "--no-option-file",
        ],
        { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] },
      );
      let stderr = "";
      child.stderr!.on("data", (c: Buffer) => {
        stderr += c.toString();
      });
      try {
        // The first portal request comes after the lock is taken.
        await waitFor(() => portalRequests > 0 || child.exitCode !== null, "the run's first portal request", 20000);
        assert.equal(child.exitCode, null, stderr);
        assert.ok(fs.existsSync(lock), "the run holds its lock");
        child.kill(signal);
        const end = await exited(child);
        assert.deepEqual(end, { code, signal: null }, stderr);
        assert.ok(!fs.existsSync(lock), "the lock file is gone");
        assert.match(stderr, new RegExp(`stopped by ${signal}; the lock file is removed`));
        assert.ok(!stderr.includes(PASSWORD), "no password on stderr");
      } finally {
        if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      }
    });
  }
  it("--portal-timeout bounds each portal request: a portal that never answers fails the run in seconds, lock removed", async () => {
    const lock = path.join(tempDir(), "register.lock");
    const env = {
      ...process.env,
      BACKUP_PORTAL_URL: portalUrl,
      BACKUP_PORTAL_ORIGIN: "http://localhost",
      BACKUP_PORTAL_CLIENT_ID: "client-1",
      BACKUP_PORTAL_USERNAME: "tenant",
      BACKUP_PORTAL_PASSWORD: PASSWORD,
    };
    const args = ["register", "--url", svc.url, "--no-config-drive", "--lock-file", lock, "--no-option-file", "--portal-timeout", "1"];
    const child = spawn(process.execPath, [path.join(ROOT, "bin", "backup-portal.js"), ...args], {
      cwd: ROOT,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr!.on("data", (c: Buffer) => {
      stderr += c.toString();
    });
    const started = Date.now();
    try {
      // Without the deadline the first request alone waits 30 s per try.
      const end = await exited(child, 15000);
      assert.deepEqual(end, { code: 1, signal: null }, stderr);
      assert.ok(Date.now() - started < 15000);
      assert.match(stderr, /the deadline of 1(\.0)? s over all tries passed/);
      assert.ok(portalRequests > 0, "the portal was asked");
      assert.ok(!fs.existsSync(lock), "the failed run removed its lock");
      assert.ok(!stderr.includes(PASSWORD), "no password on stderr");
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    }
  });
});
