/** TEST: every message the stand-in sends or reads, checked with the generated classes of @pulumi/pulumi/proto. */
import * as assert from "assert";
import * as structproto from "google-protobuf/google/protobuf/struct_pb";
import * as provproto from "@pulumi/pulumi/proto/provider_pb";
import {
  checkRequest,
  checkResponse,
  configureRequest,
  createRequest,
  createResponse,
  deleteRequest,
  diffRequest,
  readRequest,
  readResponse,
  updateRequest,
  updateResponse,
} from "./messages";

const URN = "urn:pulumi:dev::backup-portal::parent$pulumi-nodejs:dynamic:Node::t0/c0/node";
const A = { name: "a", __provider: "exports.handler = ...".repeat(100), nested: { list: [1, null, true] } };
const B = { name: "b", cpuCount: 4 };
const C = { id: "17", tsmName: "T0-C0" };

const js = (s: structproto.Struct | undefined) => s?.toJavaScript();
const struct = (m: Record<string, unknown>) => structproto.Struct.fromJavaScript(m as Record<string, structproto.JavaScriptValue>);

/** The fields every resource call carries: urn, and name and type taken from it. */
function assertTarget(req: { getUrn(): string; getName(): string; getType(): string }): void {
  assert.strictEqual(req.getUrn(), URN);
  assert.strictEqual(req.getName(), "t0/c0/node");
  assert.strictEqual(req.getType(), "pulumi-nodejs:dynamic:Node");
}

describe("engine stand-in: ResourceProvider messages (messages.ts)", () => {
  it("Check: urn, name, type, olds, news", () => {
    const req = provproto.CheckRequest.deserializeBinary(checkRequest(URN, A, B));
    assertTarget(req);
    assert.deepStrictEqual(js(req.getOlds()), A);
    assert.deepStrictEqual(js(req.getNews()), B);
  });

  it("Configure: args, the legacy variables and the flags the engine sends", () => {
    const req = provproto.ConfigureRequest.deserializeBinary(
      configureRequest(B, { "pulumi-nodejs:config:backup-portal:url": "https://x" }),
    );
    assert.deepStrictEqual(js(req.getArgs()), B);
    assert.deepStrictEqual(req.getVariablesMap().toObject(), [["pulumi-nodejs:config:backup-portal:url", "https://x"]]);
    assert.deepStrictEqual(
      [req.getAcceptsecrets(), req.getAcceptresources(), req.getSendsOldInputs(), req.getSendsOldInputsToDelete()],
      [true, true, true, true],
    );
  });

  it("Diff: id, urn, name, type, olds, news, old inputs", () => {
    const req = provproto.DiffRequest.deserializeBinary(diffRequest("17", URN, A, B, C));
    assertTarget(req);
    assert.strictEqual(req.getId(), "17");
    assert.deepStrictEqual([js(req.getOlds()), js(req.getNews()), js(req.getOldInputs())], [A, B, C]);
  });

  it("Create: urn, name, type, properties, preview", () => {
    const req = provproto.CreateRequest.deserializeBinary(createRequest(URN, A, true));
    assertTarget(req);
    assert.deepStrictEqual(js(req.getProperties()), A);
    assert.strictEqual(req.getPreview(), true);
  });

  it("Read: id, urn, name, type, properties, and inputs only when given", () => {
    const withInputs = provproto.ReadRequest.deserializeBinary(readRequest("17", URN, A, B));
    assertTarget(withInputs);
    assert.strictEqual(withInputs.getId(), "17");
    assert.deepStrictEqual([js(withInputs.getProperties()), js(withInputs.getInputs())], [A, B]);
    assert.strictEqual(provproto.ReadRequest.deserializeBinary(readRequest("17", URN, A, undefined)).hasInputs(), false);
  });

  it("Update: id, urn, name, type, olds, news, old inputs", () => {
    const req = provproto.UpdateRequest.deserializeBinary(updateRequest("17", URN, A, B, C));
    assertTarget(req);
    assert.strictEqual(req.getId(), "17");
    assert.deepStrictEqual([js(req.getOlds()), js(req.getNews()), js(req.getOldInputs())], [A, B, C]);
  });

  it("Delete: id, urn, name, type, properties, old inputs", () => {
    const req = provproto.DeleteRequest.deserializeBinary(deleteRequest("17", URN, A, C));
    assertTarget(req);
    assert.strictEqual(req.getId(), "17");
    assert.deepStrictEqual([js(req.getProperties()), js(req.getOldInputs())], [A, C]);
  });

  it("reads the answers the generated classes write", () => {
    const check = new provproto.CheckResponse();
    check.setInputs(struct(A));
    const failure = new provproto.CheckFailure();
    failure.setProperty("cpuCount");
    failure.setReason("must be a whole number");
    check.setFailuresList([failure]);
    assert.deepStrictEqual(checkResponse(check.serializeBinary()), {
      inputs: A,
      failures: [{ property: "cpuCount", reason: "must be a whole number" }],
    });
    assert.deepStrictEqual(checkResponse(new provproto.CheckResponse().serializeBinary()), { inputs: {}, failures: [] });

    const create = new provproto.CreateResponse();
    create.setId("42");
    create.setProperties(struct(B));
    assert.deepStrictEqual(createResponse(create.serializeBinary()), { id: "42", properties: B });

    const read = new provproto.ReadResponse();
    read.setId("42");
    read.setProperties(struct(A));
    assert.deepStrictEqual(readResponse(read.serializeBinary()), { id: "42", properties: A });
    read.setInputs(struct({}));
    assert.deepStrictEqual(readResponse(read.serializeBinary()), { id: "42", properties: A, inputs: {} });

    const update = new provproto.UpdateResponse();
    update.setProperties(struct(C));
    assert.deepStrictEqual(updateResponse(update.serializeBinary()), { properties: C });
  });
});
