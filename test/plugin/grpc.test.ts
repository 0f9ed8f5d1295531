// The plugin's unary gRPC server (provider/plugin/grpc.ts) against a client that is not ours: @grpc/grpc-js,
// a conformant gRPC implementation (the engine's is grpc-go). The plugin's other tests speak through the
// stand-in's own HTTP/2 client (test/engine/grpc-unary.ts), written the same way as the server; this file
// shows both agree with gRPC itself: answers, error statuses with their details, unimplemented and
// streaming methods, abandoned calls and shutdown.
import assert from "node:assert/strict";
import * as http2 from "http2";
import * as grpc from "@grpc/grpc-js";
import * as emptyproto from "google-protobuf/google/protobuf/empty_pb";
import * as structproto from "google-protobuf/google/protobuf/struct_pb";
import * as plugproto from "@pulumi/pulumi/proto/plugin_pb";
import * as provproto from "@pulumi/pulumi/proto/provider_pb";
import * as provrpc from "@pulumi/pulumi/proto/provider_grpc_pb";
import * as statusproto from "@pulumi/pulumi/proto/status_pb";
import { GrpcStatus, percentEncoded, STATUS, UnaryHandler, UnaryMethod, unaryServer, type UnaryServer } from "../../provider/plugin/grpc";

const SERVICE = provrpc.ResourceProviderService as unknown as Record<string, UnaryMethod>;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Client {
  [method: string]: any;
  close(): void;
}

/** A grpc-js client's call as a promise: the answer, or the ServiceError. */
function call<T>(client: Client, method: string, request: unknown, deadlineMs = 10_000): Promise<T> {
  return new Promise((resolve, reject) =>
    client[method](request, new grpc.Metadata(), { deadline: Date.now() + deadlineMs }, (err: grpc.ServiceError | null, resp: T) =>
      err ? reject(err) : resolve(resp),
    ),
  );
}

async function refused(p: Promise<unknown>): Promise<grpc.ServiceError> {
  try {
    await p;
  } catch (e) {
    return e as grpc.ServiceError;
  }
  assert.fail("the call succeeded");
}

/** A raw HTTP/2 POST: the answer's headers, trailers and body. */
function rawPost(port: number, headers: http2.OutgoingHttpHeaders, body: Buffer) {
  return new Promise<{ headers: http2.IncomingHttpHeaders; trailers: http2.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
    const session = http2.connect(`http://127.0.0.1:${port}`);
    session.on("error", reject);
    const stream = session.request({ ":method": "POST", ...headers });
    let h: http2.IncomingHttpHeaders = {};
    let t: http2.IncomingHttpHeaders = {};
    const chunks: Buffer[] = [];
    stream.on("response", (x) => (h = x));
    stream.on("trailers", (x) => (t = x));
    stream.on("data", (c: Buffer) => chunks.push(c));
    stream.on("error", reject);
    stream.on("close", () => {
      session.close();
      resolve({ headers: h, trailers: t, body: Buffer.concat(chunks) });
    });
    stream.end(body);
  });
}

const framed = (message: Uint8Array, compressed = 0) => {
  const out = Buffer.alloc(5 + message.length);
  out[0] = compressed;
  out.writeUInt32BE(message.length, 1);
  out.set(message, 5);
  return out;
};

describe("the plugin's gRPC server, called by grpc-js", function () {
  this.timeout(30_000);
  let server: UnaryServer;
  let port: number;
  let client: Client;
  let release: () => void = () => undefined;
  const handlers: Record<string, UnaryHandler> = {
    getPluginInfo: async () => {
      const info = new plugproto.PluginInfo();
      info.setVersion("9.8.7");
      return info;
    },
    // Echoes the request's news as its inputs, and refuses a URN that asks for an error.
    check: async (req: provproto.CheckRequest) => {
      const urn = req.getUrn();
      if (urn === "plain") throw new Error("an ordinary failure");
      if (urn === "status") {
        const status = new statusproto.Status();
        status.setCode(STATUS.UNKNOWN);
        status.setMessage("with details");
        throw new GrpcStatus(STATUS.UNKNOWN, "100% refused: Zürich\nsecond line", status.serializeBinary());
      }
      if (urn === "slow") await new Promise<void>((r) => (release = r));
      const resp = new provproto.CheckResponse();
      resp.setInputs(req.getNews());
      return resp;
    },
    // A streaming method with a handler is still not served: the server answers unary calls only.
    list: async () => new emptyproto.Empty(),
  };

  beforeEach(async () => {
    server = unaryServer(SERVICE, handlers);
    port = await server.listen();
    client = new (provrpc.ResourceProviderClient as any)(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  });
  afterEach(async () => {
    release();
    client.close();
    await server.shutdown();
  });

  const checkRequest = (urn: string, news: Record<string, unknown>) => {
    const req = new provproto.CheckRequest();
    req.setUrn(urn);
    req.setNews(structproto.Struct.fromJavaScript(news as Record<string, structproto.JavaScriptValue>));
    return req;
  };

  it("answers with the handler's message", async () => {
    const info = await call<plugproto.PluginInfo>(client, "getPluginInfo", new emptyproto.Empty());
    assert.equal(info.getVersion(), "9.8.7");
    const resp = await call<provproto.CheckResponse>(client, "check", checkRequest("urn:a", { name: "acme", tags: ["x"], n: 3 }));
    assert.deepEqual(resp.getInputs()?.toJavaScript(), { name: "acme", tags: ["x"], n: 3 });
  });

  it("an error keeps its code, its message (percent-encoded on the wire) and its status details", async () => {
    const plain = await refused(call(client, "check", checkRequest("plain", {})));
    assert.equal(plain.code, grpc.status.UNKNOWN);
    assert.equal(plain.details, "an ordinary failure");
    const err = await refused(call(client, "check", checkRequest("status", {})));
    assert.equal(err.code, grpc.status.UNKNOWN);
    assert.equal(err.details, "100% refused: Zürich\nsecond line");
    const bin = err.metadata.get("grpc-status-details-bin")[0] as Buffer;
    assert.equal(statusproto.Status.deserializeBinary(bin).getMessage(), "with details");
    assert.equal(percentEncoded("100% ä\n"), "100%25 %C3%A4%0A");
  });

  it("a method without a handler, and a streaming one, are unimplemented; the server goes on serving", async () => {
    const invoke = await refused(call(client, "invoke", new provproto.InvokeRequest()));
    assert.equal(invoke.code, grpc.status.UNIMPLEMENTED);
    assert.match(invoke.details, /unknown method \/pulumirpc\.ResourceProvider\/Invoke/);
    const stream = client.list(new provproto.ListRequest());
    const streamErr = await new Promise<grpc.ServiceError>((resolve) => {
      stream.on("error", resolve);
      stream.on("data", () => undefined);
    });
    assert.equal(streamErr.code, grpc.status.UNIMPLEMENTED);
    assert.equal((await call<plugproto.PluginInfo>(client, "getPluginInfo", new emptyproto.Empty())).getVersion(), "9.8.7");
  });

  it("refuses what is not a plain gRPC call: another content type, a compressed message, a cut frame", async () => {
    const path = "/pulumirpc.ResourceProvider/GetPluginInfo";
    const json = await rawPost(port, { ":path": path, "content-type": "application/json" }, Buffer.from("{}"));
    assert.equal(json.headers[":status"], 415);
    const compressed = await rawPost(port, { ":path": path, "content-type": "application/grpc" }, framed(Buffer.alloc(0), 1));
    assert.equal(compressed.headers["grpc-status"], String(STATUS.UNIMPLEMENTED));
    const cut = await rawPost(port, { ":path": path, "content-type": "application/grpc" }, framed(Buffer.from([1, 2, 3])).subarray(0, 6));
    assert.equal(cut.headers["grpc-status"], String(STATUS.INTERNAL));
    assert.match(decodeURIComponent(String(cut.headers["grpc-message"])), /frame says 3 bytes, the body holds 1/);
    const ok = await rawPost(port, { ":path": path, "content-type": "application/grpc" }, framed(new emptyproto.Empty().serializeBinary()));
    assert.equal(ok.headers["content-type"], "application/grpc");
    assert.equal(ok.trailers["grpc-status"], "0");
    assert.equal(plugproto.PluginInfo.deserializeBinary(ok.body.subarray(5)).getVersion(), "9.8.7");
  });

  it("a call the client abandons does not stop the server", async () => {
    const abandoned = await refused(call(client, "check", checkRequest("slow", {}), 100));
    assert.equal(abandoned.code, grpc.status.DEADLINE_EXCEEDED);
    release();
    await sleep(50);
    const resp = await call<provproto.CheckResponse>(client, "check", checkRequest("urn:b", { k: "v" }));
    assert.deepEqual(resp.getInputs()?.toJavaScript(), { k: "v" });
  });

  it("shutdown answers the call in flight, then takes no new connection", async () => {
    const inFlight = call<provproto.CheckResponse>(client, "check", checkRequest("slow", { k: 1 }));
    await sleep(100);
    const stopped = server.shutdown();
    release();
    assert.deepEqual((await inFlight).getInputs()?.toJavaScript(), { k: 1 });
    await stopped;
    const other = new (provrpc.ResourceProviderClient as any)(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
    try {
      const err = await refused(call(other, "getPluginInfo", new emptyproto.Empty(), 1000));
      assert.ok([grpc.status.UNAVAILABLE, grpc.status.DEADLINE_EXCEEDED].includes(err.code), `code ${err.code}`);
    } finally {
      other.close();
    }
  });
});
