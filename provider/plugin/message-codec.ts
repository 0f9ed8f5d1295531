// The plugin's messages on the wire. The generated classes of `@pulumi/pulumi/proto` read and write every
// field except the property maps (google.protobuf.Struct: a resource's inputs, state, news and olds), which
// struct-wire.ts reads and writes straight from and to the bytes. Those maps are most of every Check, Diff
// and Create, and google-protobuf builds a message object per value to code them (docs/benchmark.md).
//
// Which fields are property maps is not listed here: it is read from the generated classes themselves
// (structFields), so a field a newer SDK adds is coded too.
import * as structproto from "google-protobuf/google/protobuf/struct_pb";
import type { UnaryMethod } from "./grpc";
import { splitStructFields, withStructFields, type StructMap } from "./struct-wire";

/** The property maps of a message, by field name (`news`, `oldInputs`); a field the message does not carry is undefined. */
export type PropertyMaps = Record<string, StructMap | undefined>;

/** A request as a handler gets it: the generated message without its property maps, and the maps. */
export interface Call<M = any> {
  message: M;
  maps: PropertyMaps;
}

/** An answer as a handler gives it: the generated message, and the property maps to add to it. */
export interface Answer<M = any> {
  message: M;
  maps?: PropertyMaps;
}

interface Message {
  serializeBinary(): Uint8Array;
  [accessor: string]: any;
}

export interface GeneratedClass {
  new (): Message;
  deserializeBinary(bytes: Uint8Array): Message;
}

/** A method of a generated service definition (grpc-tools' `*_grpc_pb.js`). */
export interface GeneratedMethod extends UnaryMethod {
  requestType: GeneratedClass;
  responseType: GeneratedClass;
}

/** A message field holding an empty Struct is its tag (a varint) and length 0: the tag's field number, if so. */
function lengthDelimitedField(bytes: Uint8Array): number | undefined {
  let tag = 0;
  let i = 0;
  for (; i < 5 && i < bytes.length; i++) {
    tag |= (bytes[i] & 0x7f) << (7 * i);
    if (bytes[i] < 0x80) break;
  }
  const isLen = (tag & 7) === 2 && bytes.length === i + 2 && bytes[i + 1] === 0;
  return isLen ? tag >>> 3 : undefined;
}

const cache = new Map<GeneratedClass, Array<[name: string, field: number]>>();

/**
 * The Struct fields of a generated message class, by name and field number: each `setX` that takes a Struct,
 * serializes it as a message field, and reads it back as a Struct. A setter of any other type fails one of those.
 */
export function structFields(type: GeneratedClass): Array<[name: string, field: number]> {
  const known = cache.get(type);
  if (known) return known;
  const found: Array<[string, number]> = [];
  const fresh = new type();
  for (const setter of Object.getOwnPropertyNames(type.prototype)) {
    const getter = `get${setter.slice(3)}`;
    if (!/^set[A-Z]/.test(setter) || typeof type.prototype[getter] !== "function") continue;
    // An unset message field reads as undefined; a scalar or list reads as its default: no need to try those.
    if (fresh[getter]() != null) continue;
    try {
      const message = new type();
      message[setter](new structproto.Struct());
      const bytes = message.serializeBinary();
      const field = lengthDelimitedField(bytes);
      if (field !== undefined && type.deserializeBinary(bytes)[getter]() instanceof structproto.Struct)
        found.push([setter[3].toLowerCase() + setter.slice(4), field]);
    } catch {
      // A message field of another type: its writer or reader may refuse a Struct.
    }
  }
  cache.set(type, found);
  return found;
}

/** One method whose requests arrive as a Call and whose answers go out from an Answer. */
export function withPropertyMaps(method: GeneratedMethod): UnaryMethod<Call, Answer> {
  const request = structFields(method.requestType);
  const numbers = request.map(([, field]) => field);
  return {
    path: method.path,
    requestStream: method.requestStream,
    responseStream: method.responseStream,
    requestDeserialize(bytes: Buffer): Call {
      if (numbers.length === 0) return { message: method.requestDeserialize(bytes), maps: {} };
      const { rest, structs } = splitStructFields(bytes, numbers);
      const maps: PropertyMaps = {};
      for (const [name, field] of request) maps[name] = structs.get(field);
      return { message: method.requestDeserialize(rest), maps };
    },
    responseSerialize: (answer: Answer) =>
      withMaps(method.responseSerialize(answer.message), method.responseType, answer.maps, `the answer of ${method.path}`),
  };
}

/** Every method of a generated service, coded with withPropertyMaps: what the plugin's server serves. */
export function withPropertyMapsService(service: Record<string, GeneratedMethod>): Record<string, UnaryMethod<Call, Answer>> {
  const out: Record<string, UnaryMethod<Call, Answer>> = {};
  for (const [name, method] of Object.entries(service)) out[name] = withPropertyMaps(method);
  return out;
}

/** A message's bytes with its property maps added; a map the message has no field for is a mistake, not dropped. */
function withMaps(base: Uint8Array, type: GeneratedClass, maps: PropertyMaps | undefined, what: string): Buffer {
  const fields = structFields(type);
  for (const name of Object.keys(maps ?? {})) if (!fields.some(([n]) => n === name)) throw new Error(`${what} has no property map ${name}`);
  return withStructFields(
    base,
    fields.map(([name, field]) => [field, maps?.[name]]),
  );
}

/** A generated message with property maps, coded as an answer is (a status's details); `what` names it in an error. */
export function serializeWithMaps(message: Message, maps: PropertyMaps, what: string): Buffer {
  return withMaps(message.serializeBinary(), message.constructor as GeneratedClass, maps, what);
}
