import assert from "node:assert/strict";
import { startEmulator } from "../../emulator";
import { api, call, login, ORIGIN, SEED, sleep, tokenRequest, useEmulator } from "./helpers";

describe("emulator: authentication", () => {
  const ctx = useEmulator();
  beforeEach(() => ctx.em.reset());

  const pw = (user: "admin" | "tenant" = "admin", clientId = "emulator") => ({
    client_id: clientId,
    grant_type: "password",
    username: SEED.users[user].username,
    password: SEED.users[user].password,
  });

  it("password grant (form-encoded) answers an AccessToken", async () => {
    const res = await tokenRequest(ctx.em.url, pw());
    assert.equal(res.status, 200);
    assert.equal(res.body.token_type, "bearer");
    assert.equal(res.body.expires_in, 299);
    assert.equal(typeof res.body.access_token, "string");
    assert.equal(typeof res.body.refresh_token, "string");
    const me = await call(ctx.em, "GET", "/v1/me", { token: res.body.access_token });
    assert.equal(me.status, 200);
    assert.deepEqual(me.body.businessUnit.id, 1);
    assert.equal(me.body.username, "admin");
  });

  it("refuses a JSON token request: the token request is form-encoded", async () => {
    const res = await call(ctx.em, "POST", "/v1/oauth", { body: pw() });
    assert.equal(res.status, 400);
    assert.equal(res.body.code, "ValidationFailed");
  });

  it("bad password and unknown user are 400 invalid_grant, an unknown client ID 400 invalid_client (OAuth's answers), without the password", async () => {
    const bad = await tokenRequest(ctx.em.url, { ...pw(), password: "s3cret-wrong" });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error, "invalid_grant");
    assert.deepEqual(Object.keys(bad.body).sort(), ["error", "error_description"]);
    assert.ok(!bad.text.includes("s3cret-wrong"));
    const unknown = await tokenRequest(ctx.em.url, { ...pw(), username: "nobody" });
    assert.deepEqual([unknown.status, unknown.body.error], [400, "invalid_grant"]);
    const noClient = await tokenRequest(ctx.em.url, { ...pw(), client_id: "other" });
    assert.deepEqual([noClient.status, noClient.body.error], [400, "invalid_client"]);
  });

  it("refresh keeps the refresh token and issues a new working access token", async () => {
    const first = await tokenRequest(ctx.em.url, pw());
    const refreshed = await tokenRequest(
      ctx.em.url,
      { client_id: "emulator", grant_type: "refresh_token", refresh_token: first.body.refresh_token },
      { Origin: ORIGIN, Authorization: `Bearer ${first.body.access_token}` },
    );
    assert.equal(refreshed.status, 200);
    assert.equal(refreshed.body.refresh_token, first.body.refresh_token);
    assert.notEqual(refreshed.body.access_token, first.body.access_token);
    assert.equal(refreshed.body.expires_in, 299);
    assert.equal((await api(ctx.em, refreshed.body.access_token).get("/v1/bunits/1")).status, 200);
  });

  it("refresh accepts an expired access token in the Bearer header", async () => {
    const first = await tokenRequest(ctx.em.url, pw());
    ctx.em.expireTokens();
    const expired = await api(ctx.em, first.body.access_token).get("/v1/bunits/1");
    assert.equal(expired.status, 401);
    assert.equal(expired.body.code, "InvalidToken");
    const refreshed = await tokenRequest(
      ctx.em.url,
      { client_id: "emulator", grant_type: "refresh_token", refresh_token: first.body.refresh_token },
      { Origin: ORIGIN, Authorization: `Bearer ${first.body.access_token}` },
    );
    assert.equal(refreshed.status, 200);
    assert.equal((await api(ctx.em, refreshed.body.access_token).get("/v1/bunits/1")).status, 200);
  });

  it("refresh needs the Bearer header and a matching refresh token; errors never echo tokens", async () => {
    const first = await tokenRequest(ctx.em.url, pw());
    const noBearer = await tokenRequest(ctx.em.url, {
      client_id: "emulator",
      grant_type: "refresh_token",
      refresh_token: first.body.refresh_token,
    });
    assert.equal(noBearer.status, 401);
    assert.equal(noBearer.body.code, "InvalidToken");
    const wrong = await tokenRequest(
      ctx.em.url,
      { client_id: "emulator", grant_type: "refresh_token", refresh_token: "not-the-token-xyz" },
      { Origin: ORIGIN, Authorization: `Bearer ${first.body.access_token}` },
    );
    assert.equal(wrong.status, 400);
    assert.equal(wrong.body.error, "invalid_grant");
    assert.ok(!wrong.text.includes("not-the-token-xyz"));
    assert.ok(!wrong.text.includes(first.body.access_token));
  });

  it("client ID without refresh: no refresh_token, refresh refused with 400 unauthorized_client", async () => {
    const first = await tokenRequest(ctx.em.url, pw("admin", "norefresh"));
    assert.equal(first.status, 200);
    assert.equal(first.body.refresh_token, undefined);
    const res = await tokenRequest(
      ctx.em.url,
      { client_id: "norefresh", grant_type: "refresh_token", refresh_token: "anything" },
      { Origin: ORIGIN, Authorization: `Bearer ${first.body.access_token}` },
    );
    assert.equal(res.status, 400);
    assert.equal(res.body.error, "unauthorized_client");
  });

  it("Origin is required and must match the client ID, on the token request and every call", async () => {
    const noOrigin = await tokenRequest(ctx.em.url, pw(), {});
    assert.equal(noOrigin.status, 401);
    assert.equal(noOrigin.body.code, "OriginRequired");
    const wrong = await tokenRequest(ctx.em.url, pw(), { Origin: "http://evil.example" });
    assert.equal(wrong.status, 401);
    assert.equal(wrong.body.code, "OriginMismatch");
    const token = await login(ctx.em);
    const r1 = await call(ctx.em, "GET", "/v1/bunits/1", { token, origin: null });
    assert.equal(r1.status, 401);
    assert.equal(r1.body.code, "OriginRequired");
    const r2 = await call(ctx.em, "GET", "/v1/bunits/1", { token, origin: "http://other.example" });
    assert.equal(r2.status, 401);
    assert.equal(r2.body.code, "OriginMismatch");
    const r3 = await call(ctx.em, "GET", "/v1/bunits/1", { token, origin: "http://localhost/" });
    assert.equal(r3.status, 200, "a trailing slash is the same origin");
  });

  it("Bearer is required except for the token request and fullVersion", async () => {
    const none = await call(ctx.em, "GET", "/v1/bunits/1");
    assert.equal(none.status, 401);
    assert.equal(none.body.code, "InvalidToken");
    const bogus = await call(ctx.em, "GET", "/v1/bunits/1", { token: "bogus" });
    assert.equal(bogus.status, 401);
    const version = await call(ctx.em, "GET", "/v1/fullVersion");
    assert.equal(version.status, 200);
    assert.match(version.body, /^\d+\.\d+\.\d+\.\d+$/);
    assert.equal(version.text, `"${SEED.fullVersion}"`);
  });

  it("the tenant account's root is Tenant A", async () => {
    const me = await api(ctx.em, await login(ctx.em, "tenant")).get("/v1/me");
    assert.equal(me.body.businessUnit.id, SEED.businessUnits.tenantA.id);
  });

  it("token requests appear in the request log as POST /v1/oauth", async () => {
    await login(ctx.em);
    await login(ctx.em, "tenant");
    await tokenRequest(ctx.em.url, { ...pw(), password: "wrong" });
    const oauth = ctx.em.requests().filter((r) => r.method === "POST" && r.path === "/v1/oauth");
    assert.deepEqual(
      oauth.map((r) => r.status),
      [200, 200, 400],
    );
  });
});

describe("emulator: token lifetime", () => {
  it("tokens expire after tokenTtlSeconds", async function () {
    this.timeout(10_000);
    const em = await startEmulator({ quiet: true, tokenTtlSeconds: 1 });
    try {
      const res = await tokenRequest(em.url, { client_id: "emulator", grant_type: "password", username: "admin", password: "admin" });
      assert.equal(res.body.expires_in, 1);
      assert.equal((await api(em, res.body.access_token).get("/v1/bunits/1")).status, 200);
      await sleep(1100);
      const late = await api(em, res.body.access_token).get("/v1/bunits/1");
      assert.equal(late.status, 401);
      assert.equal(late.body.code, "InvalidToken");
    } finally {
      await em.close();
    }
  });

  it("POST /_emulator/expire-tokens expires every access token", async () => {
    const em = await startEmulator({ quiet: true });
    try {
      const token = await login(em);
      const r = await call(em, "POST", "/_emulator/expire-tokens", { origin: null });
      assert.equal(r.status, 204);
      assert.equal((await api(em, token).get("/v1/bunits/1")).status, 401);
      assert.equal((await api(em, await login(em)).get("/v1/bunits/1")).status, 200, "new tokens work");
    } finally {
      await em.close();
    }
  });
});
