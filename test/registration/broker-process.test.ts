// The registration broker as a real process (`backup-portal registration-broker`) against the portal emulator
// (issue 37): a registration the portal refuses (422) or fails (502) does not stop it, and a token spent before a
// restart, even a crash, stays spent after it; a token claimed by a registration the crash cut off stays its
// claimant's (issue 48).
import assert from "node:assert/strict";
import { ChildProcess, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { mintRegistrationToken } from "../../provider/broker";
import { REGISTER_PATH } from "../../provider/broker/server";
import { SECRET_ENV } from "../../provider/broker/main";
import { defaultLockFile } from "../../provider/registration/lock";
import { Emulator, envFor, startEmulator } from "../support/portal";
import { waitFor } from "../support/wait";
import { removeTempDirs, startPortalProxy, tempDir } from "./helpers";

const BIN = path.join(__dirname, "..", "..", "bin", "backup-portal.js");
const SECRET = "broker-process-secret-0123456789-abcdefgh";
const BUNIT = 2;
const UUID = "5b6c7d8e-9f0a-4b1c-8d2e-3f4a5b6c7d8e";
const OTHER_UUID = "6c7d8e9f-0a1b-4c2d-8e3f-4a5b6c7d8e9f";
/** Starting the process may compile the sources first (no dist/): generous, but bounded. */
const START_MS = 90_000;

interface BrokerProcess {
  url: string;
  child: ChildProcess;
  output(): string;
  alive(): boolean;
  /** Stops it with `signal` and waits for the exit (bounded). */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** The broker with the emulator's admin account, reaching the portal at `portalUrl` (the emulator, or a proxy to it). */
async function startBroker(emu: Emulator, ledgerFile: string, portalUrl = emu.url): Promise<BrokerProcess> {
  const child = spawn(process.execPath, [BIN, "registration-broker", "--port", "0", "--ledger-file", ledgerFile], {
    env: { PATH: process.env.PATH ?? "", ...envFor(emu, "admin"), BACKUP_PORTAL_URL: portalUrl, [SECRET_ENV]: SECRET },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout!.on("data", (c: Buffer) => void (out += c.toString()));
  child.stderr!.on("data", (c: Buffer) => void (out += c.toString()));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const alive = () => child.exitCode === null && child.signalCode === null;
  const broker: BrokerProcess = {
    url: "",
    child,
    output: () => out,
    alive,
    async stop(signal = "SIGTERM") {
      if (alive()) child.kill(signal);
      const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
      await exited;
      clearTimeout(timer);
    },
  };
  try {
    await waitFor(() => /listening on http:\/\/127\.0\.0\.1:\d+/.test(out) || !alive(), "the broker to listen", START_MS);
    assert.ok(alive(), `the broker did not start:\n${out}`);
  } catch (err) {
    await broker.stop("SIGKILL");
    throw err;
  }
  broker.url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)![1];
  return broker;
}

/** Removes the registration lock of `bunit` that the killed process `pid` left behind; whether there was one. */
function removeLockLeftBy(pid: number, bunit: number): boolean {
  const file = defaultLockFile(bunit);
  let left = false;
  try {
    left = fs.readFileSync(file, "utf8").startsWith(`pid ${pid} `);
  } catch {
    return false;
  }
  if (left) fs.rmSync(file, { force: true });
  return left;
}

async function post(url: string, token: string, meta: Record<string, string> = {}, uuid = UUID) {
  const res = await fetch(`${url}${REGISTER_PATH}`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
    body: JSON.stringify({
      instance: { uuid, name: "web01", hostname: "web01", meta: { backup_bunit: String(BUNIT), ...meta } },
      cpuCount: 2,
    }),
    signal: AbortSignal.timeout(30_000),
  });
  return { status: res.status, body: (await res.json()) as { error?: string; kind?: string; result?: { status: string } } };
}

describe("registration broker: the real process", function () {
  this.timeout(4 * START_MS);
  let emu: Emulator;
  let dir: string;
  let broker: BrokerProcess | undefined;
  const mint = () => mintRegistrationToken(SECRET, { businessUnitId: BUNIT });

  before(async () => {
    emu = await startEmulator({ port: 0, quiet: true });
  });
  beforeEach(() => {
    emu.reset();
    dir = tempDir();
  });
  afterEach(async () => {
    emu.clearFaults();
    await broker?.stop("SIGKILL");
    broker = undefined;
  });
  after(async () => {
    await emu?.close();
    removeTempDirs();
  });

  it("keeps serving after a registration the portal refuses (422) and one it fails (502)", async () => {
    broker = await startBroker(emu, path.join(dir, "spent-tokens.json"));

    const refused = await post(broker.url, mint(), { backup_os: "Plan 9" });
    assert.equal(refused.status, 422, JSON.stringify(refused.body));
    assert.equal(refused.body.kind, "configuration");
    assert.match(refused.body.error!, /Plan 9/);

    emu.setFaults({ errorRate: 1, statuses: [500], match: { method: "POST", pathPrefix: `/v1/bunits/${BUNIT}/consumers` } });
    const failed = await post(broker.url, mint(), {}, OTHER_UUID);
    emu.clearFaults();
    assert.equal(failed.status, 502, JSON.stringify(failed.body));
    assert.equal(failed.body.kind, "portal");

    // A registration the portal can do still goes through, on the same process.
    const good = await post(broker.url, mint());
    assert.equal(good.status, 200, `${JSON.stringify(good.body)}\n${broker.output()}`);
    assert.equal(good.body.result?.status, "registered");
    assert.ok(broker.alive(), broker.output());
    assert.equal((await fetch(`${broker.url}/healthz`)).status, 200);
    assert.doesNotMatch(broker.output(), /RegistrationError|\n\s+at .*:\d+:\d+/, "no trace");
  });

  it("a token spent before a crash stays spent after the restart; the ledger file is 0600", async () => {
    const ledger = path.join(dir, "broker", "spent-tokens.json");
    broker = await startBroker(emu, ledger);
    const token = mint();
    assert.equal((await post(broker.url, token)).status, 200);
    // Killed at once: whatever the answer promised must be on disk already.
    await broker.stop("SIGKILL");
    assert.equal(fs.statSync(ledger).mode & 0o777, 0o600);
    assert.ok(!fs.readFileSync(ledger, "utf8").includes(token), "the ledger holds no token");

    broker = await startBroker(emu, ledger);
    for (const uuid of [UUID, OTHER_UUID]) {
      const again = await post(broker.url, token, {}, uuid);
      assert.equal(again.status, 409, JSON.stringify(again.body));
      assert.match(again.body.error!, /has been used already/);
    }
    assert.equal((await post(broker.url, mint(), {}, OTHER_UUID)).status, 200, "a fresh token still registers");
    assert.ok(!broker.output().includes(token), "tokens are never logged");
  });

  it("killed while the portal answers a registration: after the restart the token is its claimant's alone", async () => {
    // server.ts: who claimed the token is kept before the portal is asked. The portal's first write for this
    // instance is held (emulator latency); the broker is killed once that request has reached the portal.
    const ledger = path.join(dir, "spent-tokens.json");
    const consumers = `/v1/bunits/${BUNIT}/consumers`;
    emu.setFaults({ latencyMs: 3000, count: 1, match: { method: "POST", pathPrefix: consumers } });
    let reached = false;
    const proxy = await startPortalProxy(emu.url, {
      before: (req) => void (reached ||= req.method === "POST" && req.path.startsWith(consumers)),
    });
    try {
      broker = await startBroker(emu, ledger, proxy.url);
      const token = mint();
      const cutOff = post(broker.url, token).catch((err: Error) => err);
      await waitFor(() => reached, "the registration's write to reach the portal", 20_000);
      await broker.stop("SIGKILL");
      assert.ok((await cutOff) instanceof Error, "the instance got no answer");
      // The held write lands on the portal (in this test, not the next one) while the broker is down.
      await waitFor(() => emu.requests().some((r) => r.method === "POST" && r.path.startsWith(consumers)), "the held write", 20_000);
      assert.equal(removeLockLeftBy(broker.child.pid!, BUNIT), false, "a lock file left by the killed broker holds up the retry");
      broker = await startBroker(emu, ledger);

      const other = await post(broker.url, token, {}, OTHER_UUID);
      assert.equal(other.status, 409, `another instance took the token: ${JSON.stringify(other.body)}\n${broker.output()}`);
      assert.match(other.body.error!, /has been used already/);
      // The claimant finishes what it began.
      const claimant = await post(broker.url, token);
      assert.equal(claimant.status, 200, `${JSON.stringify(claimant.body)}\n${broker.output()}`);
      assert.equal((await post(broker.url, token, {}, OTHER_UUID)).status, 409, "and it stays spent");
    } finally {
      await proxy.close();
    }
  });

  it("a ledger file it cannot read stops the start with one line naming the file", async () => {
    const ledger = path.join(dir, "spent-tokens.json");
    fs.writeFileSync(ledger, "{ not json");
    const child = spawn(process.execPath, [BIN, "registration-broker", "--port", "0", "--ledger-file", ledger], {
      env: { PATH: process.env.PATH ?? "", ...envFor(emu, "admin"), [SECRET_ENV]: SECRET },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let err = "";
    child.stderr!.on("data", (c: Buffer) => void (err += c.toString()));
    const code = await new Promise<number | null>((resolve) => {
      const timer = setTimeout(() => child.kill("SIGKILL"), START_MS);
      child.once("exit", (c) => {
        clearTimeout(timer);
        resolve(c);
      });
    });
    assert.equal(code, 1, err);
    assert.match(err, new RegExp(`registration broker: the spent-token ledger ${ledger.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} `));
    assert.doesNotMatch(err, /\n\s+at .*:\d+:\d+/, "no trace");
  });
});
