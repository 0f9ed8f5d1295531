// The billing notification receiver (spec 000 section 6): an HTTP endpoint the portal POSTs to
// when new billing data is generated. It checks the Post URL's query string (business unit and
// optional shared secret), answers `Expect: 100-continue` only when the headers pass, accepts the
// test request and real notifications, reads the billing data with GET /v1/bunits/{id}/billing and
// writes one file per period (see files.ts). It answers the sender only after the data is safely
// on disk: 200 when written, 503 when it could not be (the sender may retry), 4xx for a request
// that is wrong and never will be right.
import { createHash, timingSafeEqual } from "crypto";
import * as http from "http";
import { AddressInfo } from "net";
import { PortalClient } from "../portal/client";
import { PortalError } from "../portal/errors";
import { isLoginRefused, loginRefusedMessage } from "../portal/login";
import { BillingData } from "../portal/types";
import { periodOf, removeStaleTemps, WrittenPeriod, writePeriod } from "./files";

export const TEST_TRIGGER = "test for new billing data available";
export const NEW_DATA_TRIGGER = "new billing data available";
export const DEFAULT_NOTIFY_PATH = "/notify";
export const HEALTH_PATH = "/healthz";
export const MAX_BODY_BYTES = 64 * 1024;

export interface BillingReceiverOptions {
  /** Where the files go: `<outDir>/<businessUnitId>/<YYYY-MM-DD>.json`. */
  outDir: string;
  /** The reseller business unit whose billing data this receiver stores (the Post URL's `bunit`). */
  businessUnitId: number;
  /** Shared secret the Post URL must carry as `secret=`; none: no secret is checked. */
  secret?: string;
  /** Portal client used to read the billing data. */
  client: PortalClient;
  /** Port to listen on; 0 (default) picks a free one. */
  port?: number;
  /** Address to bind; default 127.0.0.1. */
  host?: string;
  /** Path of the Post URL; default `/notify`. */
  path?: string;
  /** Largest accepted body; default 64 KiB. */
  maxBodyBytes?: number;
  /** Reads of the billing data per notification (first included); default 4. */
  fetchAttempts?: number;
  /** First pause between reads, doubled each time; default 500 ms. */
  retryBaseMs?: number;
  /** Longest pause between reads; default 4000 ms. */
  retryMaxMs?: number;
  /** No new read starts after this long; the sender gets 503 instead. Default 8000 ms (the sender waits about 10 s). */
  deadlineMs?: number;
  /** Time allowed to receive a request body; default 10000 ms. */
  bodyTimeoutMs?: number;
  /** One line per request and retry; never carries the secret or credentials. */
  log?: (line: string) => void;
}

export interface ReceiverStats {
  requests: number;
  tests: number;
  notifications: number;
  rejected: number;
  failed: number;
  fetches: number;
  written: number;
}

export interface BillingReceiverHandle {
  /** `http://<host>:<port>`, no trailing slash. */
  readonly url: string;
  readonly port: number;
  /** The Post URL without the secret: `<url>/notify?bunit=<id>`. */
  readonly notifyUrl: string;
  /** The Post URL to register in the portal, with `secret=` when one is given. */
  postUrl(secret?: string): string;
  readonly stats: Readonly<ReceiverStats>;
  /** Stops accepting requests, lets the ones in progress finish (at most `graceMs`), then closes. */
  close(graceMs?: number): Promise<void>;
}

/** A rejection the sender cannot fix by repeating the request. */
class Reject extends Error {
  constructor(readonly status: number, message: string, readonly headers: Record<string, string> = {}) {
    super(message);
  }
}

/** Constant-time comparison of a presented secret with the expected one (hashing hides the length). */
export function secretMatches(presented: string | undefined | null, expected: string): boolean {
  const a = createHash("sha256").update(presented ?? "", "utf8").digest();
  const b = createHash("sha256").update(expected, "utf8").digest();
  return timingSafeEqual(a, b) && typeof presented === "string";
}

/** Whether a failed read of the billing data is worth repeating. */
export function retryable(err: unknown): boolean {
  if (err instanceof NotYetVisible) return true;
  if (!(err instanceof PortalError)) return false;
  return err.status === 0 || err.status === 408 || err.status === 429 || err.status >= 500;
}

class NotYetVisible extends Error {}

/** The request's path and query; a request target that is not a path is a 400. */
function targetOf(req: http.IncomingMessage): URL {
  try {
    return new URL(req.url ?? "/", "http://receiver.invalid");
  } catch {
    throw new Reject(400, "bad request target");
  }
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

function send(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent || res.writableEnded) return;
  const text = `${JSON.stringify(body)}\n`;
  res.writeHead(status, { "Content-Type": "application/json; charset=utf-8", "Content-Length": Buffer.byteLength(text), ...headers });
  res.end(text);
}

function validateOptions(o: BillingReceiverOptions): void {
  if (!o.outDir) throw new RangeError("outDir is required");
  if (!Number.isSafeInteger(o.businessUnitId) || o.businessUnitId < 1) throw new RangeError(`businessUnitId must be a positive integer, got ${o.businessUnitId}`);
  if (o.secret !== undefined && o.secret.length === 0) throw new RangeError("secret must not be empty (leave it out for no secret)");
  const p = o.path ?? DEFAULT_NOTIFY_PATH;
  if (!p.startsWith("/") || p.includes("?")) throw new RangeError(`path must start with / and carry no query, got ${JSON.stringify(p)}`);
  for (const k of ["maxBodyBytes", "fetchAttempts", "retryBaseMs", "retryMaxMs", "deadlineMs", "bodyTimeoutMs"] as const) {
    const v = o[k];
    if (v !== undefined && (!Number.isFinite(v) || v < (k === "fetchAttempts" || k === "maxBodyBytes" ? 1 : 0))) throw new RangeError(`${k} must be a positive number, got ${v}`);
  }
}

class Receiver {
  readonly stats: ReceiverStats = { requests: 0, tests: 0, notifications: 0, rejected: 0, failed: 0, fetches: 0, written: 0 };
  private readonly path: string;
  private readonly maxBody: number;
  /** Notifications are handled one at a time, so two never write the same file at once. */
  private queue: Promise<unknown> = Promise.resolve();
  private inFlight = 0;
  private closing = false;
  /** A refused login is logged with what to check once; later notifications refer to it. */
  private loginRefusalLogged = false;

  constructor(private readonly o: BillingReceiverOptions) {
    this.path = o.path ?? DEFAULT_NOTIFY_PATH;
    this.maxBody = o.maxBodyBytes ?? MAX_BODY_BYTES;
  }

  log(line: string): void {
    if (!this.o.log) return;
    let text = line;
    // Defence in depth: whatever produced the line, the secret and the client's credentials never leave.
    if (this.o.secret) text = text.split(this.o.secret).join("***");
    this.o.log(this.o.client.redact(text));
  }

  get busy(): boolean {
    return this.inFlight > 0;
  }

  /** Checks what the headers alone decide; throws Reject. Used before 100 Continue is sent. */
  precheck(req: http.IncomingMessage): void {
    const url = targetOf(req);
    if (url.pathname !== this.path) throw new Reject(404, `not found: POST the notification to ${this.path}`);
    if (req.method !== "POST") throw new Reject(405, "only POST is accepted", { Allow: "POST" });
    if (this.closing) throw new Reject(503, "the receiver is shutting down", { "Retry-After": "5" });
    // The secret first: a caller without it learns nothing, not even which business unit is served.
    if (this.o.secret !== undefined) {
      const presented = url.searchParams.getAll("secret");
      // Exactly one secret parameter; compared in constant time.
      if (!secretMatches(presented.length === 1 ? presented[0] : undefined, this.o.secret)) {
        throw new Reject(403, "missing or wrong secret");
      }
    }
    const bunit = url.searchParams.get("bunit");
    if (bunit === null || bunit === "") throw new Reject(400, "the Post URL must carry the business unit: ?bunit=<id>");
    if (!/^\d+$/.test(bunit) || Number(bunit) !== this.o.businessUnitId) {
      throw new Reject(400, "this receiver does not store billing data of that business unit");
    }
    const length = req.headers["content-length"];
    if (length !== undefined && Number(length) > this.maxBody) {
      throw new Reject(413, `the body is larger than ${this.maxBody} bytes`);
    }
  }

  /** Answers one request. `prechecked` when the checkContinue handler ran precheck already. */
  async handle(req: http.IncomingMessage, res: http.ServerResponse, prechecked = false): Promise<void> {
    this.stats.requests++;
    const started = Date.now();
    let pathname = "?";
    try {
      pathname = new URL(req.url ?? "/", "http://receiver.invalid").pathname;
    } catch {
      /* precheck answers 400 */
    }
    const what = `${req.method} ${pathname}`; // never the query: it carries the secret
    if (req.method === "GET" && pathname === HEALTH_PATH) {
      send(res, 200, { status: "ok" });
      return;
    }
    this.inFlight++;
    try {
      if (!prechecked) this.precheck(req);
      const n = this.parseNotification((await this.readBody(req)).toString("utf8"));
      if (n.test) {
        this.stats.tests++;
        const periods = await this.testConnection();
        send(res, 200, { status: "ok", test: true, portal: "reachable", periods });
        this.log(`${what} 200: test request; portal reachable, ${periods} billing period(s) readable (${Date.now() - started} ms)`);
        return;
      }
      this.stats.notifications++;
      const files = await this.enqueue(() => this.store(n.period));
      send(res, 200, { status: "stored", period: n.period ?? null, files });
      const changed = files.filter((f) => f.change !== "unchanged").map((f) => `${f.period} ${f.change}`);
      this.log(`${what} 200: new billing data${n.period ? ` for ${n.period}` : ""}; ${files.length} period(s) stored` +
        `${changed.length ? ` (${changed.join(", ")})` : ", none changed"} (${Date.now() - started} ms)`);
    } catch (err) {
      if (err instanceof Reject) {
        this.stats.rejected++;
        // A rejected request's body may still be on its way; close rather than read it.
        send(res, err.status, { error: err.message }, { ...err.headers, Connection: "close" });
        this.log(`${what} ${err.status}: ${err.message}`);
      } else {
        this.stats.failed++;
        const message = err instanceof Error ? err.message : String(err);
        send(res, 503, { error: `billing data not stored, try again: ${this.o.client.redact(message)}` }, { "Retry-After": "30" });
        if (isLoginRefused(err)) {
          // A configuration error: retrying does not help, and one explanation in the log is enough.
          this.log(this.loginRefusalLogged
            ? `${what} 503: billing data not stored: the portal still refuses the login (see above)`
            : `${what} 503: billing data not stored: ${loginRefusedMessage(err, this.o.client.url)}; ` +
              "retrying does not help: fix the settings and restart the receiver");
          this.loginRefusalLogged = true;
        } else {
          this.log(`${what} 503: billing data not stored: ${message}`);
        }
      }
    } finally {
      this.inFlight--;
    }
  }

  private readBody(req: http.IncomingMessage): Promise<Buffer> {
    return new Promise<Buffer>((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      let done = false;
      const finish = (err?: Error, value?: Buffer) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        req.off("data", onData);
        if (err) {
          req.pause();
          reject(err);
        } else resolve(value!);
      };
      const timer = setTimeout(() => finish(new Reject(408, "the body did not arrive in time")), this.o.bodyTimeoutMs ?? 10_000);
      const onData = (c: Buffer) => {
        size += c.length;
        if (size > this.maxBody) finish(new Reject(413, `the body is larger than ${this.maxBody} bytes`));
        else chunks.push(c);
      };
      req.on("data", onData);
      req.on("end", () => finish(undefined, Buffer.concat(chunks)));
      req.on("error", (err) => finish(err));
      req.on("aborted", () => finish(new Reject(400, "the request was aborted")));
    });
  }

  /**
   * What the notification asks. The Post URL (its secret and business unit) authenticates the sender; the body
   * only advises, and spec 000 does not show it: the test trigger asks for a connection test, anything else
   * (another wording, no JSON, no body) for the data to be read again, which is always safe. A `period` that is a
   * date must then be in the data; a `businessUnitId` that names another business unit is refused.
   */
  private parseNotification(text: string): { test: boolean; period?: string } {
    let note: unknown;
    try {
      note = JSON.parse(text.replace(/^\uFEFF/, "").trim() || "null");
    } catch {
      note = undefined;
    }
    if (typeof note !== "object" || note === null || Array.isArray(note)) return { test: false };
    const b = note as Record<string, unknown>;
    if (typeof b.trigger === "string" && b.trigger.trim().toLowerCase() === TEST_TRIGGER) return { test: true };
    const named = typeof b.businessUnitId === "number" || (typeof b.businessUnitId === "string" && /^\d+$/.test(b.businessUnitId))
      ? Number(b.businessUnitId) : undefined;
    if (named !== undefined && named !== this.o.businessUnitId) {
      throw new Reject(400, "the notification names another business unit than the Post URL");
    }
    return { test: false, period: typeof b.period === "string" ? periodOf({ period: b.period }) : undefined };
  }

  private enqueue<T>(job: () => Promise<T>): Promise<T> {
    const run = this.queue.then(job, job);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** One read of the billing data, to prove credentials and reach (the test request writes nothing). */
  private async testConnection(): Promise<number> {
    this.stats.fetches++;
    return (await this.o.client.billing.billingData(this.o.businessUnitId)).length;
  }

  /**
   * Reads the billing data and writes every period (so a notification missed earlier is caught up);
   * when the notification names a period, that period must be in the answer. Bounded retries with
   * backoff for portal errors worth repeating; throws when the data is not safely written.
   */
  private async store(period: string | undefined): Promise<WrittenPeriod[]> {
    const attempts = this.o.fetchAttempts ?? 4;
    const base = this.o.retryBaseMs ?? 500;
    const max = this.o.retryMaxMs ?? 4000;
    const deadline = Date.now() + (this.o.deadlineMs ?? 8000);
    for (let attempt = 1; ; attempt++) {
      let data: BillingData[];
      try {
        this.stats.fetches++;
        data = await this.o.client.billing.billingData(this.o.businessUnitId);
        if (period && !data.some((d) => periodOf(d) === period)) {
          throw new NotYetVisible(`the portal's billing data has no period ${period} yet`);
        }
      } catch (err) {
        const pause = Math.min(max, base * 2 ** (attempt - 1));
        if (!retryable(err) || attempt >= attempts || Date.now() + pause > deadline) throw err;
        this.log(`reading billing data failed (${err instanceof Error ? err.message : String(err)}); retry ${attempt}/${attempts - 1} in ${pause} ms`);
        await sleep(pause);
        continue;
      }
      const written: WrittenPeriod[] = [];
      const skipped: unknown[] = [];
      for (const d of data) {
        if (periodOf(d)) written.push(await writePeriod(this.o.outDir, this.o.businessUnitId, d));
        else skipped.push(d.period ?? d.href);
      }
      if (skipped.length) this.log(`skipped ${skipped.length} billing entries without a YYYY-MM-DD period: ${JSON.stringify(skipped.slice(0, 3))}`);
      // Never "stored" when nothing was: the sender would take the data as delivered.
      if (data.length && !written.length) throw new Error(`none of the ${data.length} billing entries has a YYYY-MM-DD period or href`);
      this.stats.written += written.filter((w) => w.change !== "unchanged").length;
      return written;
    }
  }

  async drain(graceMs: number): Promise<void> {
    this.closing = true;
    const until = Date.now() + graceMs;
    while (this.inFlight > 0 && Date.now() < until) await sleep(20);
    await Promise.race([this.queue, sleep(Math.max(0, until - Date.now()))]);
  }
}

/** Starts a receiver; resolves once it listens. */
export async function startBillingReceiver(opts: BillingReceiverOptions): Promise<BillingReceiverHandle> {
  validateOptions(opts);
  const r = new Receiver(opts);
  await removeStaleTemps(opts.outDir, opts.businessUnitId).catch(() => 0);
  const server = http.createServer({ requestTimeout: 60_000, headersTimeout: 20_000 });
  server.on("request", (req, res) => void r.handle(req, res));
  // `Expect: 100-continue`: decide on the headers first; 100 Continue only when they pass, so a
  // rejected sender never sends its body. (Without this listener node would answer 100 itself.)
  server.on("checkContinue", (req: http.IncomingMessage, res: http.ServerResponse) => {
    try {
      r.precheck(req);
    } catch {
      void r.handle(req, res); // answers the same rejection, without 100 Continue
      return;
    }
    res.writeContinue();
    void r.handle(req, res, true);
  });
  server.on("clientError", (_err, socket) => {
    if (socket.writable) socket.end("HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
    else socket.destroy();
  });
  const host = opts.host ?? "127.0.0.1";
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const shown = host.includes(":") ? `[${host}]` : host;
  const url = `http://${shown}:${port}`;
  const path = opts.path ?? DEFAULT_NOTIFY_PATH;
  const postUrl = (secret?: string) => {
    const u = new URL(`${url}${path}`);
    u.searchParams.set("bunit", String(opts.businessUnitId));
    if (secret !== undefined) u.searchParams.set("secret", secret);
    return u.toString();
  };
  let closed: Promise<void> | undefined;
  return {
    url,
    port,
    notifyUrl: postUrl(),
    postUrl,
    stats: r.stats,
    close(graceMs = 10_000) {
      closed ??= (async () => {
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        await r.drain(graceMs);
        server.closeAllConnections();
        await stopped;
      })();
      return closed;
    },
  };
}
