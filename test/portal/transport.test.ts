/** TEST: the transport on the wire, against a loopback server that misbehaves in the ways networks do. */
import * as assert from "assert";
import * as fs from "fs";
import * as http from "http";
import * as https from "https";
import * as path from "path";
import * as zlib from "zlib";
import { AddressInfo } from "net";
import { PortalError } from "../../provider/portal/errors";
import { Transport, TransportOptions } from "../../provider/portal/transport";
import { PortalClient } from "../../provider/portal";
import { waitFor } from "../support/wait";
import { listenLoopback, closeServer } from "../support/loopback";

type Handler = (req: http.IncomingMessage, body: Buffer, res: http.ServerResponse) => void;

describe("portal transport on the wire", function () {
  this.timeout(20000);
  let server: http.Server;
  let url: string;
  let handler: Handler;
  let seen: Array<{ method: string; url: string; headers: http.IncomingHttpHeaders; body: string }>;

  before(async () => {
    server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const body = Buffer.concat(chunks);
        seen.push({ method: req.method!, url: req.url!, headers: req.headers, body: body.toString("utf8") });
        handler(req, body, res);
      });
    });
    url = await listenLoopback(server);
  });
  after(() => closeServer(server));
  beforeEach(() => (seen = []));

  const transport = (extra: Partial<TransportOptions> = {}) =>
    new Transport({
      url,
      origin: "http://localhost",
      timeoutMs: 300,
      maxAttempts: 3,
      retryBaseMs: 10,
      retryMaxMs: 50,
      maxSockets: 4,
      maxAnswerBytes: 1024 * 1024,
      secrets: () => ["s3cret-pass"],
      ...extra,
    });
  const failure = async (p: Promise<unknown>): Promise<PortalError> => {
    const err = await p.then(
      () => assert.fail("expected a failure"),
      (e: unknown) => e,
    );
    assert.ok(err instanceof PortalError, String(err));
    return err;
  };

  it("sends Origin, Accept, the query, a JSON body with its length; parses the JSON answer", async () => {
    handler = (_req, _body, res) => res.writeHead(201, { "Content-Type": "application/json" }).end('{"id":7,"name":"ü"}');
    const t = transport();
    const answer = await t.request<{ id: number; name: string }>({
      method: "POST",
      path: "/v1/things",
      query: { a: 1, tag: ["x", "y"], skip: undefined },
      body: { json: { name: "ü" } },
      retry: "create",
      auth: false,
    });
    assert.deepStrictEqual(answer, { id: 7, name: "ü" });
    assert.strictEqual(seen.length, 1);
    assert.strictEqual(seen[0].url, "/v1/things?a=1&tag=x&tag=y");
    assert.strictEqual(seen[0].headers.origin, "http://localhost");
    assert.strictEqual(seen[0].headers.accept, "application/json");
    assert.strictEqual(seen[0].headers["content-type"], "application/json");
    assert.strictEqual(seen[0].headers["content-length"], String(Buffer.byteLength('{"name":"ü"}')));
    assert.strictEqual(seen[0].body, '{"name":"ü"}');
    assert.deepStrictEqual(t.stats.requests, { POST: 1 });
    t.close();
  });

  it("sends a raw body with its own headers, and an empty answer is undefined", async () => {
    handler = (_req, _body, res) => res.writeHead(204).end();
    const t = transport();
    const file = Buffer.from([0x25, 0x50, 0x44, 0x46, 0x00, 0xff]);
    const answer = await t.request({
      method: "POST",
      path: "/v1/upload",
      body: { raw: file, contentType: "application/pdf", headers: { "X-File-Name": "a.pdf" } },
      retry: "safe",
      auth: false,
    });
    assert.strictEqual(answer, undefined);
    assert.strictEqual(seen[0].headers["content-type"], "application/pdf");
    assert.strictEqual(seen[0].headers["x-file-name"], "a.pdf");
    assert.strictEqual(seen[0].headers["content-length"], "6");
    t.close();
  });

  it("an answer that stalls mid-body times out; a read is tried again, each within the deadline", async function () {
    // Short: a change that stops the timeout from firing fails here fast instead of hanging.
    this.timeout(3000);
    handler = (_req, _body, res) => {
      res.writeHead(200, { "Content-Type": "application/json", "Content-Length": "100" });
      res.write('{"partial":'); // and never the rest
    };
    const t = transport({ timeoutMs: 100 });
    const started = Date.now();
    const err = await failure(t.request({ method: "GET", path: "/v1/slow", retry: "safe", auth: false }));
    assert.strictEqual(seen.length, 3, "three attempts");
    assert.match(err.message, /timed out after 100 ms/);
    assert.strictEqual(err.status, 0);
    assert.strictEqual(err.outcomeUnknown, true);
    assert.ok(Date.now() - started < 3000, "bounded by the deadlines and the backoff");
    t.close();
  });

  it("a create whose connection is reset is not repeated: the outcome is unknown", async () => {
    handler = (req) => req.socket.destroy();
    const t = transport();
    const err = await failure(t.request({ method: "POST", path: "/v1/things", body: { json: {} }, retry: "create", auth: false }));
    assert.strictEqual(seen.length, 1, "one attempt");
    assert.strictEqual(err.outcomeUnknown, true);
    t.close();
  });

  it("503 with Retry-After is repeated; the error of the last attempt names status and code, never a secret", async () => {
    handler = (_req, _body, res) =>
      res
        .writeHead(503, { "Content-Type": "application/json", "Retry-After": "0" })
        .end('{"code":"Busy","message":"try later s3cret-pass"}');
    const t = transport();
    const err = await failure(t.request({ method: "GET", path: "/v1/busy", retry: "safe", auth: false }));
    assert.strictEqual(seen.length, 3);
    assert.strictEqual(err.status, 503);
    assert.strictEqual(err.code, "Busy");
    assert.ok(!err.message.includes("s3cret-pass"), err.message);
    assert.strictEqual(t.stats.retries, 2);
    t.close();
  });

  it("a request's own secret (a node password) never reaches its error, plain, URL-encoded or JSON-escaped", async () => {
    const secret = 'Node"Secret 99!';
    handler = (req, _body, res) => {
      const echo = req.url!.includes("json")
        ? JSON.stringify({
            code: "BadPassword",
            message: `password ${JSON.stringify(secret)} violates policy`,
            developerMessage: `tsmPassword=${encodeURIComponent(secret)}`,
          })
        : `${"x".repeat(290)}${secret} is too weak`;
      res.writeHead(400, { "Content-Type": req.url!.includes("json") ? "application/json" : "text/plain" }).end(echo);
    };
    const t = transport();
    for (const path of ["/v1/json", "/v1/text"]) {
      const err = await failure(
        t.request({ method: "POST", path, body: { json: { tsmPassword: secret } }, retry: "safe", auth: false, secrets: [secret] }),
      );
      const everything = [err.message, err.portalMessage, err.developerMessage, JSON.stringify(err)].join(" ");
      for (const form of [secret, encodeURIComponent(secret), JSON.stringify(secret).slice(1, -1), "Secret 99"]) {
        assert.ok(!everything.includes(form), `${path}: ${form} in ${everything}`);
      }
      assert.match(err.message, /\*\*\*/);
    }
    t.close();
  });

  it("a short secret is hidden where it stands alone, and the words around it survive", async () => {
    handler = (_req, _body, res) =>
      res.writeHead(400, { "Content-Type": "application/json" }).end('{"message":"password ab1 rejected; abc1 and ab12 are other words"}');
    const t = transport();
    const err = await failure(t.request({ method: "POST", path: "/v1/short", retry: "safe", auth: false, secrets: ["ab1"] }));
    assert.match(err.message, /password \*\*\* rejected; abc1 and ab12 are other words/);
    t.close();
  });

  it("a refused login names the settings to check, by its OAuth code; an HTML page or an answer without a token names the URL", async () => {
    const client = (password: string) =>
      new PortalClient({
        url,
        origin: "http://localhost",
        clientId: "c",
        username: "u",
        password,
        retryBaseMs: 5,
        retryMaxMs: 20,
        timeoutMs: 1000,
      });
    handler = (_req, _body, res) =>
      res
        .writeHead(400, { "Content-Type": "application/json" })
        .end('{"error":"invalid_grant","error_description":"The user name or password is incorrect."}');
    const refused = client("wrong-password");
    const err = await failure(refused.timeZones.list());
    assert.match(err.message, /POST \/v1\/oauth failed \(HTTP 400\): invalid_grant: the username or password was refused/);
    assert.ok(!err.message.includes("The user name or password is incorrect"), "the token answer's own words are never quoted");
    assert.match(err.message, /backup-portal:clientId\/origin\/username\/password/);
    assert.ok(!err.message.includes("wrong-password"));
    refused.close();

    handler = (_req, _body, res) => res.writeHead(200, { "Content-Type": "text/html" }).end("<html>Sign in</html>");
    const proxied = client("p4ssword");
    await assert.rejects(
      proxied.timeZones.list(),
      /does not answer as the Cloutility API: it answered with an HTML page, not the API's JSON; set backup-portal:url/,
    );
    proxied.close();

    handler = (_req, _body, res) => res.writeHead(200, { "Content-Type": "application/json" }).end('{"token":"x"}');
    const odd = client("p4ssword");
    await assert.rejects(
      odd.timeZones.list(),
      /does not answer as the Cloutility API: its token request was answered without an access_token; set backup-portal:url/,
    );
    odd.close();
  });

  it("a proxy relation the portal says exists already (409) is success when the node lists it, an error otherwise", async () => {
    const client = new PortalClient({
      url,
      origin: "http://localhost",
      clientId: "c",
      username: "u",
      password: "p4ssword",
      retryBaseMs: 5,
      timeoutMs: 1000,
    });
    let listed = [{ id: 7, name: "agent" }];
    handler = (req, _body, res) => {
      const json = (status: number, body: unknown) =>
        res.writeHead(status, { "Content-Type": "application/json" }).end(JSON.stringify(body));
      if (req.url!.startsWith("/v1/oauth")) return json(200, { access_token: "tok-123456", token_type: "bearer", expires_in: 300 });
      if (req.method === "POST") return json(409, { code: "Conflict", message: "The proxy relation exists" });
      return json(200, { id: 55, proxyAgents: listed, proxyTargets: [] });
    };
    const node = await client.nodes.addProxyAgent(1, 5, 7);
    assert.equal(node.id, 55);
    listed = [];
    await assert.rejects(client.nodes.addProxyAgent(1, 5, 7), (e: PortalError) => e.status === 409);
    client.close();
  });

  it("a redirect is not followed: it is an error that names the status", async () => {
    const t = transport();
    for (const status of [300, 302]) {
      handler = (_req, _body, res) => res.writeHead(status, { Location: "http://example.invalid/" }).end();
      const err = await failure(t.request({ method: "GET", path: "/v1/moved", retry: "safe", auth: false }));
      assert.strictEqual(err.status, status);
    }
    assert.strictEqual(seen.length, 2);
    t.close();
  });
  describe("the size of an answer is capped", () => {
    const cap = 64 * 1024;
    const bodyLimit = 8 * 1024 * 1024; // what the server would send at most
    let written = 0;
    /** Whether the server's answer closed before it was all written; undefined while it is open. */
    let closedEarly: boolean | undefined;
    /** A bounded wait: a change that leaves the connection open fails in 2 s instead of hanging. */
    const closed = async () => {
      await waitFor(() => closedEarly !== undefined, "the connection to close", 2000);
      return closedEarly;
    };

    /** Streams `total` bytes of a JSON string in 16 KiB chunks, as fast as the client takes them. */
    const stream = (res: http.ServerResponse, headers: Record<string, string>) => {
      written = 0;
      closedEarly = undefined;
      res.on("close", () => (closedEarly = written < bodyLimit));
      res.writeHead(200, { "Content-Type": "application/json", ...headers });
      const chunk = Buffer.alloc(16 * 1024, "a");
      const more = () => {
        while (written < bodyLimit && !res.destroyed) {
          written += chunk.length;
          if (!res.write(chunk)) return void res.once("drain", more);
        }
        res.end();
      };
      more();
    };

    it("a streamed answer over the cap fails with AnswerTooLarge after one try, and the connection is dropped", async () => {
      handler = (_req, _body, res) => stream(res, {});
      const t = transport({ maxAnswerBytes: cap });
      const err = await failure(t.request({ method: "GET", path: "/v1/huge", retry: "safe", auth: false }));
      assert.strictEqual(err.code, "AnswerTooLarge");
      assert.strictEqual(err.status, 200);
      assert.match(err.message, /larger than 65536 bytes.*maxAnswerBytes \(or BACKUP_PORTAL_MAX_ANSWER_BYTES/);
      assert.strictEqual(seen.length, 1, "not retried: it would be as large again");
      assert.strictEqual(await closed(), true, "the client hung up before the server sent everything");
      t.close();
    });

    it("an answer that declares its length over the cap is refused before its body is read", async () => {
      handler = (_req, _body, res) => stream(res, { "Content-Length": String(bodyLimit) });
      const t = transport({ maxAnswerBytes: cap });
      const err = await failure(t.request({ method: "GET", path: "/v1/huge", retry: "safe", auth: false }));
      assert.strictEqual(err.code, "AnswerTooLarge");
      assert.strictEqual(await closed(), true);
      t.close();
    });

    it("the cap counts the decompressed bytes: a small gzip answer that inflates past it fails", async () => {
      const inflated = JSON.stringify({ pad: "z".repeat(4 * cap) });
      const gz = zlib.gzipSync(inflated);
      assert.ok(gz.length < cap / 4, "the compressed answer is well under the cap");
      handler = (_req, _body, res) => res.writeHead(200, { "Content-Type": "application/json", "Content-Encoding": "gzip" }).end(gz);
      const t = transport({ maxAnswerBytes: cap });
      const err = await failure(t.request({ method: "GET", path: "/v1/bomb", retry: "safe", auth: false }));
      assert.strictEqual(err.code, "AnswerTooLarge");
      handler = (_req, _body, res) =>
        res.writeHead(200, { "Content-Type": "application/json", "Content-Encoding": "gzip" }).end(zlib.gzipSync('{"ok":true}'));
      assert.deepStrictEqual(await t.request({ method: "GET", path: "/v1/small", retry: "safe", auth: false }), { ok: true });
      t.close();
    });

    it("an answer exactly at the cap is accepted", async () => {
      const body = JSON.stringify({ pad: "y".repeat(cap - 10) });
      assert.strictEqual(Buffer.byteLength(body), cap);
      handler = (_req, _body, res) => res.writeHead(200, { "Content-Type": "application/json" }).end(body);
      const t = transport({ maxAnswerBytes: cap });
      const answer = await t.request<{ pad: string }>({ method: "GET", path: "/v1/exact", retry: "safe", auth: false });
      assert.strictEqual(answer.pad.length, cap - 10);
      t.close();
    });
  });

  describe("what cannot succeed when repeated is tried once", () => {
    it("an unsupported protocol (ftp://) and a URL that is not one fail at once and name the setting", async () => {
      for (const bad of ["ftp://127.0.0.1:21", "http://exa mple.com"]) {
        const lines: string[] = [];
        const t = transport({ url: bad, log: (l) => lines.push(l) });
        const err = await failure(t.request({ method: "GET", path: "/v1/x", retry: "safe", auth: false }));
        assert.deepStrictEqual(lines, [], `${bad}: no retry`);
        assert.strictEqual(t.stats.retries, 0);
        assert.match(err.message, /must be http:\/\/ or https:\/\/.*backup-portal:url \(or BACKUP_PORTAL_URL\)/, bad);
        t.close();
      }
    });

    it("a TLS certificate the client does not trust is not retried, and the hint says how to trust it", async () => {
      const fixtures = path.join(__dirname, "fixtures");
      const tls = https.createServer(
        { key: fs.readFileSync(path.join(fixtures, "self-signed.key")), cert: fs.readFileSync(path.join(fixtures, "self-signed.crt")) },
        (_req, res) => res.writeHead(200, { "Content-Type": "application/json" }).end("{}"),
      );
      let connections = 0;
      tls.on("connection", () => connections++);
      await new Promise<void>((r) => tls.listen(0, "127.0.0.1", r));
      try {
        const t = transport({ url: `https://127.0.0.1:${(tls.address() as AddressInfo).port}` });
        const err = await failure(t.request({ method: "GET", path: "/v1/x", retry: "safe", auth: false }));
        assert.strictEqual(connections, 1, "one try");
        assert.match(
          err.message,
          /DEPTH_ZERO_SELF_SIGNED_CERT.*Hint: the portal's TLS certificate was refused: use a certificate a trusted CA signed for the portal's host name, or give Node the CA that signed it with NODE_EXTRA_CA_CERTS$/,
        );
        t.close();
      } finally {
        tls.closeAllConnections();
        await new Promise((r) => tls.close(r));
      }
    });

    it("a refused connection is retried (it may come up), each retry reported in one line: what failed, when the next try comes", async () => {
      const closed = http.createServer();
      await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
      const port = (closed.address() as AddressInfo).port;
      await new Promise((r) => closed.close(r));
      const lines: string[] = [];
      const t = transport({ url: `http://127.0.0.1:${port}`, log: (l) => lines.push(l) });
      const err = await failure(t.request({ method: "GET", path: "/v1/x", retry: "safe", auth: false }));
      assert.strictEqual(lines.length, 2, lines.join("\n"));
      assert.match(lines[0], /^GET \/v1\/x: no answer \(connect ECONNREFUSED 127\.0\.0\.1:\d+\); try 2 of 3 in \d+\.\d s$/);
      assert.match(lines[1], /; try 3 of 3 in /);
      assert.match(err.message, /ECONNREFUSED/);
      assert.ok(!err.message.includes("request to"), "node-fetch's wording with the whole URL is not repeated");
      t.close();
    });

    it("an HTTP retry line names the status and the portal's code", async () => {
      handler = (_req, _body, res) => res.writeHead(503, { "Content-Type": "application/json", "Retry-After": "0" }).end('{"code":"Busy"}');
      const lines: string[] = [];
      const t = transport({ log: (l) => lines.push(l) });
      await failure(t.request({ method: "GET", path: "/v1/busy", retry: "safe", auth: false }));
      assert.deepStrictEqual(
        lines.map((l) => l.replace(/in \d+\.\d s/, "in N s")),
        ["GET /v1/busy: HTTP 503 Busy; try 2 of 3 in N s", "GET /v1/busy: HTTP 503 Busy; try 3 of 3 in N s"],
      );
      t.close();
    });
  });

  describe("a deadline over all tries", () => {
    it("ends the retries of a stalled portal at the deadline, and says so", async function () {
      // Short: a change that stops the timeout from firing fails here fast instead of hanging.
      this.timeout(3000);
      handler = () => undefined; // never answers
      const lines: string[] = [];
      const t = transport({
        timeoutMs: 160,
        maxAttempts: 20,
        retryBaseMs: 20,
        retryMaxMs: 40,
        deadlineMs: 400,
        log: (l) => lines.push(l),
      });
      const started = Date.now();
      const err = await failure(t.request({ method: "GET", path: "/v1/stalled", retry: "safe", auth: false }));
      const took = Date.now() - started;
      assert.ok(took >= 380 && took < 900, `gave up after ${took} ms`);
      assert.ok(seen.length >= 2 && seen.length <= 4, `${seen.length} tries`);
      assert.match(err.message, /timed out after \d+ ms: gave up after \d tries: the deadline of 0\.4 s over all tries passed/);
      assert.strictEqual(err.timedOut, true);
      assert.strictEqual(lines.length, seen.length - 1);
      t.close();
    });

    it("covers the token request too: a stalled token endpoint ends the call at its deadline", async function () {
      // Short: a change that stops the timeout from firing fails here fast instead of hanging.
      this.timeout(3000);
      handler = () => undefined;
      const client = new PortalClient({
        url,
        origin: "http://localhost",
        clientId: "c",
        username: "u",
        password: "a-long-password-8812",
        timeoutMs: 5000,
        deadlineMs: 300,
        retryBaseMs: 10,
        retryMaxMs: 50,
      });
      const started = Date.now();
      await failure(client.timeZones.list());
      const took = Date.now() - started;
      assert.ok(took >= 280 && took < 800, `gave up after ${took} ms`);
      assert.deepStrictEqual(
        seen.map((r) => r.url),
        ["/v1/oauth"],
        "the call itself never started",
      );
      client.close();
    });

    it("a Retry-After beyond the deadline ends the retries at once", async () => {
      handler = (_req, _body, res) =>
        res.writeHead(503, { "Content-Type": "application/json", "Retry-After": "30" }).end('{"code":"Busy"}');
      const t = transport({ deadlineMs: 2000, retryMaxMs: 60_000 });
      const started = Date.now();
      const err = await failure(t.request({ method: "GET", path: "/v1/busy", retry: "safe", auth: false }));
      assert.ok(Date.now() - started < 500);
      assert.strictEqual(seen.length, 1);
      assert.match(err.message, /HTTP 503\): Busy: gave up after 1 try: the deadline of 2\.0 s over all tries passed/);
      t.close();
    });
  });
});
