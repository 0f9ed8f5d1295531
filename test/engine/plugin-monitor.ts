/**
 * TEST CODE — the engine's resource monitor for a program whose resources belong to a resource plugin (the
 * stand-in for a `pulumi up` of a program using a generated SDK): the program, run through
 * `@pulumi/pulumi/cmd/run`, registers over gRPC, and each registration of the plugin's package goes to a real
 * plugin process. Read from pulumi/pulumi v3.265:
 *
 *  monitor    pkg/resource/deploy/source_eval.go (resmon): RegisterResource answers urn, id and the outputs;
 *             ReadResource (a resource constructed with `opts.id`, the SDK's static `get`) reads; the root
 *             stack's RegisterResourceOutputs are the stack outputs. Features claimed: secrets only.
 *  providers  deploy/providers/registry.go: a `pulumi:providers:<pkg>` resource is a plugin instance of its
 *             own: CheckConfig(news), DiffConfig(old inputs, news) when it exists, Configure(inputs); its id
 *             is a new UUID, kept while DiffConfig reports no replacement. The request's `version` is put in
 *             its inputs (providers.SetProviderVersion). A resource names its provider as `<urn>::<id>`; the
 *             default provider (a resource without one) is not modelled: such a registration is refused.
 *  steps      step_generator.go: Check(olds = old inputs | {}, news); new → Create; else Diff(id, old
 *             outputs, news): none → same (old outputs kept), some → Update. Outputs re-marked secret by the
 *             engine (annotateSecrets and additionalSecretOutputs). Replacement is not modelled (refused).
 *  deletes    step.go DeleteStep, at the end of the deployment: resources in state not registered, in reverse
 *             registration order, each with the provider that manages it (configured from the provider's
 *             inputs in state when the program no longer declares it); `get` resources are never deleted.
 *             `destroy` is the same with nothing registered (the program does not run).
 * State lives in the caller's `PluginState` across deployments; each deployment launches its own plugins and
 * stops them at the end, as the engine's plugin host does.
 */
import { randomUUID } from "node:crypto";
import { annotateSecrets, isSecret, PropertyMap, secret } from "./values";

import { fromSdk, grpc, programSide } from "./program-side";

const resrpc = require("@pulumi/pulumi/proto/resource_grpc_pb");
const resproto = require("@pulumi/pulumi/proto/resource_pb");
const { Struct } = fromSdk("google-protobuf/google/protobuf/struct_pb");

/** What the engine calls on a resource plugin (test/plugin/plugin.ts drives the real process). */
export interface ResourcePlugin {
  checkConfig(news: PropertyMap): Promise<{ inputs: PropertyMap; failures: Array<{ property: string; reason: string }> }>;
  diffConfig(olds: PropertyMap, news: PropertyMap): Promise<{ changes: string; replaces: string[] }>;
  configure(args: PropertyMap): Promise<unknown>;
  check(
    urn: string,
    olds: PropertyMap,
    news: PropertyMap,
  ): Promise<{ inputs: PropertyMap; failures: Array<{ property: string; reason: string }> }>;
  diff(id: string, urn: string, olds: PropertyMap, news: PropertyMap): Promise<{ changes: string; replaces: string[] }>;
  create(urn: string, props: PropertyMap): Promise<{ id: string; properties: PropertyMap }>;
  read(id: string, urn: string, props: PropertyMap): Promise<{ id: string; properties: PropertyMap }>;
  update(id: string, urn: string, olds: PropertyMap, news: PropertyMap): Promise<{ properties: PropertyMap }>;
  delete(id: string, urn: string, props: PropertyMap): Promise<void>;
  close(): Promise<void>;
}

export interface StateEntry {
  urn: string;
  type: string;
  id: string;
  inputs: PropertyMap;
  outputs: PropertyMap;
  /** `<provider urn>::<provider id>` of a resource of the package. */
  provider?: string;
  /** Read with `get`: never created, updated or deleted. */
  external?: boolean;
}
/** The stack's state: entries in registration order. */
export type PluginState = Map<string, StateEntry>;

export interface Step {
  urn: string;
  op: "create" | "update" | "same" | "read" | "delete";
}

/** The resource options a registration carried to the engine (the SDK's generated classes set them). */
export interface Registration {
  urn: string;
  type: string;
  version: string;
  replaceOnChanges: string[];
  additionalSecretOutputs: string[];
}

export interface PluginMonitorOptions {
  project: string;
  stack: string;
  /** The plugin's package: `pulumi:providers:<pkg>` and `<pkg>:*` types go to its plugin. */
  pkg: string;
  launch: () => Promise<ResourcePlugin>;
  state: PluginState;
}

export interface PluginDeployment {
  /** For both `--monitor` and `--engine`. */
  address: string;
  steps: Step[];
  registrations: Registration[];
  logs: string[];
  stackOutputs: PropertyMap | undefined;
  /** Deletes what the program did not register, stops the plugins and the server. */
  finish(): Promise<void>;
}

const isProviderType = (pkg: string, type: string) => type === `pulumi:providers:${pkg}`;

/** The deployment's plugin instances: one per provider resource, launched on first use. */
class Providers {
  private readonly live = new Map<string, Promise<ResourcePlugin>>();
  constructor(private readonly o: PluginMonitorOptions) {}

  /** registry.go: CheckConfig, DiffConfig against the state, Configure; returns the provider's id and inputs. */
  async register(urn: string, news: PropertyMap): Promise<{ id: string; inputs: PropertyMap }> {
    const plugin = this.o.launch();
    this.live.set(urn, plugin);
    const p = await plugin;
    const checked = await p.checkConfig(news);
    if (checked.failures.length > 0) throw new Error(checked.failures.map((f) => `${f.property}: ${f.reason}`).join("\n"));
    const inputs = annotateSecrets(checked.inputs, news);
    const old = this.o.state.get(urn);
    let id: string = randomUUID();
    if (old) {
      const diff = await p.diffConfig(old.inputs, inputs);
      if (diff.replaces.length > 0) throw new Error(`${urn}: replacing a provider is not modelled by this stand-in`);
      id = old.id;
    }
    await p.configure(inputs);
    return { id, inputs };
  }

  /** The plugin of a provider reference, configured from the state when this deployment did not register it. */
  async of(ref: string): Promise<{ ref: string; plugin: ResourcePlugin }> {
    const urn = ref.slice(0, ref.lastIndexOf("::"));
    if (!this.live.has(urn)) {
      const stored = this.o.state.get(urn);
      if (!stored) throw new Error(`provider ${ref} is neither registered nor in the state`);
      const plugin = this.o.launch();
      this.live.set(urn, plugin);
      await (await plugin).configure(stored.inputs);
    }
    return { ref, plugin: await this.live.get(urn)! };
  }

  async close(): Promise<void> {
    const all = [...this.live.values()];
    this.live.clear();
    await Promise.all(all.map(async (p) => (await p).close()));
  }
}

function explicitProvider(urn: string, ref: string): string {
  if (!ref) throw new Error(`${urn}: no explicit provider; the default provider is not modelled by this stand-in`);
  return ref;
}

/** The engine's re-marking of a provider's results as secret. */
function finalize(outputs: PropertyMap, inputs: PropertyMap, additionalSecretOutputs: string[]): PropertyMap {
  const outs = annotateSecrets(outputs, inputs);
  for (const k of additionalSecretOutputs) if (k in outs && !isSecret(outs[k])) outs[k] = secret(outs[k]);
  return outs;
}

const struct = (m: PropertyMap) => Struct.fromJavaScript(JSON.parse(JSON.stringify(m)));

/** step.go DeleteStep: the resources of `state` not in `registered`, in reverse order, each with its provider. */
async function deleteGone(o: PluginMonitorOptions, providers: Providers, registered: Set<string>, steps: Step[]): Promise<void> {
  const gone = [...o.state.values()].filter((r) => !registered.has(r.urn)).reverse();
  for (const r of gone) {
    if (isProviderType(o.pkg, r.type)) continue;
    if (!r.external) {
      const { plugin } = await providers.of(r.provider!);
      await plugin.delete(r.id, r.urn, r.outputs);
      steps.push({ urn: r.urn, op: "delete" });
    }
    o.state.delete(r.urn);
  }
  // Providers last, once nothing in state refers to them.
  for (const r of gone) {
    if (isProviderType(o.pkg, r.type) && ![...o.state.values()].some((x) => x.provider?.startsWith(`${r.urn}::`))) o.state.delete(r.urn);
  }
}

/** `pulumi destroy`: every resource deleted with the provider configuration in state; the program does not run. */
export async function destroy(o: PluginMonitorOptions): Promise<Step[]> {
  const providers = new Providers(o);
  const steps: Step[] = [];
  try {
    await deleteGone(o, providers, new Set(), steps);
  } finally {
    await providers.close();
  }
  return steps;
}

/** Serves a resource monitor and engine on loopback for one deployment (`pulumi up`) of a program. */
export async function startPluginDeployment(o: PluginMonitorOptions): Promise<PluginDeployment> {
  const providers = new Providers(o);
  const steps: Step[] = [];
  const registrations: Registration[] = [];
  const program = programSide(o.project, o.stack);
  const { logs, urnOf } = program;
  const registered = new Set<string>();

  async function registerResource(req: any): Promise<{ urn: string; id: string; outputs: PropertyMap }> {
    const type: string = req.getType();
    const urn = urnOf(type, req.getName(), req.getParent());
    if (registered.has(urn)) throw new Error(`Duplicate resource URN '${urn}'`);
    registered.add(urn);
    registrations.push({
      urn,
      type,
      version: req.getVersion(),
      replaceOnChanges: req.getReplaceonchangesList(),
      additionalSecretOutputs: req.getAdditionalsecretoutputsList(),
    });
    const news: PropertyMap = req.getObject()?.toJavaScript() ?? {};
    if (!req.getCustom() || type === "pulumi:pulumi:Stack") return { urn, id: "", outputs: {} };
    if (isProviderType(o.pkg, type)) {
      if (req.getVersion()) news.version = req.getVersion();
      const { id, inputs } = await providers.register(urn, news);
      o.state.set(urn, { urn, type, id, inputs, outputs: inputs });
      return { urn, id, outputs: inputs };
    }
    if (!type.startsWith(`${o.pkg}:`)) throw new Error(`${urn}: only ${o.pkg} resources are routed by this stand-in`);
    const { ref, plugin } = await providers.of(explicitProvider(urn, req.getProvider()));
    const old = o.state.get(urn);
    const checked = await plugin.check(urn, old ? old.inputs : {}, news);
    if (checked.failures.length > 0) throw new Error(checked.failures.map((f) => `${f.property}: ${f.reason}`).join("\n"));
    const inputs = annotateSecrets(checked.inputs, news);
    const secrets: string[] = req.getAdditionalsecretoutputsList();
    if (old && old.provider !== ref) throw new Error(`${urn}: a change of provider replaces; not modelled by this stand-in`);
    if (!old) {
      const created = await plugin.create(urn, inputs);
      const outputs = finalize(created.properties, inputs, secrets);
      o.state.set(urn, { urn, type, id: created.id, inputs, outputs, provider: ref });
      steps.push({ urn, op: "create" });
      return { urn, id: created.id, outputs };
    }
    const diff = await plugin.diff(old.id, urn, old.outputs, inputs);
    if (diff.changes === "none") {
      o.state.set(urn, { ...old, inputs });
      steps.push({ urn, op: "same" });
      return { urn, id: old.id, outputs: old.outputs };
    }
    if (diff.replaces.length > 0) throw new Error(`${urn}: a replacement (${diff.replaces.join(", ")}) is not modelled by this stand-in`);
    const updated = await plugin.update(old.id, urn, old.outputs, inputs);
    const outputs = finalize(updated.properties, inputs, secrets);
    o.state.set(urn, { ...old, inputs, outputs });
    steps.push({ urn, op: "update" });
    return { urn, id: old.id, outputs };
  }

  async function readResource(req: any): Promise<{ urn: string; outputs: PropertyMap }> {
    const type: string = req.getType();
    const urn = urnOf(type, req.getName(), req.getParent());
    registered.add(urn);
    if (!type.startsWith(`${o.pkg}:`)) throw new Error(`${urn}: only ${o.pkg} resources are routed by this stand-in`);
    const { ref, plugin } = await providers.of(explicitProvider(urn, req.getProvider()));
    const props: PropertyMap = req.getProperties()?.toJavaScript() ?? {};
    const read = await plugin.read(req.getId(), urn, props);
    if (!read.id) throw new Error(`resource '${req.getId()}' does not exist`);
    const outputs = finalize(read.properties, props, req.getAdditionalsecretoutputsList());
    o.state.set(urn, { urn, type, id: read.id, inputs: props, outputs, provider: ref, external: true });
    steps.push({ urn, op: "read" });
    return { urn, outputs };
  }

  /** A gRPC handler answering from an async function; an error becomes the call's error, as the engine's does. */
  const handle =
    <T>(work: (req: any) => Promise<T>, respond: (r: T) => unknown) =>
    (call: any, cb: any) => {
      work(call.request).then(
        (r) => cb(null, respond(r)),
        (e: Error) => {
          logs.push(`ERROR: ${e.message}`);
          cb({ code: grpc.status.UNKNOWN, details: e.message });
        },
      );
    };

  const server = new grpc.Server();
  server.addService(resrpc.ResourceMonitorService, {
    supportsFeature(call: any, cb: any) {
      const resp = new resproto.SupportsFeatureResponse();
      resp.setHassupport(call.request.getId() === "secrets");
      cb(null, resp);
    },
    registerResource: handle(registerResource, (r) => {
      const resp = new resproto.RegisterResourceResponse();
      resp.setUrn(r.urn);
      resp.setId(r.id);
      resp.setObject(struct(r.outputs));
      return resp;
    }),
    readResource: handle(readResource, (r) => {
      const resp = new resproto.ReadResourceResponse();
      resp.setUrn(r.urn);
      resp.setProperties(struct(r.outputs));
      return resp;
    }),
    registerResourceOutputs: program.registerResourceOutputs,
  });
  const address = await program.serve(server);
  return {
    address,
    steps,
    registrations,
    logs,
    get stackOutputs() {
      return program.stackOutputs as PropertyMap | undefined;
    },
    async finish() {
      try {
        if (!logs.some((l) => l.startsWith("ERROR:"))) await deleteGone(o, providers, registered, steps);
      } finally {
        await providers.close();
        await new Promise<void>((resolve) => server.tryShutdown(() => resolve()));
      }
    },
  };
}
