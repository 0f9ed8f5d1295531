// The transport's rules that tests on the wire rarely reach: how long it pauses before a retry (recorded through
// the injected pause, never waited), which answers it parses as JSON, what an error keeps of the portal's words,
// a refused token, a deadline that passed before the first try, and the size cap at its edges. Every test gives
// its transport a deadline, so that a change that loops forever fails at the deadline instead of hanging.
import assert from "node:assert/strict";
import * as http from "node:http";
import * as zlib from "node:zlib";
import { Socket } from "node:net";
import { PortalClient, PortalError } from "../../provider/portal";
import { RequestSpec, Transport, TransportOptions } from "../../provider/portal/transport";
import { waitFor } from "../support/wait";
import { listenLoopback, closeServer } from "../support/loopback";

const ACCOUNT_PASSWORD = "Rules-Account-Pa55word-e8d1c2b7";

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

describe("portal transport rules", function () {
  this.timeout(5000);
  let server: http.Server;
  let url: string;
  let handler: Handler;
  let seen: Array<{ method: string; url: string; authorization?: string; body: string }>;
  /** The pauses the transport asked for, in ms. */
  let pauses: number[];
  let random: typeof Math.random;

  before(async () => {
    server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        seen.push({ method: req.method!, url: req.url!, authorization: req.headers.authorization, body: Buffer.concat(chunks).toString() });
        handler(req, res);
      });
    });
    url = await listenLoopback(server);
    random = Math.random;
  });
  after(() => closeServer(server));
  beforeEach(() => {
    seen = [];
    pauses = [];
  });
  afterEach(() => {
    Math.random = random;
  });

  const sleep = async (ms: number) => void pauses.push(ms);
  const transport = (extra: Partial<TransportOptions> = {}) =>
    new Transport({
      url,
      origin: "http://localhost",
      timeoutMs: 1000,
      deadlineMs: 1000,
      maxAttempts: 3,
      retryBaseMs: 100,
      retryMaxMs: 1000,
      maxSockets: 2,
      maxAnswerBytes: 1 << 20,
      secrets: () => [ACCOUNT_PASSWORD],
      sleep,
      ...extra,
    });
  const get = (t: Transport, extra: Partial<RequestSpec> = {}) =>
    t.request<unknown>({ method: "GET", path: "/v1/x", retry: "safe", auth: false, ...extra });
  const failure = async (p: Promise<unknown>): Promise<PortalError> => {
    const err = await p.then(
      () => assert.fail("expected a failure"),
      (e: unknown) => e,
    );
    assert.ok(err instanceof PortalError, String(err));
    return err;
  };
  /** Answers in turn (the last one repeats): status, headers, body text. */
  const answers = (...list: Array<[number, Record<string, string>, string?]>): Handler => {
    return (_req, res) => {
      const [status, headers, body] = list.length > 1 ? list.shift()! : list[0];
      res.writeHead(status, headers).end(body);
    };
  };
  const json = { "Content-Type": "application/json" };

  describe("the pause before a retry", () => {
    it("doubles from retryBaseMs, full jitter (a random share of it), at most retryMaxMs", async () => {
      Math.random = () => 0.5;
      handler = answers([503, json, '{"code":"Busy"}']);
      const t = transport({ maxAttempts: 6 });
      assert.equal((await failure(get(t))).status, 503);
      assert.deepEqual(pauses, [50, 100, 200, 400, 500]);
      assert.equal(t.stats.retries, 5);
      t.close();
    });

    it("Retry-After is a floor under the jitter, capped by retryMaxMs; one that is not a number of seconds is ignored", async () => {
      Math.random = () => 0.5;
      handler = answers(
        [503, { ...json, "Retry-After": "0" }, "{}"],
        [503, { ...json, "Retry-After": "3" }, "{}"],
        [429, { ...json, "Retry-After": "1" }, "{}"],
        [503, { ...json, "Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT" }, "{}"],
        [200, json, '{"ok":true}'],
      );
      const lines: string[] = [];
      const t = transport({ maxAttempts: 5, retryMaxMs: 2000, deadlineMs: 60_000, log: (l) => lines.push(l) });
      assert.deepEqual(await get(t), { ok: true });
      assert.deepEqual(pauses, [50, 2000, 1000, 400]);
      assert.deepEqual(lines, [
        "GET /v1/x: HTTP 503; try 2 of 5 in 0.1 s",
        "GET /v1/x: HTTP 503; try 3 of 5 in 2.0 s",
        "GET /v1/x: HTTP 429; try 4 of 5 in 1.0 s",
        "GET /v1/x: HTTP 503; try 5 of 5 in 0.4 s",
      ]);
      t.close();
    });

    it("Retry-After as an HTTP date is a floor too (RFC 9110); a past date or a decimal is no floor", async () => {
      Math.random = () => 0.5;
      // HTTP dates have whole seconds: 3 s ahead, truncated, is between 2 and 3 s away.
      const ahead = new Date(Date.now() + 3000).toUTCString();
      handler = answers(
        [503, { ...json, "Retry-After": ahead }, "{}"],
        [503, { ...json, "Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT" }, "{}"],
        [503, { ...json, "Retry-After": "1.5" }, "{}"],
        [200, json, '{"ok":true}'],
      );
      const t = transport({ maxAttempts: 4, retryMaxMs: 5000, deadlineMs: 60_000 });
      assert.deepEqual(await get(t), { ok: true });
      assert.equal(pauses.length, 3);
      assert.ok(pauses[0] > 1900 && pauses[0] <= 3000, `a date 3 s ahead waits 2-3 s, waited ${pauses[0]} ms`);
      assert.deepEqual(pauses.slice(1), [100, 200], "the jitter alone");
      t.close();
    });

    it("is logged in tenths of a second under 10 s and in whole seconds from 10 s", async () => {
      Math.random = () => 0;
      handler = answers(
        [503, { ...json, "Retry-After": "9" }, '{"code":"Busy"}'],
        [503, { ...json, "Retry-After": "10" }, '{"code":"Busy"}'],
        [503, { ...json, "Retry-After": "12" }, '{"code":"Busy"}'],
        [503, { ...json, "Retry-After": "30" }, '{"code":"Busy"}'],
      );
      const lines: string[] = [];
      const t = transport({ maxAttempts: 9, retryMaxMs: 60_000, deadlineMs: 25_000, log: (l) => lines.push(l) });
      const err = await failure(get(t));
      assert.deepEqual(
        lines.map((l) => l.replace(/^.*; /, "")),
        ["try 2 of 9 in 9.0 s", "try 3 of 9 in 10 s", "try 4 of 9 in 12 s"],
      );
      // The fourth pause would end after the deadline: the error says so instead.
      assert.match(err.message, /HTTP 503\): Busy: gave up after 4 tries: the deadline of 25 s over all tries passed\. Hint: /);
      t.close();
    });
  });

  describe("a deadline", () => {
    it("that passed before the first try sends nothing and says so", async () => {
      handler = answers([200, json, "{}"]);
      const t = transport();
      const err = await failure(get(t, { deadline: Date.now() - 1 }));
      assert.equal(seen.length, 0);
      assert.deepEqual([err.status, err.timedOut], [0, true]);
      assert.match(err.message, /^GET \/v1\/x failed \(no answer\): the deadline of 1\.0 s over all tries passed\. Hint: /);
      t.close();
    });
  });

  describe("which answers are JSON", () => {
    it("a JSON type is parsed whatever the body (a number, null); other text is parsed only when it starts like an object, array or string", async () => {
      handler = answers(
        [200, json, "42"],
        [200, json, "null"],
        [200, { "Content-Type": "text/plain" }, "1234"],
        [200, { "Content-Type": "text/plain" }, '["EMU-1"]'],
        [200, { "Content-Type": "text/plain" }, '"EMU-2"'],
        [200, json, "{not json"],
      );
      const t = transport();
      const got = [];
      for (let i = 0; i < 6; i++) got.push(await get(t));
      assert.deepEqual(got, [42, null, "1234", ["EMU-1"], "EMU-2", "{not json"]);
      t.close();
    });

    it("an HTML page answered with 200 is an error that names the URL setting", async () => {
      handler = answers([200, { "Content-Type": "text/html; charset=utf-8" }, "<html>Sign in</html>"]);
      const t = transport();
      const err = await failure(get(t));
      assert.equal(
        err.message,
        `GET /v1/x failed (HTTP 200). Hint: this URL (${url}) does not answer as the Cloutility API: it answered with an HTML page, ` +
          "not the API's JSON; set backup-portal:url (or BACKUP_PORTAL_URL) to the portal API's base address (the part before /v1, " +
          "e.g. https://portal.example.com), with no login page or proxy in front of it",
      );
      t.close();
    });

    it("an error answer sent as text that is JSON still gives the portal's code and message", async () => {
      handler = answers([400, { "Content-Type": "text/plain" }, '{"code":"Invalid","message":"bad domain"}']);
      const t = transport();
      const err = await failure(get(t));
      assert.deepEqual([err.code, err.portalMessage], ["Invalid", "bad domain"]);
      t.close();
    });
  });

  describe("what an error keeps of the answer", () => {
    it("OAuth's shape on an API path: error and error_description; developerMessage as sent", async () => {
      handler = answers(
        [403, json, '{"error":"insufficient_scope","error_description":"the token may not do this"}'],
        [400, json, '{"code":"C","message":"M","developerMessage":"D"}'],
      );
      const t = transport();
      const oauth = await failure(get(t));
      assert.deepEqual(
        [oauth.code, oauth.portalMessage, oauth.developerMessage],
        ["insufficient_scope", "the token may not do this", undefined],
      );
      const own = await failure(get(t));
      assert.deepEqual([own.code, own.portalMessage, own.developerMessage], ["C", "M", "D"]);
      t.close();
    });

    it("a long message is cut at 2000 characters, a text body at 300; a secret at the cut leaves no part of itself", async () => {
      const long = `${"m".repeat(1990)}${ACCOUNT_PASSWORD}${"n".repeat(3000)}`;
      handler = answers(
        [400, json, JSON.stringify({ code: "Long", message: long })],
        [400, { "Content-Type": "text/plain" }, "t".repeat(500)],
      );
      const t = transport({ secrets: () => [undefined, ACCOUNT_PASSWORD] });
      const err = await failure(get(t));
      assert.equal(err.portalMessage, `${"m".repeat(1990)}***${"n".repeat(7)}`);
      assert.equal((await failure(get(t))).portalMessage, "t".repeat(300));
      // Redaction shortens the text: a message of nothing but the secret is scanned on until 2000 characters are left.
      handler = answers([400, json, JSON.stringify({ message: ACCOUNT_PASSWORD.repeat(1000) })]);
      assert.equal((await failure(get(t))).portalMessage, "***".repeat(667).slice(0, 2000));
      t.close();
    });

    it("a secret in the path is hidden in the error's path and message", async () => {
      handler = answers([404, json, '{"code":"NotFound"}']);
      const t = transport();
      const err = await failure(get(t, { path: `/v1/nodes/${ACCOUNT_PASSWORD}` }));
      assert.equal(err.path, "/v1/nodes/***");
      assert.ok(!err.message.includes(ACCOUNT_PASSWORD), err.message);
      t.close();
    });

    it("whether the outcome is unknown: yes for 502 and 504 (a gateway lost the answer), no for 500 and 400", async () => {
      const outcomes: Record<number, boolean> = {};
      const t = transport();
      for (const status of [502, 504, 500, 400]) {
        handler = answers([status, json, '{"code":"X"}']);
        seen = [];
        const err = await failure(t.request({ method: "POST", path: "/v1/things", body: { json: {} }, retry: "create", auth: false }));
        outcomes[status] = err.outcomeUnknown;
        assert.equal(seen.length, 1, `a create answered ${status} is not repeated`);
      }
      assert.deepEqual(outcomes, { 502: true, 504: true, 500: false, 400: false });
      t.close();
    });

    it("a connection reset says why, with the error's code", async () => {
      handler = (req) => req.socket.destroy();
      const t = transport();
      const err = await failure(t.request({ method: "POST", path: "/v1/things", body: { json: {} }, retry: "create", auth: false }));
      assert.equal(err.developerMessage, "socket hang up (ECONNRESET)");
      t.close();
    });

    it("a header value HTTP does not allow fails at once, naming the likely cause", async () => {
      handler = answers([200, json, "{}"]);
      const lines: string[] = [];
      const t = transport({ log: (l) => lines.push(l) });
      const err = await failure(
        t.request({
          method: "POST",
          path: "/v1/upload",
          body: { raw: Buffer.from("x"), contentType: "application/pdf", headers: { "X-File-Name": "a\r\nb.pdf" } },
          retry: "safe",
          auth: false,
        }),
      );
      assert.match(err.message, /Hint: a header value HTTP does not allow \(a line break in a token or file name\?\)$/);
      assert.deepEqual([seen.length, lines.length], [0, 0]);
      t.close();
    });
  });

  describe("the token request", () => {
    const client = () =>
      new PortalClient(
        {
          url,
          origin: "http://localhost",
          clientId: "c",
          username: "u",
          password: ACCOUNT_PASSWORD,
          timeoutMs: 1000,
          deadlineMs: 2000,
          maxAttempts: 3,
          retryBaseMs: 1,
          retryMaxMs: 5,
        },
        { sleep },
      );
    const paths = () => seen.map((s) => (s.url === "/v1/oauth" ? `oauth:${new URLSearchParams(s.body).get("grant_type")}` : s.url));
    let grants: number;
    const tokenAnswer = (res: http.ServerResponse) => {
      grants++;
      res
        .writeHead(200, json)
        .end(JSON.stringify({ access_token: `token-${grants}`, refresh_token: `refresh-${grants}`, expires_in: 300 }));
    };
    beforeEach(() => (grants = 0));

    it("an answer of the token endpoint is never quoted: an unknown or missing OAuth code gives no code", async () => {
      for (const body of [
        JSON.stringify({ error: "server_error", error_description: `could not check ${ACCOUNT_PASSWORD}` }),
        JSON.stringify({ error: 42 }),
        "null",
        "",
      ]) {
        handler = answers([400, json, body]);
        const c = client();
        const err = await failure(c.timeZones.list());
        c.close();
        assert.deepEqual([err.status, err.code, err.portalMessage], [400, undefined, undefined], body);
        assert.ok(!err.message.includes("could not check"), err.message);
      }
    });

    it("a token request without an answer says why, and is retried like any request that is safe to repeat", async () => {
      handler = (req) => req.socket.destroy();
      const c = client();
      const err = await failure(c.timeZones.list());
      c.close();
      assert.deepEqual([err.path, err.status, err.developerMessage], ["/v1/oauth", 0, "socket hang up (ECONNRESET)"]);
      assert.deepEqual([seen.length, pauses.length], [3, 2]);
    });

    it("a call refused with 401 renews its token once and is repeated; a refresh refused with 401 falls back to the password", async () => {
      let calls = 0;
      handler = (req, res) => {
        if (req.url === "/v1/oauth") {
          if (new URLSearchParams(seen[seen.length - 1].body).get("grant_type") === "refresh_token") {
            return void res.writeHead(401, json).end('{"error":"invalid_grant"}');
          }
          return tokenAnswer(res);
        }
        calls++;
        if (calls === 1) return void res.writeHead(401, json).end('{"code":"Unauthorized"}');
        res.writeHead(200, json).end("[]");
      };
      const c = client();
      assert.deepEqual(await c.timeZones.list(), []);
      assert.deepEqual([c.stats.tokenRequests, c.stats.retries, c.stats.requests], [3, 0, { POST: 3, GET: 2 }]);
      c.close();
      assert.deepEqual(paths(), ["oauth:password", "/v1/timezones", "oauth:refresh_token", "oauth:password", "/v1/timezones"]);
      assert.deepEqual(
        seen.filter((s) => s.url === "/v1/timezones").map((s) => s.authorization),
        ["Bearer token-1", "Bearer token-2"],
      );
      assert.equal(seen[2].authorization, "Bearer token-1", "the refresh grant carries the old token");
    });

    it("a call refused again with its renewed token is the 401 error, and a login refused with 401 is asked once", async () => {
      handler = (req, res) => (req.url === "/v1/oauth" ? tokenAnswer(res) : res.writeHead(401, json).end('{"code":"Unauthorized"}'));
      const c = client();
      assert.equal((await failure(c.timeZones.list())).status, 401);
      c.close();
      assert.deepEqual(paths(), ["oauth:password", "/v1/timezones", "oauth:refresh_token", "/v1/timezones"]);

      seen = [];
      handler = answers([401, json, '{"error":"invalid_client"}']);
      const refused = client();
      assert.equal((await failure(refused.timeZones.list())).status, 401);
      refused.close();
      assert.deepEqual(paths(), ["oauth:password"]);
      assert.equal(seen[0].authorization, undefined, "the password grant carries no bearer token");
    });
  });

  describe("the size cap at its edges", () => {
    it("a declared length over the cap fails at once, before any of the body arrives", async () => {
      handler = (_req, res) => {
        res.writeHead(200, { ...json, "Content-Length": "2048" });
        res.flushHeaders(); // and no body: only the declared length can tell
      };
      const t = transport({ maxAnswerBytes: 1024, maxAttempts: 1 });
      const err = await failure(get(t));
      assert.equal(err.code, "AnswerTooLarge");
      assert.match(err.message, /the answer is larger than 1024 bytes and was dropped/);
      t.close();
    });

    it("a declared length exactly at the cap is read", async () => {
      const body = JSON.stringify({ pad: "p".repeat(1024 - 10) });
      handler = answers([200, { ...json, "Content-Length": String(body.length) }, body]);
      const t = transport({ maxAnswerBytes: 1024 });
      assert.equal(((await get(t)) as { pad: string }).pad.length, 1014);
      t.close();
    });

    it("a compressed answer is judged by its decompressed size, not its declared one", async () => {
      const gz = zlib.gzipSync('{"a":1}');
      assert.ok(gz.length > 10, "gzip makes this tiny answer larger");
      handler = answers([200, { ...json, "Content-Encoding": "gzip", "Content-Length": String(gz.length) }, gz as unknown as string]);
      const t = transport({ maxAnswerBytes: 10 });
      assert.deepEqual(await get(t), { a: 1 });
      t.close();
    });
  });

  it("one connection is kept alive for the next request, and close() ends it", async () => {
    handler = answers([200, json, "{}"]);
    let connections = 0;
    let closed = false;
    const count = (socket: Socket) => {
      connections++;
      socket.once("close", () => (closed = true));
    };
    server.on("connection", count);
    const t = transport();
    await get(t);
    await get(t);
    server.off("connection", count);
    assert.deepEqual([connections, closed], [1, false]);
    t.close();
    await waitFor(() => closed, "the connection to close", 1000);
  });
});
