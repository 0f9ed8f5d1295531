// The billing notification receiver (spec 000 section 6): an HTTP endpoint the portal POSTs to when new billing
// data is generated. This module starts it (options checked, output directory checked, the server wired to the
// request handling of requests.ts) and stops it; the notifications' reads and writes are queue.ts's.
import * as http from "http";
import { listen } from "../http/listen";
import { checkWritable, removeStaleTemps } from "./files";
import { DEFAULT_NOTIFY_PATH, HandlerOptions, ReceiverStats, RequestHandler } from "./requests";

export {
  DEFAULT_NOTIFY_PATH,
  HEALTH_PATH,
  MAX_BODY_BYTES,
  MAX_PENDING,
  NEW_DATA_TRIGGER,
  NOT_STORED,
  secretMatches,
  TEST_FAILED,
  TEST_TRIGGER,
} from "./requests";
export type { HandlerOptions, ReceiverStats } from "./requests";
export { retryable } from "./queue";
export type { QueueOptions } from "./queue";

export interface BillingReceiverOptions extends HandlerOptions {
  /** Port to listen on; 0 (default) picks a free one. */
  port?: number;
  /** Address to bind; default 127.0.0.1. */
  host?: string;
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

/** Starts a receiver; resolves once it listens. */
export async function startBillingReceiver(opts: BillingReceiverOptions): Promise<BillingReceiverHandle> {
  validateOptions(opts);
  const r = new RequestHandler(opts);
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
    void r.handle(req, res);
  });
  const host = opts.host ?? "127.0.0.1";
  const { port, url } = await listen(server, host, opts.port ?? 0);
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
