// Small shared helpers: timestamps, hashing, random tokens, date parsing.
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

/** ISO 8601 UTC with second precision (`2025-01-01T00:00:00Z`). */
export function iso(ms: number = Date.now()): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
}

export function sha256(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

export function hashSecret(secret: string, salt: string): string {
  return sha256(`${salt}:${secret}`);
}

export function secretMatches(secret: string, salt: string, hash: string): boolean {
  const a = Buffer.from(hashSecret(secret, salt), "hex");
  const b = Buffer.from(hash, "hex");
  return a.length === b.length && timingSafeEqual(a, b);
}

export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString("base64url");
}

const ISO_RE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/i;

/** Parses an ISO 8601 date or timestamp; no zone means UTC. Undefined when malformed. */
export function parseIsoDate(text: string): number | undefined {
  // A `+` of an offset arrives as a space when the query string was not encoded.
  const t = text.trim().replace(/ (\d{2}:?\d{2})$/, "+$1");
  const m = ISO_RE.exec(t);
  if (!m) return undefined;
  let s = t.replace(" ", "T");
  if (m[4] === undefined) s = `${m[1]}-${m[2]}-${m[3]}T00:00:00Z`;
  else if (m[7] === undefined) s = `${s}Z`;
  else s = s.replace(/([+-]\d{2})(\d{2})$/, "$1:$2");
  const ms = Date.parse(s);
  return Number.isNaN(ms) ? undefined : ms;
}

/** A `YYYY-MM-DD` calendar date that exists. */
export function isDateString(text: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return false;
  const d = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().startsWith(text);
}

export const HOUR = 3600_000;
export const DAY = 24 * HOUR;

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
