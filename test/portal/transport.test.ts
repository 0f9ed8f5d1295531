/** TEST: the transport on the wire, against a loopback server that misbehaves in the ways networks do. */
import * as assert from "assert";
import * as http from "http";
import { AddressInfo } from "net";
import { PortalError } from "../../provider/portal/errors";
import { Transport, TransportOptions } from "../../provider/portal/transport";
import { PortalClient } from "../../provider/portal";

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
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });
  beforeEach(() => (seen = []));

  const transport = (extra: Partial<TransportOptions> = {}) => new Transport({
    url, origin: "http://localhost", timeoutMs: 300, maxAttempts: 3, retryBaseMs: 10, retryMaxMs: 50, maxSockets: 4, maxAnswerBytes: 1024 * 1024,
    secrets: () => ["s3cret-pass"], ...extra,
  });
  const failure = async (p: Promise<unknown>): Promise<PortalError> => {
    const err = await p.then(() => assert.fail("expected a failure"), (e: unknown) => e);
    assert.ok(err instanceof PortalError, String(err));
    return err;
  };

  it("sends Origin, Accept, the query, a JSON body with its length; parses the JSON answer", async () => {
    handler = (_req, _body, res) => res.writeHead(201, { "Content-Type": "application/json" }).end('{"id":7,"name":"ü"}');
    const t = transport();
    const answer = await t.request<{ id: number; name: string }>({
      method: "POST", path: "/v1/things", query: { a: 1, tag: ["x", "y"], skip: undefined }, body: { json: { name: "ü" } }, retry: "create", auth: false,
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
      method: "POST", path: "/v1/upload", body: { raw: file, contentType: "application/pdf", headers: { "X-File-Name": "a.pdf" } }, retry: "safe", auth: false,
    });
    assert.strictEqual(answer, undefined);
    assert.strictEqual(seen[0].headers["content-type"], "application/pdf");
    assert.strictEqual(seen[0].headers["x-file-name"], "a.pdf");
    assert.strictEqual(seen[0].headers["content-length"], "6");
    t.close();
  });

  it("an answer that stalls mid-body times out; a read is tried again, each within the deadline", async () => {
    handler = (_req, _body, res) => {
      res.writeHead(200, { "Content-Type": "application/json", "Content-Length": "100" });
      res.write('{"partial":'); // and never the rest
    };
    const t = transport();
    const started = Date.now();
    const err = await failure(t.request({ method: "GET", path: "/v1/slow", retry: "safe", auth: false }));
    assert.strictEqual(seen.length, 3, "three attempts");
    assert.match(err.message, /timed out after 300 ms/);
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
      res.writeHead(503, { "Content-Type": "application/json", "Retry-After": "0" }).end('{"code":"Busy","message":"try later s3cret-pass"}');
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
        ? JSON.stringify({ code: "BadPassword", message: `password ${JSON.stringify(secret)} violates policy`, developerMessage: `tsmPassword=${encodeURIComponent(secret)}` })
        : `${"x".repeat(290)}${secret} is too weak`;
      res.writeHead(400, { "Content-Type": req.url!.includes("json") ? "application/json" : "text/plain" }).end(echo);
    };
    const t = transport();
    for (const path of ["/v1/json", "/v1/text"]) {
      const err = await failure(t.request({ method: "POST", path, body: { json: { tsmPassword: secret } }, retry: "safe", auth: false, secrets: [secret] }));
      const everything = [err.message, err.portalMessage, err.developerMessage, JSON.stringify(err)].join(" ");
      for (const form of [secret, encodeURIComponent(secret), JSON.stringify(secret).slice(1, -1), "Secret 99"]) {
        assert.ok(!everything.includes(form), `${path}: ${form} in ${everything}`);
      }
      assert.match(err.message, /\*\*\*/);
    }
    t.close();
  });

  it("a short secret is hidden where it stands alone, and the words around it survive", async () => {
    handler = (_req, _body, res) => res.writeHead(400, { "Content-Type": "application/json" }).end('{"message":"password ab1 rejected; abc1 and ab12 are other words"}');
    const t = transport();
    const err = await failure(t.request({ method: "POST", path: "/v1/short", retry: "safe", auth: false, secrets: ["ab1"] }));
    assert.match(err.message, /password \*\*\* rejected; abc1 and ab12 are other words/);
    t.close();
  });

  it("a refused login names the settings to check, by its OAuth code; an HTML page or an answer without a token names the URL", async () => {
    const client = (password: string) => new PortalClient({ url, origin: "http://localhost", clientId: "c", username: "u", password, retryBaseMs: 5, retryMaxMs: 20, timeoutMs: 1000 });
    handler = (_req, _body, res) =>
      res.writeHead(400, { "Content-Type": "application/json" }).end('{"error":"invalid_grant","error_description":"The user name or password is incorrect."}');
    const refused = client("wrong-password");
    const err = await failure(refused.timeZones.list());
    assert.match(err.message, /POST \/v1\/oauth failed \(HTTP 400\): invalid_grant: the username or password was refused/);
    assert.ok(!err.message.includes("The user name or password is incorrect"), "the token answer's own words are never quoted");
    assert.match(err.message, /backup-portal:clientId\/origin\/username\/password/);
    assert.ok(!err.message.includes("wrong-password"));
    refused.close();

    handler = (_req, _body, res) => res.writeHead(200, { "Content-Type": "text/html" }).end("<html>Sign in</html>");
    const proxied = client("p4ssword");
    await assert.rejects(proxied.timeZones.list(), /answered with an HTML page, not the API's JSON: check that backup-portal:url/);
    proxied.close();

    handler = (_req, _body, res) => res.writeHead(200, { "Content-Type": "application/json" }).end('{"token":"x"}');
    const odd = client("p4ssword");
    await assert.rejects(odd.timeZones.list(), /answered without an access_token: check that backup-portal:url/);
    odd.close();
  });

  it("a proxy relation the portal says exists already (409) is success when the node lists it, an error otherwise", async () => {
    const client = new PortalClient({ url, origin: "http://localhost", clientId: "c", username: "u", password: "p4ssword", retryBaseMs: 5, timeoutMs: 1000 });
    let listed = [{ id: 7, name: "agent" }];
    handler = (req, _body, res) => {
      const json = (status: number, body: unknown) => res.writeHead(status, { "Content-Type": "application/json" }).end(JSON.stringify(body));
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
    handler = (_req, _body, res) => res.writeHead(302, { Location: "http://example.invalid/" }).end();
    const t = transport();
    const err = await failure(t.request({ method: "GET", path: "/v1/moved", retry: "safe", auth: false }));
    assert.strictEqual(err.status, 302);
    assert.strictEqual(seen.length, 1);
    t.close();
  });
});
