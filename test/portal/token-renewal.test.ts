// When and how the client renews its token, on a clock the test moves: the refresh grant before expiry (a quarter
// of the lifetime, at most 30 s, ahead), the password grant when the refresh is refused.
import assert from "node:assert/strict";
import * as http from "node:http";
import { AddressInfo } from "node:net";
import { TokenManager } from "../../provider/portal/tokens";
import { Transport, TransportOptions } from "../../provider/portal/transport";
import { listenLoopback, closeServer } from "../support/loopback";

const PASSWORD = "Token-Renewal-Pa55word-7e2a90c4";

describe("token renewal on a moved clock", function () {
  this.timeout(20_000);
  let server: http.Server;
  let url: string;
  let grants: Array<Record<string, string>>;
  let methods: string[];
  let refuseRefresh: boolean;
  let refusePassword: number;
  let gatewayErrors: number;
  let withRefresh: boolean;
  let expiresIn: number | undefined;

  before(async () => {
    server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const form = Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString("utf8")));
        grants.push(form);
        methods.push(req.method!);
        if (gatewayErrors-- > 0) {
          res.writeHead(502, { "Content-Type": "text/plain" }).end("bad gateway");
          return;
        }
        if ((form.grant_type === "refresh_token" && refuseRefresh) || (form.grant_type === "password" && refusePassword-- > 0)) {
          res.writeHead(400, { "Content-Type": "application/json" }).end(JSON.stringify({ error: "invalid_grant" }));
          return;
        }
        const n = grants.length;
        res.writeHead(200, { "Content-Type": "application/json" }).end(
          JSON.stringify({
            access_token: `access-${n}-token-value`,
            refresh_token: withRefresh ? `refresh-${n}-token-value` : undefined,
            token_type: "bearer",
            expires_in: expiresIn,
          }),
        );
      });
    });
    url = await listenLoopback(server);
  });
  after(() => closeServer(server));
  beforeEach(() => {
    grants = [];
    methods = [];
    gatewayErrors = 0;
    refuseRefresh = false;
    refusePassword = 0;
    withRefresh = true;
    expiresIn = 300;
  });

  function manager(maxAttempts = 1) {
    let clock = 1_000_000;
    const transport = new Transport({
      url,
      origin: "http://localhost",
      timeoutMs: 5000,
      maxAttempts,
      retryBaseMs: 1,
      retryMaxMs: 10,
      maxSockets: 2,
      maxAnswerBytes: 1 << 20,
      secrets: () => [PASSWORD],
    } as TransportOptions);
    const tokens = new TokenManager(
      transport,
      () => ({ clientId: "emulator", username: "admin", password: PASSWORD }),
      () => clock,
    );
    return {
      tokens,
      at: (ms: number) => {
        clock = 1_000_000 + ms;
      },
      close: () => transport.close(),
    };
  }

  it("a 300 s token is renewed with the refresh grant 30 s before it expires, not sooner, not later", async () => {
    const m = manager();
    assert.equal(await m.tokens.token(), "access-1-token-value");
    assert.deepEqual(
      grants.map((g) => g.grant_type),
      ["password"],
    );
    assert.deepEqual([grants[0].username, grants[0].password, grants[0].client_id], ["admin", PASSWORD, "emulator"]);
    m.at(269_999);
    assert.equal(await m.tokens.token(), "access-1-token-value", "still 30 s and more to go: kept");
    assert.equal(grants.length, 1);
    m.at(270_000);
    assert.equal(await m.tokens.token(), "access-2-token-value");
    assert.deepEqual(
      grants.map((g) => g.grant_type),
      ["password", "refresh_token"],
    );
    assert.equal(grants[1].refresh_token, "refresh-1-token-value");
    assert.equal(grants[1].password, undefined, "a refresh does not send the password");
    m.close();
  });

  it("a 20 s token is renewed when a quarter of its lifetime is left", async () => {
    expiresIn = 20;
    const m = manager();
    await m.tokens.token();
    m.at(14_999);
    await m.tokens.token();
    assert.equal(grants.length, 1);
    m.at(15_000);
    assert.equal(await m.tokens.token(), "access-2-token-value");
    assert.deepEqual(
      grants.map((g) => g.grant_type),
      ["password", "refresh_token"],
    );
    m.close();
  });

  it("a refused refresh falls back to the password grant at once", async () => {
    refuseRefresh = true;
    const m = manager();
    await m.tokens.token();
    m.at(280_000);
    assert.equal(await m.tokens.token(), "access-3-token-value");
    assert.deepEqual(
      grants.map((g) => g.grant_type),
      ["password", "refresh_token", "password"],
    );
    m.close();
  });

  it("concurrent callers share one renewal; an invalidated token is renewed at once", async () => {
    const m = manager();
    const all = await Promise.all(Array.from({ length: 10 }, () => m.tokens.token()));
    assert.deepEqual(new Set(all), new Set(["access-1-token-value"]));
    assert.equal(grants.length, 1);
    m.tokens.invalidate("not-the-current-token");
    assert.equal(await m.tokens.token(), "access-1-token-value", "another token's refusal changes nothing");
    m.tokens.invalidate("access-1-token-value");
    assert.equal(await m.tokens.token(), "access-2-token-value");
    assert.deepEqual(
      grants.map((g) => g.grant_type),
      ["password", "refresh_token"],
      "the refused token's refresh token is tried first",
    );
    assert.deepEqual(m.tokens.secrets(), ["access-2-token-value", "refresh-2-token-value"]);
    m.close();
  });

  it("a token request that meets a gateway error (502) is posted again: a grant is safe to repeat", async () => {
    gatewayErrors = 1;
    const m = manager(2);
    assert.equal(await m.tokens.token(), "access-2-token-value");
    assert.deepEqual(methods, ["POST", "POST"]);
    assert.deepEqual(
      grants.map((g) => g.grant_type),
      ["password", "password"],
    );
    m.close();
  });

  it("invalidating before any token is held changes nothing", async () => {
    const m = manager();
    m.tokens.invalidate("access-1-token-value");
    assert.deepEqual(m.tokens.secrets(), []);
    assert.equal(await m.tokens.token(), "access-1-token-value");
    m.close();
  });

  it("a refused refresh token is not offered again; the one a later password grant brings is", async () => {
    refuseRefresh = true;
    refusePassword = 0;
    const m = manager();
    await m.tokens.token();
    m.at(280_000);
    refusePassword = 1; // the password grant after the refused refresh fails too
    await assert.rejects(m.tokens.token(), /POST \/v1\/oauth failed \(HTTP 400\): invalid_grant/);
    assert.ok(m.tokens.secrets().includes("access-1-token-value"), "the last access token is still redacted");
    assert.equal(await m.tokens.token(), "access-4-token-value");
    assert.deepEqual(
      grants.map((g) => g.grant_type),
      ["password", "refresh_token", "password", "password"],
      "the refused refresh token is not sent again",
    );
    refuseRefresh = false;
    m.at(280_000 + 270_000);
    assert.equal(await m.tokens.token(), "access-5-token-value");
    assert.deepEqual([grants[4].grant_type, grants[4].refresh_token], ["refresh_token", "refresh-4-token-value"]);
    m.close();
  });

  it("a token without a refresh token is renewed with the password; one without expires_in lives 299 s", async () => {
    withRefresh = false;
    expiresIn = undefined;
    const m = manager();
    await m.tokens.token();
    assert.deepEqual(m.tokens.secrets(), ["access-1-token-value"]);
    m.at(268_999);
    assert.equal(await m.tokens.token(), "access-1-token-value");
    m.at(269_000);
    assert.equal(await m.tokens.token(), "access-2-token-value");
    assert.deepEqual(
      grants.map((g) => g.grant_type),
      ["password", "password"],
    );
    m.close();
  });

  it("an answer without an access token says that the URL may point at a login page or a proxy", async () => {
    const odd = http.createServer((_req, res) => res.writeHead(200, { "Content-Type": "application/json" }).end('{"token":"x"}'));
    await new Promise<void>((r) => odd.listen(0, "127.0.0.1", r));
    const transport = new Transport({
      url: `http://127.0.0.1:${(odd.address() as AddressInfo).port}`,
      origin: "http://localhost",
      timeoutMs: 5000,
      maxAttempts: 1,
      retryBaseMs: 1,
      retryMaxMs: 10,
      maxSockets: 2,
      maxAnswerBytes: 1 << 20,
      secrets: () => [PASSWORD],
    } as TransportOptions);
    try {
      const tokens = new TokenManager(transport, () => ({ clientId: "emulator", username: "admin", password: PASSWORD }));
      await assert.rejects(tokens.token(), {
        message:
          `POST /v1/oauth failed (HTTP 200). Hint: this URL (http://127.0.0.1:${(odd.address() as AddressInfo).port}) does not answer ` +
          "as the Cloutility API: its token request was answered without an access_token; set backup-portal:url (or BACKUP_PORTAL_URL) " +
          "to the portal API's base address (the part before /v1, e.g. https://portal.example.com), with no login page or proxy in front of it",
      });
    } finally {
      transport.close();
      odd.closeAllConnections();
      await new Promise((r) => odd.close(r));
    }
  });
});
