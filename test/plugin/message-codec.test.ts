// The plugin's message codec (provider/plugin/message-codec.ts): which fields are property maps is read from
// the generated classes, and the bytes it reads and writes are those the generated classes read and write.
import assert from "node:assert/strict";
import * as fs from "fs";
import * as structproto from "google-protobuf/google/protobuf/struct_pb";
import * as provproto from "@pulumi/pulumi/proto/provider_pb";
import * as provrpc from "@pulumi/pulumi/proto/provider_grpc_pb";
import { GeneratedClass, GeneratedMethod, serializeWithMaps, structFields, withPropertyMaps } from "../../provider/plugin/message-codec";

const SERVICE = provrpc.ResourceProviderService as unknown as Record<string, GeneratedMethod>;
/** A generated class's name (the classes themselves are anonymous functions). */
const nameOf = (type: GeneratedClass) => Object.entries(provproto).find(([, c]) => c === type)?.[0] ?? "(not in provider_pb)";
const struct = (m: Record<string, unknown>) => structproto.Struct.fromJavaScript(m as Record<string, structproto.JavaScriptValue>);

/** The Struct-typed setters of a class as the SDK's type declarations list them: a second reading of the same .proto. */
function declaredStructFields(className: string): string[] {
  const dts = fs.readFileSync(require.resolve("@pulumi/pulumi/proto/provider_pb.d.ts"), "utf8");
  const body = new RegExp(`export class ${className} extends jspb\\.Message \\{([\\s\\S]*?)\\n\\}`).exec(dts)?.[1] ?? "";
  return [...body.matchAll(/ set(\w+)\(value\?: google_protobuf_struct_pb\.Struct\)/g)].map((m) => m[1][0].toLowerCase() + m[1].slice(1));
}

describe("plugin: messages with their property maps coded apart (message-codec.ts)", () => {
  it("finds every Struct field of every request and answer of the service, by name and number", () => {
    let seen = 0;
    for (const method of Object.values(SERVICE)) {
      for (const type of [method.requestType, method.responseType]) {
        const fields = structFields(type);
        assert.deepEqual(
          fields.map(([name]) => name).sort(),
          declaredStructFields(nameOf(type)).sort(),
          `${nameOf(type)}: the Struct fields its declarations list`,
        );
        // Each number is the field's: a map written under it is what the generated getter reads.
        for (const [name, field] of fields) {
          const bytes = serializeWithMaps(new type(), { [name]: { field: name } }, nameOf(type));
          const getter = `get${name[0].toUpperCase()}${name.slice(1)}`;
          assert.deepEqual(
            type.deserializeBinary(bytes)[getter]().toJavaScript(),
            { field: name },
            `${nameOf(type)}.${name} is field ${field}`,
          );
          seen++;
        }
      }
    }
    assert.ok(seen >= 20, `only ${seen} Struct fields found in the service`);
  });

  it("hands a handler the request's maps and the rest of the message as the generated class reads it", () => {
    const check = withPropertyMaps(SERVICE.check);
    const req = new provproto.CheckRequest();
    req.setUrn("urn:pulumi:s::p::backupportal:index:BusinessUnit::acme");
    req.setRandomseed(Buffer.from([1, 2, 3]));
    req.setNews(struct({ name: "Acme", nested: { list: [1, "two", null, true] } }));
    req.setOlds(struct({}));
    const call = check.requestDeserialize(Buffer.from(req.serializeBinary()));
    assert.deepEqual(call.maps, { olds: {}, news: { name: "Acme", nested: { list: [1, "two", null, true] } }, oldOutputs: undefined });
    const message = call.message as provproto.CheckRequest;
    assert.equal(message.getUrn(), req.getUrn());
    assert.deepEqual([...message.getRandomseed_asU8()], [1, 2, 3]);
    assert.equal(message.hasNews(), false, "the maps are not decoded twice");
  });

  it("writes an answer's maps where the generated class reads them, and refuses a map the answer has no field for", () => {
    const read = withPropertyMaps(SERVICE.read);
    const resp = new provproto.ReadResponse();
    resp.setId("42");
    const bytes = read.responseSerialize({ message: resp, maps: { properties: { name: "Acme" }, inputs: undefined } });
    const decoded = provproto.ReadResponse.deserializeBinary(bytes);
    assert.equal(decoded.getId(), "42");
    assert.deepEqual(decoded.getProperties()?.toJavaScript(), { name: "Acme" });
    assert.equal(decoded.hasInputs(), false, "an undefined map is left out");
    assert.throws(
      () => read.responseSerialize({ message: resp, maps: { input: {} } }),
      /the answer of \/pulumirpc.ResourceProvider\/Read has no property map input/,
    );
    // An answer without maps is the generated class's bytes.
    assert.deepEqual([...read.responseSerialize({ message: resp })], [...resp.serializeBinary()]);
  });

  it("codes a status detail's maps the same way (ErrorResourceInitFailed)", () => {
    const detail = new provproto.ErrorResourceInitFailed();
    detail.setId("7");
    detail.setReasonsList(["the portal refused the activation"]);
    const decoded = provproto.ErrorResourceInitFailed.deserializeBinary(
      serializeWithMaps(detail, { properties: { nodeId: 7 } }, "ErrorResourceInitFailed"),
    );
    assert.equal(decoded.getId(), "7");
    assert.deepEqual(decoded.getProperties()?.toJavaScript(), { nodeId: 7 });
    assert.deepEqual(decoded.getReasonsList(), ["the portal refused the activation"]);
  });

  it("takes no scalar, list or other message field for a Struct", () => {
    // ConfigureRequest: strings, booleans, a map of strings and one Struct (args).
    assert.deepEqual(
      structFields(provproto.ConfigureRequest as unknown as GeneratedClass).map(([n]) => n),
      ["args"],
    );
    // CheckResponse: a repeated message field (failures) beside its Struct.
    assert.deepEqual(
      structFields(provproto.CheckResponse as unknown as GeneratedClass).map(([n]) => n),
      ["inputs"],
    );
  });
});
