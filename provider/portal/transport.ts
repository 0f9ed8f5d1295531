// HTTP transport of the API client: Origin and bearer token on every call, a
// keep-alive connection pool, a timeout per request and an optional deadline
// over all its tries, retries with backoff and jitter for what is safe to
// repeat and can succeed when repeated, and errors as PortalError.
import * as http from "http";
import { setTimeout as wait } from "timers/promises";
import { keepAliveAgent } from "../http/keep-alive-agent";
import { parseRetryAfter } from "../http/retry-after";
import { notTheApi, PortalError, redact } from "./errors";
import { HintContext, settingName, STACK_HINTS } from "./hints";
import { Answer, AnswerTooLargeError, exchange, FetchError, TimeoutError } from "./exchange";

/**
 * How a request may be repeated:
 * - "safe": repeating it changes nothing (GET, PUT, DELETE, setting a password or a relation);
 * - "create": it makes a new object; refused answers (429, 503, 401) are retried, but when the outcome is
 *   unknown the error is thrown with `outcomeUnknown` so the caller can look before creating again.
 */
export type RetryMode = "safe" | "create";

export type Body =
  { json: unknown } | { form: Record<string, string> } | { raw: Buffer; contentType: string; headers?: Record<string, string> };

export interface RequestSpec {
  method: "GET" | "POST" | "PUT" | "DELETE";
  path: string;
  query?: Record<string, string | number | boolean | undefined | Array<string | number>>;
  body?: Body;
  retry: RetryMode;
  /** Bearer token to send; `false` for the unauthenticated calls. */
  auth: boolean;
  /** Overrides the bearer token (the refresh grant sends the old access token). */
  bearer?: string;
  /** Values this request carries that its errors must never show (a node's password). */
  secrets?: string[];
  /** Give up at this time (ms since the epoch), retries included; default: now + the transport's deadlineMs. */
  deadline?: number;
}

export interface TransportOptions {
  url: string;
  origin: string;
  timeoutMs: number;
  /** Deadline over all tries of one request, ms; none when absent. */
  deadlineMs?: number;
  /** The largest answer body accepted, bytes. */
  maxAnswerBytes: number;
  maxAttempts: number;
  retryBaseMs: number;
  retryMaxMs: number;
  maxSockets: number;
  /** Values that must never appear in an error or log line. */
  secrets: () => Iterable<string | undefined>;
  /** Who reads the errors' hints (portal/hints.ts); default the stack's. */
  hints?: HintContext;
  log?: (line: string) => void;
  /** Waits the pause before a retry; tests give one that records the pause instead of waiting it. */
  sleep?: (ms: number) => Promise<unknown>;
}

export interface TokenSource {
  /** A valid access token; a renewal gives up at `deadline` (ms since the epoch) when given. */
  token(deadline?: number): Promise<string>;
  /** The token was refused: forget it unless a newer one replaced it already. */
  invalidate(token: string): void;
}

/** Counts of what the client sent, for the benchmark and tests. */
export interface TransportStats {
  requests: Record<string, number>;
  tokenRequests: number;
  retries: number;
}

const RETRY_ALWAYS = new Set([429, 503]);
const RETRY_IF_SAFE = new Set([502, 504]);

/** The token endpoint: its answers are never quoted, since the request carries the password. */
export const TOKEN_PATH = "/v1/oauth";

/** RFC 6749's error codes of a token request, with what each means for the settings. */
const OAUTH_ERRORS: Record<string, string> = {
  invalid_grant: "the username or password was refused (or the refresh token is no longer valid)",
  invalid_client: "the client ID was refused",
  unauthorized_client: "this client ID may not use this grant",
  unsupported_grant_type: "the portal does not support this grant",
  invalid_request: "the portal refused the token request",
  invalid_scope: "the portal refused the requested scope",
};

/** Certificate verification failures (OpenSSL's codes and Node's host name check): a retry gets the same certificate. */
const TLS_CERTIFICATE = /CERT|SIGNATURE|HOSTNAME_MISMATCH|INVALID_CA|PATH_LENGTH_EXCEEDED|INVALID_PURPOSE/;

/**
 * Why a request that got no answer cannot succeed when repeated, or undefined when it may:
 * - a TypeError is raised before anything is sent (an invalid URL, a protocol other than http(s), a header
 *   value HTTP does not allow);
 * - an answer over the size cap will be as large again;
 * - a refused TLS certificate is the same on the next try.
 * A host name that does not resolve (ENOTFOUND) is retried: at boot, or on a VPN's split DNS, a resolver
 * may answer "no such host" for a while before it knows the portal's name.
 */
function permanent(err: unknown, hints: HintContext): string | undefined {
  if (err instanceof TypeError) {
    return /header/i.test(err.message)
      ? "a header value HTTP does not allow (a line break in a token or file name?)"
      : `the portal URL must be http:// or https:// and a host: check ${settingName("url", hints)}`;
  }
  if (err instanceof AnswerTooLargeError) return "the answer will be as large again";
  if (err instanceof FetchError && TLS_CERTIFICATE.test(String(err.code))) {
    return (
      "the portal's TLS certificate was refused: use a certificate a trusted CA signed for the portal's host name, " +
      "or give Node the CA that signed it with NODE_EXTRA_CA_CERTS"
    );
  }
  return undefined;
}

/** The reason of a failure without an answer, without node-fetch's "request to <url> failed" prefix. */
function reasonOf(err: unknown): string | undefined {
  // None for an HTTP answer; node-fetch and the exchange only ever throw Errors.
  if (!(err instanceof Error)) return undefined;
  const text = err.message.replace(/^request to \S* failed, reason: /, "");
  const code = (err as { code?: unknown }).code;
  return typeof code === "string" && !text.includes(code) ? `${text} (${code})` : text;
}

/** The answer's body: JSON when it says so or looks like it, else the text; undefined when empty. */
function parse(res: Answer): unknown {
  const text = res.text;
  if (!text) return undefined;
  // A header that is absent tests as "undefined", which is neither JSON nor HTML.
  if (/json/.test(res.headers["content-type"]) || /^[\[{"]/.test(text)) {
    try {
      return JSON.parse(text);
    } catch {
      // Not JSON after all: the text.
    }
  }
  return text;
}

export class Transport {
  readonly stats: TransportStats = { requests: {}, tokenRequests: 0, retries: 0 };
  private readonly agent: http.Agent;
  tokens?: TokenSource;

  private get hints(): HintContext {
    return this.opts.hints ?? STACK_HINTS;
  }

  constructor(private readonly opts: TransportOptions) {
    this.agent = keepAliveAgent(opts.url, opts.maxSockets);
  }

  get timeoutMs(): number {
    return this.opts.timeoutMs;
  }

  close(): void {
    this.agent.destroy();
  }

  async request<T>(spec: RequestSpec): Promise<T> {
    const deadline = spec.deadline ?? (this.opts.deadlineMs ? Date.now() + this.opts.deadlineMs : Infinity);
    let refusedToken = false;
    let last: PortalError | undefined;
    for (let attempt = 1; ; attempt++) {
      const token = spec.auth ? (spec.bearer ?? (await this.tokens!.token(deadline))) : spec.bearer;
      if (Date.now() >= deadline) {
        throw this.pastDeadline(
          last ??
            new PortalError({
              context: this.hints,
              method: spec.method,
              path: this.clean(spec.path, spec.secrets),
              status: 0,
              timedOut: true,
            }),
          attempt - 1,
        );
      }
      let res: Answer;
      try {
        res = await this.send(spec, token, deadline);
      } catch (err) {
        last = this.failure(spec, 0, undefined, err);
        if (spec.retry !== "safe" || attempt >= this.opts.maxAttempts || permanent(err, this.hints)) throw last;
        await this.pause(spec, attempt, last, undefined, deadline);
        continue;
      }
      // An answer the API cannot have given (an HTML page, a redirect, a web server's 501, no token endpoint) is
      // never retried, and is never taken for the portal's word on an object or the login (errors.ts).
      const notApi = notTheApi({
        method: spec.method,
        path: spec.path,
        status: res.status,
        contentType: res.headers["content-type"],
        text: res.text.slice(0, 200),
        location: res.headers["location"],
      });
      if (notApi) throw this.notTheApiError(spec.method, spec.path, res.status, notApi, spec.secrets);
      // (A 1xx is never the final answer.)
      if (res.status < 300) return parse(res) as T;

      last = this.failure(spec, res.status, parse(res));
      if (res.status === 401 && token && !spec.bearer && !refusedToken) {
        // The token expired or was revoked: renew once and repeat. (A token grant sends no token or its own bearer.)
        refusedToken = true;
        this.tokens!.invalidate(token);
        continue;
      }
      const retryable = RETRY_ALWAYS.has(res.status) || (RETRY_IF_SAFE.has(res.status) && spec.retry === "safe");
      if (!retryable || attempt >= this.opts.maxAttempts) throw last;
      await this.pause(spec, attempt, last, res.headers["retry-after"], deadline);
    }
  }

  private async send(spec: RequestSpec, token: string | undefined, deadline: number): Promise<Answer> {
    const left = deadline - Date.now();
    const url = new URL(this.opts.url + spec.path);
    for (const [k, v] of Object.entries(spec.query ?? {})) {
      if (v === undefined) continue;
      for (const item of Array.isArray(v) ? v : [v]) url.searchParams.append(k, String(item));
    }
    const headers: Record<string, string> = { Origin: this.opts.origin, Accept: "application/json" };
    if (token) headers.Authorization = `Bearer ${token}`;
    let payload: string | Buffer | undefined;
    const b = spec.body;
    if (b && "json" in b) {
      headers["Content-Type"] = "application/json";
      payload = JSON.stringify(b.json);
    } else if (b && "form" in b) {
      headers["Content-Type"] = "application/x-www-form-urlencoded";
      payload = new URLSearchParams(b.form).toString();
    } else if (b && "raw" in b) {
      Object.assign(headers, b.headers ?? {}, { "Content-Type": b.contentType });
      payload = b.raw;
    }
    const s = this.stats;
    s.requests[spec.method] = (s.requests[spec.method] ?? 0) + 1;
    if (spec.path === TOKEN_PATH) s.tokenRequests++;
    return exchange({
      method: spec.method,
      url,
      headers,
      body: payload,
      agent: this.agent,
      timeoutMs: Math.max(1, Math.min(this.opts.timeoutMs, Math.ceil(left))),
      maxBytes: this.opts.maxAnswerBytes,
    });
  }

  /** The error of an answer that did not come from the Cloutility API: the hint names the URL setting and this URL. */
  notTheApiError(method: string, path: string, status: number, reason: string, secrets?: string[]): PortalError {
    return new PortalError({
      context: this.hints,
      method,
      path: this.clean(path, secrets),
      status,
      notTheApi: this.clean(reason, secrets),
      url: this.opts.url,
    });
  }

  private failure(spec: RequestSpec, status: number, body: unknown, cause?: unknown): PortalError {
    const clean = (text: string) => this.clean(text, spec.secrets);
    const path = clean(spec.path);
    if (cause instanceof AnswerTooLargeError) {
      return new PortalError({
        context: this.hints,
        method: spec.method,
        path,
        status: cause.status,
        code: "AnswerTooLarge",
        message: `${cause.message} and was dropped`,
        hint:
          `if the portal really sends answers this large, raise the cap: ${settingName("maxAnswerBytes", this.hints)}` +
          (this.hints.tool === "stack" ? ", or the client's maxAnswerBytes setting" : ""),
      });
    }
    if (spec.path === TOKEN_PATH && status) {
      // The token request carries the password (and the refresh token): whatever echoes it back, the answer is
      // never quoted. Only a known OAuth error code is kept, with our own words for it.
      const code = (body as { error?: unknown } | null | undefined)?.error;
      const known = Object.keys(OAUTH_ERRORS).find((k) => k === code);
      return new PortalError({
        context: this.hints,
        method: spec.method,
        path,
        status,
        code: known,
        message: known && OAUTH_ERRORS[known],
      });
    }
    const b = (body && typeof body === "object" ? body : {}) as Record<string, unknown>;
    const str = (v: unknown) => (typeof v === "string" ? this.quote(v, 2000, spec.secrets) : undefined);
    const reason = reasonOf(cause);
    return new PortalError({
      context: this.hints,
      method: spec.method,
      path,
      status,
      // The portal's own shape ({code, message}), or OAuth's ({error, error_description}).
      code: str(b.code) ?? str(b.error),
      // Redacted before it is cut, so that no part of a secret is left at the cut.
      message: str(b.message) ?? str(b.error_description) ?? (typeof body === "string" ? this.quote(body, 300, spec.secrets) : undefined),
      developerMessage: str(b.developerMessage) ?? (reason ? clean(reason) : undefined),
      outcomeUnknown: status === 0 || RETRY_IF_SAFE.has(status),
      timedOut: cause instanceof TimeoutError,
      hint: permanent(cause, this.hints),
    });
  }

  /** The error of the last try, saying that the deadline over all tries ended them. */
  private pastDeadline(error: PortalError, tries: number): PortalError {
    const gave = tries ? `gave up after ${tries} ${tries === 1 ? "try" : "tries"}: ` : "";
    return error.withNote(`${gave}the deadline of ${formatSeconds(this.opts.deadlineMs ?? 0)} over all tries passed`);
  }

  /**
   * At most `limit` characters of a text from the portal, redacted before it is cut (so no part of a secret is
   * left at the cut), and scanning only as much of it as that needs, so that a large answer costs no large scan.
   */
  private quote(text: string, limit: number, extra: string[] | undefined): string {
    const secrets = this.secretsWith(extra).filter((s): s is string => !!s);
    // The longest spelling of one character is 12 characters (%F0%9F%98%80, \uD83D\uDE00): a spelling cut at
    // the end of the part scanned is shorter than `reach`, and stays beyond `limit` once `reach` more are kept.
    const reach = 12 * Math.max(0, ...secrets.map((s) => s.length));
    // The part grows by `limit` until, redacted, it holds that many (or is the whole text): added, not doubled, so
    // that the growth ends from any start.
    let end = limit + 2 * reach;
    let part = redact(text.slice(0, end), secrets);
    while (end < text.length && part.length < limit + reach) {
      end += limit;
      part = redact(text.slice(0, end), secrets);
    }
    return part.slice(0, limit);
  }

  private clean(text: string, extra: string[] | undefined): string {
    return redact(text, this.secretsWith(extra));
  }

  /** The transport's secrets and a request's own (an absent list adds one undefined entry, which is skipped). */
  private secretsWith(extra: string[] | undefined): Array<string | undefined> {
    return [...this.opts.secrets()].concat(extra);
  }

  /**
   * Waits before the next try and reports it on the log: what failed, when the next try comes. When the
   * next try would start after the deadline, throws the error of this one instead.
   */
  private async pause(
    spec: RequestSpec,
    attempt: number,
    failed: PortalError,
    retryAfter: string | undefined,
    deadline: number,
  ): Promise<void> {
    const backoff = Math.min(this.opts.retryMaxMs, this.opts.retryBaseMs * 2 ** (attempt - 1));
    // Full jitter spreads retries of many concurrent calls; Retry-After is a floor.
    let delay = Math.random() * backoff;
    const after = parseRetryAfter(retryAfter);
    if (after !== undefined) delay = Math.min(this.opts.retryMaxMs, Math.max(delay, after));
    if (Date.now() + delay >= deadline) throw this.pastDeadline(failed, attempt);
    this.stats.retries++;
    const what = failed.status ? `HTTP ${failed.status}${failed.code ? ` ${failed.code}` : ""}` : `no answer (${failed.developerMessage})`;
    this.opts.log?.(`${spec.method} ${failed.path}: ${what}; try ${attempt + 1} of ${this.opts.maxAttempts} in ${formatSeconds(delay)}`);
    await (this.opts.sleep ?? wait)(delay);
  }
}

/** A duration for people: `0.4 s`, `12 s`. */
function formatSeconds(ms: number): string {
  return ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`;
}
