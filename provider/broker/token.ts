// One-time registration tokens: what an instance's user data carries instead of a portal credential.
//
//   rt1.<payload>.<mac>   payload = base64url(JSON {b: business unit id, e: expiry (s since the epoch), n: nonce})
//                         mac     = base64url(HMAC-SHA256(broker secret, "rt1." + payload))
//
// The broker (server.ts) accepts a token only with a valid MAC, before its expiry and at most an hour ahead of it,
// for the business unit the instance asks for, and only for the first instance that presents it (ledger.ts).
// Minted by the stack at render time with the broker's secret; the secret itself never leaves the stack and the
// broker.
import { createHmac, randomBytes, timingSafeEqual } from "crypto";

const PREFIX = "rt1";
/** Tokens live at most an hour: long enough for an instance to boot, short enough that a leaked one soon is useless. */
export const MAX_TOKEN_TTL_SECONDS = 3600;
/** The broker secret's minimum length (bytes of UTF-8): an HMAC key should be at least as long as its output. */
export const MIN_SECRET_BYTES = 32;
/** How far the stack's clock may run ahead of the broker's when a token's lifetime is checked. */
export const CLOCK_SKEW_SECONDS = 300;

export type TokenRefusal = "malformed" | "signature" | "expired" | "lifetime" | "business-unit" | "replayed";

/** Why the broker refuses a token; `reason` goes to the broker's log and, as a fixed phrase, to the instance. */
export class TokenRefused extends Error {
  constructor(readonly reason: TokenRefusal) {
    super(REFUSAL_TEXT[reason]);
    this.name = "TokenRefused";
  }
}

/** Fixed phrases: never the token, never the secret. */
export const REFUSAL_TEXT: Record<TokenRefusal, string> = {
  malformed: "the registration token is not a token of this broker",
  signature: "the registration token is not a token of this broker",
  expired: "the registration token has expired (tokens live at most an hour): render the user data again",
  lifetime: "the registration token would live longer than an hour (tokens live at most an hour): mint it again",
  "business-unit": "the registration token is for another business unit than the instance's backup_bunit",
  replayed: "the registration token has been used already (by another instance, or this instance's registration is complete)",
};

export interface TokenClaims {
  businessUnitId: number;
  /** Seconds since the epoch. */
  expiresAt: number;
  nonce: string;
}

function checkSecret(secret: string): Buffer {
  const key = Buffer.from(typeof secret === "string" ? secret : "", "utf8");
  if (key.length < MIN_SECRET_BYTES) throw new RangeError(`the broker secret must have at least ${MIN_SECRET_BYTES} bytes`);
  return key;
}

function mac(key: Buffer, signed: string): Buffer {
  return createHmac("sha256", key).update(signed).digest();
}

/** A token for one business unit, valid `ttlSeconds` (at most an hour) from `now` (ms). */
export function mintRegistrationToken(
  secret: string,
  o: { businessUnitId: number; ttlSeconds?: number; now?: number; nonce?: string },
): string {
  const key = checkSecret(secret);
  if (!Number.isSafeInteger(o.businessUnitId) || o.businessUnitId < 1)
    throw new RangeError(`businessUnitId must be a positive integer, got ${o.businessUnitId}`);
  const ttl = o.ttlSeconds ?? MAX_TOKEN_TTL_SECONDS;
  if (!Number.isInteger(ttl) || ttl < 60 || ttl > MAX_TOKEN_TTL_SECONDS)
    throw new RangeError(`ttlSeconds must be 60 to ${MAX_TOKEN_TTL_SECONDS}, got ${ttl}`);
  const claims = {
    b: o.businessUnitId,
    e: Math.floor((o.now ?? Date.now()) / 1000) + ttl,
    n: o.nonce ?? randomBytes(16).toString("base64url"),
  };
  const payload = Buffer.from(JSON.stringify(claims)).toString("base64url");
  const signed = `${PREFIX}.${payload}`;
  return `${signed}.${mac(key, signed).toString("base64url")}`;
}

/**
 * The claims of a token this secret made, not expired at `now` (ms) and not expiring more than an hour (and the
 * clock skew) after it: a token carries no issue time, so its lifetime is bounded against the broker's clock.
 * Else TokenRefused.
 */
export function verifyRegistrationToken(secret: string, token: string, now = Date.now()): TokenClaims {
  const key = checkSecret(secret);
  const parts = typeof token === "string" ? token.trim().split(".") : [];
  if (parts.length !== 3 || parts[0] !== PREFIX || !/^[A-Za-z0-9_-]+$/.test(parts[1]) || !/^[A-Za-z0-9_-]{43}$/.test(parts[2]))
    throw new TokenRefused("malformed");
  // Compared as text: decoding would ignore the spare bits of the last character, so two spellings would pass.
  const expected = Buffer.from(mac(key, `${parts[0]}.${parts[1]}`).toString("base64url"));
  const given = Buffer.from(parts[2]);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw new TokenRefused("signature");
  let claims: unknown;
  try {
    claims = JSON.parse(Buffer.from(parts[1], "base64url").toString("utf8"));
  } catch {
    throw new TokenRefused("malformed");
  }
  // Signed, yet not an object (`null`, a number): as malformed as any other wrong claim, not a crash.
  const c = (typeof claims === "object" && claims !== null ? claims : {}) as { b?: unknown; e?: unknown; n?: unknown };
  if (!Number.isSafeInteger(c.b) || (c.b as number) < 1 || !Number.isSafeInteger(c.e) || typeof c.n !== "string" || c.n.length < 16)
    throw new TokenRefused("malformed");
  const seconds = Math.floor(now / 1000);
  if (seconds >= (c.e as number)) throw new TokenRefused("expired");
  if ((c.e as number) > seconds + MAX_TOKEN_TTL_SECONDS + CLOCK_SKEW_SECONDS) throw new TokenRefused("lifetime");
  return { businessUnitId: c.b as number, expiresAt: c.e as number, nonce: c.n };
}
