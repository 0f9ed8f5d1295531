// Unary gRPC over Node's own HTTP/2 server: all the plugin needs of gRPC. The engine calls a provider with
// unary methods only (the streaming ones, StreamInvoke among them, are answered as unimplemented). A call
// is one POST to `/<service>/<Method>` whose body is one message framed as 1 byte (0: not compressed) +
// 4 bytes big-endian length + the message; the answer is the same frame, then trailers with
// `grpc-status` (0 = OK) and, on an error, `grpc-message` (percent-encoded) and `grpc-status-details-bin`
// (a google.rpc.Status, base64). An error before any message is a "trailers-only" answer: the status in
// the headers. This is the whole protocol of a unary call (gRPC's PROTOCOL-HTTP2.md).
//
// Why not @grpc/grpc-js's server: the engine checks and diffs one resource at a time, so each call's cost
// adds up along the deployment's critical path, and grpc-js's per-call machinery (interceptors, channelz,
// metadata objects, stream decoders) cost more CPU than the provider's own work (docs/benchmark.md).
import * as http2 from "http2";

export const STATUS = { OK: 0, UNKNOWN: 2, RESOURCE_EXHAUSTED: 8, UNIMPLEMENTED: 12, INTERNAL: 13 } as const;

/** A failed call's status, as a handler throws it (any other error is UNKNOWN with its message). */
export class GrpcStatus extends Error {
  constructor(
    readonly code: number,
    message: string,
    /** A serialized google.rpc.Status with details, sent as `grpc-status-details-bin`. */
    readonly details?: Uint8Array,
  ) {
    super(message);
  }
}

/** One unary method: its path and how its messages are (de)serialized, as the generated service definitions say. */
export interface UnaryMethod<Req = unknown, Resp = unknown> {
  path: string;
  requestStream: boolean;
  responseStream: boolean;
  requestDeserialize(bytes: Buffer): Req;
  responseSerialize(message: Resp): Buffer;
}

export type UnaryHandler = (request: any) => Promise<unknown>;

/** The largest request accepted: the engine's own limit for a provider's messages (rpcutil: 400 MiB). */
export const MAX_REQUEST_BYTES = 400 * 1024 * 1024;

/** grpc-message: bytes outside printable ASCII, and `%`, percent-encoded. */
export function percentEncoded(text: string): string {
  let out = "";
  for (const byte of Buffer.from(text, "utf8")) {
    out +=
      byte >= 0x20 && byte <= 0x7e && byte !== 0x25 ? String.fromCharCode(byte) : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

function frame(message: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(5 + message.length);
  out[0] = 0;
  out.writeUInt32BE(message.length, 1);
  out.set(message, 5);
  return out;
}

/** The request's one message, or the status that refuses the body. */
function unframe(body: Buffer): Buffer | GrpcStatus {
  if (body.length < 5) return new GrpcStatus(STATUS.INTERNAL, `request body of ${body.length} bytes holds no message frame`);
  if (body[0] !== 0) return new GrpcStatus(STATUS.UNIMPLEMENTED, "compressed messages are not supported: send them uncompressed");
  const length = body.readUInt32BE(1);
  if (body.length !== 5 + length)
    return new GrpcStatus(STATUS.INTERNAL, `request frame says ${length} bytes, the body holds ${body.length - 5}`);
  return body.subarray(5);
}

function statusHeaders(status: GrpcStatus): http2.OutgoingHttpHeaders {
  const h: http2.OutgoingHttpHeaders = { "grpc-status": String(status.code), "grpc-message": percentEncoded(status.message) };
  if (status.details) h["grpc-status-details-bin"] = Buffer.from(status.details).toString("base64");
  return h;
}

function asStatus(e: unknown): GrpcStatus {
  if (e instanceof GrpcStatus) return e;
  return new GrpcStatus(STATUS.UNKNOWN, e instanceof Error ? e.message : String(e));
}

/** An error answer with no message: the status in the response headers, and the stream ended. */
function trailersOnly(stream: http2.ServerHttp2Stream, status: GrpcStatus): void {
  if (stream.destroyed || stream.closed || stream.headersSent) return;
  stream.respond({ ":status": 200, "content-type": "application/grpc", ...statusHeaders(status) }, { endStream: true });
}

function answer(stream: http2.ServerHttp2Stream, message: Buffer): void {
  if (stream.destroyed || stream.closed || stream.headersSent) return;
  stream.respond({ ":status": 200, "content-type": "application/grpc" }, { waitForTrailers: true });
  stream.once("wantTrailers", () => stream.sendTrailers({ "grpc-status": String(STATUS.OK), "grpc-message": "" }));
  stream.end(frame(message));
}

export interface UnaryServer {
  /** Listens on 127.0.0.1 on a free port and resolves it. */
  listen(): Promise<number>;
  /** Stops accepting connections and closes the open ones once their calls are answered (grpc-js's tryShutdown). */
  shutdown(): Promise<void>;
}

/**
 * An HTTP/2 server that answers the unary methods of `service` with `handlers` (keyed as the service
 * definition is: `check`, `diff`, ...); a method without a handler, a streaming one, or an unknown path is
 * answered UNIMPLEMENTED.
 */
export function unaryServer(service: Record<string, UnaryMethod>, handlers: Record<string, UnaryHandler>): UnaryServer {
  const routes = new Map<string, { method: UnaryMethod; handler: UnaryHandler }>();
  for (const [name, method] of Object.entries(service)) {
    const handler = handlers[name] as UnaryHandler | undefined;
    if (handler && !method.requestStream && !method.responseStream) routes.set(method.path, { method, handler });
  }
  const server = http2.createServer();
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on("session", (session) => {
    sessions.add(session);
    session.once("close", () => sessions.delete(session));
  });
  // A connection the engine drops (a cancelled deployment) must not take the plugin down.
  server.on("sessionError", () => undefined);
  server.on("stream", (stream, headers) => {
    stream.on("error", () => undefined);
    const path = String(headers[":path"] ?? "");
    const contentType = String(headers["content-type"] ?? "");
    if (headers[":method"] !== "POST" || !contentType.startsWith("application/grpc")) {
      // Not a gRPC call at all: plain HTTP's answer.
      if (!stream.headersSent) stream.respond({ ":status": 415 }, { endStream: true });
      return;
    }
    const route = routes.get(path);
    const chunks: Buffer[] = [];
    let size = 0;
    let refused = false;
    stream.on("data", (chunk: Buffer) => {
      if (refused) return;
      size += chunk.length;
      if (size > MAX_REQUEST_BYTES + 5) {
        refused = true;
        trailersOnly(stream, new GrpcStatus(STATUS.RESOURCE_EXHAUSTED, `request larger than ${MAX_REQUEST_BYTES} bytes`));
        return;
      }
      chunks.push(chunk);
    });
    stream.on("end", () => {
      if (refused) return;
      if (!route) return trailersOnly(stream, new GrpcStatus(STATUS.UNIMPLEMENTED, `unknown method ${path}`));
      const body = unframe(Buffer.concat(chunks, size));
      if (body instanceof GrpcStatus) return trailersOnly(stream, body);
      let request: unknown;
      try {
        request = route.method.requestDeserialize(body);
      } catch (e) {
        return trailersOnly(stream, new GrpcStatus(STATUS.INTERNAL, `cannot decode the request: ${(e as Error).message}`));
      }
      route.handler(request).then(
        (response) => {
          let bytes: Buffer;
          try {
            bytes = route.method.responseSerialize(response);
          } catch (e) {
            return trailersOnly(stream, new GrpcStatus(STATUS.INTERNAL, `cannot encode the answer: ${(e as Error).message}`));
          }
          answer(stream, bytes);
        },
        (e) => trailersOnly(stream, asStatus(e)),
      );
    });
  });
  return {
    listen: () =>
      new Promise((resolve, reject) => {
        server.once("error", reject);
        server.listen(0, "127.0.0.1", () => {
          server.off("error", reject);
          resolve((server.address() as { port: number }).port);
        });
      }),
    shutdown: () =>
      new Promise((resolve) => {
        for (const s of sessions) s.close();
        server.close(() => resolve());
      }),
  };
}
