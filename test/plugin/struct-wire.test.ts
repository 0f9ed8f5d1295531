/** TEST: the Struct codec of the plugin and the engine stand-in against google-protobuf's, byte for byte in both directions. */
import * as assert from "assert";
import fc from "fast-check";
import * as structproto from "google-protobuf/google/protobuf/struct_pb";
import * as provproto from "@pulumi/pulumi/proto/provider_pb";
import { decodeStruct, encodeStruct, splitStructFields, StructMap, withStructFields } from "../../provider/plugin/struct-wire";

type JsValue = structproto.JavaScriptValue;

/** Every value a Struct holds: any code point (no lone surrogates: protobuf strings are UTF-8), nesting, -0. */
const { map: structArb } = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.string({ unit: "binary" }),
    fc.array(tie("value"), { maxLength: 4 }),
    tie("map"),
  ),
  map: fc.dictionary(
    fc.string({ unit: "binary" }).filter((k) => k !== "__proto__"),
    tie("value"),
    { maxKeys: 5, noNullPrototype: true },
  ),
}));

const theirs = (m: StructMap) => Buffer.from(structproto.Struct.fromJavaScript(m as Record<string, JsValue>).serializeBinary());
const readByThem = (b: Uint8Array) => structproto.Struct.deserializeBinary(b).toJavaScript();

const EXAMPLES: StructMap[] = [
  {},
  { empty: "", zero: 0, negativeZero: -0, no: false, nothing: null, list: [], struct: {} },
  { nested: { deeper: { list: [1, "two", [3, { four: 4 }], null, true] } } },
  { "ключ ✓": "värde 😀 ∑", "": "empty key" },
  // Lengths that need 2 and 3 bytes of varint, like the 2.6 KB `__provider`.
  { __provider: "x".repeat(2600), big: "é".repeat(70_000) },
  { small: 1e-300, large: -1.7976931348623157e308, int: 2 ** 53 },
];

describe("plugin and engine stand-in: Struct on the wire (struct-wire.ts)", () => {
  it("writes what google-protobuf reads", () => {
    for (const m of EXAMPLES) assert.deepStrictEqual(readByThem(encodeStruct(m)), m);
    fc.assert(
      fc.property(structArb, (m) => assert.deepStrictEqual(readByThem(encodeStruct(m as StructMap)), m)),
      { numRuns: 300 },
    );
  });

  it("reads what google-protobuf writes", () => {
    for (const m of EXAMPLES) assert.deepStrictEqual(decodeStruct(theirs(m)), m);
    fc.assert(
      fc.property(structArb, (m) => assert.deepStrictEqual(decodeStruct(theirs(m as StructMap)), m)),
      { numRuns: 300 },
    );
  });

  it("writes the same bytes as google-protobuf for a map in insertion order", () => {
    const m = { a: "x".repeat(200), b: [1, true, null], c: { d: "é" } };
    assert.deepStrictEqual(encodeStruct(m), theirs(m));
  });

  it("skips fields it does not know, as a protobuf reader must", () => {
    // An unknown varint field (9), fixed32 (10) and length-delimited field (11) inside the Struct.
    const unknown = Buffer.from([(9 << 3) | 0, 0x96, 0x01, (10 << 3) | 5, 1, 2, 3, 4, (11 << 3) | 2, 2, 0xaa, 0xbb]);
    const bytes = Buffer.concat([theirs({ a: "b" }), unknown, theirs({ c: 1 })]);
    assert.deepStrictEqual(decodeStruct(bytes), { a: "b", c: 1 });
  });

  it("refuses a truncated message instead of reading past it", () => {
    const bytes = theirs({ key: "a value long enough" });
    assert.throws(() => decodeStruct(bytes.subarray(0, bytes.length - 3)), /struct-wire/);
  });

  it("adds Struct fields to a message and splits them off again, the other fields untouched", () => {
    const req = new provproto.CheckResponse();
    const failure = new provproto.CheckFailure();
    failure.setProperty("name");
    failure.setReason("is required");
    req.setFailuresList([failure]);
    const inputs = { name: "x", __provider: "p".repeat(3000) };
    const bytes = withStructFields(req.serializeBinary(), [
      [1, inputs],
      [3, undefined],
    ]);
    const decoded = provproto.CheckResponse.deserializeBinary(bytes);
    assert.deepStrictEqual(decoded.getInputs()?.toJavaScript(), inputs);
    assert.deepStrictEqual(decoded.getFailuresList()[0].toObject(), { property: "name", reason: "is required" });

    const { rest, structs } = splitStructFields(bytes, [1]);
    assert.deepStrictEqual(structs.get(1), inputs);
    const others = provproto.CheckResponse.deserializeBinary(rest);
    assert.strictEqual(others.hasInputs(), false);
    assert.deepStrictEqual(others.getFailuresList()[0].toObject(), { property: "name", reason: "is required" });
  });

  it("sends an empty map as a present, empty Struct and leaves an undefined one out", () => {
    const bytes = withStructFields(new provproto.ReadRequest().serializeBinary(), [
      [3, {}],
      [4, undefined],
    ]);
    const req = provproto.ReadRequest.deserializeBinary(bytes);
    assert.strictEqual(req.hasProperties(), true);
    assert.deepStrictEqual(req.getProperties()?.toJavaScript(), {});
    assert.strictEqual(req.hasInputs(), false);
  });
});

describe("plugin: Struct on the wire refuses what a Struct cannot hold", () => {
  it("names the type instead of writing a corrupt message, as google-protobuf refuses it", () => {
    for (const bad of [undefined, () => 1, Symbol("s"), BigInt(1)]) {
      assert.throws(
        () => encodeStruct({ nested: { bad } } as unknown as StructMap),
        /struct-wire: a Struct cannot hold (undefined|function|symbol|bigint)/,
      );
      assert.throws(() => theirs({ nested: { bad } } as unknown as StructMap));
    }
  });
});
