// The one error type of the API client. Its text says what failed and what to
// check; it never carries a password, a token or an Authorization header.
import { HintContext, STACK_HINTS } from "./hints";

export type { HintContext } from "./hints";

export interface PortalErrorDetails {
  method: string;
  path: string;
  /** HTTP status; 0 when no answer came (connection error, timeout). */
  status: number;
  code?: string;
  message?: string;
  developerMessage?: string;
  /** True when the request may have been processed although no answer came. */
  outcomeUnknown?: boolean;
  /** True when the request was sent and its deadline passed: the portal may still be working on it. */
  timedOut?: boolean;
  /** What to check, when the status's own hint would not say it. */
  hint?: string;
  /** Said after the portal's words, e.g. that the deadline over all tries passed. */
  note?: string;
  /** Who reads the hint: the stack's (stack config and `pulumi` commands, the default) or a CLI command's. */
  context?: HintContext;
}

/**
 * Whether an answer to the token request (transport.ts's TOKEN_PATH) refuses the login itself: the real portal
 * answers 400 invalid_grant as OAuth servers do, an unknown Origin or an older portal 401. A 429 is not a refusal.
 */
function refusedLogin(status: number, path: string): boolean {
  return path.split("?")[0] === "/v1/oauth" && status >= 400 && status < 500 && status !== 429;
}

function hintFor(status: number, path: string, context: HintContext): string {
  const hints = context.hints;
  // A refused login is about the settings, whatever status the portal chose for it.
  if (refusedLogin(status, path)) return hints[401];
  return hints[status] ?? (status >= 500 ? "the portal failed: try again later" : "");
}

export class PortalError extends Error {
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly code?: string;
  readonly portalMessage?: string;
  readonly developerMessage?: string;
  readonly outcomeUnknown: boolean;
  readonly timedOut: boolean;
  // Not enumerable: util.inspect and JSON show the fields above, the message says the rest.
  readonly #details: PortalErrorDetails;

  constructor(d: PortalErrorDetails) {
    const said = [d.code, d.developerMessage || d.message, d.note].filter(Boolean).join(": ");
    const hint = d.hint ?? hintFor(d.status, d.path, d.context ?? STACK_HINTS);
    const what = d.status ? `HTTP ${d.status}` : "no answer";
    super(`${d.method} ${d.path} failed (${what})${said ? `: ${said}` : ""}${hint ? `. Hint: ${hint}` : ""}`);
    this.#details = d;
    this.name = "PortalError";
    this.method = d.method;
    this.path = d.path;
    this.status = d.status;
    this.code = d.code;
    this.portalMessage = d.message;
    this.developerMessage = d.developerMessage;
    this.outcomeUnknown = d.outcomeUnknown ?? false;
    this.timedOut = d.timedOut ?? false;
  }

  /** The same error with a note after the portal's words. */
  withNote(note: string): PortalError {
    return new PortalError({ ...this.#details, note });
  }

  /** Whether the portal refused the token request itself (not a later call): the settings must change (login.ts). */
  get loginRefused(): boolean {
    return refusedLogin(this.status, this.path);
  }
}

export function isNotFound(err: unknown): boolean {
  return err instanceof PortalError && err.status === 404;
}

/** The answer of a read, or undefined when the object does not exist (404); other errors pass. */
export async function unlessNotFound<T>(read: Promise<T>): Promise<T | undefined> {
  try {
    return await read;
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

/**
 * Every encoder the client sends a value with, applied to one character: a secret echoed back by a portal,
 * proxy or WAF is spelled character by character in one of these. Hex digits are matched in either case.
 */
const ENCODERS: ReadonlyArray<(c: string) => string> = [
  (c) => c,
  (c) => JSON.stringify(c).slice(1, -1), // JSON bodies
  (c) => new URLSearchParams({ v: c }).toString().slice(2), // form bodies and query strings: space as +
  (c) => encodeURIComponent(c), // path segments
  // .NET's JSON writers escape non-ASCII and HTML-sensitive characters as \uXXXX (UTF-16 units).
  (c) => Array.from({ length: c.length }, (_, i) => `\\u${c.charCodeAt(i).toString(16).padStart(4, "0")}`).join(""),
];

const quote = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** One pattern for every spelling of a secret the encoders can produce, mixed character by character. */
function patternFor(secret: string): RegExp {
  // Code points, so that a character outside the BMP is encoded whole.
  const body = Array.from(secret, (c) => `(?:${[...new Set(ENCODERS.map((e) => e(c)))].map(quote).join("|")})`).join("");
  // A secret shorter than 4 characters is replaced only where it stands alone.
  const short = Array.from(secret).length < 4;
  return new RegExp(short ? `(?<![A-Za-z0-9])${body}(?![A-Za-z0-9])` : body, "gi");
}

/**
 * Replaces every occurrence of the given secrets in a text with `***`, in every spelling the client's
 * encoders give it (as it is, JSON-escaped, form- or URL-encoded, .NET `\uXXXX`), so that a portal or proxy
 * that echoes the request shows none. A secret shorter than 4 characters is replaced only where it stands
 * alone, so that a one-letter password does not turn every word into stars.
 */
export function redact(text: string, secrets: Iterable<string | undefined>): string {
  // Longest first: a token that contains the password is hidden whole.
  const all = [...new Set([...secrets].filter((s): s is string => !!s))].sort((a, b) => b.length - a.length);
  let out = text;
  for (const s of all) out = out.replace(patternFor(s), "***");
  return out;
}
