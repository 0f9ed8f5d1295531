// Construct: the engine asks the plugin to build a component (`backupportal:index:Tenants`, tenants-component.ts)
// and hands it the stack's config and the address of the deployment's resource monitor; the component registers
// its children there as a program would. This is what the SDK's own provider server does for a component provider
// (@pulumi/pulumi provider/server.js `construct`, which the SDK does not export): the runtime pointed at the
// monitor, the request's options made resource options, the outputs serialized with their dependencies, every
// registration awaited before the answer. The SDK's runtime is loaded on the first Construct only: it costs the
// plugin's start-up seconds (test/plugin/startup.test.ts).
import type * as pulumi from "@pulumi/pulumi";
import * as structproto from "google-protobuf/google/protobuf/struct_pb";
import * as provrpc from "@pulumi/pulumi/proto/provider_grpc_pb";
import * as provproto from "@pulumi/pulumi/proto/provider_pb";
import { GrpcStatus, STATUS, UnaryHandler, UnaryMethod } from "./grpc";
import { TENANTS_TYPE } from "./components";

/** Construct coded by the generated classes as they are (the runtime reads and writes whole Structs). */
export const constructMethod = (provrpc.ResourceProviderService as unknown as Record<string, UnaryMethod>).construct;

/** The SDK's runtime modules (internal ones, which it does not type for this use). */
interface Runtime {
  settings: any;
  config: any;
  rpc: any;
  state: any;
  resource: any;
  output: any;
  tenants: typeof import("./tenants-component");
}

function runtime(): Runtime {
  return {
    settings: require("@pulumi/pulumi/runtime/settings"),
    config: require("@pulumi/pulumi/runtime/config"),
    rpc: require("@pulumi/pulumi/runtime/rpc"),
    state: require("@pulumi/pulumi/runtime/state"),
    resource: require("@pulumi/pulumi/resource"),
    output: require("@pulumi/pulumi/output"),
    tenants: require("./tenants-component"),
  };
}

/** The component's resource options from the request, as the SDK's server makes them. */
function optionsOf(req: provproto.ConstructRequest, rt: Runtime): pulumi.ComponentResourceOptions {
  const { resource } = rt;
  const providers: Record<string, pulumi.ProviderResource> = {};
  req.getProvidersMap().forEach((ref: string, pkg: string) => (providers[pkg] = new resource.DependencyProviderResource(ref)));
  const aliases: Array<string | pulumi.Alias> = [];
  for (const a of req.getAliasesList()) {
    if (a.hasUrn()) aliases.push(a.getUrn());
    const spec = a.getSpec();
    if (!a.hasUrn() && spec) {
      const alias: pulumi.Alias = {};
      if (spec.getName()) alias.name = spec.getName();
      if (spec.getProject()) alias.project = spec.getProject();
      if (spec.getStack()) alias.stack = spec.getStack();
      if (spec.hasParenturn()) alias.parent = spec.getParenturn();
      aliases.push(alias);
    }
  }
  return {
    parent: req.getParent() ? new resource.DependencyResource(req.getParent()) : undefined,
    providers,
    aliases,
    dependsOn: req.getDependenciesList().map((urn) => new resource.DependencyResource(urn)),
    protect: req.getProtect(),
    retainOnDelete: req.getRetainondelete(),
  };
}

/** Builds the component the request names and answers its URN and outputs once all its children are registered. */
async function construct(req: provproto.ConstructRequest, engine: string | undefined): Promise<provproto.ConstructResponse> {
  const rt = runtime();
  return rt.state.withLocalStorage(async () => {
    const type = req.getType();
    if (type !== TENANTS_TYPE)
      throw new Error(`backupportal: unknown component type ${type}; the plugin's one component is ${TENANTS_TYPE}`);
    if (!engine) throw new Error("backupportal: Construct needs the engine's address, the plugin's last argument");
    rt.settings.resetOptions(
      req.getProject(),
      req.getStack(),
      req.getParallel(),
      engine,
      req.getMonitorendpoint(),
      req.getDryrun(),
      req.getOrganization(),
    );
    await rt.settings.awaitFeatureSupport();
    const config: Record<string, string> = {};
    req.getConfigMap().forEach((v: string, k: string) => (config[k] = v));
    rt.config.setAllConfig(config, req.getConfigsecretkeysList());

    const result = await rt.tenants.constructTenants(req.getName(), optionsOf(req, rt));
    const resp = new provproto.ConstructResponse();
    resp.setUrn(await rt.output.output(result.urn).promise());
    const [state, dependencies] = await rt.rpc.serializeResourceProperties(`construct(${type}, ${req.getName()})`, result.state);
    const map = resp.getStatedependenciesMap();
    for (const [key, resources] of dependencies as Map<string, Set<pulumi.Resource>>) {
      const deps = new provproto.ConstructResponse.PropertyDependencies();
      // Output's promise() is the runtime's own (marked internal in its typings).
      deps.setUrnsList(await Promise.all([...resources].map((r) => (r.urn as unknown as { promise(): Promise<string> }).promise())));
      map.set(key, deps);
    }
    resp.setState(structproto.Struct.fromJavaScript(state));
    // Every registration the component made is answered before the engine hears back.
    await rt.settings.waitForRPCs();
    return resp;
  });
}

/**
 * The Construct handler. `engine` is the engine's address the plugin was started with (the runtime logs to it).
 * A registration that fails inside the runtime surfaces as an unhandled rejection, not as the construct's own
 * error (as in a program, where the language host catches it): it fails the constructs in flight instead of the
 * plugin process.
 */
export function constructHandler(engine: string | undefined): UnaryHandler {
  const inFlight = new Set<(e: unknown) => void>();
  let listening = false;
  // Outside a construct an uncaught error ends the process, as it did before these listeners.
  const failAll = (e: unknown) => {
    if (inFlight.size === 0) {
      process.stderr.write(`backupportal: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
      process.exit(1);
    }
    for (const reject of inFlight) reject(e);
  };
  return (request) => {
    if (!listening) {
      listening = true;
      process.on("unhandledRejection", failAll);
      process.on("uncaughtException", failAll);
    }
    return new Promise((resolve, reject) => {
      const fail = (e: unknown) => reject(new GrpcStatus(STATUS.UNKNOWN, e instanceof Error ? e.message : String(e)));
      inFlight.add(fail);
      construct(request as provproto.ConstructRequest, engine)
        .then(resolve, fail)
        .finally(() => inFlight.delete(fail));
    });
  };
}
