/**
 * TEST CODE — unary gRPC calls over one HTTP/2 connection, the way the engine's Go client puts them
 * on the wire: POST <service>/<method>, `content-type: application/grpc`, `te: trailers`, the message
 * framed as 1 byte (not compressed) + 4 bytes big-endian length + bytes; the answer's status in the
 * `grpc-status` / `grpc-message` / `grpc-status-details-bin` trailers (or headers, for a trailers-only
 * answer). Written out instead of @grpc/grpc-js's client because the stand-in shares the machine's two
 * cores with the host it drives: grpc-js's per-call machinery (interceptors, filters, metadata objects)
 * cost the engine side more CPU than the host's work itself (docs/benchmark.md).
 */
import * as http2 from "http2";

export const GRPC_STATUS = { OK: 0, UNKNOWN: 2, UNIMPLEMENTED: 12, UNAVAILABLE: 14 } as const;

/** A failed call: gRPC status code, message, and the binary status details when the server sent them. */
export class GrpcCallError extends Error {
  constructor(
    readonly code: number,
    readonly details: string,
    readonly statusDetails?: Buffer,
  ) {
    super(`${code} ${details}`);
    this.name = "GrpcCallError";
  }
}

function header(h: http2.IncomingHttpHeaders, key: string): string | undefined {
  const v = h[key];
  return Array.isArray(v) ? v[0] : v;
}

/** grpc-message is percent-encoded; a malformed sequence is kept as sent. */
function percentDecoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** Unframes the gRPC messages of a response body (unary: exactly one). */
function unframe(body: Buffer): Buffer {
  if (body.length < 5) throw new GrpcCallError(GRPC_STATUS.UNKNOWN, `response body of ${body.length} bytes has no message frame`);
  if (body[0] !== 0) throw new GrpcCallError(GRPC_STATUS.UNKNOWN, "compressed response messages are not supported");
  const length = body.readUInt32BE(1);
  if (body.length !== 5 + length)
    throw new GrpcCallError(GRPC_STATUS.UNKNOWN, `response frame says ${length} bytes, body holds ${body.length - 5}`);
  return body.subarray(5);
}

export class UnaryChannel {
  private session: http2.ClientHttp2Session | undefined;

  constructor(private readonly address: string) {}

  private connect(): http2.ClientHttp2Session {
    if (!this.session || this.session.closed || this.session.destroyed) {
      const session = http2.connect(`http://${this.address}`);
      // Errors surface on the streams; an unhandled 'error' event would crash the test process.
      session.on("error", () => undefined);
      this.session = session;
    }
    return this.session;
  }

  /** Sends one serialized request to `path` (e.g. "/pulumirpc.ResourceProvider/Check"); resolves the response bytes. */
  call(path: string, message: Uint8Array): Promise<Buffer> {
    return new Promise<Buffer>((resolve, reject) => {
      let stream: http2.ClientHttp2Stream;
      try {
        stream = this.connect().request({
          ":method": "POST",
          ":path": path,
          "content-type": "application/grpc",
          te: "trailers",
        });
      } catch (err) {
        reject(new GrpcCallError(GRPC_STATUS.UNAVAILABLE, (err as Error).message));
        return;
      }
      const chunks: Buffer[] = [];
      let headers: http2.IncomingHttpHeaders = {};
      let trailers: http2.IncomingHttpHeaders | undefined;
      let settled = false;
      const settle = (fn: () => void) => {
        if (!settled) {
          settled = true;
          fn();
        }
      };
      stream.on("response", (h) => (headers = h));
      stream.on("trailers", (t) => (trailers = t));
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("error", (err) => settle(() => reject(new GrpcCallError(GRPC_STATUS.UNAVAILABLE, err.message))));
      stream.on("close", () =>
        settle(() => {
          const status = header(trailers ?? {}, "grpc-status") ?? header(headers, "grpc-status");
          if (status === undefined) {
            reject(new GrpcCallError(GRPC_STATUS.UNAVAILABLE, `connection closed before a status (HTTP/2 code ${stream.rstCode})`));
            return;
          }
          const code = Number(status);
          if (code !== GRPC_STATUS.OK) {
            const source = trailers && header(trailers, "grpc-status") !== undefined ? trailers : headers;
            const message = percentDecoded(header(source, "grpc-message") ?? "");
            const details = header(source, "grpc-status-details-bin");
            reject(new GrpcCallError(code, message, details ? Buffer.from(details, "base64") : undefined));
            return;
          }
          try {
            resolve(unframe(Buffer.concat(chunks)));
          } catch (err) {
            reject(err);
          }
        }),
      );
      const frame = Buffer.allocUnsafe(5 + message.length);
      frame[0] = 0;
      frame.writeUInt32BE(message.length, 1);
      frame.set(message, 5);
      stream.end(frame);
    });
  }

  close(): void {
    this.session?.close();
    this.session = undefined;
  }
}
