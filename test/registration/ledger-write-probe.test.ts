// The registration broker on a ledger it can read and not write (a PVC on NFS or hostPath, which ignore fsGroup):
// the real process refuses to start (exit 1, one line with the reason) instead of listening and answering every
// registration 500; and a write that fails later is a line on stderr. As root the broker runs as `nobody`, for whom
// the file's mode counts (root writes anything); as another user the file and its folder are made read-only.
import assert from "node:assert/strict";
import { ChildProcess, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { mintRegistrationToken } from "../../provider/broker";
import { SECRET_ENV } from "../../provider/broker/main";
import { REGISTER_PATH } from "../../provider/broker/server";
import { Emulator, envFor, startEmulator } from "../support/portal";
import { waitFor } from "../support/wait";

const BIN = path.join(__dirname, "..", "..", "bin", "backup-portal.js");
const SECRET = "ledger-probe-secret-0123456789-abcdefgh";
const NOBODY = 65534;
const AS_ROOT = process.getuid?.() === 0;
/** Starting the process may compile the sources first (no dist/): generous, but bounded. */
const START_MS = 90_000;

/** `dir` made so that the broker's user can read it and not create files in it; `file` readable, not writable. */
function readOnly(dir: string, file: string): void {
  if (AS_ROOT) {
    fs.chownSync(dir, 0, 0);
    fs.chmodSync(dir, 0o755);
    fs.chownSync(file, 0, 0);
    fs.chmodSync(file, 0o644);
  } else {
    fs.chmodSync(file, 0o444);
    fs.chmodSync(dir, 0o555);
  }
}

function startBroker(emu: Emulator, ledger: string): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, [BIN, "registration-broker", "--port", "0", "--ledger-file", ledger], {
    env: { PATH: process.env.PATH ?? "", ...envFor(emu, "admin"), [SECRET_ENV]: SECRET },
    stdio: ["ignore", "pipe", "pipe"],
    ...(AS_ROOT ? { uid: NOBODY, gid: NOBODY } : {}),
  });
  let out = "";
  child.stdout!.on("data", (c: Buffer) => void (out += c.toString()));
  child.stderr!.on("data", (c: Buffer) => void (out += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, output: () => out, exited };
}

describe("registration broker: a ledger it cannot write", function () {
  this.timeout(180_000);
  let emu: Emulator;
  let dir: string;
  before(async () => {
    emu = await startEmulator({ port: 0, quiet: true });
  });
  after(async () => emu?.close());
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "ledger-probe-"));
    fs.chmodSync(dir, 0o755);
  });
  afterEach(() => {
    fs.chmodSync(dir, 0o755);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("does not start: exit 1, one line naming the file, the reason and the fix, before it listens", async () => {
    const ledger = path.join(dir, "ledger.json");
    fs.writeFileSync(ledger, `${JSON.stringify({ format: 1, tokens: [] })}\n`);
    readOnly(dir, ledger);
    const b = startBroker(emu, ledger);
    const timer = setTimeout(() => b.child.kill("SIGKILL"), START_MS);
    const code = await b.exited;
    clearTimeout(timer);
    assert.equal(code, 1, b.output());
    // (The machine's Node.js may add its own warning line: not the broker's.)
    assert.equal(
      b.output().replace(/^backup-portal: warning: Node\.js .*\n/m, ""),
      `registration broker: the spent-token ledger ${ledger} cannot be written (EACCES); let the broker's user write it and ` +
        "create files in its folder (a volume that ignores fsGroup needs its owner or mode set)\n",
    );
  });

  it("a write that fails after the start is a line on stderr, not a silent 500", async function () {
    if (!AS_ROOT) this.skip(); // taking the folder away from a running process needs another owner
    fs.chownSync(dir, NOBODY, NOBODY);
    const ledger = path.join(dir, "ledger.json");
    const b = startBroker(emu, ledger);
    try {
      await waitFor(
        () => /listening on http:\/\/127\.0\.0\.1:\d+/.test(b.output()) || b.child.exitCode !== null,
        "the broker to listen",
        START_MS,
      );
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(b.output())?.[1];
      assert.ok(url, b.output());
      fs.chownSync(ledger, 0, 0);
      readOnly(dir, ledger);
      const res = await fetch(`${url}${REGISTER_PATH}`, {
        method: "POST",
        headers: { "Content-Type": "application/json", Authorization: `Bearer ${mintRegistrationToken(SECRET, { businessUnitId: 2 })}` },
        body: JSON.stringify({
          instance: { uuid: "5b6c7d8e-9f0a-4b1c-8d2e-3f4a5b6c7d8e", name: "web01", meta: { backup_bunit: "2" } },
          cpuCount: 2,
        }),
        signal: AbortSignal.timeout(30_000),
      });
      assert.equal(res.status, 500);
      await waitFor(() => /could not be written/.test(b.output()), "the log line", 10_000).catch(() => undefined);
      assert.match(
        b.output(),
        new RegExp(`registration broker: the ledger file ${ledger} could not be written \\(EACCES\\)\\n`),
        b.output(),
      );
    } finally {
      b.child.kill("SIGKILL");
      await b.exited;
    }
  });
});
