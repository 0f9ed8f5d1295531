// The billing receiver's request handling (spec 000 section 6): the portal POSTs to the Post URL when new
// billing data is generated. A request is checked on its Post URL's query string (the shared secret first,
// then the business unit) and its headers, before `100 Continue` is sent; then its body says whether it is the
// portal's test request (answered after one read of the billing data, writing nothing) or a notification
// (answered once the queue, queue.ts, has the data safely on disk). 200 when written, 503 when it could not
// be (the sender may retry), 4xx for a request that is wrong and never will be right. A 503 carries a fixed
// message and an error id; the detail (which may name server paths or quote the portal) goes to the log only,
// under that id.
import { createHash, randomBytes, timingSafeEqual } from "crypto";
import * as http from "http";
import { isLoginRefused, loginRefusedMessage } from "../portal/login";
import { periodOf } from "./files";
import { NotificationQueue, PartlyStored, QueueOptions } from "./queue";

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

export interface HandlerOptions extends QueueOptions {
  /** Shared secret the Post URL must carry as `secret=`; none: no secret is checked. */
  secret?: string;
  /** Path of the Post URL; default `/notify`. */
  path?: string;
  /** Largest accepted body; default 64 KiB. */
  maxBodyBytes?: number;
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

/** Answers the requests of one receiver; the notifications' reads and writes are its queue's. */
export class RequestHandler {
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
  private readonly queue: NotificationQueue;
  private inFlight = 0;
  private closing = false;
  /** A refused login is logged with what to check once; later notifications refer to it. */
  private loginRefusalLogged = false;

  constructor(private readonly o: HandlerOptions) {
    this.path = o.path ?? DEFAULT_NOTIFY_PATH;
    this.maxBody = o.maxBodyBytes ?? MAX_BODY_BYTES;
    this.maxPending = o.maxPending ?? MAX_PENDING;
    this.queue = new NotificationQueue(o, this.stats, (line) => this.log(line));
  }

  log(line: string): void {
    if (!this.o.log) return;
    let text = line;
    // Defence in depth: whatever produced the line, the secret and the client's credentials never leave.
    if (this.o.secret) text = text.split(this.o.secret).join("***");
    this.o.log(this.o.client.redact(text));
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
    // No Content-Length (a chunked body): NaN, never larger; readBody counts the bytes as they come.
    if (Number(req.headers["content-length"]) > this.maxBody) {
      throw new Reject(413, `the body is larger than ${this.maxBody} bytes`);
    }
  }

  /** Answers one request (after 100 Continue, precheck runs again: it decides the same on the same headers). */
  async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
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
      this.precheck(req);
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
      const files = await this.queue.notify(n.period, arrived);
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
      note = JSON.parse(text.trim()); // trim() also drops a byte order mark
    } catch {
      // No body, or not JSON: new data.
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
   * Refuses new requests (503), then waits for the ones in progress, at most `graceMs`. No read of the queue
   * outlives them: a notification is answered by the read that serves it, or at its deadline when none does.
   */
  async drain(graceMs: number): Promise<void> {
    this.closing = true;
    const until = Date.now() + graceMs;
    while (this.inFlight > 0 && Date.now() < until) await sleep(20);
  }
}
