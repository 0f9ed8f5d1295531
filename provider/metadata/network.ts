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
  /** Diagnostics (one line per event), e.g. `console.error` for --verbose. */
  log?: (message: string) => void;
}

interface Resolved {
  base: string;
  timeoutMs: number;
  attempts: number;
  backoffMs: number;
  maxRetryAfterMs: number;
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
  let base = `${url}/${segment("platform", opts.platform ?? DEFAULT_PLATFORM)}`;
  if (withVersion) base += `/${segment("version", opts.version ?? DEFAULT_VERSION)}`;
  return {
    base,
    timeoutMs: positive("timeoutMs", opts.timeoutMs, DEFAULT_TIMEOUT_MS, 1),
    attempts: Math.floor(positive("attempts", opts.attempts, DEFAULT_ATTEMPTS, 1)),
    backoffMs: positive("backoffMs", opts.backoffMs, DEFAULT_BACKOFF_MS, 0),
    maxRetryAfterMs: positive("maxRetryAfterMs", opts.maxRetryAfterMs, DEFAULT_MAX_RETRY_AFTER_MS, 0),
    log: opts.log ?? (() => undefined),
  };
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
  for (let attempt = 1; attempt <= r.attempts; attempt++) {
    let waitMs = r.backoffMs;
    try {
      const res = await fetch(url, {
        method: "GET",
        headers: { accept: "*/*" },
        // A redirect is an answer, not a connection failure: "manual" hands it back as a 3xx (not followed, not retried).
        redirect: "manual",
        signal: AbortSignal.timeout(r.timeoutMs),
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
        if (retryAfter !== undefined) waitMs = Math.min(retryAfter, r.maxRetryAfterMs);
      }
    } catch (err) {
      if (err instanceof MetadataError) throw err;
      const cause = networkCause(err);
      last = { ...cause, cause: err };
      r.log(`GET ${url}: ${cause.text} (attempt ${attempt})`);
    }
    if (attempt < r.attempts) await sleep(waitMs);
  }
  const l = last!;
  const outcome = l.kind === "timeout" ? `timed out after ${r.timeoutMs} ms` : l.kind === "http" ? `answered ${l.text}` : l.text;
  throw new MetadataError(
    l.kind,
    url,
    `metadata service: GET ${url} ${outcome}, ${r.attempts} attempt${r.attempts === 1 ? "" : "s"} made`,
    { status: l.status, attempts: r.attempts, cause: l.cause },
  );
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

/** GET user_data: its text (gunzipped when compressed), or null on 404 (no user data; never retried). */
export async function fetchUserData(opts: NetworkOptions = {}): Promise<string | null> {
  const r = resolve(opts, true);
  const url = `${r.base}/user_data`;
  const bytes = await getBytes(url, r, true, "user_data", MAX_USER_DATA_BYTES);
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
