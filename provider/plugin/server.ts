// The ResourceProvider gRPC service of the `backupportal` plugin. Every resource
// method turns the engine's request into the call the dynamic provider host
// would make on the same lifecycle (provider/resources/*), and its answer back:
// the plugin has no rules of its own. What it adds is what only a native
// provider can do: configuration (CheckConfig, DiffConfig, Configure), a schema,
// detailed diffs, imports by id, secrets kept as secrets, and a component built
// from the stack's tenants (Construct: construct.ts).
import * as anyproto from "google-protobuf/google/protobuf/any_pb";
import * as emptyproto from "google-protobuf/google/protobuf/empty_pb";
import * as plugproto from "@pulumi/pulumi/proto/plugin_pb";
import * as provproto from "@pulumi/pulumi/proto/provider_pb";
import * as provrpc from "@pulumi/pulumi/proto/provider_grpc_pb";
import * as statusproto from "@pulumi/pulumi/proto/status_pb";
import { configure as configurePortal, resetConnection } from "../dynamic/connection";
import { PartialCreateError } from "../dynamic/partial";
import { createKeyFor } from "../dynamic/recovery";
import { sameValue, UNKNOWN } from "../dynamic/values";
import { checkConfig, configurationOf, diffConfig, lookup } from "./config";
import { packageSchema } from "./schema";
import { IMPORT_ID_RULE, inputKeys, PluginResource, resourceOf } from "./resources";
import { secretKeys as tableSecrets } from "../rules/resources";
import { fromWire, PropertyMap, toWire } from "./values";
import { GrpcStatus, STATUS, UnaryHandler, unaryServer } from "./grpc";
import { Answer, Call, GeneratedMethod, serializeWithMaps, withPropertyMapsService } from "./message-codec";
import { traced } from "./trace";
import { printableError } from "../text/controls";
import { stackHints } from "../portal/hints";
import { PACKAGE } from "./package";
import { constructHandler, constructMethod } from "./construct";

/** `urn:pulumi:<stack>::<project>::<type>::<name>` → its parts. */
function urnParts(urn: string): { stack: string; project: string; name: string } {
  const parts = urn.split("::");
  return { stack: parts[0].split(":").pop() ?? "", project: parts[1] ?? "", name: parts[parts.length - 1] ?? "" };
}

/** The error the engine shows; a create that made the object carries its id and properties (ErrorResourceInitFailed). */
function toStatus(e: unknown): GrpcStatus {
  const err = printableError(e) as Error & { id?: string; properties?: PropertyMap; reasons?: string[] };
  const message = err.message;
  if (!err?.id) return new GrpcStatus(STATUS.UNKNOWN, message);
  const detail = new provproto.ErrorResourceInitFailed();
  detail.setId(err.id);
  detail.setReasonsList(err.reasons ?? [message]);
  const any = new anyproto.Any();
  any.pack(serializeWithMaps(detail, { properties: err.properties ?? {} }, "ErrorResourceInitFailed"), "pulumirpc.ErrorResourceInitFailed");
  const status = new statusproto.Status();
  status.setCode(STATUS.UNKNOWN);
  status.setMessage(message);
  status.addDetails(any);
  return new GrpcStatus(STATUS.UNKNOWN, message, status.serializeBinary());
}

/** One unary handler: `run` answers, or its error goes back as the call's status. */
function unary(run: (call: Call) => Promise<Answer>): UnaryHandler {
  return (request) => run(request).catch((e) => Promise.reject(toStatus(e)));
}

function resourceFor(type: string, urn: string): PluginResource {
  const r = resourceOf(type || urn.split("::")[2]?.split("$").pop() || "");
  if (!r) throw new Error(`backupportal: unknown resource type ${type}`);
  return r;
}

/** Secrets of an answer: those of the request and those the resource's table marks (the node's passwords). */
function secretKeys(r: PluginResource, ...sets: Array<Set<string>>): Set<string> {
  const out = new Set<string>(tableSecrets(r.spec));
  for (const s of sets) for (const k of s) out.add(k);
  return out;
}

export interface ServerOptions {
  version: string;
  /** The engine's address, the plugin's first argument (Construct's runtime logs to it). */
  engine?: string;
  /** Called when the engine asks the plugin to stop (Cancel). */
  onCancel?: () => void;
}

export function providerService(opts: ServerOptions): Record<string, UnaryHandler> {
  let acceptSecrets = false;
  const wire = (m: PropertyMap, secrets: Set<string>) => (acceptSecrets ? toWire(m, secrets) : toWire(m, []));

  return {
    // Engines that call Handshake take the plugin's flags from its answer (and may skip Configure's).
    handshake: unary(async () => {
      const resp = new provproto.ProviderHandshakeResponse();
      resp.setAcceptSecrets(true);
      return { message: resp };
    }),
    getPluginInfo: unary(async () => {
      const info = new plugproto.PluginInfo();
      info.setVersion(opts.version);
      return { message: info };
    }),
    getSchema: unary(async () => {
      const resp = new provproto.GetSchemaResponse();
      resp.setSchema(JSON.stringify(await packageSchema(opts.version)));
      return { message: resp };
    }),
    checkConfig: unary(async ({ maps }) => {
      const news = fromWire(maps.news).props;
      const resp = new provproto.CheckResponse();
      for (const f of checkConfig(news)) {
        const failure = new provproto.CheckFailure();
        failure.setProperty(f.property);
        failure.setReason(f.reason);
        resp.addFailures(failure);
      }
      return { message: resp, maps: { inputs: maps.news } };
    }),
    diffConfig: unary(async ({ maps }) => {
      const olds = fromWire(maps.oldInputs ?? maps.olds).props;
      const news = fromWire(maps.news).props;
      const { changed, replaces } = diffConfig(olds, news);
      return { message: diffResponse(changed, replaces, false) };
    }),
    configure: unary(async ({ message: req, maps }: Call<provproto.ConfigureRequest>) => {
      const args = fromWire(maps.args).props;
      const variables: Array<[string, string]> = [];
      req.getVariablesMap().forEach((v: string, k: string) => variables.push([k, v]));
      resetConnection();
      configurePortal({ get: lookup(configurationOf(args, variables)) }, stackHints(PACKAGE));
      acceptSecrets = req.getAcceptsecrets();
      const resp = new provproto.ConfigureResponse();
      resp.setAcceptsecrets(true);
      resp.setSupportspreview(true);
      resp.setAcceptresources(false);
      resp.setAcceptoutputs(false);
      return { message: resp };
    }),
    check: unary(async ({ message: req, maps }: Call<provproto.CheckRequest>) => {
      const r = resourceFor(req.getType(), req.getUrn());
      const olds = fromWire(maps.olds);
      const news = fromWire(maps.news);
      // The dynamic resource classes add `createKey` at registration; here it is derived from the URN the same way.
      if (news.props.createKey === undefined) {
        const u = urnParts(req.getUrn());
        news.props.createKey = createKeyFor(r.spec.name, u.name, u.project, u.stack);
      }
      const result = await r.lifecycle.check(olds.props, news.props);
      const resp = new provproto.CheckResponse();
      for (const f of result.failures ?? []) {
        const failure = new provproto.CheckFailure();
        failure.setProperty(f.property);
        failure.setReason(f.reason);
        resp.addFailures(failure);
      }
      return { message: resp, maps: { inputs: wire(result.inputs ?? news.props, secretKeys(r, news.secrets)) } };
    }),
    diff: unary(async ({ message: req, maps }: Call<provproto.DiffRequest>) => {
      const r = resourceFor(req.getType(), req.getUrn());
      const olds = fromWire(maps.olds).props;
      const news = fromWire(maps.news).props;
      const result = await r.lifecycle.diff(req.getId(), olds, news);
      // The properties named: the inputs whose value changed, and whatever the lifecycle says replaces.
      const changed = inputKeys(r).filter((k) => !sameValue(olds[k], news[k]));
      const replaces = result.replaces ?? [];
      for (const k of replaces) if (!changed.includes(k)) changed.push(k);
      const some = result.changes ?? changed.length > 0;
      return { message: diffResponse(some ? changed : [], replaces, !!result.deleteBeforeReplace, some) };
    }),
    create: unary(async ({ message: req, maps }: Call<provproto.CreateRequest>) => {
      const r = resourceFor(req.getType(), req.getUrn());
      const inputs = fromWire(maps.properties);
      const resp = new provproto.CreateResponse();
      if (req.getPreview()) {
        // A preview shows the inputs; the outputs are not known until the portal answers (so a program's
        // reference to one, `${acme.businessUnitId}`, is unknown rather than missing).
        const outs: PropertyMap = { ...inputs.props };
        for (const key of Object.keys(r.spec.outputs)) outs[key] ??= UNKNOWN;
        return { message: resp, maps: { properties: wire(outs, secretKeys(r, inputs.secrets)) } };
      }
      const result = await r.lifecycle.create(inputs.props).catch((e: unknown) => {
        // A create that made the object (PartialCreateError): the engine records these properties in state, so
        // they go as an answer's would, secrets wrapped.
        if (!(e instanceof PartialCreateError)) throw e;
        throw Object.assign(new Error(e.message), {
          id: e.id,
          reasons: e.reasons,
          properties: wire(e.properties, secretKeys(r, inputs.secrets)),
        });
      });
      resp.setId(result.id);
      return { message: resp, maps: { properties: wire(result.outs ?? {}, secretKeys(r, inputs.secrets)) } };
    }),
    read: unary(async ({ message: req, maps }: Call<provproto.ReadRequest>) => {
      const r = resourceFor(req.getType(), req.getUrn());
      let id = req.getId();
      const state = fromWire(maps.properties);
      const inputs = fromWire(maps.inputs);
      // An import: only the id is known. It names the object and the ids the portal addresses it under.
      if (Object.keys(state.props).length === 0) {
        const parsed = r.importId.parse(id);
        if (!parsed)
          throw new Error(`backupportal: cannot import ${r.spec.name} "${id}": give the id as ${r.importId.form}, ${IMPORT_ID_RULE}`);
        id = parsed.id;
        // Every input counts as declared, so Read reports each one the portal holds (values.ts withPortalValues).
        for (const k of inputKeys(r)) state.props[k] = null;
        Object.assign(state.props, parsed.props);
      }
      const result = await r.lifecycle.read(id, state.props);
      const resp = new provproto.ReadResponse();
      resp.setId(result.id ?? "");
      if (!result.id) return { message: resp };
      const secrets = secretKeys(r, state.secrets, inputs.secrets);
      const properties = wire(result.props ?? {}, secrets);
      return { message: resp, maps: { properties, inputs: result.inputs && wire(result.inputs, secrets) } };
    }),
    update: unary(async ({ message: req, maps }: Call<provproto.UpdateRequest>) => {
      const r = resourceFor(req.getType(), req.getUrn());
      const olds = fromWire(maps.olds);
      const news = fromWire(maps.news);
      const resp = new provproto.UpdateResponse();
      if (req.getPreview())
        return { message: resp, maps: { properties: wire({ ...olds.props, ...news.props }, secretKeys(r, news.secrets)) } };
      const result = await r.lifecycle.update(req.getId(), olds.props, news.props);
      return { message: resp, maps: { properties: wire(result.outs ?? {}, secretKeys(r, olds.secrets, news.secrets)) } };
    }),
    delete: unary(async ({ message: req, maps }: Call<provproto.DeleteRequest>) => {
      const r = resourceFor(req.getType(), req.getUrn());
      await r.lifecycle.delete(req.getId(), fromWire(maps.properties).props);
      return { message: new emptyproto.Empty() };
    }),
    cancel: unary(async () => {
      opts.onCancel?.();
      return { message: new emptyproto.Empty() };
    }),
    attach: unary(async () => ({ message: new emptyproto.Empty() })),
  };
}

function diffResponse(
  changed: string[],
  replaces: string[],
  deleteBeforeReplace: boolean,
  some = changed.length > 0,
): provproto.DiffResponse {
  const resp = new provproto.DiffResponse();
  const C = provproto.DiffResponse.DiffChanges;
  resp.setChanges(some ? C.DIFF_SOME : C.DIFF_NONE);
  resp.setReplacesList(replaces);
  resp.setDiffsList(changed);
  resp.setDeletebeforereplace(deleteBeforeReplace);
  resp.setHasdetaileddiff(true);
  const K = provproto.PropertyDiff.Kind;
  const detailed = resp.getDetaileddiffMap();
  for (const k of changed) {
    const d = new provproto.PropertyDiff();
    d.setKind(replaces.includes(k) ? K.UPDATE_REPLACE : K.UPDATE);
    detailed.set(k, d);
  }
  return resp;
}

/** Serves the provider on 127.0.0.1 and resolves the port (the plugin prints it for the engine). */
export async function serve(opts: ServerOptions): Promise<{ port: number; shutdown(): Promise<void> }> {
  const service = withPropertyMapsService(provrpc.ResourceProviderService as unknown as Record<string, GeneratedMethod>);
  // BACKUPPORTAL_TRACE_FILE set: each call is also appended to that file, secrets masked (trace.ts). Construct is
  // served by the SDK's provider server, which reads and writes its messages whole (construct.ts).
  const server = unaryServer(
    { ...service, construct: constructMethod },
    { ...traced(providerService(opts)), construct: constructHandler(opts.engine) },
  );
  return { port: await server.listen(), shutdown: () => server.shutdown() };
}
