// The HTTP side: reads requests, applies faults, authenticates, routes to the
// portal (/v1) or control (/_emulator) handlers, writes the answer, keeps the
// request log, and persists the state after each change.
import * as http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import type { App, Reply } from "./context";
import type { RequestLogEntry } from "./types";
import { Ctx } from "./context";
import { ApiError, faultError, notFound } from "./errors";
import { Faults, type FaultPlan } from "./faults";
import { authenticate } from "./auth";
import { Router } from "./router";
import { portalRouter } from "./routes";
import { controlRouter } from "./control";
import { sleep } from "./util";
import { describeRequest, type RequestDetails } from "./request-details";

export const MAX_BODY_BYTES = 20 * 1024 * 1024;

function errorReply(err: ApiError): Reply {
  return { status: err.status, json: err.body(), headers: err.headers };
}

function readBody(req: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY_BYTES) tooLarge = true;
      else chunks.push(c);
    });
    req.on("end", () => {
      if (tooLarge) reject(new ApiError(413, "PayloadTooLarge", `The body is larger than ${MAX_BODY_BYTES} bytes`));
      else resolve(Buffer.concat(chunks));
    });
    req.on("error", reject);
    req.on("aborted", () => reject(new Error("request aborted")));
  });
}

function send(res: http.ServerResponse, reply: Reply): void {
  if (res.destroyed || res.headersSent) return;
  const headers: Record<string, string | number> = { ...(reply.headers ?? {}) };
  if (reply.text !== undefined && reply.status !== 204) {
    const text = Buffer.from(reply.text, "utf8");
    res.writeHead(reply.status, { ...headers, "Content-Type": "text/plain; charset=utf-8", "Content-Length": text.length });
    res.end(text);
    return;
  }
  if (reply.json === undefined || reply.status === 204) {
    res.writeHead(reply.status, headers);
    res.end();
    return;
  }
  const body = Buffer.from(JSON.stringify(reply.json), "utf8");
  headers["Content-Type"] = "application/json; charset=utf-8";
  headers["Content-Length"] = body.length;
  res.writeHead(reply.status, headers);
  res.end(body);
}

export class PortalServer {
  readonly faults = new Faults();
  readonly http: http.Server;
  private log: RequestLogEntry[] = [];
  /** The same requests with their headers and bodies (secrets replaced), for `requestDetails()`. */
  private details: RequestDetails[] = [];
  private readonly api: Router = portalRouter();
  private readonly control: Router;
  private readonly sockets = new Set<Socket>();
  private closed = false;
  private fallbackBase = "http://127.0.0.1";

  constructor(readonly app: App) {
    this.control = controlRouter(this);
    this.http = http.createServer((req, res) => {
      this.handle(req, res).catch((err: unknown) => {
        this.warn(`unexpected error: ${(err as Error)?.stack ?? String(err)}`);
        if (!res.headersSent) send(res, errorReply(new ApiError(500, "InternalError", "An internal error occurred")));
      });
    });
    this.http.on("connection", (s: Socket) => {
      this.sockets.add(s);
      s.on("close", () => this.sockets.delete(s));
    });
  }

  listen(port: number): Promise<string> {
    return new Promise((resolve, reject) => {
      this.http.once("error", reject);
      this.http.listen(port, "127.0.0.1", () => {
        this.http.off("error", reject);
        const addr = this.http.address() as AddressInfo;
        this.fallbackBase = `http://127.0.0.1:${addr.port}`;
        resolve(this.fallbackBase);
      });
    });
  }

  close(): Promise<void> {
    this.closed = true;
    return new Promise((resolve) => {
      if (!this.http.listening) {
        resolve();
        return;
      }
      this.http.close(() => resolve());
      this.http.closeAllConnections();
      for (const s of this.sockets) s.destroy();
    });
  }

  requests(): RequestLogEntry[] {
    return this.log.map((e) => ({ ...e }));
  }

  requestDetails(): RequestDetails[] {
    return structuredClone(this.details);
  }

  clearRequests(): void {
    this.log = [];
    this.details = [];
  }

  reset(): void {
    this.app.store.reset();
    this.log = [];
    this.details = [];
    this.faults.clear();
  }

  private warn(message: string): void {
    if (!this.app.quiet) process.stderr.write(`portal emulator: ${message}\n`);
  }

  private baseUrl(req: http.IncomingMessage): string {
    const host = req.headers.host;
    return host && /^[A-Za-z0-9.\-:[\]]+$/.test(host) ? `http://${host}` : this.fallbackBase;
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const receivedAt = Date.now();
    const method = (req.method ?? "GET").toUpperCase();
    const rawUrl = req.url ?? "/";
    let url: URL;
    try {
      url = new URL(rawUrl, "http://emulator.invalid");
    } catch {
      send(res, errorReply(new ApiError(400, "ValidationFailed", "The request URL is not valid")));
      return;
    }
    const path = url.pathname;

    if (path === "/_emulator" || path.startsWith("/_emulator/")) {
      const body = await readBody(req).catch((err: unknown) => err);
      if (!Buffer.isBuffer(body)) {
        if (body instanceof ApiError) send(res, errorReply(body));
        else req.socket.destroy();
        return;
      }
      send(res, await this.dispatch(this.control, new Ctx(this.app, method, url, req.headers, body, this.baseUrl(req)), false));
      return;
    }

    if (path !== "/v1" && !path.startsWith("/v1/")) {
      send(res, errorReply(notFound(`${path}`)));
      return;
    }

    // A /v1 request: faults, then the portal, and a line in the request log.
    const plan: FaultPlan | undefined = this.faults.plan(method, path);
    // Read the body while the latency runs: a client that hangs up after sending
    // its request still gets it processed, as a real server would.
    const bodyRead = readBody(req).catch((err: unknown) => err);
    if (plan && plan.latencyMs > 0) await sleep(plan.latencyMs);
    if (this.closed) {
      req.socket.destroy();
      return;
    }
    let received: Buffer | undefined;
    const record = (status: number, answerType?: string): void => {
      const entry = { method, path: rawUrl, status };
      this.log.push(entry);
      this.details.push({ ...describeRequest(entry, req.headers, received), ...(answerType ? { answerType } : {}) });
    };
    if (plan?.dropBefore) {
      record(0);
      req.socket.destroy();
      return;
    }
    const body = await bodyRead;
    if (Buffer.isBuffer(body)) received = body;
    if (!Buffer.isBuffer(body)) {
      if (body instanceof ApiError) {
        res.setHeader("Connection", "close");
        send(res, errorReply(body));
        record(body.status);
      } else {
        record(0);
        req.socket.destroy();
      }
      return;
    }
    let reply: Reply;
    if (this.app.readOnly && method !== "GET" && path !== "/v1/oauth") {
      reply = errorReply(new ApiError(403, "ReadOnly", `This emulator is read-only: ${method} ${path} refused`));
    } else if (plan?.errorStatus) {
      reply = errorReply(faultError(plan.errorStatus, plan.retryAfterSeconds));
    } else {
      reply = await this.dispatch(this.api, new Ctx(this.app, method, url, req.headers, body, this.baseUrl(req), receivedAt), true);
    }
    if (plan?.dropAfter) {
      record(0);
      req.socket.destroy();
      return;
    }
    if (res.destroyed || req.socket.destroyed) {
      record(0);
      return;
    }
    send(res, reply);
    record(
      reply.status,
      reply.status === 204
        ? undefined
        : reply.text !== undefined
          ? "text/plain"
          : reply.json !== undefined
            ? "application/json"
            : undefined,
    );
  }

  private async dispatch(router: Router, ctx: Ctx, portal: boolean): Promise<Reply> {
    try {
      const m = router.match(ctx.method, ctx.url.pathname);
      if (m.kind === "found") {
        if (portal) authenticate(ctx, m.auth);
        ctx.params = m.params;
        return await m.handler(ctx);
      }
      if (portal) authenticate(ctx, true);
      if (m.kind === "method") {
        const err = new ApiError(
          405,
          "MethodNotAllowed",
          `${ctx.method} is not allowed on ${ctx.url.pathname}`,
          `${ctx.method} is not allowed on ${ctx.url.pathname}; allowed: ${m.allowed.join(", ")}`,
          { Allow: m.allowed.join(", ") },
        );
        return errorReply(err);
      }
      return errorReply(notFound(`The endpoint ${ctx.method} ${ctx.url.pathname}`));
    } catch (err) {
      if (err instanceof ApiError) return errorReply(err);
      this.warn(`handler error on ${ctx.method} ${ctx.url.pathname}: ${(err as Error)?.stack ?? String(err)}`);
      return errorReply(new ApiError(500, "InternalError", "An internal error occurred"));
    } finally {
      // Persist whatever the request changed (even when the answer is then dropped).
      try {
        if (portal && ctx.method !== "GET") this.app.store.changed();
        this.app.store.flush();
      } catch (err) {
        this.warn(`could not write the data file: ${(err as Error).message}`);
      }
    }
  }
}
