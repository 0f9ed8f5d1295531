import assert from "node:assert/strict";
import * as fs from "fs";
import * as path from "path";
import { clientFor, Emulator, startEmulator } from "../support/portal";
import {
  BillingReceiverHandle,
  BillingReceiverOptions,
  NEW_DATA_TRIGGER,
  NOT_STORED,
  startBillingReceiver,
  TEST_TRIGGER,
  secretMatches,
} from "../../provider/billing";
import { PortalClient } from "../../provider/portal";
import { control, filesUnder, postHead, rawRequest, startTestReceiver, tempDir } from "./helpers";

const SECRET = "s3cret-Receiver-Value";

describe("billing: receiver against the emulator's notification sender", function () {
  this.timeout(60000);
  let emu: Emulator;
  let client: PortalClient;
  let out: string;
  let receiver: BillingReceiverHandle;
  let logs: string[];

  async function start(extra: Partial<BillingReceiverOptions> = {}): Promise<BillingReceiverHandle> {
    return startTestReceiver({ outDir: out, secret: SECRET, client }, logs, extra);
  }

  async function subscribe(url: string): Promise<void> {
    const r = await control(emu, "/_emulator/billing/subscribers", { businessUnitId: 1, url });
    assert.equal(r.status, 200, JSON.stringify(r.body));
  }

  async function generate(period?: string): Promise<any> {
    const r = await control(emu, "/_emulator/billing/generate", { businessUnitId: 1, period });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body;
  }

  const bunitFiles = () => filesUnder(path.join(out, "1"));
  /** A 503 answer carries a fixed message and an id; the detail is the log line with that id. */
  function detailOf(body: string): string {
    const answer = JSON.parse(body);
    assert.equal(answer.error, NOT_STORED);
    assert.match(answer.id, /^[0-9a-f]{12}$/);
    const lines = logs.filter((l) => l.includes(`error id ${answer.id}`));
    assert.equal(lines.length, 1, logs.join("\n"));
    return lines[0];
  }
  const readJson = (period: string) => JSON.parse(fs.readFileSync(path.join(out, "1", `${period}.json`), "utf8"));

  before(async () => {
    emu = await startEmulator({ port: 0, quiet: true });
  });
  after(async () => {
    await emu?.close();
  });
  beforeEach(async () => {
    emu.reset();
    client = clientFor(emu);
    out = tempDir();
    logs = [];
    receiver = await start();
  });
  afterEach(async () => {
    await receiver?.close();
    client?.close();
    // No log line ever carries the secret (or a bearer token).
    for (const l of logs) {
      assert.ok(!l.includes(SECRET), `secret in log line: ${l}`);
      assert.ok(!/secret=/.test(l) && !/Bearer/i.test(l), `credential in log line: ${l}`);
    }
    fs.rmSync(out, { recursive: true, force: true });
  });

  it("listens on 127.0.0.1 and builds the Post URL with bunit and secret", () => {
    assert.match(receiver.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.equal(receiver.notifyUrl, `${receiver.url}/notify?bunit=1`);
    assert.equal(receiver.postUrl(SECRET), `${receiver.url}/notify?bunit=1&secret=${SECRET}`);
  });

  it("answers the portal's test request with 200 after reading the billing data, and writes nothing", async () => {
    await subscribe(receiver.postUrl(SECRET));
    emu.clearRequests();
    const r = await control(emu, "/_emulator/billing/test", { businessUnitId: 1 });
    assert.equal(r.status, 200);
    const [d] = r.body.deliveries;
    assert.equal(d.sent.body, JSON.stringify({ trigger: TEST_TRIGGER }));
    assert.equal(d.sent.headers.Expect, "100-continue");
    assert.equal(d.continued, true, "100 Continue was sent");
    assert.equal(d.bodySent, true);
    assert.equal(d.status, 200);
    assert.deepEqual(JSON.parse(d.responseBody), { status: "ok", test: true, portal: "reachable", periods: 3 });
    assert.ok(
      emu.requests().some((x) => x.method === "GET" && x.path === "/v1/bunits/1/billing" && x.status === 200),
      "the test proves the portal connection",
    );
    assert.deepEqual(filesUnder(out), []);
    assert.equal(receiver.stats.tests, 1);
  });

  it("stores a real notification's billing data: one file per period, equal to the portal's data", async () => {
    await subscribe(receiver.postUrl(SECRET));
    const g = await generate();
    const [d] = g.deliveries;
    assert.equal(g.period, "2025-04-01");
    assert.deepEqual(JSON.parse(d.sent.body), { trigger: NEW_DATA_TRIGGER, businessUnitId: 1, period: "2025-04-01" });
    assert.equal(d.continued, true);
    assert.equal(d.status, 200, d.responseBody);
    const answer = JSON.parse(d.responseBody);
    assert.equal(answer.status, "stored");
    assert.equal(answer.period, "2025-04-01");
    assert.deepEqual(bunitFiles(), ["2025-01-01.json", "2025-02-01.json", "2025-03-01.json", "2025-04-01.json"]);
    // The file is the portal's billing data of the period, exactly.
    assert.deepEqual(readJson("2025-04-01"), await client.billing.billingDataFor(1, "2025-04-01"));
    for (const data of await client.billing.billingData(1)) assert.deepEqual(readJson(data.period!), data);
    assert.equal(
      fs.readFileSync(path.join(out, "1", "2025-04-01.json"), "utf8"),
      `${JSON.stringify(await client.billing.billingDataFor(1, "2025-04-01"), null, 2)}\n`,
    );
  });

  it("a repeated notification never duplicates a period; unchanged data is not rewritten", async () => {
    await subscribe(receiver.postUrl(SECRET));
    const g = await generate("2025-04-01");
    assert.equal(g.deliveries[0].status, 200);
    const file = path.join(out, "1", "2025-04-01.json");
    const before = fs.statSync(file);
    const content = fs.readFileSync(file, "utf8");

    // The sender repeats the same notification (e.g. it did not see the first answer).
    const body = g.deliveries[0].sent.body as string;
    const again = await rawRequest(receiver.port, postHead(`/notify?bunit=1&secret=${SECRET}`, body, { Connection: "close" }), body);
    assert.equal(again.status, 200, again.raw);
    assert.ok(JSON.parse(again.body).files.every((f: any) => f.change === "unchanged"));
    assert.deepEqual(bunitFiles(), ["2025-01-01.json", "2025-02-01.json", "2025-03-01.json", "2025-04-01.json"]);
    assert.equal(fs.readFileSync(file, "utf8"), content);
    const after = fs.statSync(file);
    assert.equal(after.ino, before.ino, "not rewritten");
    assert.equal(after.mtimeMs, before.mtimeMs);

    // The portal regenerates the same period: still one file for it, now with the new data.
    const g2 = await generate("2025-04-01");
    assert.equal(g2.deliveries[0].status, 200);
    assert.deepEqual(bunitFiles(), ["2025-01-01.json", "2025-02-01.json", "2025-03-01.json", "2025-04-01.json"]);
    assert.deepEqual(readJson("2025-04-01"), await client.billing.billingDataFor(1, "2025-04-01"));
  });

  it("answers Expect: 100-continue with 100 Continue before the body is sent (raw socket)", async () => {
    const body = JSON.stringify({ trigger: NEW_DATA_TRIGGER, businessUnitId: 1, period: "2025-03-01" });
    const r = await rawRequest(
      receiver.port,
      postHead(`/notify?bunit=1&secret=${SECRET}`, body, { Expect: "100-continue", Connection: "close" }),
      body,
      { waitForContinue: true },
    );
    assert.ok(r.raw.startsWith("HTTP/1.1 100 Continue\r\n\r\n"), r.raw);
    assert.equal(r.continued, true);
    assert.equal(r.status, 200, r.raw);
    assert.deepEqual(readJson("2025-03-01"), await client.billing.billingDataFor(1, "2025-03-01"));
  });

  it("refuses a wrong secret before 100 Continue, so the body is never sent (raw socket)", async () => {
    const body = JSON.stringify({ trigger: NEW_DATA_TRIGGER, businessUnitId: 1 });
    const r = await rawRequest(receiver.port, postHead("/notify?bunit=1&secret=wrong-secret-123", body, { Expect: "100-continue" }), body, {
      waitForContinue: true,
    });
    assert.equal(r.continued, false);
    assert.equal(r.bodySent, false);
    assert.equal(r.status, 403, r.raw);
    assert.match(r.head, /connection: close/i);
    assert.deepEqual(filesUnder(out), []);
  });

  it("refuses a wrong or missing secret, or a wrong business unit, from the portal's sender: 4xx, nothing written", async () => {
    const cases: Array<[string, number]> = [
      [receiver.postUrl("not-the-secret"), 403],
      [receiver.postUrl(), 403],
      [`${receiver.postUrl(SECRET)}&secret=${SECRET}`, 403], // two secrets: ambiguous
      [`${receiver.url}/notify?secret=${SECRET}`, 400],
      [`${receiver.url}/notify?bunit=2&secret=${SECRET}`, 400],
      // The secret before the business unit: a caller without it learns nothing of which one is served.
      [`${receiver.url}/notify?bunit=2&secret=wrong-secret-xyz`, 403],
      [`${receiver.url}/notify?secret=wrong-secret-xyz`, 403],
      [`${receiver.url}/other?bunit=1&secret=${SECRET}`, 404],
    ];
    for (const [url] of cases) await subscribe(url);
    const g = await generate();
    const byUrl = new Map<string, any>(g.deliveries.map((d: any) => [d.url, d]));
    for (const [url, status] of cases) {
      const d = byUrl.get(url);
      assert.equal(d.status, status, `${url}: ${d.responseBody}`);
      assert.equal(d.continued, false, "rejected before 100 Continue");
      assert.equal(d.bodySent, false);
      assert.ok(!d.responseBody.includes(SECRET));
    }
    const t = await control(emu, "/_emulator/billing/test", { businessUnitId: 1 });
    for (const d of t.body.deliveries) assert.ok(d.status >= 400 && d.status < 500);
    assert.deepEqual(filesUnder(out), []);
    assert.equal(receiver.stats.fetches, 0, "nothing was fetched for a refused request");
  });

  it("compares secrets with one timingSafeEqual over 32-byte hashes, whatever the presented length", () => {
    // What makes it constant time: no early return on a length or a first differing byte.
    const compared: Array<[number, number]> = [];
    const crypto = require("crypto") as typeof import("crypto");
    const real = crypto.timingSafeEqual;
    crypto.timingSafeEqual = (a: NodeJS.ArrayBufferView, b: NodeJS.ArrayBufferView) => (
      compared.push([a.byteLength, b.byteLength]),
      real(a, b)
    );
    const presented = [SECRET, `${SECRET}x`, SECRET.slice(0, -1), SECRET.toUpperCase(), "", "x".repeat(10_000), undefined, null];
    let results: boolean[];
    try {
      results = presented.map((p) => secretMatches(p, SECRET));
    } finally {
      crypto.timingSafeEqual = real;
    }
    assert.deepEqual(results, [true, false, false, SECRET === SECRET.toUpperCase(), false, false, false, false]);
    assert.deepEqual(
      compared,
      presented.map(() => [32, 32]),
    );
    assert.equal(secretMatches(undefined, ""), false, "no secret presented never matches, even an empty one");
  });

  it("refuses a misrouted or oversized notification with 4xx and writes nothing", async () => {
    const q = `/notify?bunit=1&secret=${SECRET}`;
    const send = (body: string | Buffer, extra: Record<string, string> = {}) =>
      rawRequest(receiver.port, postHead(q, body, { Connection: "close", ...extra }), body);
    const cases: Array<[string, string | Buffer, number, Record<string, string>?]> = [
      ["other business unit", JSON.stringify({ trigger: NEW_DATA_TRIGGER, businessUnitId: 2 }), 400],
      ["other business unit, as a string", JSON.stringify({ trigger: NEW_DATA_TRIGGER, businessUnitId: "2" }), 400],
      ["oversized", JSON.stringify({ trigger: NEW_DATA_TRIGGER, pad: "x".repeat(64 * 1024) }), 413],
    ];
    for (const [name, body, status, extra] of cases) {
      const r = await send(body, extra);
      assert.equal(r.status, status, `${name}: ${r.raw.slice(0, 300)}`);
      assert.ok(JSON.parse(r.body).error, name);
    }
    // Oversized without Content-Length (chunked): cut off at the limit.
    const chunk = Buffer.alloc(16 * 1024, 0x20);
    const head = `POST ${q} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`;
    const chunked = Buffer.concat(
      Array.from({ length: 6 }, () => Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from("\r\n")])).concat([
        Buffer.from("0\r\n\r\n"),
      ]),
    );
    const r = await rawRequest(receiver.port, head, chunked);
    assert.equal(r.status, 413, r.raw.slice(0, 300));
    // Other methods and paths.
    assert.equal((await fetch(`${receiver.url}/notify?bunit=1&secret=${SECRET}`)).status, 405);
    assert.equal((await fetch(`${receiver.url}/nope`, { method: "POST", body: "{}" })).status, 404);
    assert.equal((await fetch(`${receiver.url}/healthz`)).status, 200);
    assert.deepEqual(filesUnder(out), []);
    assert.equal(receiver.stats.fetches, 0);
  });

  it("takes any other authenticated POST as new data: the spec does not show the body, and reading again is safe", async () => {
    const q = `/notify?bunit=1&secret=${SECRET}`;
    const send = (body: string, extra: Record<string, string> = {}) =>
      rawRequest(receiver.port, postHead(q, body, { Connection: "close", ...extra }), body);
    const bodies: Array<[string, string, Record<string, string>?]> = [
      ["empty", ""],
      ["{}", "{}"],
      ["not JSON", "{trigger: nope"],
      ["an array", "[]"],
      ["other wording", JSON.stringify({ trigger: "New billing data available" })],
      ["business unit as a string", JSON.stringify({ trigger: NEW_DATA_TRIGGER, businessUnitId: "1" })],
      ["a period that is not a date (ignored)", JSON.stringify({ trigger: NEW_DATA_TRIGGER, period: "../../etc/passwd" })],
      ["text/plain", JSON.stringify({ trigger: NEW_DATA_TRIGGER }), { "Content-Type": "text/plain" }],
    ];
    for (const [name, body, extra] of bodies) {
      const r = await send(body, extra);
      assert.equal(r.status, 200, `${name}: ${r.raw.slice(0, 300)}`);
      assert.equal(JSON.parse(r.body).status, "stored", name);
    }
    const periods = (await client.billing.billingData(1)).map((d) => d.period).sort();
    assert.ok(periods.length > 0);
    assert.deepEqual(
      filesUnder(out).sort(),
      periods.map((p) => `1/${p}.json`),
      "every period filed",
    );
    const test = await send(JSON.stringify({ trigger: ` ${TEST_TRIGGER.toUpperCase()} ` }), { "Content-Type": "text/plain" });
    assert.equal(JSON.parse(test.body).test, true, "the test trigger, in any case");
  });

  it("answers 503 rather than 'stored' when no billing entry has a period it can file", async () => {
    // A portal whose entries carry neither a period nor a dated href (the spec does not show their fields).
    const undated = Object.create(client, {
      billing: { value: { billingData: async () => [{ total: 1 }, { period: "April 2025", href: "x/april" }] } },
    });
    await receiver.close();
    receiver = await start({ client: undated, fetchAttempts: 1 });
    const r = await rawRequest(receiver.port, postHead(`/notify?bunit=1&secret=${SECRET}`, "{}", { Connection: "close" }), "{}");
    assert.equal(r.status, 503, r.raw.slice(0, 300));
    assert.match(detailOf(r.body), /none of the 2 billing entries has a YYYY-MM-DD period or href/);
    assert.deepEqual(filesUnder(out), []);
  });

  it("retries a portal error while fetching (503s from the billing endpoint), then writes and answers 200", async () => {
    // A client that does not retry by itself, so the receiver's own retries are what recovers.
    const single = clientFor(emu, "admin", { maxAttempts: 1 });
    await receiver.close();
    receiver = await start({ client: single, fetchAttempts: 5 });
    await subscribe(receiver.postUrl(SECRET));
    emu.setFaults({ errorRate: 1, statuses: [503], match: { method: "GET", pathPrefix: "/v1/bunits/1/billing" }, count: 3 });
    emu.clearRequests();
    const g = await generate();
    const d = g.deliveries[0];
    assert.equal(d.status, 200, d.responseBody);
    const billing = emu.requests().filter((x) => x.path === "/v1/bunits/1/billing");
    assert.deepEqual(
      billing.map((x) => x.status),
      [503, 503, 503, 200],
    );
    assert.deepEqual(readJson("2025-04-01"), await client.billing.billingDataFor(1, "2025-04-01"));
    assert.ok(
      logs.some((l) => /retry 1\/4/.test(l)),
      logs.join("\n"),
    );
    single.close();
  });

  it("answers 503 when the data could not be stored, and stores it when the sender tries again", async () => {
    const single = clientFor(emu, "admin", { maxAttempts: 1 });
    await receiver.close();
    receiver = await start({ client: single, fetchAttempts: 3 });
    await subscribe(receiver.postUrl(SECRET));
    emu.setFaults({ errorRate: 1, statuses: [503], match: { method: "GET", pathPrefix: "/v1/bunits/1/billing" } });
    const g = await generate();
    const d = g.deliveries[0];
    assert.equal(d.status, 503, d.responseBody);
    assert.match(JSON.parse(d.responseBody).error, /not stored/);
    assert.deepEqual(bunitFiles(), []);
    // The portal (or an operator) sends the notification again once the portal is healthy.
    emu.clearFaults();
    const body = d.sent.body as string;
    const again = await rawRequest(
      receiver.port,
      postHead(`/notify?bunit=1&secret=${SECRET}`, body, { Expect: "100-continue", Connection: "close" }),
      body,
      { waitForContinue: true },
    );
    assert.equal(again.status, 200, again.raw);
    assert.deepEqual(readJson(g.period), await client.billing.billingDataFor(1, g.period));
    single.close();
  });

  it("a refused login (400 invalid_grant) is logged once with the settings to check, not retried", async () => {
    const refused = clientFor(emu, "admin", { password: "Wr0ng-Receiver-Pa55word" });
    await receiver.close();
    receiver = await start({ client: refused });
    await subscribe(receiver.postUrl(SECRET));
    emu.clearRequests();
    for (const period of ["2025-05-01", "2025-06-01"]) {
      const d = (await generate(period)).deliveries[0];
      assert.equal(d.status, 503, d.responseBody);
    }
    const tokenRequests = emu.requests().filter((r) => r.path === "/v1/oauth");
    assert.deepEqual(
      tokenRequests.map((r) => r.status),
      [400, 400],
      "one token request per notification: not retried",
    );
    const explained = logs.filter((l) => /refused the login/.test(l));
    assert.equal(explained.length, 1, logs.join("\n"));
    assert.match(explained[0], /invalid_grant.*BACKUP_PORTAL_USERNAME.*BACKUP_PORTAL_PASSWORD/);
    assert.equal(logs.filter((l) => /still refuses the login/.test(l)).length, 1);
    assert.ok(!logs.join("\n").includes("Wr0ng-Receiver-Pa55word"));
    assert.deepEqual(bunitFiles(), []);
    refused.close();
  });

  it("rides out a portal that is unreachable for a moment", async () => {
    const port = emu.port;
    const single = clientFor(emu, "admin", { maxAttempts: 1, timeoutMs: 1000 });
    await receiver.close();
    receiver = await start({ client: single, fetchAttempts: 6, retryBaseMs: 200, retryMaxMs: 800 });
    await emu.close();
    const body = JSON.stringify({ trigger: NEW_DATA_TRIGGER, businessUnitId: 1 });
    const pending = rawRequest(receiver.port, postHead(`/notify?bunit=1&secret=${SECRET}`, body, { Connection: "close" }), body, {
      timeoutMs: 15000,
    });
    await new Promise((r) => setTimeout(r, 400));
    emu = await startEmulator({ port, quiet: true });
    const r = await pending;
    assert.equal(r.status, 200, r.raw);
    assert.deepEqual(bunitFiles(), ["2025-01-01.json", "2025-02-01.json", "2025-03-01.json"]);
    assert.ok(
      logs.some((l) => /no answer/.test(l)),
      logs.join("\n"),
    );
    single.close();
    client.close();
    client = clientFor(emu);
  });

  it("waits for a period the notification names until the portal shows it (bounded), else 503", async () => {
    const body = JSON.stringify({ trigger: NEW_DATA_TRIGGER, businessUnitId: 1, period: "2030-01-01" });
    const r = await rawRequest(receiver.port, postHead(`/notify?bunit=1&secret=${SECRET}`, body, { Connection: "close" }), body, {
      timeoutMs: 15000,
    });
    assert.equal(r.status, 503, r.raw);
    assert.match(detailOf(r.body), /no period 2030-01-01/);
    assert.deepEqual(bunitFiles(), [], "nothing written when the notification could not be honoured");
  });

  it("handles notifications arriving together one after the other, with consistent files", async () => {
    await subscribe(receiver.postUrl(SECRET));
    await subscribe(`${receiver.postUrl(SECRET)}&copy=2`);
    const g = await generate();
    assert.deepEqual(
      g.deliveries.map((d: any) => d.status),
      [200, 200],
    );
    assert.deepEqual(bunitFiles(), ["2025-01-01.json", "2025-02-01.json", "2025-03-01.json", "2025-04-01.json"]);
    assert.deepEqual(readJson("2025-04-01"), await client.billing.billingDataFor(1, "2025-04-01"));
  });

  it("works without a secret when none is configured", async () => {
    await receiver.close();
    receiver = await start({ secret: undefined });
    await subscribe(receiver.notifyUrl);
    const g = await generate();
    assert.equal(g.deliveries[0].status, 200);
    assert.equal(bunitFiles().length, 4);
  });

  it("rejects bad options", async () => {
    await assert.rejects(startBillingReceiver({ outDir: out, businessUnitId: 0, client }), RangeError);
    await assert.rejects(startBillingReceiver({ outDir: out, businessUnitId: 1, client, secret: "" }), RangeError);
    await assert.rejects(startBillingReceiver({ outDir: out, businessUnitId: 1, client, path: "notify" }), RangeError);
  });
});
