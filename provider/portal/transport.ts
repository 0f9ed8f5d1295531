// HTTP transport of the API client: Origin and bearer token on every call, a
// keep-alive connection pool, a timeout per request, retries with backoff and
// jitter for what is safe to repeat, and errors as PortalError.
import * as http from "http";
import * as https from "https";
import { PortalError, redact } from "./errors";
import { Answer, exchange, TimeoutError } from "./exchange";

/**
 * How a request may be repeated:
 * - "safe": repeating it changes nothing (GET, PUT, DELETE, setting a password or a relation);
 * - "create": it makes a new object; refused answers (429, 503, 401) are retried, but when the outcome is
 *   unknown the error is thrown with `outcomeUnknown` so the caller can look before creating again.
 */
export type RetryMode = "safe" | "create";

export type Body =
  | { json: unknown }
  | { form: Record<string, string> }
  | { raw: Buffer; contentType: string; headers?: Record<string, string> };

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
}

export interface TransportOptions {
  url: string;
  origin: string;
  timeoutMs: number;
  maxAttempts: number;
  retryBaseMs: number;
  retryMaxMs: number;
  maxSockets: number;
  /** Values that must never appear in an error or log line. */
  secrets: () => Iterable<string | undefined>;
  log?: (line: string) => void;
}

export interface TokenSource {
  token(): Promise<string>;
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

/** The answer's body: JSON when it says so or looks like it, else the text; undefined when empty. */
function parse(res: Answer): unknown {
  const text = res.text;
  if (!text) return undefined;
  const type = String(res.headers["content-type"] ?? "");
  if (type.includes("json") || /^[\[{"]/.test(text)) {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  return text;
}

export class Transport {
  readonly stats: TransportStats = { requests: {}, tokenRequests: 0, retries: 0 };
  private readonly agent: http.Agent;
  tokens?: TokenSource;

  constructor(private readonly opts: TransportOptions) {
    const Agent = opts.url.startsWith("https:") ? https.Agent : http.Agent;
    this.agent = new Agent({ keepAlive: true, maxSockets: opts.maxSockets });
  }

  get timeoutMs(): number {
    return this.opts.timeoutMs;
  }

  close(): void {
    this.agent.destroy();
  }

  async request<T>(spec: RequestSpec): Promise<T> {
    let refusedToken = false;
    for (let attempt = 1; ; attempt++) {
      const token = spec.auth ? spec.bearer ?? (await this.tokens!.token()) : spec.bearer;
      let res: Answer;
      try {
        res = await this.send(spec, token);
      } catch (err) {
        const e = this.failure(spec, 0, undefined, err);
        if (spec.retry === "safe" && attempt < this.opts.maxAttempts) {
          await this.pause(spec, attempt, "no answer", undefined);
          continue;
        }
        throw e;
      }
      if (res.status >= 200 && res.status < 300) {
        // An HTML page is never an API answer: a login page, a proxy, or a URL that is not the portal's.
        if (String(res.headers["content-type"] ?? "").includes("html")) {
          throw new PortalError({
            method: spec.method, path: this.clean(spec.path, spec.secrets), status: res.status,
            message: "answered with an HTML page, not the API's JSON: check that backup-portal:url (or BACKUP_PORTAL_URL) " +
              "is the portal's address, without /v1, and that no login page or proxy stands in front of it",
          });
        }
        return parse(res) as T;
      }

      const body = parse(res);
      const error = this.failure(spec, res.status, body);
      if (res.status === 401 && spec.auth && !spec.bearer && !refusedToken && token) {
        // The token expired or was revoked: renew once and repeat.
        refusedToken = true;
        this.tokens!.invalidate(token);
        continue;
      }
      const retryable = RETRY_ALWAYS.has(res.status) || (RETRY_IF_SAFE.has(res.status) && spec.retry === "safe");
      if (retryable && attempt < this.opts.maxAttempts) {
        const retryAfter = res.headers["retry-after"];
        await this.pause(spec, attempt, `HTTP ${res.status}`, Array.isArray(retryAfter) ? retryAfter[0] : retryAfter);
        continue;
      }
      throw error;
    }
  }

  private send(spec: RequestSpec, token: string | undefined): Promise<Answer> {
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
    if (spec.path === "/v1/oauth") s.tokenRequests++;
    return exchange({ method: spec.method, url, headers, body: payload, agent: this.agent, timeoutMs: this.opts.timeoutMs });
  }

  private failure(spec: RequestSpec, status: number, body: unknown, cause?: unknown): PortalError {
    const b = (body && typeof body === "object" ? body : {}) as Record<string, unknown>;
    const clean = (text: string) => this.clean(text, spec.secrets);
    const str = (v: unknown) => (typeof v === "string" ? clean(v) : undefined);
    const reason = cause instanceof Error ? cause.message : undefined;
    return new PortalError({
      method: spec.method,
      path: clean(spec.path),
      status,
      // The portal's own shape ({code, message}), or OAuth's ({error, error_description}) for token requests.
      code: str(b.code) ?? str(b.error),
      // Redacted before it is cut, so that no part of a secret is left at the cut.
      message: str(b.message) ?? str(b.error_description) ?? (typeof body === "string" ? clean(body).slice(0, 300) : undefined),
      developerMessage: str(b.developerMessage) ?? (reason ? clean(reason) : undefined),
      outcomeUnknown: status === 0 || RETRY_IF_SAFE.has(status),
      timedOut: cause instanceof TimeoutError,
    });
  }

  private clean(text: string, extra: string[] = []): string {
    return redact(text, [...this.opts.secrets(), ...extra]);
  }

  private async pause(spec: RequestSpec, attempt: number, why: string, retryAfter: string | null | undefined): Promise<void> {
    const backoff = Math.min(this.opts.retryMaxMs, this.opts.retryBaseMs * 2 ** (attempt - 1));
    // Full jitter spreads retries of many concurrent calls; Retry-After is a floor.
    let delay = Math.random() * backoff;
    const after = retryAfter ? Number(retryAfter) : NaN;
    if (Number.isFinite(after)) delay = Math.min(this.opts.retryMaxMs, Math.max(delay, after * 1000));
    this.stats.retries++;
    this.opts.log?.(`${spec.method} ${this.clean(spec.path)}: ${why}, retry ${attempt}/${this.opts.maxAttempts - 1} in ${Math.round(delay)} ms`);
    await new Promise((r) => setTimeout(r, delay));
  }
}
