// The billing receiver's request handling, in the mocha process (so the mutation run sees it): a real
// receiver on 127.0.0.1 port 0 with a stand-in portal client whose reads the test scripts. No emulator and
// no real waits: retry pauses and deadlines are a few milliseconds, a stuck read is a promise the test releases.
import assert from "node:assert/strict";
import * as fs from "fs";
import * as net from "net";
import * as path from "path";
import {
  BillingReceiverHandle,
  BillingReceiverOptions,
  NOT_STORED,
  startBillingReceiver,
  TEST_FAILED,
  TEST_TRIGGER,
} from "../../provider/billing";
import { PortalClient } from "../../provider/portal";
import { PortalError } from "../../provider/portal/errors";
import { BillingData } from "../../provider/portal/types";
import { filesUnder, postHead, rawRequest, tempDir, waitFor } from "./helpers";

const SECRET = "Handler-Secret-7c41-in-process";
const BUNIT = 7;
const Q = `/notify?bunit=${BUNIT}&secret=${SECRET}`;
const DATA: BillingData[] = [
  { period: "2025-01-01", total: 1 },
  { period: "2025-02-01T00:00:00Z", total: 2 },
];

/** A stand-in portal client: each read answers the next scripted outcome (the last one repeats). */
class FakePortal {
  reads = 0;
  private gate: Promise<void> | undefined;
  private open: (() => void) | undefined;
  constructor(public outcomes: Array<BillingData[] | Error> = [DATA]) {}
  /** Holds every read until `release()`. */
  hold(): void {
    this.gate = new Promise((r) => (this.open = r));
  }
  release(): void {
    this.open?.();
    this.gate = undefined;
  }
  readonly client = {
    url: "https://portal.example.test",
    // The client's own redaction: the receiver passes every log line through it.
    redact: (text: string) => text.split("Portal-Pa55word-in-error").join("[redacted]"),
    billing: {
      billingData: async (id: number): Promise<BillingData[]> => {
        assert.equal(id, BUNIT, "reads the Post URL's business unit");
        const outcome = this.outcomes[Math.min(this.reads, this.outcomes.length - 1)];
        this.reads++;
        if (this.gate) await this.gate;
        if (outcome instanceof Error) throw outcome;
        return outcome;
      },
    },
  } as unknown as PortalClient;
}

const portalError = (status: number, p = `/v1/bunits/${BUNIT}/billing`, code?: string) =>
  new PortalError({ method: p === "/v1/oauth" ? "POST" : "GET", path: p, status, code });

/** A request to the receiver: every answer here comes in milliseconds, so one that does not come fails fast. */
const answered = (url: string, init: RequestInit = {}) => fetch(url, { ...init, signal: AbortSignal.timeout(2000) });

interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

describe("billing: the receiver's request handling (in process)", () => {
  let out: string;
  let logs: string[];
  let portal: FakePortal;
  const receivers: BillingReceiverHandle[] = [];

  async function start(extra: Partial<BillingReceiverOptions> = {}): Promise<BillingReceiverHandle> {
    const r = await startBillingReceiver({
      outDir: out,
      businessUnitId: BUNIT,
      secret: SECRET,
      client: portal.client,
      log: (l) => logs.push(l),
      retryBaseMs: 1,
      retryMaxMs: 4,
      ...extra,
    });
    receivers.push(r);
    return r;
  }

  async function post(r: BillingReceiverHandle, body = "{}", query = Q, headers: Record<string, string> = {}): Promise<Answer> {
    const res = await answered(`${r.url}${query}`, { method: "POST", body, headers });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
  }

  /** The one log line of a 503 answer's error id. */
  function lineOf(answer: Answer): string {
    assert.match(answer.body.id, /^[0-9a-f]{12}$/);
    const lines = logs.filter((l) => l.includes(`(error id ${answer.body.id})`));
    assert.equal(lines.length, 1, logs.join("\n"));
    return lines[0];
  }

  /** Every output folder a test made (its own and any second one), removed after it. */
  const dirs: string[] = [];
  const outDir = () => {
    const d = tempDir("billing-handler-");
    dirs.push(d);
    return d;
  };

  beforeEach(() => {
    out = outDir();
    logs = [];
    portal = new FakePortal();
  });
  afterEach(async () => {
    portal.release();
    for (const r of receivers.splice(0)) await r.close(500);
    for (const l of logs) assert.ok(!l.includes(SECRET) && !l.includes("secret="), `secret in log line: ${l}`);
    for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
  });

  describe("answers", () => {
    it("a test request: 200 with the number of readable periods, whatever the spacing, case or BOM; writes nothing", async () => {
      const r = await start();
      const a = await post(r, `\uFEFF  ${JSON.stringify({ trigger: ` ${TEST_TRIGGER.toUpperCase()} ` })}\n`);
      assert.equal(a.status, 200);
      assert.equal(a.headers.get("content-type"), "application/json; charset=utf-8");
      assert.deepEqual(a.body, { status: "ok", test: true, portal: "reachable", periods: 2 });
      assert.deepEqual(filesUnder(out), []);
      assert.deepEqual(
        { ...r.stats },
        { requests: 1, tests: 1, notifications: 0, rejected: 0, failed: 0, fetches: 1, written: 0, busy: 0, coalesced: 0 },
      );
      assert.equal(logs.length, 1, logs.join("\n"));
      assert.match(logs[0], /^POST \/notify 200: test request; portal reachable, 2 billing period\(s\) readable \(\d+ ms\)$/);
    });

    it("a notification: 200 once every dated period is on disk, naming the period and each file's change", async () => {
      portal.outcomes = [[...DATA, { period: "April 2025", total: 3 }]];
      const r = await start();
      const a = await post(r, JSON.stringify({ trigger: "whatever", businessUnitId: String(BUNIT), period: "2025-02-01T09:30:00Z" }));
      assert.equal(a.status, 200, JSON.stringify(a.body));
      assert.deepEqual(a.body, {
        status: "stored",
        period: "2025-02-01",
        files: [
          { period: "2025-01-01", file: `${BUNIT}/2025-01-01.json`, change: "created" },
          { period: "2025-02-01", file: `${BUNIT}/2025-02-01.json`, change: "created" },
        ],
      });
      assert.deepEqual(filesUnder(out), [`${BUNIT}/2025-01-01.json`, `${BUNIT}/2025-02-01.json`]);
      assert.deepEqual(JSON.parse(fs.readFileSync(path.join(out, String(BUNIT), "2025-02-01.json"), "utf8")), DATA[1]);
      assert.ok(logs.includes('skipped 1 billing entries without a YYYY-MM-DD period: ["April 2025"]'), logs.join("\n"));
      assert.match(
        logs.at(-1)!,
        /^POST \/notify 200: new billing data for 2025-02-01; 2 period\(s\) stored \(2025-01-01 created, 2025-02-01 created\) \(\d+ ms\)$/,
      );

      // The same again: nothing changed, nothing counted as written; no period named.
      const again = await post(r, "");
      assert.equal(again.status, 200);
      assert.equal(again.body.period, null);
      assert.deepEqual(
        again.body.files.map((f: { change: string }) => f.change),
        ["unchanged", "unchanged"],
      );
      assert.match(logs.at(-1)!, /^POST \/notify 200: new billing data; 2 period\(s\) stored, none changed \(\d+ ms\)$/);
      assert.deepEqual(
        { ...r.stats },
        { requests: 2, tests: 0, notifications: 2, rejected: 0, failed: 0, fetches: 2, written: 2, busy: 0, coalesced: 0 },
      );
    });

    it("a portal with no billing data yet: 200 with no files", async () => {
      portal.outcomes = [[]];
      const r = await start();
      const a = await post(r);
      assert.deepEqual({ status: a.status, body: a.body }, { status: 200, body: { status: "stored", period: null, files: [] } });
    });

    it("GET and HEAD /healthz: 200 even when the queue is full; no other method or path is a health check", async () => {
      portal.hold();
      const r = await start({ maxPending: 1 });
      const held = post(r);
      await waitFor(() => portal.reads === 1, "the held read", 2000);
      const get = await answered(`${r.url}/healthz?probe=1`);
      assert.equal(get.status, 200);
      assert.deepEqual(await get.json(), { status: "ok" });
      const head = await answered(`${r.url}/healthz`, { method: "HEAD" });
      assert.equal(head.status, 200);
      assert.equal(await head.text(), "");
      portal.release();
      assert.equal((await held).status, 200);
      const notHealth = await answered(`${r.url}/healthz`, { method: "POST", body: "{}" });
      assert.equal(notHealth.status, 404);
      assert.equal((await answered(`${r.url}/healthz/x`)).status, 404);
    });
  });

  describe("refusals on the Post URL and the headers, before any read", () => {
    it("answers each with its status and a message that says what is wrong; the secret is checked before the business unit", async () => {
      const r = await start();
      const refused: Array<[string, string, number, string, Record<string, string>?]> = [
        ["POST", `/other?bunit=${BUNIT}&secret=${SECRET}`, 404, "not found: POST the notification to /notify"],
        ["GET", Q, 405, "only POST is accepted", { allow: "POST" }],
        ["PUT", Q, 405, "only POST is accepted", { allow: "POST" }],
        ["POST", `/notify?bunit=${BUNIT}&secret=wrong-${SECRET}`, 403, "missing or wrong secret"],
        ["POST", `/notify?bunit=${BUNIT}`, 403, "missing or wrong secret"],
        ["POST", `/notify?bunit=${BUNIT}&secret=`, 403, "missing or wrong secret"],
        ["POST", `${Q}&secret=${SECRET}`, 403, "missing or wrong secret"],
        ["POST", `/notify?bunit=${BUNIT + 1}&secret=wrong`, 403, "missing or wrong secret"],
        ["POST", `/notify?secret=wrong`, 403, "missing or wrong secret"],
        ["POST", `/notify?secret=${SECRET}`, 400, "the Post URL must carry the business unit: ?bunit=<id>"],
        ["POST", `/notify?bunit=&secret=${SECRET}`, 400, "the Post URL must carry the business unit: ?bunit=<id>"],
        ...[String(BUNIT + 1), `+${BUNIT}`, `${BUNIT}.0`, `0x${BUNIT}`, `${BUNIT}e0`, `%20${BUNIT}`, `${BUNIT}x`, `x${BUNIT}`].map(
          (b): [string, string, number, string] => [
            "POST",
            `/notify?bunit=${b}&secret=${SECRET}`,
            400,
            "this receiver does not store billing data of that business unit",
          ],
        ),
      ];
      for (const [method, target, status, error, headers] of refused) {
        const res = await answered(`${r.url}${target}`, { method, body: method === "GET" ? undefined : "{}" });
        const what = `${method} ${target}`;
        assert.equal(res.status, status, what);
        assert.deepEqual(await res.json(), { error }, what);
        assert.equal(res.headers.get("connection"), "close", what);
        for (const [k, v] of Object.entries(headers ?? {})) assert.equal(res.headers.get(k), v, what);
      }
      assert.equal(portal.reads, 0, "nothing read for a refused request");
      assert.equal(r.stats.rejected, refused.length);
      assert.equal(r.stats.requests, refused.length);
      assert.deepEqual(filesUnder(out), []);
      // The log names the method, path, status and reason; never the query.
      assert.ok(logs.includes("POST /notify 403: missing or wrong secret"), logs.join("\n"));
      assert.ok(logs.includes("GET /notify 405: only POST is accepted"), logs.join("\n"));
    });

    it("the business unit may be written with leading zeros; without a configured secret, none is checked", async () => {
      const r = await start({ secret: undefined });
      assert.equal((await post(r, "{}", `/notify?bunit=00${BUNIT}`)).status, 200);
      assert.equal((await post(r, "{}", `/notify?bunit=${BUNIT}&secret=anything`)).status, 200);
      assert.equal((await post(r, "{}", `/notify?bunit=${BUNIT + 1}`)).status, 400);
    });

    it("a request target that is not a path: 400; a request that is not HTTP: 400 and the connection closed", async () => {
      const r = await start();
      const bad = await rawRequest(r.port, postHead(`http://x:99999${Q}`, "{}", { Connection: "close" }), "{}", { timeoutMs: 2000 });
      assert.equal(bad.status, 400, bad.raw);
      assert.deepEqual(JSON.parse(bad.body), { error: "bad request target" });
      assert.match(logs.at(-1)!, /^POST \? 400: bad request target$/);
      const garbage = await rawRequest(r.port, "NOT HTTP AT ALL\r\n\r\n", "", { timeoutMs: 2000 });
      assert.match(garbage.raw, /^HTTP\/1\.1 400 Bad Request\r\n/);
    });

    it("a body over the limit: 413 from Content-Length, and from a chunked body once it grows past; the limit itself passes", async () => {
      const r = await start({ maxBodyBytes: 16 });
      const at = " ".repeat(16);
      assert.equal((await post(r, at)).status, 200);
      const over = await post(r, `${at} `);
      // Told on the header alone: no 100 Continue, so the sender never sends the body.
      const expecting = await rawRequest(r.port, postHead(Q, `${at} `, { Expect: "100-continue" }), `${at} `, {
        waitForContinue: true,
        timeoutMs: 2000,
      });
      assert.deepEqual([expecting.status, expecting.continued, expecting.bodySent], [413, false, false], expecting.raw);
      assert.deepEqual({ status: over.status, body: over.body }, { status: 413, body: { error: "the body is larger than 16 bytes" } });
      const chunked = (parts: string[]) =>
        rawRequest(
          r.port,
          `POST ${Q} HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n`,
          `${parts.map((p) => `${p.length.toString(16)}\r\n${p}\r\n`).join("")}0\r\n\r\n`,
          { timeoutMs: 2000 },
        );
      assert.equal((await chunked([" ".repeat(8), " ".repeat(8)])).status, 200);
      const grown = await chunked([" ".repeat(8), " ".repeat(9)]);
      assert.equal(grown.status, 413, grown.raw);
      assert.deepEqual(JSON.parse(grown.body), { error: "the body is larger than 16 bytes" });
      assert.equal(portal.reads, 2, "read only for the two within the limit");
    });

    it("a body that does not arrive in time: 408", async () => {
      const r = await start({ bodyTimeoutMs: 20 });
      const a = await rawRequest(r.port, postHead(Q, "0123456789"), "", { timeoutMs: 2000 });
      assert.equal(a.status, 408, a.raw);
      assert.deepEqual(JSON.parse(a.body), { error: "the body did not arrive in time" });
      assert.equal(portal.reads, 0);
    });

    it("a sender that goes away in the middle of its body: logged as aborted, nothing read", async () => {
      const r = await start();
      const socket = net.connect(r.port, "127.0.0.1", () => socket.write(`${postHead(Q, "0123456789")}01234`, () => socket.destroy()));
      await waitFor(() => r.stats.rejected === 1, "the request refused", 2000);
      assert.deepEqual(logs, ["POST /notify 400: the request was aborted"]);
      assert.equal(portal.reads, 0);
    });

    it("a notification naming another business unit than the Post URL: 400; one it cannot read as a number is ignored", async () => {
      const r = await start();
      for (const named of [BUNIT + 1, String(BUNIT + 1), String(BUNIT + 10), 0]) {
        const a = await post(r, JSON.stringify({ businessUnitId: named }));
        assert.deepEqual(
          { status: a.status, body: a.body },
          { status: 400, body: { error: "the notification names another business unit than the Post URL" } },
          String(named),
        );
      }
      for (const body of ["null", "[]", '"text"', "7"]) assert.equal((await post(r, body)).status, 200, `a body of ${body}: new data`);
      for (const ignored of [`${BUNIT + 1}x`, `x${BUNIT + 1}`, null, [BUNIT + 1]]) {
        assert.equal((await post(r, JSON.stringify({ businessUnitId: ignored }))).status, 200, JSON.stringify(ignored));
      }
      // A period that is not a date is no period: the answer names none.
      const a = await post(r, JSON.stringify({ period: 20250201 }));
      assert.equal(a.body.period, null);
    });
  });

  describe("the bounded queue", () => {
    it("holds at most maxPending requests: one more is answered 503 busy at once, before 100 Continue; room again after", async () => {
      portal.hold();
      const r = await start({ maxPending: 2 });
      const held = [post(r), post(r, JSON.stringify({ trigger: TEST_TRIGGER }))];
      await waitFor(() => r.stats.notifications === 1 && r.stats.tests === 1, "two requests held", 2000);
      const busy = await post(r);
      assert.equal(busy.status, 503);
      assert.deepEqual(busy.body, { error: "busy: 2 requests are waiting already, try again later" });
      assert.equal(busy.headers.get("retry-after"), "30");
      const expecting = await rawRequest(r.port, postHead(Q, "{}", { Expect: "100-continue", Connection: "close" }), "{}", {
        waitForContinue: true,
        timeoutMs: 2000,
      });
      assert.equal(expecting.status, 503, expecting.raw);
      assert.equal(expecting.continued, false);
      assert.equal(r.stats.busy, 2);
      portal.release();
      assert.deepEqual(
        (await Promise.all(held)).map((a) => a.status),
        [200, 200],
      );
      assert.equal((await post(r)).status, 200, "room again");
    });

    it("a notification arriving while another waits for the next read adds no read: one read serves them all", async () => {
      portal.hold();
      const r = await start();
      const first = post(r);
      await waitFor(() => portal.reads === 1, "the first read", 2000);
      const later = [post(r), post(r), post(r)];
      await waitFor(() => r.stats.notifications === 4, "four notifications", 2000);
      portal.release();
      assert.deepEqual(
        (await Promise.all([first, ...later])).map((a) => a.status),
        [200, 200, 200, 200],
      );
      assert.equal(portal.reads, 2);
      assert.equal(r.stats.coalesced, 2, "the second waited alone; the third and fourth joined it");
    });

    it("counts a deadline from arrival: one waiting behind a stuck read is answered 503 when it passes, without a read", async () => {
      portal.hold();
      const r = await start({ deadlineMs: 30 });
      const first = post(r);
      await waitFor(() => portal.reads === 1, "the first read", 2000);
      const second = await post(r);
      assert.equal(second.status, 503);
      assert.deepEqual(Object.keys(second.body).sort(), ["error", "id"]);
      assert.equal(second.body.error, NOT_STORED);
      assert.equal(second.headers.get("retry-after"), "30");
      assert.match(
        lineOf(second),
        /^POST \/notify 503 \(error id \w+\): billing data not stored: not stored in time: the reads for earlier notifications took too long \(\d+ ms\)$/,
      );
      assert.equal(portal.reads, 1);
      portal.release();
      assert.equal((await first).status, 200, "the read in progress still answers its own");
    });

    it("a notification whose deadline passed while the read it waited for failed gets that read's error", async () => {
      portal.outcomes = [portalError(503), DATA];
      portal.hold();
      const r = await start({ deadlineMs: 30, retryBaseMs: 1000, retryMaxMs: 1000 });
      const first = post(r);
      await waitFor(() => portal.reads === 1, "the first read", 2000);
      const started = Date.now();
      const second = post(r);
      await waitFor(() => r.stats.notifications === 2, "the second notification", 2000);
      await new Promise((res) => setTimeout(res, 40)); // past the second's deadline
      portal.release();
      const answers = await Promise.all([first, second]);
      assert.deepEqual(
        answers.map((a) => a.status),
        [503, 503],
      );
      assert.ok(Date.now() - started < 900, "nobody waited for a retry pause that ends past its deadline");
      assert.match(lineOf(answers[0]), /HTTP 503/);
      assert.match(lineOf(answers[1]), /not stored in time/);
      assert.equal(portal.reads, 1);
    });
  });

  describe("reading the billing data", () => {
    it("repeats a read that failed for a reason worth repeating, with doubling pauses up to the longest; then stores", async () => {
      portal.outcomes = [portalError(503), portalError(0), portalError(429), portalError(408), DATA];
      const r = await start({ fetchAttempts: 5, retryBaseMs: 1, retryMaxMs: 4 });
      const a = await post(r);
      assert.equal(a.status, 200, JSON.stringify(a.body));
      assert.equal(portal.reads, 5);
      const retries = logs.filter((l) => l.includes("; retry ")).map((l) => / retry (\d+\/\d+ in \d+ ms)$/.exec(l)?.[1]);
      assert.deepEqual(retries, ["1/4 in 1 ms", "2/4 in 2 ms", "3/4 in 4 ms", "4/4 in 4 ms"]);
      assert.match(
        logs.find((l) => l.includes("retry 1/4"))!,
        /^reading billing data failed \(GET \/v1\/bunits\/7\/billing failed \(HTTP 503\)/,
      );
    });

    it("gives up after fetchAttempts reads, and at once on an error that repeating would not fix", async () => {
      const cases: Array<[Error, number]> = [
        [portalError(500), 3],
        [portalError(502), 3],
        [portalError(0), 3],
        [portalError(404), 1],
        [portalError(400), 1],
        [portalError(401), 1],
        [new Error("disk on fire"), 1],
      ];
      for (const [err, reads] of cases) {
        portal = new FakePortal([err]);
        const r = await start({ fetchAttempts: 3 });
        const a = await post(r);
        assert.equal(a.status, 503, err.message);
        assert.equal(a.body.error, NOT_STORED);
        assert.equal(portal.reads, reads, err.message);
        assert.ok(lineOf(a).includes(err.message), err.message);
        assert.equal(r.stats.failed, 1);
      }
    });

    it("never pauses past a notification's deadline: answered after one read when the pause would end after it", async () => {
      portal.outcomes = [portalError(503)];
      const r = await start({ deadlineMs: 50, retryBaseMs: 2000, retryMaxMs: 2000 });
      const started = Date.now();
      const a = await post(r);
      assert.equal(a.status, 503);
      assert.ok(Date.now() - started < 1500, `answered after ${Date.now() - started} ms`);
      assert.equal(portal.reads, 1);
    });

    it("waits for a named period until a read shows it; a period that never shows: 503 after fetchAttempts reads", async () => {
      portal.outcomes = [[DATA[0]], DATA];
      const r = await start({ fetchAttempts: 3 });
      const a = await post(r, JSON.stringify({ period: "2025-02-01" }));
      assert.equal(a.status, 200);
      assert.equal(portal.reads, 2);
      assert.ok(logs.includes("the named period is not visible yet; retry 1/2 in 1 ms"), logs.join("\n"));
      assert.deepEqual(filesUnder(out), [`${BUNIT}/2025-01-01.json`, `${BUNIT}/2025-02-01.json`], "written once it showed");

      portal = new FakePortal([DATA]);
      const r2 = await start({ fetchAttempts: 3, outDir: outDir() });
      const never = await post(r2, JSON.stringify({ period: "2030-01-01" }));
      assert.equal(never.status, 503);
      assert.match(lineOf(never), /: the portal's billing data has no period 2030-01-01 yet \(\d+ ms\)$/);
      assert.equal(portal.reads, 3);
    });

    it("answers 503, never 'stored', when no entry has a period it can file", async () => {
      portal.outcomes = [[{ total: 1 }, { period: "April", href: "x/april" }]];
      const r = await start();
      const a = await post(r);
      assert.equal(a.status, 503);
      assert.match(lineOf(a), /none of the 2 billing entries has a YYYY-MM-DD period or href/);
      assert.deepEqual(filesUnder(out), []);
    });

    it("after a failed write says which periods were stored and which not; the stored ones count as written", async () => {
      portal.outcomes = [[...DATA, { period: "2025-03-01" }]];
      const r = await start();
      fs.mkdirSync(path.join(out, String(BUNIT), "2025-03-01.json"), { recursive: true }); // in the way of the third period
      const a = await post(r);
      assert.equal(a.status, 503);
      assert.deepEqual(a.body, { error: NOT_STORED, id: a.body.id, stored: ["2025-01-01", "2025-02-01"], notStored: ["2025-03-01"] });
      assert.match(lineOf(a), /: writing period 2025-03-01 failed after storing 2025-01-01, 2025-02-01; not stored: 2025-03-01: /);
      assert.equal(r.stats.written, 2);
      assert.equal(portal.reads, 1, "a failed write is not a read worth repeating");

      fs.rmSync(path.join(out, String(BUNIT)), { recursive: true });
      fs.mkdirSync(path.join(out, String(BUNIT), "2025-01-01.json"), { recursive: true });
      const none = await post(r);
      assert.deepEqual(none.body.stored, []);
      assert.match(lineOf(none), /: writing period 2025-01-01 failed after storing none; not stored: 2025-01-01, 2025-02-01, 2025-03-01: /);
    });

    it("a refused login is explained once with the settings to check, then referred to; a test request says the test failed", async () => {
      portal.outcomes = [portalError(400, "/v1/oauth", "invalid_grant")];
      const r = await start();
      const first = await post(r);
      const second = await post(r, JSON.stringify({ trigger: TEST_TRIGGER }));
      assert.deepEqual([first.status, second.status], [503, 503]);
      assert.equal(first.body.error, NOT_STORED);
      assert.equal(second.body.error, TEST_FAILED);
      assert.match(
        lineOf(first),
        /^POST \/notify 503 \(error id \w+\): billing data not stored: the portal at https:\/\/portal\.example\.test refused the login \(HTTP 400 invalid_grant\).*; retrying does not help: fix the settings and restart the receiver$/,
      );
      assert.equal(
        lineOf(second),
        `POST /notify 503 (error id ${second.body.id}): test failed: the portal still refuses the login (see above)`,
      );
      assert.equal(portal.reads, 2, "not repeated");
    });

    it("the log never carries the secret nor what the client redacts, even when an error quotes them", async () => {
      portal.outcomes = [new Error(`echo ${SECRET} password=Portal-Pa55word-in-error`)];
      const r = await start();
      const a = await post(r);
      assert.match(lineOf(a), /: echo \*\*\* password=\[redacted\] \(\d+ ms\)$/);
      // Without a log function the receiver answers all the same.
      portal = new FakePortal([new Error("no log")]);
      const quiet = await start({ log: undefined });
      assert.equal((await post(quiet)).status, 503);
      portal.outcomes = [DATA];
      assert.equal((await post(quiet)).status, 200);
      assert.deepEqual([quiet.stats.failed, quiet.stats.written], [1, 2]);
    });
  });

  describe("start and close", () => {
    it("refuses options it cannot work with, naming the option and the value", async () => {
      const bad: Array<[Partial<BillingReceiverOptions>, string]> = [
        [{ outDir: "" }, "outDir is required"],
        [{ businessUnitId: 0 }, "businessUnitId must be a positive integer, got 0"],
        [{ businessUnitId: 1.5 }, "businessUnitId must be a positive integer, got 1.5"],
        [{ businessUnitId: 2 ** 53 }, `businessUnitId must be a positive integer, got ${2 ** 53}`],
        [{ secret: "" }, "secret must not be empty (leave it out for no secret)"],
        [{ path: "notify" }, 'path must start with / and carry no query, got "notify"'],
        [{ path: "/notify?x=1" }, 'path must start with / and carry no query, got "/notify?x=1"'],
        [{ maxBodyBytes: 0 }, "maxBodyBytes must be a positive number, got 0"],
        [{ fetchAttempts: 0 }, "fetchAttempts must be a positive number, got 0"],
        [{ maxPending: 0 }, "maxPending must be a positive number, got 0"],
        [{ retryBaseMs: -1 }, "retryBaseMs must be a positive number, got -1"],
        [{ retryMaxMs: Number.NaN }, "retryMaxMs must be a positive number, got NaN"],
        [{ deadlineMs: Infinity }, "deadlineMs must be a positive number, got Infinity"],
        [{ bodyTimeoutMs: -5 }, "bodyTimeoutMs must be a positive number, got -5"],
      ];
      for (const [extra, message] of bad) {
        await assert.rejects(start(extra), (err: unknown) => err instanceof RangeError && err.message === message, message);
      }
      // Zero waits are allowed; one attempt, one byte and one request are the least.
      const r = await start({
        retryBaseMs: 0,
        retryMaxMs: 0,
        deadlineMs: 0,
        bodyTimeoutMs: 0,
        fetchAttempts: 1,
        maxBodyBytes: 1,
        maxPending: 1,
      });
      assert.ok(r.port > 0);
    });

    it("builds the Post URL: the business unit, the secret URL-encoded; an IPv6 host in brackets", async () => {
      const r = await start({ host: "::1", path: "/billing/hook" });
      assert.equal(r.url, `http://[::1]:${r.port}`);
      assert.equal(r.notifyUrl, `${r.url}/billing/hook?bunit=${BUNIT}`);
      assert.equal(r.postUrl("a+b&c=d e"), `${r.url}/billing/hook?bunit=${BUNIT}&secret=a%2Bb%26c%3Dd+e`);
      const a = await answered(r.postUrl(SECRET), { method: "POST", body: "{}" });
      assert.equal(a.status, 200);
      const local = await start();
      assert.match(local.url, /^http:\/\/127\.0\.0\.1:\d+$/);
      assert.equal(local.notifyUrl, `${local.url}/notify?bunit=${BUNIT}`);
    });

    it("close lets a request in progress finish, refuses new ones with 503 and Retry-After, and resolves once", async () => {
      portal.hold();
      const r = await start();
      // Two requests on one connection: the second arrives while the receiver is closing.
      const socket = net.connect(r.port, "127.0.0.1");
      let raw = "";
      socket.on("data", (c: Buffer) => (raw += c.toString("latin1")));
      let ended = false;
      socket.on("close", () => (ended = true));
      socket.write(`${postHead(Q, "{}")}{}`);
      await waitFor(() => portal.reads === 1, "the first read", 2000);
      const closed = r.close(2000);
      assert.equal(r.close(), closed, "one close");
      socket.write(`${postHead(Q, "{}", { Connection: "close" })}{}`);
      await waitFor(() => r.stats.rejected === 1, "the second request refused", 2000);
      portal.release();
      await closed;
      await waitFor(() => ended, "the connection closed", 2000);
      const statuses = [...raw.matchAll(/^HTTP\/1\.1 (\d{3})/gm)].map((m) => Number(m[1]));
      assert.deepEqual(statuses, [200, 503], raw);
      assert.match(raw, /\r\nRetry-After: 5\r\n[^]*\{"error":"the receiver is shutting down"\}/i);
      await assert.rejects(answered(`${r.url}/healthz`), "no longer listening");
    });

    it("close gives up on a stuck request after its grace period", async () => {
      portal.hold();
      const r = await start();
      const stuck = post(r).catch((err: Error) => err);
      await waitFor(() => portal.reads === 1, "the stuck read", 2000);
      const started = Date.now();
      await r.close(30);
      assert.ok(Date.now() - started < 1500, `closed after ${Date.now() - started} ms`);
      assert.ok((await stuck) instanceof Error, "its connection was closed");
      // The read given up on still ends, and its request with it (stored or failed): wait for that here, or it
      // would write into the output folder after the test removed it, leaving the folder behind in /tmp.
      portal.release();
      await waitFor(() => r.stats.written + r.stats.failed > 0, "the stuck request's end", 2000);
    });
  });
});
