import assert from "node:assert/strict";
import { ChildProcess, execFileSync, spawn } from "child_process";
import * as fs from "fs";
import * as path from "path";
import { envFor, Emulator, startEmulator } from "../support/portal";
import * as http from "http";
import { AddressInfo } from "net";
import { main, parseArgs, receiverClient, UsageError } from "../../provider/billing/main";
import { control, filesUnder, tempDir } from "./helpers";

const ROOT = path.resolve(__dirname, "..", "..");
const SECRET = "Cmd-Line-Secret-42";

/** Waits for a line matching `re` on a child's stdout (bounded). */
function waitForLine(child: ChildProcess, re: RegExp, timeoutMs = 30000): Promise<string> {
  return new Promise((resolve, reject) => {
    let buf = "";
    const t = setTimeout(() => reject(new Error(`no line matching ${re} within ${timeoutMs} ms; stdout: ${buf}`)), timeoutMs);
    child.stdout!.on("data", (c: Buffer) => {
      buf += c.toString();
      const line = buf.split("\n").find((l) => re.test(l));
      if (line !== undefined) {
        clearTimeout(t);
        resolve(line);
      }
    });
    child.once("exit", (code) => {
      clearTimeout(t);
      reject(new Error(`exited ${code} before printing; stdout: ${buf}`));
    });
  });
}

/** The pid of the receiver's node process in process group `group` (npm's own process is the group leader). */
function receiverIn(group: number): number | undefined {
  const rows = execFileSync("ps", ["-o", "pid=,args=", "-g", String(group)], { encoding: "utf8" })
    .split("\n")
    .map((l) => l.trim());
  const row = rows.find((r) => /^\d+ \S*node\b.*billing\/main/.test(r) && Number(r.split(" ")[0]) !== group);
  return row ? Number(row.split(" ")[0]) : undefined;
}

describe("billing: the billing-receiver command", function () {
  this.timeout(60000);
  let emu: Emulator;
  let out: string;
  before(async () => {
    emu = await startEmulator({ port: 0, quiet: true });
  });
  after(async () => {
    await emu?.close();
  });
  beforeEach(() => {
    emu.reset();
    out = tempDir("billing-cmd-");
  });
  afterEach(() => fs.rmSync(out, { recursive: true, force: true }));

  it("parses its options; the secret may come from BILLING_RECEIVER_SECRET", () => {
    assert.deepEqual(parseArgs(["--port", "0", "--out", "/x", "--bunit", "1"], {}), {
      help: false,
      quiet: false,
      port: 0,
      outDir: "/x",
      businessUnitId: 1,
      secret: undefined,
    });
    assert.equal(parseArgs(["--port=8080", "--out=/x", "--bunit=1"], { BILLING_RECEIVER_SECRET: SECRET }).secret, SECRET);
    assert.equal(
      parseArgs(["--port=8080", "--out=/x", "--bunit=1", "--secret", "other-secret"], { BILLING_RECEIVER_SECRET: SECRET }).secret,
      "other-secret",
    );
    assert.equal(parseArgs(["--port", "1", "--out", "/x", "--bunit", "1", "--host", "0.0.0.0"], {}).host, "0.0.0.0");
    for (const bad of [
      [],
      ["--port", "x", "--out", "/x", "--bunit", "1"],
      ["--port", "1", "--bunit", "1"],
      ["--port", "1", "--out", "/x", "--bunit", "0"],
      ["--port", "1", "--out", "/x", "--bunit", "9007199254740993"],
      ["--port", "1", "--out", "/x", "--bunit", "1", "--secret", "short"],
      ["--port", "1", "--out", "/x", "--bunit", "1", "--nope"],
    ]) {
      assert.throws(() => parseArgs(bad, {}), UsageError, JSON.stringify(bad));
    }
  });

  // Issue 28 item 4: an empty BILLING_RECEIVER_SECRET (a Secret key set to "") was taken as no secret, and the
  // receiver, behind a LoadBalancer, accepted notifications from anyone. It now refuses to start.
  for (const [what, env, argv] of [
    ["an empty BILLING_RECEIVER_SECRET", { BILLING_RECEIVER_SECRET: "" }, []],
    ["a 3-character BILLING_RECEIVER_SECRET", { BILLING_RECEIVER_SECRET: "abc" }, []],
    ["a 5-character --secret", {}, ["--secret", "short"]],
  ] as Array<[string, Record<string, string>, string[]]>) {
    it(`refuses to start with ${what}: exit 2 before listening, one line naming where the secret came from`, async () => {
      let err = "";
      let outText = "";
      const code = await main(
        ["--port", "0", "--host", "0.0.0.0", "--out", out, "--bunit", "1", ...argv],
        { ...envFor(emu), ...env },
        { out: (t) => void (outText += t), err: (t) => void (err += t) },
      );
      assert.equal(code, 2, err);
      assert.equal(outText, "", "never listening");
      assert.match(
        err,
        argv.length
          ? /--secret: secret must have at least 8 characters/
          : /BILLING_RECEIVER_SECRET: secret must have at least 8 characters/,
      );
      assert.equal(err.trim().split("\n")[0].includes("secret must have"), true, err);
    });
  }

  it("main: exit 2 on bad arguments, 0 for help, 1 without a portal connection", async () => {
    const io = () => {
      const o = { out: "", err: "" };
      return {
        o,
        io: {
          out: (t: string) => {
            o.out += t;
          },
          err: (t: string) => {
            o.err += t;
          },
        },
      };
    };
    let x = io();
    assert.equal(await main(["--port", "nope"], {}, x.io), 2);
    assert.match(x.o.err, /--port needs an integer/);
    x = io();
    assert.equal(await main(["--help"], {}, x.io), 0);
    assert.match(x.o.out, /usage: npm run billing-receiver/);
    x = io();
    assert.equal(await main(["--port", "0", "--out", out, "--bunit", "1"], {}, x.io), 1);
    assert.match(x.o.err, /BACKUP_PORTAL_URL/);
  });

  it("npm run billing-receiver prints the listening line and the Post URL (secret masked: stdout is a pipe), serves the portal, and stops on SIGTERM", async () => {
    const env = { ...process.env, ...envFor(emu), BILLING_RECEIVER_SECRET: SECRET };
    // Its own process group, so the test stops npm and the receiver under it, and nothing else.
    const child = spawn("npm", ["run", "--silent", "billing-receiver", "--", "--port", "0", "--out", out, "--bunit", "1"], {
      cwd: ROOT,
      env,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    let stderr = "";
    child.stderr!.on("data", (c: Buffer) => {
      stderr += c.toString();
    });
    try {
      let stdout = "";
      child.stdout!.on("data", (c: Buffer) => {
        stdout += c.toString();
      });
      await waitForLine(child, /^post URL: /); // the second line
      const [line, post] = stdout.split("\n");
      assert.match(line, /^billing receiver listening on http:\/\/127\.0\.0\.1:\d+$/);
      const url = line.slice("billing receiver listening on ".length);
      assert.equal(post, `post URL: ${url}/notify?bunit=1&secret=*** (the secret URL-encoded; shown only when stdout is a terminal)`);
      await control(emu, "/_emulator/billing/subscribers", { businessUnitId: 1, url: `${url}/notify?bunit=1&secret=${SECRET}` });
      const t = await control(emu, "/_emulator/billing/test", { businessUnitId: 1 });
      assert.equal(t.body.deliveries[0].status, 200, t.body.deliveries[0].responseBody);
      const g = await control(emu, "/_emulator/billing/generate", { businessUnitId: 1 });
      assert.equal(g.body.deliveries[0].status, 200, g.body.deliveries[0].responseBody);
      assert.deepEqual(filesUnder(path.join(out, "1")), ["2025-01-01.json", "2025-02-01.json", "2025-03-01.json", "2025-04-01.json"]);
    } finally {
      // SIGTERM to the receiver alone: npm then exits with the receiver's status (a signal to npm would end npm first).
      const receiverPid = child.exitCode === null ? receiverIn(child.pid!) : undefined;
      if (receiverPid) process.kill(receiverPid, "SIGTERM");
      else if (child.exitCode === null) process.kill(-child.pid!, "SIGTERM");
      await new Promise((r) => (child.exitCode !== null ? r(undefined) : child.once("exit", r)));
    }
    assert.deepEqual([child.exitCode, child.signalCode], [0, null], `stopped by SIGTERM with status 0: ${stderr}`);
    assert.match(stderr, /test request; portal reachable/);
    assert.ok(!stderr.includes(SECRET), "the secret is never logged");
  });

  it("the receiver's client sends each request once: the receiver's own retries keep to its deadline", async () => {
    // A portal that takes requests and never answers: each one waits for the client's 3 s timeout.
    let requests = 0;
    const silent = http.createServer(() => {
      requests++;
    });
    await new Promise<void>((r) => silent.listen(0, "127.0.0.1", r));
    const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
    const client = receiverClient({
      BACKUP_PORTAL_URL: url,
      BACKUP_PORTAL_ORIGIN: "http://localhost",
      BACKUP_PORTAL_CLIENT_ID: "c",
      BACKUP_PORTAL_USERNAME: "u",
      BACKUP_PORTAL_PASSWORD: "p4ssword",
    });
    try {
      await assert.rejects(client.billing.billingData(1), /timed out after 3000 ms/);
      assert.equal(requests, 1, "the token request, once: no retry stacked under the receiver's");
    } finally {
      client.close();
      silent.closeAllConnections();
      await new Promise((r) => silent.close(r));
    }
  });
});
