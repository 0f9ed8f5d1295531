// One-time registration tokens: what an instance's user data carries instead of a portal credential.
//
//   rt1.<payload>.<mac>   payload = base64url(JSON {b: business unit id, e: expiry (s since the epoch), n: nonce})
//                         mac     = base64url(HMAC-SHA256(broker secret, "rt1." + payload))
//
// The broker (server.ts) accepts a token only with a valid MAC, before its expiry, for the business unit the
// instance asks for, and only for the first instance that presents it (replay.ts). Minted by the stack at render
// time with the broker's secret; the secret itself never leaves the stack and the broker.
import { createHmac, randomBytes, timingSafeEqual } from "crypto";

const PREFIX = "rt1";
/** Tokens live at most an hour: long enough for an instance to boot, short enough that a leaked one soon is useless. */
export const MAX_TOKEN_TTL_SECONDS = 3600;
/** The broker secret's minimum length (bytes of UTF-8): an HMAC key should be at least as long as its output. */
export const MIN_SECRET_BYTES = 32;

export type TokenRefusal = "malformed" | "signature" | "expired" | "business-unit" | "replayed";

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

/** The claims of a token this secret made and that has not expired at `now` (ms); else TokenRefused. */
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
  if (Math.floor(now / 1000) >= (c.e as number)) throw new TokenRefused("expired");
  return { businessUnitId: c.b as number, expiresAt: c.e as number, nonce: c.n };
}

/**
 * Who used which token. A token is claimed by the first instance (uuid) that presents it; that instance may
 * present it again until its registration is complete (a boot retries after a portal failure), nobody else
 * may. Entries are forgotten once their token has expired, so the table stays bounded by the tokens of an hour.
 */
export class TokenLedger {
  private readonly entries = new Map<string, { uuid: string; complete: boolean; expiresAt: number }>();

  constructor(private readonly maxEntries = 100_000) {}

  /** Claims the token for `uuid`, or TokenRefused("replayed"). */
  claim(claims: TokenClaims, uuid: string, now = Date.now()): void {
    this.prune(now);
    const e = this.entries.get(claims.nonce);
    if (e && (e.complete || e.uuid !== uuid)) throw new TokenRefused("replayed");
    if (!e) {
      if (this.entries.size >= this.maxEntries) throw new Error("too many registration tokens in the last hour");
      this.entries.set(claims.nonce, { uuid, complete: false, expiresAt: claims.expiresAt });
    }
  }

  /** The registration went through: the token is spent. */
  complete(claims: TokenClaims): void {
    const e = this.entries.get(claims.nonce);
    if (e) e.complete = true;
  }

  get size(): number {
    return this.entries.size;
  }

  private prune(now: number): void {
    const s = Math.floor(now / 1000);
    for (const [nonce, e] of this.entries) if (e.expiresAt <= s) this.entries.delete(nonce);
  }
}
