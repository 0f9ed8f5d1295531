// The doctor's report and its own requests, in process: the text report's lines and result line, the redaction of
// every check, and what the probe sends and how it reads an answer (against a server on loopback that records
// each request). The end-to-end runs against the emulator are in doctor.test.ts and faults.test.ts.
import assert from "node:assert/strict";
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import { Checks, formatReport, type DoctorReport } from "../../provider/doctor/report";
import { isHtml, NoAnswer, Probe, said, type ProbeAnswer } from "../../provider/doctor/probe";
import { DEFAULT_MAX_ANSWER_BYTES } from "../../provider/portal/settings";

describe("doctor: the report", () => {
  it("Checks redacts the detail and the fix of every check, keeps the reading, and counts only failures", () => {
    const checks = new Checks((t) => t.replaceAll("s3cret", "***"));
    assert.deepEqual(checks.ok("a", "ok s3cret"), { id: "a", status: "ok", detail: "ok ***" });
    assert.deepEqual(checks.ok("b", "ok", "startDate/endDate"), { id: "b", status: "ok", detail: "ok", reading: "startDate/endDate" });
    assert.deepEqual(checks.differs("c", "other", "from/to"), { id: "c", status: "differs", detail: "other", reading: "from/to" });
    assert.deepEqual(checks.failed("d", "refused s3cret", "set s3cret right"), {
      id: "d",
      status: "failed",
      detail: "refused ***",
      fix: "set *** right",
    });
    assert.deepEqual(checks.skipped("e", "not asked"), { id: "e", status: "skipped", detail: "not asked" });
    assert.equal(checks.failures, 1);
    checks.failed("f", "again", "fix");
    assert.equal(checks.failures, 2);
    assert.deepEqual(
      checks.list.map((c) => c.id),
      ["a", "b", "c", "d", "e", "f"],
    );
    assert.deepEqual(new Checks().ok("g", "kept s3cret"), { id: "g", status: "ok", detail: "kept s3cret" }, "no cleaner: unchanged");
  });

  it("formatReport aligns status and id, appends the fix of a failed check, flattens line breaks, and ends with the result", () => {
    const report: DoctorReport = {
      ok: false,
      checks: [
        { id: "login", status: "ok", detail: "token for 3600 s" },
        { id: "jobs-path", status: "differs", detail: "answers\r\nthe other\npath", reading: "x" },
        { id: "origin", status: "failed", detail: "refused", fix: "set BACKUP_PORTAL_ORIGIN" },
        { id: "v", status: "skipped", detail: "not asked", fix: "ignored: not failed" },
      ],
      leftBehind: ['consumer 9 "doctor-x" in business unit 2'],
    };
    assert.equal(
      formatReport(report),
      [
        "ok       login      token for 3600 s",
        "differs  jobs-path  answers the other path",
        "failed   origin     refused; fix: set BACKUP_PORTAL_ORIGIN",
        "skipped  v          not asked",
        'left behind: consumer 9 "doctor-x" in business unit 2',
        "result: 1 check failed; fix it before the first pulumi up",
        "",
      ].join("\n"),
    );
    const two = formatReport({ ...report, checks: [...report.checks, { id: "w", status: "failed", detail: "no" }] });
    assert.match(two, /^failed {3}w {10}no$/m, "a failed check without a fix: the detail alone");
    assert.match(two, /\nresult: 2 checks failed; fix them before the first pulumi up\n$/);
  });

  it("formatReport's result line of a passing run counts the readings that differ", () => {
    const ok = (checks: DoctorReport["checks"]): string => formatReport({ ok: true, checks, leftBehind: [] });
    assert.equal(ok([]), "result: everything the providers rely on holds\n");
    assert.match(ok([{ id: "a", status: "ok", detail: "fine" }]), /\nresult: everything the providers rely on holds\n$/);
    assert.match(
      ok([{ id: "a", status: "differs", detail: "d", reading: "r" }]),
      /\nresult: everything the providers rely on holds \(1 reading differ from the API documentation; the client handles them\)\n$/,
    );
    assert.match(
      ok([
        { id: "a", status: "differs", detail: "d", reading: "r" },
        { id: "b", status: "differs", detail: "d", reading: "r" },
      ]),
      /\(2 readings differ from the API documentation; the client handles them\)\n$/,
    );
  });
});

describe("doctor: the probe", () => {
  interface Seen {
    method: string;
    url: string;
    headers: http.IncomingHttpHeaders;
    body: string;
  }
  let server: http.Server;
  let base: string;
  const seen: Seen[] = [];
  // The answer of the next request: status, content type, body; `hang` never answers.
  // `declared` sends only the head, with that Content-Length.
  let next: { status: number; type?: string; body: string; hang?: boolean; declared?: number } = { status: 200, body: "" };

  before(async () => {
    server = http.createServer((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => (body += c.toString()));
      req.on("end", () => {
        seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
        if (next.hang) return;
        if (next.declared !== undefined) return void res.writeHead(next.status, { "Content-Length": next.declared }).flushHeaders();
        res.writeHead(next.status, next.type ? { "Content-Type": next.type } : {});
        res.end(next.body);
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });
  beforeEach(() => {
    seen.length = 0;
    next = { status: 200, body: "" };
  });

  const probe = (timeoutMs = 2000): Probe =>
    new Probe({ url: base, origin: "https://portal.test", timeoutMs, secrets: () => ["pw-123", "tok-456"] });

  it("sends Accept, Origin, the query and the probe's token; a form body form-encoded", async () => {
    const p = probe();
    p.token = "tok-456";
    assert.equal(p.url, base);
    next = { status: 201, type: "application/json; charset=utf-8", body: '{"a":1}' };
    const a = await p.send("POST", "/v1/oauth/token", { query: { x: "1 2", y: "z" }, form: { grant_type: "password", username: "u" } });
    assert.deepEqual(a, { status: 201, contentType: "application/json; charset=utf-8", text: '{"a":1}', json: { a: 1 } });
    const r = seen[0];
    assert.equal(r.method, "POST");
    assert.equal(r.url, "/v1/oauth/token?x=1+2&y=z");
    assert.equal(r.headers.accept, "application/json");
    assert.equal(r.headers.origin, "https://portal.test");
    assert.equal(r.headers.authorization, "Bearer tok-456");
    assert.equal(r.headers["content-type"], "application/x-www-form-urlencoded");
    assert.equal(r.body, "grant_type=password&username=u");
  });

  it("a JSON body as JSON; a given bearer replaces the token, bearer false and origin false leave the headers out", async () => {
    const p = probe();
    p.token = "tok-456";
    await p.send("PUT", "/v1/x", { json: { name: "n" }, bearer: "other" });
    assert.equal(seen[0].headers["content-type"], "application/json");
    assert.equal(seen[0].body, '{"name":"n"}');
    assert.equal(seen[0].headers.authorization, "Bearer other");
    await p.send("GET", "/v1/y", { bearer: false, origin: false });
    assert.equal(seen[1].headers.authorization, undefined);
    assert.equal(seen[1].headers.origin, undefined);
    assert.equal(seen[1].headers["content-type"], undefined);
    assert.equal(seen[1].body, "");
    await probe().send("GET", "/v1/z");
    assert.equal(seen[2].headers.authorization, undefined, "no token yet: no Authorization");
  });

  it("reads JSON by its content type or by its first character, and keeps text that is not JSON as text only", async () => {
    const cases: Array<[string | undefined, string, unknown]> = [
      ["text/plain", '{"b":2}', { b: 2 }],
      [undefined, '["x"]', ["x"]],
      [undefined, '"bare"', "bare"],
      ["application/json", "12", 12],
      ["text/plain", "12", undefined],
      ["application/json", "{broken", undefined],
      ["application/json", "", undefined],
      [undefined, " {not first}", undefined],
      [undefined, ' {"a":1}', undefined],
    ];
    for (const [type, body, json] of cases) {
      next = { status: 400, type, body };
      const a = await probe().send("GET", "/v1/me");
      assert.equal(a.status, 400);
      assert.equal(a.text, body);
      assert.equal(a.contentType, type ?? "");
      assert.deepEqual(a.json, json, `${type} ${body}`);
      assert.equal(Object.hasOwn(a, "json"), true);
    }
  });

  it("no answer in time, a refused connection: NoAnswer naming the request and why, without the secrets", async () => {
    next = { status: 200, body: "", hang: true };
    await assert.rejects(probe(150).send("GET", "/v1/me?pw-123"), (e: unknown) => {
      assert.ok(e instanceof NoAnswer);
      assert.equal(e.message, "GET /v1/me?***: no answer within 150 ms");
      return true;
    });
    server.closeAllConnections();
    const closed = new Probe({ url: "http://127.0.0.1:1", origin: "o", timeoutMs: 2000, secrets: () => ["tok-456"] });
    await assert.rejects(closed.send("POST", "/v1/tok-456"), (e: unknown) => {
      assert.ok(e instanceof NoAnswer);
      assert.match(e.message, /^POST \/v1\/\*\*\*: .*ECONNREFUSED/);
      return true;
    });
    assert.equal(probe().clean("pw-123 and tok-456"), "*** and ***");
  });

  it("an answer over the size cap: NoAnswer saying so, with its status", async () => {
    next = { status: 207, body: "", declared: DEFAULT_MAX_ANSWER_BYTES + 1 };
    await assert.rejects(probe().send("GET", "/v1/big"), (e: unknown) => {
      assert.ok(e instanceof NoAnswer);
      assert.equal(e.message, `GET /v1/big: the answer is larger than ${DEFAULT_MAX_ANSWER_BYTES} bytes (HTTP 207)`);
      return true;
    });
    server.closeAllConnections();
  });

  it("isHtml: by the content type or a page's first tag", () => {
    const a = (contentType: string, text: string): ProbeAnswer => ({ status: 200, contentType, text });
    assert.equal(isHtml(a("text/HTML; charset=utf-8", "")), true);
    assert.equal(isHtml(a("", "  \n<!DOCTYPE html><p>")), true);
    assert.equal(isHtml(a("text/plain", "<HTML>")), true);
    assert.equal(isHtml(a("application/json", '{"x":"<html>"}')), false);
    assert.equal(isHtml(a("text/plain", "see <html>")), false);
    assert.equal(isHtml(a("text/plain", "<head>")), false);
  });

  it("said: the portal's code and message, OAuth's error and description, or the start of the text", () => {
    const a = (json: unknown, text = ""): ProbeAnswer => ({ status: 400, contentType: "application/json", text, json });
    assert.equal(said(a({ code: "E1", developerMessage: "dev", message: "msg" })), "E1: dev");
    assert.equal(said(a({ code: "E1", message: "msg", error_description: "d" })), "E1: msg");
    assert.equal(said(a({ error: "invalid_grant", error_description: "bad password" })), "invalid_grant: bad password");
    assert.equal(said(a({ code: "E1", error: "ignored" })), "E1");
    assert.equal(said(a({ message: "only the message" })), "only the message");
    assert.equal(said(a({ code: "", message: 5 }, "raw  text\n here")), "raw text here", "nothing usable: the text");
    assert.equal(said(a({ code: "", message: "m" })), "m", "an empty code is left out");
    assert.equal(said(a("a string", "x".repeat(200))), "x".repeat(120));
    assert.equal(said(a(null, "null")), "null");
  });
});
