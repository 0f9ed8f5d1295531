// The billing receiver under hostile or careless use (issue 15): a bounded queue whose deadlines count from
// arrival and that coalesces notifications, HEAD /healthz, an output directory checked at start, 503 answers
// that reveal nothing, partial writes said as such, a URL-encoded secret, and a portal password that never
// leaves, whatever the portal echoes.
import assert from "node:assert/strict";
import * as fs from "fs";
import * as http from "http";
import { AddressInfo } from "net";
import * as path from "path";
import { clientFor, Emulator, envFor, startEmulator } from "../support/portal";
import {
  BillingReceiverHandle,
  BillingReceiverOptions,
  NEW_DATA_TRIGGER,
  NOT_STORED,
  OutputDirError,
  TEST_FAILED,
  TEST_TRIGGER,
} from "../../provider/billing";
import { main, MainIo, postUrlLine } from "../../provider/billing/main";
import { PortalClient } from "../../provider/portal";
import { filesUnder, postHead, rawRequest, RawResponse, spellings, startTestReceiver, tempDir, waitFor } from "./helpers";

const SECRET = "hardening-Secret+with&query=chars";

/** A client whose first billing read waits until `release()`; later reads go straight to the portal. */
function gated(real: PortalClient): { client: PortalClient; reads: () => number; release: () => void } {
  let reads = 0;
  let release!: () => void;
  const gate = new Promise<void>((r) => {
    release = r;
  });
  const billing = {
    billingData: async (id: number) => {
      reads++;
      await gate;
      return real.billing.billingData(id);
    },
  };
  return { client: Object.create(real, { billing: { value: billing } }) as PortalClient, reads: () => reads, release: () => release() };
}

describe("billing: receiver hardening (issue 15)", function () {
  this.timeout(60000);
  let emu: Emulator;
  let client: PortalClient;
  let out: string;
  let logs: string[];
  const receivers: BillingReceiverHandle[] = [];

  async function start(extra: Partial<BillingReceiverOptions> = {}): Promise<BillingReceiverHandle> {
    const r = await startTestReceiver({ outDir: out, secret: SECRET, client }, logs, extra);
    receivers.push(r);
    return r;
  }

  const notify = (
    r: BillingReceiverHandle,
    body = JSON.stringify({ trigger: NEW_DATA_TRIGGER, businessUnitId: 1 }),
    extra: Record<string, string> = {},
    timeoutMs = 10000,
  ) =>
    rawRequest(r.port, postHead(`/notify?bunit=1&secret=${encodeURIComponent(SECRET)}`, body, { Connection: "close", ...extra }), body, {
      timeoutMs,
      waitForContinue: extra.Expect === "100-continue",
    });

  before(async () => {
    emu = await startEmulator({ port: 0, quiet: true });
  });
  after(async () => {
    await emu?.close();
  });
  beforeEach(() => {
    emu.reset();
    client = clientFor(emu);
    out = tempDir("billing-hard-");
    logs = [];
  });
  afterEach(async () => {
    for (const r of receivers.splice(0)) await r.close(2000);
    client.close();
    for (const l of logs) assert.ok(!l.includes(SECRET) && !l.includes(encodeURIComponent(SECRET)), `secret in log line: ${l}`);
    fs.rmSync(out, { recursive: true, force: true });
  });

  describe("the queue", () => {
    it("counts a notification's deadline from its arrival: one waiting behind a stuck read is answered 503 in time", async () => {
      const g = gated(client);
      const r = await start({ client: g.client, deadlineMs: 1500 });
      const first = notify(r);
      await waitFor(() => g.reads() === 1, "the first read");
      const started = Date.now();
      const second = await notify(r); // the first read is still stuck
      const waited = Date.now() - started;
      assert.equal(second.status, 503, second.raw);
      assert.equal(JSON.parse(second.body).error, NOT_STORED);
      assert.equal(g.reads(), 1, "no read was started for it");
      assert.ok(waited >= 1400, `answered after ${waited} ms, before its deadline`);
      g.release();
      assert.equal((await first).status, 200);
      assert.ok(
        logs.some((l) => /503 \(error id [0-9a-f]+\): billing data not stored: not stored in time/.test(l)),
        logs.join("\n"),
      );
    });

    it("a notification that arrives while another waits adds no work: one read serves them all", async () => {
      const g = gated(client);
      const r = await start({ client: g.client });
      const first = notify(r);
      await waitFor(() => g.reads() === 1, "the first read");
      const later = [notify(r), notify(r), notify(r, JSON.stringify({ trigger: NEW_DATA_TRIGGER, period: "2025-02-01" }))];
      await waitFor(() => r.stats.notifications === 4, "four notifications received");
      g.release();
      const answers = await Promise.all([first, ...later]);
      assert.deepEqual(
        answers.map((a) => a.status),
        [200, 200, 200, 200],
        answers.map((a) => a.raw).join("\n"),
      );
      assert.equal(g.reads(), 2, "the stuck read, then one read for the three that waited");
      assert.equal(r.stats.coalesced, 2);
      assert.deepEqual(filesUnder(path.join(out, "1")), ["2025-01-01.json", "2025-02-01.json", "2025-03-01.json"]);
    });

    it("a bogus notification (a period that never shows) delays no real one served by the same read", async () => {
      const g = gated(client);
      const r = await start({ client: g.client, deadlineMs: 1500 });
      const first = notify(r);
      await waitFor(() => g.reads() === 1, "the first read");
      let bogusAnswered = false;
      const bogus = notify(r, JSON.stringify({ trigger: NEW_DATA_TRIGGER, period: "2030-01-01" })).then((a) => {
        bogusAnswered = true;
        return a;
      });
      const real = notify(r);
      await waitFor(() => r.stats.notifications === 3, "three notifications received");
      g.release();
      assert.equal((await first).status, 200);
      const a = await real;
      assert.equal(a.status, 200, a.raw);
      assert.equal(bogusAnswered, false, "the real one was answered first, not after the bogus one's retries");
      const b = await bogus;
      assert.equal(b.status, 503, b.raw);
      assert.ok(
        logs.some((l) => l.includes(`error id ${JSON.parse(b.body).id}`) && l.includes("no period 2030-01-01")),
        logs.join("\n"),
      );
    });

    it("is bounded: when maxPending requests are held, one more is answered 503 at once (before 100 Continue)", async () => {
      const g = gated(client);
      const r = await start({ client: g.client, maxPending: 3 });
      const held = [notify(r), notify(r), notify(r, JSON.stringify({ trigger: TEST_TRIGGER }))];
      await waitFor(() => r.stats.notifications === 2 && r.stats.tests === 1, "three requests held");
      const busy = await notify(r, undefined, { Expect: "100-continue" });
      assert.equal(busy.status, 503, busy.raw);
      assert.equal(busy.continued, false, "refused on its headers");
      assert.equal(busy.bodySent, false);
      assert.match(busy.head, /retry-after: 30/i);
      assert.match(JSON.parse(busy.body).error, /busy/);
      const busy2 = await notify(r);
      assert.equal(busy2.status, 503, busy2.raw);
      assert.equal(r.stats.busy, 2);
      assert.equal(g.reads(), 2, "the held notification's read and the test's; none for the refused ones");
      g.release();
      assert.deepEqual(
        (await Promise.all(held)).map((a) => a.status),
        [200, 200, 200],
      );
      // Room again once they are answered.
      assert.equal((await notify(r)).status, 200);
    });
  });

  it("HEAD /healthz answers like GET, without a body", async () => {
    const r = await start();
    const res = await fetch(`${r.url}/healthz`, { method: "HEAD" });
    assert.equal(res.status, 200);
    assert.equal(await res.text(), "");
    assert.equal(res.headers.get("content-type"), "application/json; charset=utf-8");
    assert.equal((await fetch(`${r.url}/healthz`)).status, 200);
  });

  describe("the output directory", () => {
    const capture = (): { o: { out: string; err: string }; io: MainIo } => {
      const o = { out: "", err: "" };
      return {
        o,
        io: {
          out: (t) => {
            o.out += t;
          },
          err: (t) => {
            o.err += t;
          },
          outIsTerminal: false,
        },
      };
    };

    for (const [name, dir] of [
      ["/dev/null", () => "/dev/null"],
      [
        "a regular file",
        () => {
          const f = path.join(out, "file");
          fs.writeFileSync(f, "x");
          return f;
        },
      ],
    ] as const) {
      it(`is checked at start: --out ${name} refuses to start with a message naming it`, async () => {
        const target = dir();
        // The library refuses it before listening...
        await assert.rejects(start({ outDir: target }), (err: unknown) => err instanceof OutputDirError && err.message.includes(target));
        // ...and the command refuses it as a bad argument (exit 2), before reading any setting.
        const x = capture();
        const code = await main(["--port", "0", "--out", target, "--bunit", "1"], envFor(emu), x.io);
        if (typeof code !== "number") await code.close();
        assert.equal(code, 2, x.o.out);
        assert.match(
          x.o.err,
          new RegExp(`--out ${JSON.stringify(target).replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")} is not a directory`),
          x.o.err,
        );
        assert.equal(x.o.out, "", "never said it listens");
      });
    }

    it("a directory that is writable passes, and the check leaves no file behind", async () => {
      await start();
      assert.deepEqual(filesUnder(out), []);
      assert.ok(fs.statSync(path.join(out, "1")).isDirectory());
    });
  });

  describe("503 answers", () => {
    it("carry a fixed message and an id, never a server path; the log has the detail under the id", async () => {
      const r = await start();
      fs.rmSync(path.join(out, "1"), { recursive: true });
      fs.writeFileSync(path.join(out, "1"), "in the way"); // mkdir fails with EEXIST and the path
      const a = await notify(r);
      assert.equal(a.status, 503, a.raw);
      const body = JSON.parse(a.body);
      assert.deepEqual(Object.keys(body).sort(), ["error", "id", "notStored", "stored"]);
      assert.equal(body.error, NOT_STORED);
      assert.deepEqual(body.stored, []);
      assert.ok(!a.raw.includes(out) && !/EEXIST|mkdir|\//.test(a.body), a.raw);
      const line = logs.find((l) => l.includes(`error id ${body.id}`));
      assert.ok(line && line.includes("EEXIST") && line.includes(out), logs.join("\n"));
    });

    it("after a write failure say which periods were stored (replaced) and which not, in the answer and the log", async () => {
      const r = await start();
      const periods = (await client.billing.billingData(1)).map((d) => d.period!);
      assert.deepEqual(periods, ["2025-01-01", "2025-02-01", "2025-03-01"]);
      fs.mkdirSync(path.join(out, "1", "2025-02-01.json")); // a directory where the second period's file goes
      const a = await notify(r);
      assert.equal(a.status, 503, a.raw);
      const body = JSON.parse(a.body);
      assert.deepEqual(
        { stored: body.stored, notStored: body.notStored },
        { stored: ["2025-01-01"], notStored: ["2025-02-01", "2025-03-01"] },
      );
      assert.ok(fs.existsSync(path.join(out, "1", "2025-01-01.json")));
      assert.ok(!fs.existsSync(path.join(out, "1", "2025-03-01.json")));
      const line = logs.find((l) => l.includes(`error id ${body.id}`)) ?? "";
      assert.match(line, /writing period 2025-02-01 failed after storing 2025-01-01; not stored: 2025-02-01, 2025-03-01/, logs.join("\n"));
    });
  });

  describe("the Post URL", () => {
    it("carries the secret URL-encoded; the raw `+ & =` would not match", async () => {
      const r = await start();
      const url = r.postUrl(SECRET);
      assert.equal(url, `${r.url}/notify?bunit=1&secret=hardening-Secret%2Bwith%26query%3Dchars`);
      const res = await fetch(url, { method: "POST", body: "{}" });
      assert.equal(res.status, 200, await res.text());
      const raw = await fetch(`${r.url}/notify?bunit=1&secret=${SECRET}`, { method: "POST", body: "{}" });
      assert.equal(raw.status, 403);
    });

    it("is printed at start, encoded; its secret only when stdout is a terminal", async () => {
      const env = { ...envFor(emu), BILLING_RECEIVER_SECRET: SECRET };
      for (const terminal of [true, false]) {
        const o = { out: "", err: "" };
        const r = await main(["--port", "0", "--out", out, "--bunit", "1"], env, {
          out: (t) => {
            o.out += t;
          },
          err: (t) => {
            o.err += t;
          },
          outIsTerminal: terminal,
        });
        assert.notEqual(typeof r, "number", o.err);
        const h = r as BillingReceiverHandle;
        receivers.push(h);
        const lines = o.out.trimEnd().split("\n");
        assert.equal(lines[0], `billing receiver listening on ${h.url}`);
        if (terminal) assert.equal(lines[1], `post URL: ${h.url}/notify?bunit=1&secret=hardening-Secret%2Bwith%26query%3Dchars`);
        else {
          assert.equal(
            lines[1],
            `post URL: ${h.url}/notify?bunit=1&secret=*** (the secret URL-encoded; shown only when stdout is a terminal)`,
          );
          for (const s of spellings(SECRET)) assert.ok(!o.out.includes(s) && !o.err.includes(s), s);
        }
      }
      assert.equal(
        postUrlLine({ notifyUrl: "http://h/notify?bunit=1", postUrl: () => "unused" }, undefined, false),
        "post URL: http://h/notify?bunit=1",
      );
    });
  });

  describe("the portal password", () => {
    // Long, distinctive, and made of what every encoding spells differently. "LEAKME" survives every spelling,
    // so finding it anywhere finds a spelling nobody thought of.
    const PASSWORD = `LEAKME-7731 pw+&=!'()~ "dq" 'sq' back\\slash é ü 日本 \u2028 end-LEAKME-7731`;
    const echoes = ["form body as text", "JSON error_description", ".NET-escaped JSON as text", "URL-encoded as text"] as const;
    let mode: (typeof echoes)[number] = echoes[0];
    let portal: http.Server;
    let portalUrl: string;

    /** A portal (or a proxy in front of it) that echoes the token request in its 400 answer. */
    before(async () => {
      portal = http.createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on("data", (c: Buffer) => chunks.push(c));
        req.on("end", () => {
          const body = Buffer.concat(chunks).toString("utf8");
          const password = new URLSearchParams(body).get("password") ?? "";
          const json = JSON.stringify({ error: "invalid_grant", error_description: `bad password ${password}` });
          const text =
            mode === "form body as text"
              ? `rejected request body: ${body}`
              : mode === ".NET-escaped JSON as text"
                ? `rejected: ${spellings(password)[4]}`
                : mode === "URL-encoded as text"
                  ? `rejected: password=${encodeURIComponent(password)}`
                  : json;
          res.writeHead(400, { "Content-Type": mode === "JSON error_description" ? "application/json" : "text/plain" });
          res.end(text);
        });
      });
      await new Promise<void>((r) => portal.listen(0, "127.0.0.1", r));
      portalUrl = `http://127.0.0.1:${(portal.address() as AddressInfo).port}`;
    });
    after(async () => {
      portal.closeAllConnections();
      await new Promise((r) => portal.close(r));
    });

    /** Runs the command against the echoing portal: a notification and a test request per kind of echo. */
    async function run(): Promise<{ answers: RawResponse[]; out: string; err: string }> {
      const env = {
        BACKUP_PORTAL_URL: portalUrl,
        BACKUP_PORTAL_ORIGIN: "http://localhost",
        BACKUP_PORTAL_CLIENT_ID: "client-1",
        BACKUP_PORTAL_USERNAME: "billing-bot",
        BACKUP_PORTAL_PASSWORD: PASSWORD,
        BILLING_RECEIVER_SECRET: SECRET,
      };
      const o = { out: "", err: "" };
      const h = await main(["--port", "0", "--out", out, "--bunit", "1"], env, {
        out: (t) => {
          o.out += t;
        },
        err: (t) => {
          o.err += t;
        },
        outIsTerminal: true,
      });
      assert.notEqual(typeof h, "number", o.err);
      const r = h as BillingReceiverHandle;
      receivers.push(r);
      const answers: RawResponse[] = [];
      for (const m of echoes) {
        mode = m;
        answers.push(await notify(r), await notify(r, JSON.stringify({ trigger: TEST_TRIGGER })));
      }
      assert.deepEqual(
        answers.map((a) => a.status),
        answers.map(() => 503),
      );
      // The echoing portal refuses the token request (400): a refused login, explained once in the log by its id.
      assert.match(o.err, /503 \(error id [0-9a-f]{12}\): .*refused the login \(HTTP 400/, "the log keeps the detail");
      return { answers, ...o };
    }

    function assertAbsent(text: string): void {
      for (const s of spellings(PASSWORD)) assert.ok(!text.includes(s), `a spelling of the password: ${JSON.stringify(s)}\n${text}`);
      assert.ok(!text.includes("LEAKME"), `part of the password:\n${text}`);
    }

    it("never reaches the receiver's answers, in any spelling, whatever the portal echoes", async () => {
      const { answers, out: stdout } = await run();
      answers.forEach((a, i) => {
        assert.deepEqual(Object.keys(JSON.parse(a.body)).sort(), ["error", "id"]);
        assert.equal(JSON.parse(a.body).error, i % 2 ? TEST_FAILED : NOT_STORED);
      });
      assertAbsent([stdout, ...answers.map((a) => a.raw)].join("\n"));
    });

    // The log quotes the client's errors, so it is as clean as the client's redaction: this needs the client's
    // side of issue 15 (no token answer quoted, every other body redacted in the encodings sent).
    it("never reaches the receiver's log, in any spelling, whatever the portal echoes", async () => {
      assertAbsent((await run()).err);
    });
  });
});
