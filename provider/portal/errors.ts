// The one error type of the API client. Its text says what failed and what to
// check; it never carries a password, a token or an Authorization header.
import { maskUrl } from "../http/mask-url";
import { HintContext, notTheApiHint, STACK_HINTS } from "./hints";
import { escapeControls } from "../text/controls";

export type { HintContext } from "./hints";

/** The token endpoint (the client's first request, and the one every portal path serves). */
const TOKEN_ENDPOINT = "/v1/oauth";

/** What a caller saw of an answer: enough to tell whether the Cloutility API gave it. */
export interface AnswerSeen {
  method: string;
  /** The request's path, e.g. `/v1/oauth` (a query is ignored). */
  path: string;
  status: number;
  contentType?: string;
  /** The body's text, or its start. */
  text?: string;
  /** The Location header of a redirect. */
  location?: string;
}

/** An HTML page, by its Content-Type or its first tag: a login page, a proxy's or a web server's page. */
export function isHtmlAnswer(contentType: string | undefined, text: string | undefined): boolean {
  return /html/i.test(contentType ?? "") || /^\s*<(!doctype|html)/i.test(text ?? "");
}

/**
 * Why an answer cannot have come from the Cloutility API, or undefined when it may have. The one place this is
 * decided: the client's errors (every command, the providers, the billing receiver, register) and the doctor's
 * checks all ask it. The API answers JSON and never redirects; every portal serves its token endpoint; and
 * nothing else a client sends is a method the API does not implement. So:
 * - a redirect (3xx): a URL in front of the API's (http for https, a login page);
 * - an HTML page, unless it is a 5xx a proxy gives while the portal is down (still "try again later");
 * - 501 Not Implemented (a plain web server answering a POST);
 * - the token request answered 404 or 405: nothing serves the API at this URL (a wrong path, another service).
 */
export function notTheApi(a: AnswerSeen): string | undefined {
  if (a.status >= 300 && a.status < 400) {
    // The target is the server's text: quoted, cut, and without any userinfo it carries.
    const to = a.location ? ` to ${JSON.stringify(maskUrl(a.location).slice(0, 200))}` : "";
    return `it answered with a redirect${to}, which the API never sends`;
  }
  if (isHtmlAnswer(a.contentType, a.text) && (a.status < 500 || a.status === 501))
    return "it answered with an HTML page, not the API's JSON";
  if (a.status === 501) return `it does not implement ${a.method} (HTTP 501), as a plain web server answers`;
  if (a.path.split("?")[0] === TOKEN_ENDPOINT && (a.status === 404 || a.status === 405)) {
    return `nothing answers its token request (HTTP ${a.status}), which every portal serves at ${TOKEN_ENDPOINT}`;
  }
  return undefined;
}

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
  /** Why the answer did not come from the Cloutility API (`notTheApi`): the hint then names the URL setting only. */
  notTheApi?: string;
  /** The portal URL the request went to, for the hint of an answer that is not the API's. */
  url?: string;
}

/**
 * Whether an answer to the token request (transport.ts's TOKEN_PATH) refuses the login itself: the real portal
 * answers 400 invalid_grant as OAuth servers do, an unknown Origin or an older portal 401. A 429 is not a refusal.
 */
function refusedLogin(status: number, path: string): boolean {
  return path.split("?")[0] === TOKEN_ENDPOINT && status >= 400 && status < 500 && status !== 429;
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
  /** Why the answer did not come from the Cloutility API; undefined when it may have. */
  readonly notTheApi?: string;
  // Not enumerable: util.inspect and JSON show the fields above, the message says the rest.
  readonly #details: PortalErrorDetails;

  constructor(d: PortalErrorDetails) {
    // The portal's words are a tenant's to steer: on one line, shown and not obeyed, whoever prints the message.
    const said = [d.code, d.developerMessage || d.message, d.note]
      .filter(Boolean)
      .map((t) => escapeControls(String(t)))
      .join(": ");
    const context = d.context ?? STACK_HINTS;
    const hint = d.hint ?? (d.notTheApi ? notTheApiHint(d.notTheApi, d.url, context) : hintFor(d.status, d.path, context));
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
    if (d.notTheApi) this.notTheApi = d.notTheApi;
  }

  /** The same error with `hint` instead of its status's own. */
  withHint(hint: string): PortalError {
    return new PortalError({ ...this.#details, hint });
  }

  /** The same error with a note after the portal's words. */
  withNote(note: string): PortalError {
    return new PortalError({ ...this.#details, note });
  }

  /** Whether the portal refused the token request itself (not a later call): the settings must change (login.ts). */
  get loginRefused(): boolean {
    return !this.notTheApi && refusedLogin(this.status, this.path);
  }
}

/** Whether the answer did not come from the Cloutility API at all: the URL setting is wrong. */
export function isNotTheApi(err: unknown): err is PortalError {
  return err instanceof PortalError && err.notTheApi !== undefined;
}

/** Whether the portal said the object does not exist; a 404 from something that is not the API says nothing of it. */
export function isNotFound(err: unknown): boolean {
  return err instanceof PortalError && err.status === 404 && !err.notTheApi;
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
  (c) => (c === "/" ? "\\/" : c), // JSON writers that escape the slash (PHP's json_encode, some proxies)
  (c) => new URLSearchParams({ v: c }).toString().slice(2), // form bodies and query strings: space as +
  (c) => encodeURIComponent(c), // path segments
  // .NET's JSON writers escape non-ASCII and HTML-sensitive characters as \uXXXX (UTF-16 units).
  (c) => Array.from({ length: c.length }, (_, i) => `\\u${c.charCodeAt(i).toString(16).padStart(4, "0")}`).join(""),
];

const quote = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

const NAMED_ENTITIES: Record<string, string[]> = { "&": ["amp"], "<": ["lt"], ">": ["gt"], '"': ["quot"], "'": ["apos"] };

/**
 * A pattern for one character as an HTML page may show it: as it is, or (but a letter or digit) as a character
 * reference (named, decimal or hex, with leading zeros), as a front that echoes the request into an HTML error page
 * writes it.
 */
function htmlPattern(c: string): string {
  // Escapers leave letters and digits as they are: no reference for them keeps a long token's pattern small.
  if (/^[A-Za-z0-9]$/.test(c)) return c;
  const code = c.codePointAt(0)!;
  const named = (NAMED_ENTITIES[c] ?? []).map((n) => `&${n};`);
  // References first: `&` alone would match the start of `&amp;` and leave `amp;` standing.
  return `(?:${[...named, `&#0*${code};`, `&#x0*${code.toString(16)};`, quote(c)].join("|")})`;
}

/** One pattern for every spelling of a secret the encoders can produce, mixed character by character. */
function patternFor(secret: string): RegExp {
  // Code points, so that a character outside the BMP is encoded whole; each spelling's characters as HTML shows them.
  // Longest first, so that the last character of a secret is matched whole (`\\`, not its first `\`).
  const spelt = (c: string) =>
    [...new Set(ENCODERS.map((e) => e(c)))].sort((a, b) => b.length - a.length).map((e) => Array.from(e, htmlPattern).join(""));
  const body = Array.from(secret, (c) => `(?:${spelt(c).join("|")})`).join("");
  // A secret shorter than 4 characters is replaced only where it stands alone.
  const short = Array.from(secret).length < 4;
  return new RegExp(short ? `(?<![A-Za-z0-9])${body}(?![A-Za-z0-9])` : body, "gi");
}

/**
 * Replaces every occurrence of the given secrets in a text with `***`, in every spelling the client's
 * encoders give it (as it is, JSON-escaped with or without `\/`, form- or URL-encoded, .NET `\uXXXX`, and each of
 * those as an HTML page writes it, `&lt;` or `&#60;`), so that a portal or proxy
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
