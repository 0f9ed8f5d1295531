// The registration broker: an HTTP service beside the billing receiver that alone holds the reseller's portal
// account and registers an instance that presents a one-time token (token.ts) for its own business unit.
//
//   POST /v1/register   Authorization: Bearer <token>
//                       {"instance": {"uuid", "name", "meta": {...}}, "cpuCount", "nodePassword"?, "rotatePassword"?, "dryRun"?}
//     200 {"result": RegistrationResult}     401/403/409 {"error", "kind": "token"}     422 {"error", "kind", "problems", "done"}
//     502 {"error", "kind": "portal", "done"} 429 this token's request runs already, 503 busy (both Retry-After)
//     400/404/405/413 fixed bodies
//   GET /healthz        200 {"status": "ok"}
//
// Registrations run one at a time (as `register`'s lock does on an instance); at most `maxPending` wait, more are
// answered 503, and each token has at most one request in the broker. Who used which token (ledger.ts) is written
// to the ledger file, when there is one, before the answer. Bodies are small and bounded. Error bodies are fixed
// phrases or the registration's own messages, which never hold a password; the token and the secret are never
// logged.
import * as http from "http";
import { listen } from "../http/listen";
import { InstanceMetadata } from "../metadata";
import { PortalClient } from "../portal/client";
import { RegistrationError, registerInstance, RegistrationResult } from "../registration/register";
import { NODE_PASSWORD_ALPHABET } from "../registration/password";
import { businessUnitProblem, META_KEYS } from "../registration/keys";
import { fileLedger, memoryLedger } from "./ledger";
import { MIN_SECRET_BYTES, REFUSAL_TEXT, TokenClaims, TokenRefused, verifyRegistrationToken } from "./token";
import { portalId } from "../rules/fields";

export const REGISTER_PATH = "/v1/register";
export const HEALTH_PATH = "/healthz";
export const MAX_BODY_BYTES = 64 * 1024;
export const MAX_PENDING = 16;

export interface BrokerOptions {
  /** The HMAC secret tokens are signed with (at least 32 bytes). */
  secret: string;
  /** The portal client with the reseller's account. */
  client: PortalClient;
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Registrations allowed to wait behind the running one; default MAX_PENDING. */
  maxPending?: number;
  /**
   * The file that remembers which tokens were used, across restarts (ledger.ts). Without it they are remembered
   * in memory only: a restarted broker would take a spent token once more within its hour.
   */
  ledgerFile?: string;
  log?: (line: string) => void;
}

export interface BrokerHandle {
  readonly url: string;
  readonly port: number;
  readonly stats: { registered: number; refused: number; busy: number };
  close(): Promise<void>;
}

/** A fixed JSON answer. */
function answer(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "Content-Type": "application/json",
    "Cache-Control": "no-store",
    "Content-Length": Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

class BodyTooLarge extends Error {}

function readBody(req: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (c: Buffer): void => {
      size += c.length;
      if (size <= MAX_BODY_BYTES) return void chunks.push(c);
      // Stop keeping it; the rest is read and dropped so that the answer reaches the sender.
      req.off("data", onData);
      req.resume();
      reject(new BodyTooLarge());
    };
    req.on("data", onData);
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

interface RegisterRequest {
  instance: { uuid: string; name: string; hostname: string; meta: Record<string, string> };
  nodePassword?: string;
  rotatePassword: boolean;
  dryRun: boolean;
  /** The instance's CPU count (the default of backup_cpu_count). */
  cpuCount: number;
}

const PASSWORD_CHARS = new RegExp(`^[${NODE_PASSWORD_ALPHABET.replace(/[-\\\]^]/g, "\\$&")}]{16,64}$`);

/** The request's body, or a one-line reason it is not one (never quoting it: it holds the node password). */
function parseRequest(body: Buffer): RegisterRequest | string {
  let doc: unknown;
  try {
    doc = JSON.parse(body.toString("utf8"));
  } catch {
    return "the body must be JSON";
  }
  const d = doc as Record<string, unknown> | null;
  const inst = d?.instance as Record<string, unknown> | undefined;
  if (!d || typeof d !== "object" || !inst || typeof inst !== "object") return "instance {uuid, name, meta} is required";
  if (typeof inst.uuid !== "string" || !/^[0-9a-fA-F-]{32,36}$/.test(inst.uuid)) return "instance.uuid must be the instance's uuid";
  if (typeof inst.name !== "string" || inst.name.length > 255) return "instance.name must be a string";
  const meta = inst.meta;
  if (!meta || typeof meta !== "object" || Array.isArray(meta) || Object.values(meta).some((v) => typeof v !== "string"))
    return "instance.meta must be an object of strings";
  if (d.nodePassword !== undefined && (typeof d.nodePassword !== "string" || !PASSWORD_CHARS.test(d.nodePassword)))
    return `nodePassword must be 16 to 64 characters of ${NODE_PASSWORD_ALPHABET}`;
  if (!Number.isSafeInteger(d.cpuCount) || (d.cpuCount as number) < 1 || (d.cpuCount as number) > 4096)
    return "cpuCount must be an integer from 1 to 4096";
  for (const k of ["rotatePassword", "dryRun"] as const)
    if (d[k] !== undefined && typeof d[k] !== "boolean") return `${k} must be a boolean`;
  return {
    instance: {
      uuid: inst.uuid,
      name: inst.name,
      hostname: typeof inst.hostname === "string" ? inst.hostname : "",
      meta: meta as Record<string, string>,
    },
    nodePassword: d.nodePassword as string | undefined,
    rotatePassword: d.rotatePassword === true,
    dryRun: d.dryRun === true,
    cpuCount: d.cpuCount as number,
  };
}

const STATUS_OF: Record<string, number> = {
  malformed: 401,
  signature: 401,
  expired: 401,
  lifetime: 401,
  "business-unit": 403,
  replayed: 409,
};
/** Seconds a busy instance waits before it asks again. */
const RETRY_AFTER = "5";

/** Starts the broker; resolves once it listens. */
export async function startRegistrationBroker(opts: BrokerOptions): Promise<BrokerHandle> {
  if (Buffer.byteLength(opts.secret ?? "", "utf8") < MIN_SECRET_BYTES)
    throw new RangeError(`the broker secret must have at least ${MIN_SECRET_BYTES} bytes`);
  const maxPending = opts.maxPending ?? MAX_PENDING;
  const log = opts.log ?? (() => undefined);
  const store = opts.ledgerFile ? await fileLedger(opts.ledgerFile, undefined, log) : memoryLedger();
  const { ledger } = store;
  const stats = { registered: 0, refused: 0, busy: 0 };
  let waiting = 0;
  let chain: Promise<unknown> = Promise.resolve();
  const inFlight = new Set<Promise<unknown>>();
  /** The nonces of the tokens whose request is in the broker now. */
  const tokensInUse = new Set<string>();

  /** Runs `job` after the ones before it; undefined when too many wait already. */
  function enqueue<T>(job: () => Promise<T>): Promise<T> | undefined {
    if (waiting >= maxPending + 1) return undefined;
    waiting++;
    const run = chain.then(job, job);
    // The caller handles the job's failure; the queue and the bookkeeping only need it settled.
    const settled = run.then(
      () => undefined,
      () => undefined,
    );
    chain = settled;
    const done = settled.finally(() => {
      waiting--;
      inFlight.delete(done);
    });
    inFlight.add(done);
    return run;
  }

  /** The token is spent once the portal registered the instance; kept before the instance hears so. */
  async function spend(claims: TokenClaims, uuid: string): Promise<void> {
    ledger.complete(claims);
    // The claim is on disk already: should this write fail, a restart lets only this instance register again.
    await store
      .save()
      .catch((err: NodeJS.ErrnoException) =>
        log(`instance ${uuid}: the spent token could not be written to the ledger file (${err.code ?? err.name})`),
      );
  }

  async function register(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const auth = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? "");
    let body: Buffer;
    try {
      body = await readBody(req);
    } catch (err) {
      if (err instanceof BodyTooLarge)
        return answer(res, 413, { error: `the body exceeds ${MAX_BODY_BYTES} bytes` }, { Connection: "close" });
      return;
    }
    const parsed = parseRequest(body);
    if (typeof parsed === "string") return answer(res, 400, { error: parsed });
    const { instance } = parsed;
    let claims: TokenClaims;
    try {
      if (!auth) throw new TokenRefused("malformed");
      claims = verifyRegistrationToken(opts.secret, auth[1]);
    } catch (err) {
      return refuse(res, err, instance.uuid);
    }
    const bunit = instance.meta[META_KEYS.businessUnit];
    const problem = businessUnitProblem(bunit);
    if (problem) return answer(res, 422, { error: problem, kind: "configuration", problems: [problem], done: [] });
    if (portalId(bunit) !== claims.businessUnitId) return refuse(res, new TokenRefused("business-unit"), instance.uuid);
    if (tokensInUse.has(claims.nonce)) {
      stats.busy++;
      return answer(
        res,
        429,
        { error: "a request with this registration token is running already; try again when it has finished", kind: "busy" },
        { "Retry-After": RETRY_AFTER },
      );
    }
    tokensInUse.add(claims.nonce);
    try {
      return await registerWith(res, claims, parsed);
    } finally {
      tokensInUse.delete(claims.nonce);
    }
  }

  function refuse(res: http.ServerResponse, err: unknown, uuid: string): void {
    if (!(err instanceof TokenRefused)) throw err;
    stats.refused++;
    log(`refused a registration of instance ${uuid}: token ${err.reason}`);
    return answer(res, STATUS_OF[err.reason], { error: REFUSAL_TEXT[err.reason], kind: "token" });
  }

  /** The registration of a token in use by this request alone. */
  async function registerWith(res: http.ServerResponse, claims: TokenClaims, parsed: RegisterRequest): Promise<void> {
    const { instance } = parsed;
    try {
      ledger.claim(claims, instance.uuid);
    } catch (err) {
      return refuse(res, err, instance.uuid);
    }
    // Who claimed the token is kept before the portal is asked: after a restart no other instance may take it.
    await store.save();
    const job = enqueue(async () => {
      const result = await registerInstance({
        found: {
          source: "network",
          location: "the instance (through the registration broker)",
          disabled: false,
          metadata: { ...instance, publicKeys: {}, sshKeys: [], keys: [], devices: [], dedicatedCpus: [] } as InstanceMetadata,
        },
        client: opts.client,
        nodePassword: parsed.nodePassword,
        rotatePassword: parsed.rotatePassword,
        dryRun: parsed.dryRun,
        optionFile: false,
        // The queue runs one registration at a time; a lock file in /run would outlive a killed broker and hold up
        // every registration of the business unit after its restart, the claimant's retry included.
        lockFile: false,
        cpuCount: () => parsed.cpuCount,
      });
      if (!parsed.dryRun) await spend(claims, instance.uuid);
      return result;
    });
    if (!job) {
      stats.busy++;
      return answer(res, 503, { error: "the broker is busy; try again shortly", kind: "busy" }, { "Retry-After": RETRY_AFTER });
    }
    let result: RegistrationResult;
    try {
      result = await job;
    } catch (err) {
      if (err instanceof RegistrationError) {
        log(`instance ${instance.uuid} (business unit ${claims.businessUnitId}): ${err.kind} error`);
        const status = err.kind === "configuration" || err.kind === "usage" ? 422 : 502;
        return answer(res, status, { error: err.message, kind: err.kind, problems: err.problems, done: err.done });
      }
      log(`instance ${instance.uuid}: internal error: ${err instanceof Error ? err.name : "unknown"}`);
      return answer(res, 500, { error: "internal error of the registration broker", kind: "internal" });
    }
    stats.registered++;
    log(`instance ${instance.uuid} (business unit ${claims.businessUnitId}): ${result.status} as ${result.tsmName}`);
    return answer(res, 200, { result: { ...result, credentialSources: {} } });
  }

  const server = http.createServer({ requestTimeout: 60_000, headersTimeout: 20_000 });
  server.on("request", (req: http.IncomingMessage, res: http.ServerResponse) => {
    const path = (req.url ?? "/").split("?")[0];
    if (path === HEALTH_PATH) {
      if (req.method !== "GET" && req.method !== "HEAD") return answer(res, 405, { error: "method not allowed" }, { Allow: "GET, HEAD" });
      return answer(res, 200, { status: "ok" });
    }
    if (path !== REGISTER_PATH) return answer(res, 404, { error: "not found" });
    if (req.method !== "POST") return answer(res, 405, { error: "method not allowed" }, { Allow: "POST" });
    register(req, res).catch(() => {
      if (!res.headersSent) answer(res, 500, { error: "internal error of the registration broker", kind: "internal" });
      else res.destroy();
    });
  });
  const host = opts.host ?? "127.0.0.1";
  const { port, url } = await listen(server, host, opts.port ?? 0);
  let closed: Promise<void> | undefined;
  return {
    url,
    port,
    stats,
    close() {
      closed ??= (async () => {
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        await Promise.allSettled([...inFlight]);
        server.closeAllConnections();
        await stopped;
      })();
      return closed;
    },
  };
}
