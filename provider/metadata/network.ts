// The network metadata service: GET <url>/<platform>/<version>/meta_data.json
// and .../user_data with Node's global fetch, a per-request timeout and
// bounded retries on what can succeed on retry only (connection errors,
// timeouts, 408/429/500/502/503/504), as cloud-init does. Redirects are not
// followed: a 3xx is an HTTP error, not retried. Every answer is read within
// its cap (limits.ts): a larger one is refused, not retried.
import { parseRetryAfter } from "../http/retry-after";
import { MAX_METADATA_BYTES, MAX_USER_DATA_BYTES, MAX_VERSIONS_BYTES, tooLarge } from "./limits";
import { MetadataError } from "./types";
import { userDataText } from "./user-data";
import { maskUrl } from "../http/mask-url";

export const DEFAULT_METADATA_URL = "http://169.254.169.254";
export const DEFAULT_PLATFORM = "openstack";
export const DEFAULT_VERSION = "latest";
// cloud-init's OpenStack data source: 10 s per request, 5 retries 1 s apart (Nova's metadata proxy is often
// slow at boot, when this runs).
export const DEFAULT_TIMEOUT_MS = 10_000;
export const DEFAULT_ATTEMPTS = 6;
export const DEFAULT_BACKOFF_MS = 1000;
export const DEFAULT_MAX_RETRY_AFTER_MS = 5000;
/**
 * The whole network read (meta_data.json, user_data, the versions list and dated versions when `latest` is broken),
 * every attempt and wait included. 130 s: twice the worst case of one document under cloud-init's own policy
 * (6 attempts × 10 s + 5 waits × 1 s = 65 s), so it never cuts short a read cloud-init would finish, while a
 * `Retry-After: 3600` (or a service that keeps failing slowly) cannot hold a boot for longer than that.
 */
export const DEFAULT_DEADLINE_MS = 130_000;

/** Statuses worth another attempt. Every other status >= 400 stops at once. */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([408, 429, 500, 502, 503, 504]);

export interface NetworkOptions {
  /** Base address of the service. Default `http://169.254.169.254`. */
  url?: string;
  /** Platform path segment. Default `openstack`. */
  platform?: string;
  /** Version path segment. Default `latest`. */
  version?: string;
  /** Timeout of each request (headers and body), ms. Default 10000. */
  timeoutMs?: number;
  /** Attempts per document, first one included (>= 1). Default 6. */
  attempts?: number;
  /** Wait between attempts, ms (the same each time, as cloud-init). Default 1000. */
  backoffMs?: number;
  /** Cap on a Retry-After wait (429/503), ms. Default 5000. */
  maxRetryAfterMs?: number;
  /**
   * The overall deadline of a read, ms (see DEFAULT_DEADLINE_MS): no request, wait or Retry-After goes beyond it.
   * Default 130000.
   */
  deadlineMs?: number;
  /** The instant (Date.now() ms) the deadline falls, once a read has started; set by the reader, wins over deadlineMs. */
  deadlineAt?: number;
  /** Diagnostics (one line per event), e.g. `console.error` for --verbose. */
  log?: (message: string) => void;
}

interface Resolved {
  base: string;
  timeoutMs: number;
  attempts: number;
  backoffMs: number;
  maxRetryAfterMs: number;
  deadlineMs: number;
  deadlineAt: number;
  log: (message: string) => void;
}

function positive(name: string, value: number | undefined, fallback: number, min: number): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value < min) throw new RangeError(`${name} must be a number >= ${min}, got ${value}`);
  return value;
}

function segment(name: string, value: string): string {
  if (value === "" || value.includes("/") || value === "." || value === "..") {
    throw new RangeError(`${name} must be a single non-empty path segment, got ${JSON.stringify(value)}`);
  }
  return encodeURIComponent(value);
}

function resolve(opts: NetworkOptions, withVersion: boolean): Resolved {
  const url = (opts.url ?? DEFAULT_METADATA_URL).replace(/\/+$/, "");
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") throw new Error("not http(s)");
  } catch {
    throw new RangeError(`metadata service URL must be an http(s) URL, got ${JSON.stringify(maskUrl(String(opts.url)))}`);
  }
  // fetch refuses such a URL on every attempt, and every message of a read names its URL: refused here, masked.
  if (/^[a-z][a-z0-9+.-]*:\/\/[^/?#\\]*@/i.test(url)) {
    throw new RangeError(
      `metadata service URL must not carry a username or password (fetch sends none), got ${JSON.stringify(maskUrl(url))}; ` +
        "give the service's address alone",
    );
  }
  let base = `${url}/${segment("platform", opts.platform ?? DEFAULT_PLATFORM)}`;
  if (withVersion) base += `/${segment("version", opts.version ?? DEFAULT_VERSION)}`;
  return {
    base,
    timeoutMs: positive("timeoutMs", opts.timeoutMs, DEFAULT_TIMEOUT_MS, 1),
    attempts: Math.floor(positive("attempts", opts.attempts, DEFAULT_ATTEMPTS, 1)),
    backoffMs: positive("backoffMs", opts.backoffMs, DEFAULT_BACKOFF_MS, 0),
    maxRetryAfterMs: positive("maxRetryAfterMs", opts.maxRetryAfterMs, DEFAULT_MAX_RETRY_AFTER_MS, 0),
    ...deadlineOf(opts),
    log: opts.log ?? (() => undefined),
  };
}

/** The deadline of a read: `deadlineAt` when a read has one already, else `deadlineMs` from now. */
function deadlineOf(opts: NetworkOptions): { deadlineMs: number; deadlineAt: number } {
  const deadlineMs = positive("deadlineMs", opts.deadlineMs, DEFAULT_DEADLINE_MS, 1);
  return { deadlineMs, deadlineAt: opts.deadlineAt ?? Date.now() + deadlineMs };
}

/** `opts` with its deadline fixed from now on, so every request of one read shares it. */
export function withDeadline<T extends NetworkOptions>(opts: T): T {
  return opts.deadlineAt !== undefined ? opts : { ...opts, deadlineAt: deadlineOf(opts).deadlineAt };
}

const sleep = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));

function networkCause(err: unknown): { kind: "timeout" | "connection"; text: string } {
  const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e?.name === "TimeoutError" || e?.name === "AbortError") return { kind: "timeout", text: "timed out" };
  const code = e?.cause?.code;
  const detail = code ?? e?.cause?.message ?? e?.message ?? String(err);
  return { kind: "connection", text: `connection failed (${detail})` };
}

/**
 * GET with the retry policy. Returns the body of a 2xx answer, or null for a
 * 404 when `notFoundIsNull`. Throws MetadataError otherwise.
 */
async function getText(url: string, r: Resolved, notFoundIsNull: boolean, what: string, maxBytes: number): Promise<string | null> {
  const bytes = await getBytes(url, r, notFoundIsNull, what, maxBytes);
  return bytes === null ? null : bytes.toString("utf8");
}

/** The body of `res`, at most `maxBytes` (refused before reading when Content-Length says more). */
async function readCapped(res: Response, url: string, what: string, maxBytes: number): Promise<Buffer> {
  const declared = Number(res.headers.get("content-length") ?? NaN);
  if (Number.isFinite(declared) && declared > maxBytes) {
    await res.body?.cancel().catch(() => undefined);
    throw tooLarge(what, url, maxBytes, declared);
  }
  const chunks: Buffer[] = [];
  let total = 0;
  if (res.body) {
    const reader = res.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) {
        await reader.cancel().catch(() => undefined);
        throw tooLarge(what, url, maxBytes);
      }
      chunks.push(Buffer.from(value));
    }
  }
  return Buffer.concat(chunks, total);
}

/** GET with the retry policy, the body as bytes, at most `maxBytes` (a larger answer is refused, not retried; see getText). */
async function getBytes(url: string, r: Resolved, notFoundIsNull: boolean, what: string, maxBytes: number): Promise<Buffer | null> {
  let last: { kind: "timeout" | "connection" | "http"; text: string; status?: number; cause?: unknown } | undefined;
  let made = 0;
  let stop = "";
  for (let attempt = 1; attempt <= r.attempts; attempt++) {
    let waitMs = r.backoffMs;
    const left = r.deadlineAt - Date.now();
    if (left <= 0) {
      stop = `; the overall deadline of ${r.deadlineMs} ms (--deadline) has passed`;
      break;
    }
    made = attempt;
    try {
      const res = await fetch(url, {
        method: "GET",
        headers: { accept: "*/*" },
        // A redirect is an answer, not a connection failure: "manual" hands it back as a 3xx (not followed, not retried).
        redirect: "manual",
        // Never beyond the overall deadline.
        signal: AbortSignal.timeout(Math.min(r.timeoutMs, left)),
      });
      if (res.ok) {
        const body = await readCapped(res, url, what, maxBytes); // still under the request's timeout signal
        r.log(`GET ${url}: ${res.status} (attempt ${attempt})`);
        return body;
      }
      await res.body?.cancel().catch(() => undefined);
      r.log(`GET ${url}: ${res.status} (attempt ${attempt})`);
      if (res.status === 404 && notFoundIsNull) return null;
      last = { kind: "http", status: res.status, text: `HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ""}` };
      if (!RETRYABLE_STATUSES.has(res.status)) {
        const location = res.status >= 300 && res.status < 400 ? res.headers.get("location") : null;
        const note =
          res.status === 404
            ? " (not found)"
            : res.status >= 300 && res.status < 400
              ? ` (a redirect${location ? ` to ${location}` : ""}; redirects are not followed)`
              : "";
        throw new MetadataError("http", url, `metadata service: GET ${url} answered ${last.text}${note}; not retried`, {
          status: res.status,
          attempts: attempt,
        });
      }
      if (res.status === 503 || res.status === 429) {
        const retryAfter = parseRetryAfter(res.headers.get("retry-after"));
        if (retryAfter !== undefined) {
          // Honoured only within the overall deadline: a wait that would end beyond it is not started.
          if (attempt < r.attempts && Date.now() + Math.min(retryAfter, r.maxRetryAfterMs) >= r.deadlineAt) {
            stop = `; its Retry-After of ${Math.round(retryAfter / 1000)} s reaches beyond the overall deadline of ${r.deadlineMs} ms (--deadline), so no further attempt`;
            break;
          }
          waitMs = Math.min(retryAfter, r.maxRetryAfterMs);
        }
      }
    } catch (err) {
      if (err instanceof MetadataError) throw err;
      const cause = networkCause(err);
      last = { ...cause, cause: err };
      r.log(`GET ${url}: ${cause.text} (attempt ${attempt})`);
    }
    if (attempt < r.attempts) await sleep(Math.max(0, Math.min(waitMs, r.deadlineAt - Date.now())));
  }
  if (last === undefined) {
    throw new MetadataError("timeout", url, `metadata service: GET ${url} not attempted${stop}`, { attempts: 0, deadlineReached: true });
  }
  const l = last;
  const outcome = l.kind === "timeout" ? `timed out after ${r.timeoutMs} ms` : l.kind === "http" ? `answered ${l.text}` : l.text;
  throw new MetadataError(l.kind, url, `metadata service: GET ${url} ${outcome}, ${made} attempt${made === 1 ? "" : "s"} made${stop}`, {
    status: l.status,
    attempts: made,
    cause: l.cause,
    deadlineReached: stop !== "",
  });
}

/** URL of meta_data.json for these options. */
export function metadataUrl(opts: NetworkOptions = {}): string {
  return `${resolve(opts, true).base}/meta_data.json`;
}

/** GET meta_data.json: its text and URL. Throws MetadataError (404 included). */
export async function fetchMetadataText(opts: NetworkOptions = {}): Promise<{ url: string; text: string }> {
  const r = resolve(opts, true);
  const url = `${r.base}/meta_data.json`;
  const text = (await getText(url, r, false, "meta_data.json", MAX_METADATA_BYTES)) as string;
  return { url, text };
}

/**
 * GET user_data: its text (gunzipped when compressed), or null on 404 (no user data; never retried). Only
 * meta_data.json is required (cloud-init, helpers/openstack.py `read_v2`: user_data, vendor_data.json,
 * vendor_data2.json and network_data.json are optional and an IOError reading one leaves it out): an error status
 * (500 after the retries, 403...), a timeout or a failed connection is null too, with a line in `warnings`.
 * A body over the cap or gzip that does not decompress is still an error: the data is there and wrong.
 */
export async function fetchUserData(opts: NetworkOptions = {}, warnings: string[] = []): Promise<string | null> {
  const r = resolve(opts, true);
  const url = `${r.base}/user_data`;
  let bytes: Buffer | null;
  try {
    bytes = await getBytes(url, r, true, "user_data", MAX_USER_DATA_BYTES);
  } catch (err) {
    if (!(err instanceof MetadataError) || !["http", "timeout", "connection"].includes(err.kind)) throw err;
    const warning = `user_data treated as absent (only meta_data.json is required, as for cloud-init): ${err.message}`;
    r.log(warning);
    warnings.push(warning);
    return null;
  }
  return bytes === null ? null : userDataText(bytes, url);
}

/** GET <url>/<platform>: the version names the service offers (newline separated), blanks dropped. */
export async function listMetadataVersions(opts: NetworkOptions = {}): Promise<string[]> {
  const r = resolve(opts, false);
  const text = (await getText(r.base, r, false, "the versions list", MAX_VERSIONS_BYTES)) as string;
  return text
    .split(/\r?\n/)
    .map((line) => line.trim().replace(/\/$/, ""))
    .filter((line) => line !== "");
}
