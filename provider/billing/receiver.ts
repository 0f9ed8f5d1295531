// The billing notification receiver (spec 000 section 6): an HTTP endpoint the portal POSTs to
// when new billing data is generated. It checks the Post URL's query string (business unit and
// optional shared secret), answers `Expect: 100-continue` only when the headers pass, accepts the
// test request and real notifications, reads the billing data with GET /v1/bunits/{id}/billing and
// writes one file per period (see files.ts). It answers the sender only after the data is safely
// on disk: 200 when written, 503 when it could not be (the sender may retry), 4xx for a request
// that is wrong and never will be right. A 503 carries a fixed message and an error id; the detail
// (which may name server paths or quote the portal) goes to the log only, under that id.
import { createHash, randomBytes, timingSafeEqual } from "crypto";
import * as http from "http";
import { AddressInfo } from "net";
import { PortalClient } from "../portal/client";
import { PortalError } from "../portal/errors";
import { isLoginRefused, loginRefusedMessage } from "../portal/login";
import { BillingData } from "../portal/types";
import { checkWritable, periodOf, removeStaleTemps, WrittenPeriod, writePeriod } from "./files";

export const TEST_TRIGGER = "test for new billing data available";
export const NEW_DATA_TRIGGER = "new billing data available";
export const DEFAULT_NOTIFY_PATH = "/notify";
export const HEALTH_PATH = "/healthz";
export const MAX_BODY_BYTES = 64 * 1024;
/** Requests held at once (notifications waiting for their data to be stored, test requests) by default. */
export const MAX_PENDING = 16;
/** What a caller is told when its notification could not be stored; the detail is in the log under the id. */
export const NOT_STORED = "billing data not stored, try again later";
/** What a caller is told when its test request could not read the billing data; the detail is in the log under the id. */
export const TEST_FAILED = "test failed: the billing data could not be read, the receiver's log has the reason";

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
  /**
   * No new read starts for a notification this long after it arrived (however long it waited behind others);
   * it is answered 503 instead. Default 8000 ms (the sender waits about 10 s).
   */
  deadlineMs?: number;
  /** Requests held at once (notifications and test requests); one more is answered 503 at once. Default 16. */
  maxPending?: number;
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
  /** Notifications answered 503 at once because `maxPending` requests were held already. */
  busy: number;
  /** Notifications that arrived while others waited for a read, and were served by that same read. */
  coalesced: number;
}

export interface BillingReceiverHandle {
  /** `http://<host>:<port>`, no trailing slash. */
  readonly url: string;
  readonly port: number;
  /** The Post URL without the secret: `<url>/notify?bunit=<id>`. */
  readonly notifyUrl: string;
  /** The Post URL to register in the portal, with `secret=` (URL-encoded: `+ & =` as `%2B %26 %3D`) when one is given. */
  postUrl(secret?: string): string;
  readonly stats: Readonly<ReceiverStats>;
  /** Stops accepting requests, lets the ones in progress finish (at most `graceMs`), then closes. */
  close(graceMs?: number): Promise<void>;
}

/** A rejection the sender cannot fix by repeating the request. */
class Reject extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** Constant-time comparison of a presented secret with the expected one (hashing hides the length). */
export function secretMatches(presented: string | undefined | null, expected: string): boolean {
  const a = createHash("sha256")
    .update(presented ?? "", "utf8")
    .digest();
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

/** A write failed part way: the periods before it are on disk (replaced), the rest are not. */
class PartlyStored extends Error {
  constructor(
    readonly stored: string[],
    readonly notStored: string[],
    cause: unknown,
  ) {
    super(
      `writing period ${notStored[0]} failed after storing ${stored.length ? stored.join(", ") : "none"}` +
        `; not stored: ${notStored.join(", ")}: ${cause instanceof Error ? cause.message : String(cause)}`,
    );
  }
}

/** A notification waiting for a read of the billing data that covers it. */
interface Waiter {
  /** The period the notification named; that read must show it. */
  period?: string;
  /** No read starts for it after this (ms since the epoch): counted from its arrival. */
  deadline: number;
  /** Reads it took part in. */
  reads: number;
  /** Why its last read did not store it, if one did not. */
  lastError?: unknown;
  timer?: NodeJS.Timeout;
  resolve(files: WrittenPeriod[]): void;
  reject(err: unknown): void;
}

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
  if (!Number.isSafeInteger(o.businessUnitId) || o.businessUnitId < 1)
    throw new RangeError(`businessUnitId must be a positive integer, got ${o.businessUnitId}`);
  if (o.secret !== undefined && o.secret.length === 0) throw new RangeError("secret must not be empty (leave it out for no secret)");
  const p = o.path ?? DEFAULT_NOTIFY_PATH;
  if (!p.startsWith("/") || p.includes("?")) throw new RangeError(`path must start with / and carry no query, got ${JSON.stringify(p)}`);
  for (const k of ["maxBodyBytes", "fetchAttempts", "retryBaseMs", "retryMaxMs", "deadlineMs", "bodyTimeoutMs", "maxPending"] as const) {
    const v = o[k];
    if (v !== undefined && (!Number.isFinite(v) || v < (k === "fetchAttempts" || k === "maxBodyBytes" || k === "maxPending" ? 1 : 0)))
      throw new RangeError(`${k} must be a positive number, got ${v}`);
  }
}

class Receiver {
  readonly stats: ReceiverStats = {
    requests: 0,
    tests: 0,
    notifications: 0,
    rejected: 0,
    failed: 0,
    fetches: 0,
    written: 0,
    busy: 0,
    coalesced: 0,
  };
  private readonly path: string;
  private readonly maxBody: number;
  private readonly maxPending: number;
  /**
   * Notifications not answered yet. One worker serves them all, one read at a time (so two never write the
   * same file at once); a read serves every notification that arrived before it started.
   */
  private readonly pending: Waiter[] = [];
  /** The notifications the read in progress serves. */
  private reading = new Set<Waiter>();
  private worker: Promise<void> | undefined;
  private inFlight = 0;
  private closing = false;
  /** A refused login is logged with what to check once; later notifications refer to it. */
  private loginRefusalLogged = false;

  constructor(private readonly o: BillingReceiverOptions) {
    this.path = o.path ?? DEFAULT_NOTIFY_PATH;
    this.maxBody = o.maxBodyBytes ?? MAX_BODY_BYTES;
    this.maxPending = o.maxPending ?? MAX_PENDING;
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

  /** Whether one more request may be held (see `maxPending`). */
  admits(): boolean {
    return this.inFlight < this.maxPending;
  }

  /** Whether the headers pass and there is room for one more request: then 100 Continue may be sent. */
  continues(req: http.IncomingMessage): boolean {
    try {
      this.precheck(req);
    } catch {
      return false;
    }
    return this.admits();
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
    const arrived = Date.now();
    let pathname = "?";
    try {
      pathname = new URL(req.url ?? "/", "http://receiver.invalid").pathname;
    } catch {
      /* precheck answers 400 */
    }
    const what = `${req.method} ${pathname}`; // never the query: it carries the secret
    if ((req.method === "GET" || req.method === "HEAD") && pathname === HEALTH_PATH) {
      send(res, 200, { status: "ok" }); // node sends no body to a HEAD
      return;
    }
    const admitted = this.admits();
    let test = false;
    this.inFlight++;
    try {
      if (!prechecked) this.precheck(req);
      if (!admitted) {
        this.stats.busy++;
        throw new Reject(503, `busy: ${this.maxPending} requests are waiting already, try again later`, { "Retry-After": "30" });
      }
      const n = this.parseNotification((await this.readBody(req)).toString("utf8"));
      if (n.test) {
        test = true;
        this.stats.tests++;
        const periods = await this.testConnection();
        send(res, 200, { status: "ok", test: true, portal: "reachable", periods });
        this.log(`${what} 200: test request; portal reachable, ${periods} billing period(s) readable (${Date.now() - arrived} ms)`);
        return;
      }
      this.stats.notifications++;
      const files = await this.notify(n.period, arrived);
      send(res, 200, { status: "stored", period: n.period ?? null, files });
      const changed = files.filter((f) => f.change !== "unchanged").map((f) => `${f.period} ${f.change}`);
      this.log(
        `${what} 200: new billing data${n.period ? ` for ${n.period}` : ""}; ${files.length} period(s) stored` +
          `${changed.length ? ` (${changed.join(", ")})` : ", none changed"} (${Date.now() - arrived} ms)`,
      );
    } catch (err) {
      if (err instanceof Reject) {
        this.stats.rejected++;
        // A rejected request's body may still be on its way; close rather than read it.
        send(res, err.status, { error: err.message }, { ...err.headers, Connection: "close" });
        this.log(`${what} ${err.status}: ${err.message}`);
      } else {
        this.stats.failed++;
        // The caller gets a fixed message and an id; the detail (server paths, what the portal said) only the log.
        const id = randomBytes(6).toString("hex");
        const partly = err instanceof PartlyStored ? { stored: err.stored, notStored: err.notStored } : {};
        send(res, 503, { error: test ? TEST_FAILED : NOT_STORED, id, ...partly }, { "Retry-After": "30" });
        const head = `${what} 503 (error id ${id}): ${test ? "test failed" : "billing data not stored"}`;
        if (isLoginRefused(err)) {
          // A configuration error: retrying does not help, and one explanation in the log is enough.
          this.log(
            this.loginRefusalLogged
              ? `${head}: the portal still refuses the login (see above)`
              : `${head}: ${loginRefusedMessage(err, this.o.client.url)}; retrying does not help: fix the settings and restart the receiver`,
          );
          this.loginRefusalLogged = true;
        } else {
          const message = err instanceof Error ? err.message : String(err);
          this.log(`${head}: ${this.o.client.redact(message)} (${Date.now() - arrived} ms)`);
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
    const named =
      typeof b.businessUnitId === "number" || (typeof b.businessUnitId === "string" && /^\d+$/.test(b.businessUnitId))
        ? Number(b.businessUnitId)
        : undefined;
    if (named !== undefined && named !== this.o.businessUnitId) {
      throw new Reject(400, "the notification names another business unit than the Post URL");
    }
    return { test: false, period: typeof b.period === "string" ? periodOf({ period: b.period }) : undefined };
  }

  /** One read of the billing data, to prove credentials and reach (the test request writes nothing). */
  private async testConnection(): Promise<number> {
    this.stats.fetches++;
    return (await this.o.client.billing.billingData(this.o.businessUnitId)).length;
  }

  /**
   * Resolves once a read that started after the notification arrived has been written (and shows `period`,
   * when one is named); rejects when that could not happen before the notification's deadline.
   */
  private notify(period: string | undefined, arrived: number): Promise<WrittenPeriod[]> {
    return new Promise<WrittenPeriod[]>((resolve, reject) => {
      const w: Waiter = { period, deadline: arrived + (this.o.deadlineMs ?? 8000), reads: 0, resolve, reject };
      // Another one waits for the next read already: this one adds no work, that read serves both.
      if (this.pending.some((x) => !this.reading.has(x))) this.stats.coalesced++;
      this.pending.push(w);
      // Its deadline counts from its arrival: when it passes while reads for others go on, it is answered at once.
      w.timer = setTimeout(
        () => {
          if (!this.reading.has(w))
            this.settle(w, w.lastError ?? new Error("not stored in time: the reads for earlier notifications took too long"));
        },
        Math.max(0, w.deadline - Date.now()),
      );
      this.worker ??= this.work().finally(() => {
        this.worker = undefined;
      });
    });
  }

  /** Answers a waiter (with the files, or an error) and forgets it. */
  private settle(w: Waiter, outcome: WrittenPeriod[] | unknown, ok = false): void {
    const i = this.pending.indexOf(w);
    if (i < 0) return;
    this.pending.splice(i, 1);
    clearTimeout(w.timer);
    if (ok) w.resolve(outcome as WrittenPeriod[]);
    else w.reject(outcome);
  }

  /**
   * Reads and writes until no notification waits. Each read serves the notifications that arrived before it
   * started; reads worth repeating are repeated with backoff, for each notification at most `fetchAttempts`
   * times and never past its deadline.
   */
  private async work(): Promise<void> {
    const attempts = this.o.fetchAttempts ?? 4;
    const base = this.o.retryBaseMs ?? 500;
    const max = this.o.retryMaxMs ?? 4000;
    let failures = 0;
    while (this.pending.length) {
      for (const w of [...this.pending]) {
        if (Date.now() > w.deadline) this.settle(w, w.lastError ?? new Error("not stored in time"));
      }
      if (!this.pending.length) return;
      this.reading = new Set(this.pending);
      const served = [...this.reading];
      let failure: unknown;
      let retry = false;
      try {
        const written = await this.readAndWrite(served);
        failures = 0;
        for (const w of served) {
          if (written && (!w.period || written.some((f) => f.period === w.period))) this.settle(w, written, true);
          else w.lastError = new NotYetVisible(`the portal's billing data has no period ${w.period} yet`);
        }
        retry = served.some((w) => this.pending.includes(w));
      } catch (err) {
        failure = err;
        for (const w of served) w.lastError = err;
        retry = true;
      } finally {
        this.reading = new Set();
      }
      if (!retry) continue; // everyone served: the ones that arrived meanwhile get a read at once
      failures++;
      const pause = Math.min(max, base * 2 ** (failures - 1));
      for (const w of served) {
        w.reads++;
        const worth = failure === undefined || retryable(failure);
        if (!worth || w.reads >= attempts || Date.now() + pause > w.deadline) this.settle(w, w.lastError);
      }
      if (!this.pending.length) return;
      const why =
        failure === undefined
          ? "the named period is not visible yet"
          : `reading billing data failed (${failure instanceof Error ? failure.message : String(failure)})`;
      this.log(`${why}; retry ${failures}/${attempts - 1} in ${pause} ms`);
      await sleep(pause);
    }
  }

  /**
   * Reads the billing data and writes every period (so a notification missed earlier is caught up); writes
   * nothing, and resolves to undefined, when no notification it serves can be honoured by this data.
   */
  private async readAndWrite(served: Waiter[]): Promise<WrittenPeriod[] | undefined> {
    this.stats.fetches++;
    const data: BillingData[] = await this.o.client.billing.billingData(this.o.businessUnitId);
    const filed = data.filter((d) => periodOf(d));
    if (!served.some((w) => !w.period || filed.some((d) => periodOf(d) === w.period))) return undefined;
    const skipped = data.filter((d) => !periodOf(d)).map((d) => d.period ?? d.href);
    if (skipped.length)
      this.log(`skipped ${skipped.length} billing entries without a YYYY-MM-DD period: ${JSON.stringify(skipped.slice(0, 3))}`);
    // Never "stored" when nothing was: the sender would take the data as delivered.
    if (data.length && !filed.length) throw new Error(`none of the ${data.length} billing entries has a YYYY-MM-DD period or href`);
    const written: WrittenPeriod[] = [];
    for (const d of filed) {
      try {
        written.push(await writePeriod(this.o.outDir, this.o.businessUnitId, d));
      } catch (err) {
        // The periods before are replaced already, the rest are not: the answer and the log say which.
        this.stats.written += written.filter((w) => w.change !== "unchanged").length;
        throw new PartlyStored(
          written.map((w) => w.period),
          filed.slice(written.length).map((x) => periodOf(x)!),
          err,
        );
      }
    }
    this.stats.written += written.filter((w) => w.change !== "unchanged").length;
    return written;
  }

  async drain(graceMs: number): Promise<void> {
    this.closing = true;
    const until = Date.now() + graceMs;
    while (this.inFlight > 0 && Date.now() < until) await sleep(20);
    await Promise.race([this.worker, sleep(Math.max(0, until - Date.now()))]);
  }
}

/** Starts a receiver; resolves once it listens. */
export async function startBillingReceiver(opts: BillingReceiverOptions): Promise<BillingReceiverHandle> {
  validateOptions(opts);
  const r = new Receiver(opts);
  // A directory it cannot write to would pass every health check and fail every notification: refuse to start.
  await checkWritable(opts.outDir, opts.businessUnitId);
  await removeStaleTemps(opts.outDir, opts.businessUnitId).catch(() => 0);
  const server = http.createServer({ requestTimeout: 60_000, headersTimeout: 20_000 });
  server.on("request", (req, res) => void r.handle(req, res));
  // `Expect: 100-continue`: decide on the headers first; 100 Continue only when they pass, so a
  // rejected sender never sends its body. (Without this listener node would answer 100 itself.)
  server.on("checkContinue", (req: http.IncomingMessage, res: http.ServerResponse) => {
    if (!r.continues(req)) {
      void r.handle(req, res); // answers the same rejection (or busy), without 100 Continue
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
