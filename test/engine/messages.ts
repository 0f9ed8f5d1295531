/**
 * TEST CODE — part of the stand-in for the Pulumi engine (see host.ts): the ResourceProvider messages it
 * sends and the answers it reads, as bytes. Scalar fields go through the generated classes of
 * `@pulumi/pulumi/proto`; the Struct fields (the property maps, in wire form from values.ts toWireMap) are
 * written and read by struct-wire.ts, as the Go engine marshals them itself. Field numbers are those of
 * proto/pulumi/provider.proto (pulumi/pulumi); test/engine/messages.test.ts decodes every message with the
 * generated classes. `name` and `type` are filled from the URN, as the engine does.
 */
import * as provproto from "@pulumi/pulumi/proto/provider_pb";
import { splitStructFields, withStructFields } from "../../provider/plugin/struct-wire";
import type { PropertyMap } from "./values";

function urnName(urn: string): string {
  return urn.split("::").pop() ?? "";
}
function urnType(urn: string): string {
  const parts = urn.split("::");
  const qualified = parts[2] ?? "";
  return qualified.split("$").pop() ?? "";
}

/** The message's scalar fields, then its Struct fields; an undefined map leaves its field out. */
function withStructs(msg: { serializeBinary(): Uint8Array }, structs: Array<[field: number, map: PropertyMap | undefined]>): Uint8Array {
  return withStructFields(msg.serializeBinary(), structs);
}

/** A request about one resource: its URN, and the name and type the engine derives from it. */
function addressed<R extends { setUrn(v: string): unknown; setName(v: string): unknown; setType(v: string): unknown }>(
  req: R,
  urn: string,
): R {
  req.setUrn(urn);
  req.setName(urnName(urn));
  req.setType(urnType(urn));
  return req;
}

/** CheckRequest: urn 1, olds 2, news 3, name 6, type 7. Also CheckConfig's. */
export function checkRequest(urn: string, olds: PropertyMap, news: PropertyMap): Uint8Array {
  const req = addressed(new provproto.CheckRequest(), urn);
  return withStructs(req, [
    [2, olds],
    [3, news],
  ]);
}

/** ConfigureRequest: variables 1 (the legacy `<pkg>:config:<key>` map), args 2, then the flags. */
export function configureRequest(args: PropertyMap, variables: Record<string, string>, acceptSecrets = true): Uint8Array {
  const req = new provproto.ConfigureRequest();
  for (const [k, v] of Object.entries(variables)) req.getVariablesMap().set(k, v);
  req.setAcceptsecrets(acceptSecrets);
  req.setAcceptresources(true);
  req.setSendsOldInputs(true);
  req.setSendsOldInputsToDelete(true);
  return withStructs(req, [[2, args]]);
}

/** DiffRequest: id 1, urn 2, olds 3, news 4, old_inputs 6, name 7, type 8. */
export function diffRequest(id: string, urn: string, olds: PropertyMap, news: PropertyMap, oldInputs: PropertyMap): Uint8Array {
  const req = addressed(new provproto.DiffRequest(), urn);
  req.setId(id);
  return withStructs(req, [
    [3, olds],
    [4, news],
    [6, oldInputs],
  ]);
}

/** CreateRequest: urn 1, properties 2, preview 4, name 5, type 6. */
export function createRequest(urn: string, props: PropertyMap, preview: boolean): Uint8Array {
  const req = addressed(new provproto.CreateRequest(), urn);
  req.setPreview(preview);
  return withStructs(req, [[2, props]]);
}

/** ReadRequest: id 1, urn 2, properties 3, inputs 4 (absent when not given), name 5, type 6. */
export function readRequest(id: string, urn: string, props: PropertyMap, inputs: PropertyMap | undefined): Uint8Array {
  const req = addressed(new provproto.ReadRequest(), urn);
  req.setId(id);
  return withStructs(req, [
    [3, props],
    [4, inputs],
  ]);
}

/** UpdateRequest: id 1, urn 2, olds 3, news 4, old_inputs 8, name 9, type 10. */
export function updateRequest(
  id: string,
  urn: string,
  olds: PropertyMap,
  news: PropertyMap,
  oldInputs: PropertyMap,
  preview = false,
): Uint8Array {
  const req = addressed(new provproto.UpdateRequest(), urn);
  req.setId(id);
  req.setPreview(preview);
  return withStructs(req, [
    [3, olds],
    [4, news],
    [8, oldInputs],
  ]);
}

/** DeleteRequest: id 1, urn 2, properties 3, old_inputs 5, name 6, type 7. */
export function deleteRequest(id: string, urn: string, props: PropertyMap, oldInputs: PropertyMap): Uint8Array {
  const req = addressed(new provproto.DeleteRequest(), urn);
  req.setId(id);
  return withStructs(req, [
    [3, props],
    [5, oldInputs],
  ]);
}

/** CheckResponse: inputs 1, failures 2. */
export function checkResponse(bytes: Uint8Array): { inputs: PropertyMap; failures: Array<{ property: string; reason: string }> } {
  const { rest, structs } = splitStructFields(bytes, [1]);
  const resp = provproto.CheckResponse.deserializeBinary(rest);
  return {
    inputs: structs.get(1) ?? {},
    failures: resp.getFailuresList().map((f) => ({ property: f.getProperty(), reason: f.getReason() })),
  };
}

/** CreateResponse: id 1, properties 2. */
export function createResponse(bytes: Uint8Array): { id: string; properties: PropertyMap } {
  const { rest, structs } = splitStructFields(bytes, [2]);
  return { id: provproto.CreateResponse.deserializeBinary(rest).getId(), properties: structs.get(2) ?? {} };
}

/** ReadResponse: id 1, properties 2, inputs 3 (only when the provider returned them). */
export function readResponse(bytes: Uint8Array): { id: string; properties: PropertyMap; inputs?: PropertyMap } {
  const { rest, structs } = splitStructFields(bytes, [2, 3]);
  const result: { id: string; properties: PropertyMap; inputs?: PropertyMap } = {
    id: provproto.ReadResponse.deserializeBinary(rest).getId(),
    properties: structs.get(2) ?? {},
  };
  const inputs = structs.get(3);
  if (inputs) result.inputs = inputs;
  return result;
}

/** UpdateResponse: properties 1. */
export function updateResponse(bytes: Uint8Array): { properties: PropertyMap } {
  return { properties: splitStructFields(bytes, [1]).structs.get(1) ?? {} };
}
