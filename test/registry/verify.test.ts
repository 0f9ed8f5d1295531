import assert from "node:assert/strict";
import http from "node:http";
import { AddressInfo } from "node:net";
import { allPassed, verifyRegistry } from "../../provider/registry";
import { closeServer, listenLoopback } from "../support/loopback";

const USER = "admin";
const PASSWORD = "Sup3r-Secret-Value";

interface FakeOptions {
  auth: boolean;
  /** Misbehave: everything answers 500. */
  broken?: boolean;
  /** Never answer. */
  hang?: boolean;
}

/** A fake zot on 127.0.0.1:0 answering the endpoints of spec 001 section 4. */
async function fakeZot(opts: FakeOptions): Promise<{ url: string; close: () => Promise<void>; seen: string[] }> {
  const seen: string[] = [];
  const expected = "Basic " + Buffer.from(`${USER}:${PASSWORD}`).toString("base64");
  const server = http.createServer((req, res) => {
    seen.push(`${req.method} ${req.url} ${req.headers.authorization ? "auth" : "anon"}`);
    if (opts.hang) return;
    if (opts.broken) {
      res.writeHead(500, { "content-type": "text/plain" }).end("internal error");
      return;
    }
    const authed = !opts.auth || req.headers.authorization === expected;
    const deny = () =>
      res
        .writeHead(401, { "content-type": "application/json", "www-authenticate": 'Basic realm="zot"' })
        .end('{"errors":[{"code":"UNAUTHORIZED","message":"authentication required"}]}');
    switch (req.url) {
      case "/v2/":
        if (!authed) {
          deny();
          return;
        }
        res.writeHead(200, { "content-type": "application/json", "docker-distribution-api-version": "registry/2.0" }).end("{}");
        return;
      case "/v2/_catalog":
        if (!authed) {
          deny();
          return;
        }
        res.writeHead(200, { "content-type": "application/json" }).end('{"repositories":["alpine","busybox"]}');
        return;
      case "/metrics":
        if (!authed) {
          deny();
          return;
        }
        res
          .writeHead(200, { "content-type": "text/plain; version=0.0.4" })
          .end('# HELP zot_up zot is up\n# TYPE zot_up gauge\nzot_up 1\nzot_repo_storage_bytes{repo="alpine"} 3\n');
        return;
      case "/":
        res
          .writeHead(200, { "content-type": "text/html; charset=utf-8" })
          .end("<!doctype html><html><head><title>zot</title></head><body></body></html>");
        return;
      default:
        res.writeHead(404).end();
    }
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    seen,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

const byCheck = (report: { check: string; ok: boolean; detail: string }[], name: string) => {
  const c = report.find((x) => x.check === name);
  assert.ok(c, `no check ${name} in ${JSON.stringify(report)}`);
  return c!;
};

describe("registry: verifyRegistry against a fake zot", function () {
  this.timeout(20000);

  it("auth on, with credentials: every check passes, none leaks the password", async () => {
    const z = await fakeZot({ auth: true });
    try {
      const report = await verifyRegistry(z.url, { username: USER, password: PASSWORD });
      assert.ok(allPassed(report), JSON.stringify(report, null, 2));
      assert.deepEqual(
        report.map((c) => c.check),
        [
          "GET /v2/",
          "GET /v2/_catalog without credentials",
          "GET /v2/ with credentials",
          "GET /v2/_catalog with credentials",
          "GET /metrics",
          "GET / (UI)",
        ],
      );
      assert.match(byCheck(report, "GET /v2/").detail, /401 with Basic realm="zot"/);
      assert.match(byCheck(report, "GET /v2/_catalog with credentials").detail, /2 repositories/);
      assert.match(byCheck(report, "GET /metrics").detail, /2 samples/);
      assert.ok(!JSON.stringify(report).includes(PASSWORD));
      assert.ok(z.seen.includes("GET /v2/_catalog anon") && z.seen.includes("GET /v2/_catalog auth"));
    } finally {
      await z.close();
    }
  });

  it("auth on, wrong password: the credential checks fail, and the password is not shown", async () => {
    const z = await fakeZot({ auth: true });
    try {
      const report = await verifyRegistry(z.url, { username: USER, password: "wrong-" + PASSWORD });
      assert.equal(byCheck(report, "GET /v2/").ok, true);
      assert.equal(byCheck(report, "GET /v2/ with credentials").ok, false);
      assert.equal(byCheck(report, "GET /v2/_catalog with credentials").ok, false);
      assert.equal(byCheck(report, "GET /metrics").ok, false);
      assert.ok(!JSON.stringify(report).includes(PASSWORD));
    } finally {
      await z.close();
    }
  });

  it("a URL carrying credentials is refused without echoing them", async () => {
    const err = await verifyRegistry(`http://${USER}:${PASSWORD}@127.0.0.1:9/`).then(
      () => assert.fail("refused"),
      (e: Error) => e,
    );
    assert.match(err.message, /the URL carries credentials; pass the URL without them/);
    assert.ok(!err.message.includes(PASSWORD));
  });

  it("auth on, no credentials: 401s are expected, and the report asks for credentials", async () => {
    const z = await fakeZot({ auth: true });
    try {
      const report = await verifyRegistry(z.url);
      assert.equal(byCheck(report, "GET /v2/").ok, true);
      assert.equal(byCheck(report, "GET /v2/_catalog without credentials").ok, true);
      assert.equal(byCheck(report, "GET /metrics").ok, true);
      assert.equal(byCheck(report, "GET / (UI)").ok, true);
      assert.equal(byCheck(report, "credentials").ok, false);
    } finally {
      await z.close();
    }
  });

  it("auth off: anonymous catalog and metrics answer 200", async () => {
    const z = await fakeZot({ auth: false });
    try {
      const report = await verifyRegistry(z.url);
      assert.ok(allPassed(report), JSON.stringify(report, null, 2));
      assert.match(byCheck(report, "GET /v2/").detail, /no authentication/);
      assert.match(byCheck(report, "GET /v2/_catalog without credentials").detail, /2 repositories/);
    } finally {
      await z.close();
    }
  });

  it("auth expected but the registry is open: catalog without credentials is not a 401... and passes as open", async () => {
    // Credentials given to an open registry: the open answers are still correct.
    const z = await fakeZot({ auth: false });
    try {
      const report = await verifyRegistry(z.url, { username: USER, password: PASSWORD });
      assert.ok(allPassed(report), JSON.stringify(report, null, 2));
    } finally {
      await z.close();
    }
  });

  it("a failing registry (500 everywhere) fails every check", async () => {
    const z = await fakeZot({ auth: true, broken: true });
    try {
      const report = await verifyRegistry(z.url, { username: USER, password: PASSWORD });
      assert.ok(report.length >= 5);
      assert.ok(
        report.every((c) => !c.ok),
        JSON.stringify(report, null, 2),
      );
      assert.match(byCheck(report, "GET /v2/").detail, /got 500/);
    } finally {
      await z.close();
    }
  });

  it("an unreachable registry and a hanging one fail fast with a reason", async () => {
    const z = await fakeZot({ auth: false });
    const url = z.url;
    await z.close();
    const refused = await verifyRegistry(url, undefined, { timeoutMs: 1000 });
    assert.ok(refused.every((c) => !c.ok));
    assert.match(refused[0].detail, /ECONNREFUSED|failed/);

    const h = await fakeZot({ auth: false, hang: true });
    try {
      const t0 = Date.now();
      const hung = await verifyRegistry(h.url, undefined, { timeoutMs: 200 });
      assert.ok(hung.every((c) => !c.ok));
      assert.match(hung[0].detail, /no answer within 200 ms/);
      assert.ok(Date.now() - t0 < 5000);
    } finally {
      await h.close();
    }
  });
});

describe("registry: verifyRegistry against a registry that echoes the credentials (issue 28 item 9)", () => {
  const PASS = "Echo-Me-Pa55word!";
  const header = "Basic " + Buffer.from(`${USER}:${PASS}`).toString("base64");

  /** Answers every request 400 with a body that echoes what it got, in the spelling `echo` gives. */
  async function echoing(echo: (authorization: string) => string): Promise<{ url: string; close: () => Promise<void> }> {
    const server = http.createServer((req, res) => {
      res.writeHead(400, { "content-type": "text/plain" }).end(echo(req.headers.authorization ?? "none"));
    });
    const url = await listenLoopback(server);
    return { url, close: () => closeServer(server) };
  }

  /** Every piece of 8 characters of the base64 credentials: none may be shown, not even cut short. */
  const pieces = (s: string) => Array.from({ length: s.length - 7 }, (_, i) => s.slice(i, i + 8));

  const spellings: Array<[string, (a: string) => string]> = [
    ["the header as it came", (a) => `unexpected Authorization: ${a}`],
    ["the header in JSON", (a) => JSON.stringify({ error: "bad request", headers: { authorization: a } })],
    ["the header after 100 characters (where the detail is cut)", (a) => `${"x".repeat(100)} ${a} ${"y".repeat(40)}`],
    ["the header URL-encoded", (a) => `auth=${encodeURIComponent(a)}`],
    ["the base64url of it", (a) => `token ${Buffer.from(Buffer.from(a.slice(6), "base64").toString("utf8")).toString("base64url")}`],
    ["the base64 without padding", (a) => `got ${a.slice(6).replace(/=+$/, "")}.`],
    ["the decoded user:password", (a) => `user ${Buffer.from(a.slice(6), "base64").toString("utf8")}`],
    ["the password alone in base64", () => `pw ${Buffer.from(PASS).toString("base64")}`],
  ];
  for (const [what, echo] of spellings) {
    it(`shows no credential when the registry echoes ${what}`, async () => {
      const z = await echoing(echo);
      try {
        const report = await verifyRegistry(z.url, { username: USER, password: PASS });
        const text = JSON.stringify(report);
        assert.ok(
          report.some((c) => /got 400/.test(c.detail)),
          text,
        );
        assert.ok(!text.includes(PASS), `the password: ${text}`);
        const b64 = header.slice(6);
        for (const p of pieces(b64)) assert.ok(!text.includes(p), `base64 credentials (${p}) in ${text}`);
      } finally {
        await z.close();
      }
    });
  }
});
