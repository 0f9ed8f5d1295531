// Authentication: the token endpoint (password and refresh grants), the
// Origin and Bearer checks of every other call, and token expiry. Tokens are
// random strings; the store keeps only their SHA-256.
import type { App, Ctx, Reply } from "./context";
import type { AccessTokenRec, ClientRec, SessionRec } from "./types";
import { OAuthError, unauthorized, validation } from "./errors";
import { isWithin } from "./tree";
import { DAY, iso, randomToken, secretMatches, sha256 } from "./util";

export function normalizeOrigin(origin: string): string {
  return origin.trim().replace(/\/+$/, "").toLowerCase();
}

function requireOrigin(ctx: Ctx): string {
  const origin = ctx.header("origin");
  if (!origin || origin.trim() === "") throw unauthorized("OriginRequired", "The Origin header is required");
  return normalizeOrigin(origin);
}

function bearerOf(ctx: Ctx): string | undefined {
  const h = ctx.header("authorization");
  if (!h) return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(h);
  return m ? m[1] : undefined;
}

function findAccessToken(app: App, token: string): AccessTokenRec | undefined {
  const hash = sha256(token);
  return app.store.state.accessTokens.find((t) => t.hash === hash);
}

function checkClientOrigin(client: ClientRec, origin: string): void {
  if (normalizeOrigin(client.origin) !== origin) {
    throw unauthorized("OriginMismatch", `The Origin header does not match the origin registered for client ID "${client.clientId}"`);
  }
}

/**
 * Checks the Origin header, and unless `needsToken` is false the Bearer token;
 * sets `ctx.auth`.
 */
export function authenticate(ctx: Ctx, needsToken: boolean): void {
  const origin = requireOrigin(ctx);
  if (!needsToken) return;
  const token = bearerOf(ctx);
  if (!token) throw unauthorized("InvalidToken", "An Authorization: Bearer access token is required");
  const rec = findAccessToken(ctx.app, token);
  if (!rec) throw unauthorized("InvalidToken", "The access token is not valid");
  if (ctx.receivedAt >= rec.expiresAt) throw unauthorized("InvalidToken", "The access token has expired");
  const state = ctx.state;
  const session = state.sessions.find((s) => s.id === rec.sessionId);
  const client = session && state.clients.find((c) => c.clientId === session.clientId);
  const user = session && state.users.find((u) => u.id === session.userId);
  if (!session || !client || !user) throw unauthorized("InvalidToken", "The access token is not valid");
  checkClientOrigin(client, origin);
  ctx.auth = { user, client, rootBusinessUnitId: user.businessUnitId };
}

function issue(ctx: Ctx, session: SessionRec, refreshToken: string | undefined): Reply {
  const now = Date.now();
  const ttl = ctx.app.tokenTtlSeconds;
  const accessToken = randomToken();
  const state = ctx.state;
  // Forget tokens long expired (a refresh still accepts a recently expired one).
  state.accessTokens = state.accessTokens.filter((t) => t.expiresAt > now - DAY);
  state.accessTokens.push({ hash: sha256(accessToken), sessionId: session.id, issuedAt: now, expiresAt: now + ttl * 1000 });
  ctx.store.changed();
  const body: Record<string, unknown> = { access_token: accessToken, token_type: "bearer", expires_in: ttl };
  if (refreshToken) body.refresh_token = refreshToken;
  return { status: 200, json: body, headers: { "Cache-Control": "no-store" } };
}

/** POST /v1/oauth: form-encoded password and refresh_token grants. */
export function tokenRequest(ctx: Ctx): Reply {
  const origin = requireOrigin(ctx);
  const type = (ctx.header("content-type") ?? "").split(";")[0].trim().toLowerCase();
  if (type !== "application/x-www-form-urlencoded") {
    throw validation("The token request must be form-encoded (application/x-www-form-urlencoded)");
  }
  const form = new URLSearchParams(ctx.body.toString("utf8"));
  const field = (name: string): string => {
    const v = form.get(name);
    if (v === null || v === "") throw validation(`${name} is required`);
    return v;
  };
  const clientId = field("client_id");
  const grantType = field("grant_type");
  const state = ctx.state;
  const client = state.clients.find((c) => c.clientId === clientId);
  if (!client) throw new OAuthError("invalid_client", `Unknown client ID "${clientId}"`);
  checkClientOrigin(client, origin);

  if (grantType === "password") {
    const username = field("username");
    const password = field("password");
    const user = state.users.find((u) => u.username.toLowerCase() === username.toLowerCase());
    if (!user || !secretMatches(password, user.passwordSalt, user.passwordHash)) {
      throw new OAuthError("invalid_grant", "Invalid username or password");
    }
    if (!isWithin(state, user.businessUnitId, client.businessUnitId)) {
      throw new OAuthError("invalid_grant", `The account cannot use client ID "${clientId}"`);
    }
    const refreshToken = client.allowRefresh && ctx.app.readings.refresh !== "none" ? randomToken() : undefined;
    const session: SessionRec = { id: randomToken(12), clientId, userId: user.id, createdDate: iso() };
    if (refreshToken) session.refreshTokenHash = sha256(refreshToken);
    state.sessions.push(session);
    return issue(ctx, session, refreshToken);
  }

  if (grantType === "refresh_token") {
    if (!client.allowRefresh || ctx.app.readings.refresh === "none") {
      throw new OAuthError("unauthorized_client", `Client ID "${clientId}" does not allow refreshing tokens`);
    }
    if (ctx.app.readings.refresh === "refused") throw new OAuthError("invalid_grant", "Refresh tokens are not accepted");
    const bearer = bearerOf(ctx);
    if (!bearer) throw unauthorized("InvalidToken", "A refresh needs the current access token as Authorization: Bearer");
    // The access token may have expired (that is the point of refreshing) but must be one we issued.
    const current = findAccessToken(ctx.app, bearer);
    if (!current) throw unauthorized("InvalidToken", "The access token is not valid");
    const refreshToken = field("refresh_token");
    const session = state.sessions.find((s) => s.id === current.sessionId);
    if (!session || session.clientId !== clientId || session.refreshTokenHash !== sha256(refreshToken)) {
      throw new OAuthError("invalid_grant", "The refresh token is not valid for this access token and client ID");
    }
    return issue(ctx, session, refreshToken);
  }

  throw validation(`grant_type must be "password" or "refresh_token"`);
}

/** Every access token issued so far expires now (refresh tokens stay valid). */
export function expireAllTokens(app: App): void {
  const now = Date.now();
  for (const t of app.store.state.accessTokens) if (t.expiresAt > now) t.expiresAt = now;
  app.store.changed();
  app.store.flush();
}
