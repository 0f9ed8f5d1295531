// Test support for the providers: an emulator, engines whose provider host talks
// to it, and the desired-resource shapes of the four resource types.
import { DesiredResource, TestEngine, TestEngineOptions } from "../engine/engine";
import * as pulumi from "@pulumi/pulumi";
import { BusinessUnit } from "../../provider/resources/business-unit";
import { Consumer } from "../../provider/resources/consumer";
import { Node } from "../../provider/resources/node";
import { NodeProxy } from "../../provider/resources/node-proxy";
import { clientSuite, Emulator, envFor } from "../support/portal";
import { PortalClient } from "../../provider/portal";

export const TYPES = {
  BusinessUnit: "pulumi-nodejs:dynamic/backup-portal:BusinessUnit",
  Consumer: "pulumi-nodejs:dynamic/backup-portal:Consumer",
  Node: "pulumi-nodejs:dynamic/backup-portal:Node",
  NodeProxy: "pulumi-nodejs:dynamic/backup-portal:NodeProxy",
  /** The stack program's name check (provider/resources/name-check.ts). */
  NameCheck: "pulumi-nodejs:dynamic/backup-portal:NameCheck",
} as const;

type Inputs = Record<string, unknown>;
type ResourceClass = new (name: string, args: any, opts?: pulumi.CustomResourceOptions) => pulumi.CustomResource;

const settings = require("@pulumi/pulumi/runtime/settings") as {
  getProject(): string;
  getStack(): string;
  _setProject(v: string): void;
  _setStack(v: string): void;
};

/**
 * What the real class passes to the SDK for `new cls(name, inputs)`: its provider, inputs (with what the class
 * adds, such as createKey) and resource options (such as deleteBeforeReplace), taken synchronously by standing
 * in for its base class during the constructor. A helper adds nothing of its own.
 */
export function asDeclared(cls: ResourceClass, type: string, name: string, inputs: Inputs): DesiredResource {
  let seen: { provider: string; props: Inputs; opts: pulumi.CustomResourceOptions } | undefined;
  class Capture {
    constructor(provider: string, _name: string, props: Inputs, opts: pulumi.CustomResourceOptions = {}) {
      seen = { provider, props, opts };
    }
  }
  const base = Object.getPrototypeOf(cls);
  const [project, stack] = [settings.getProject(), settings.getStack()];
  Object.setPrototypeOf(cls, Capture);
  settings._setProject("backup-portal"); // the engine's project and stack (createKey depends on them)
  settings._setStack("test");
  try {
    new cls(name, inputs);
  } finally {
    Object.setPrototypeOf(cls, base);
    settings._setProject(project);
    settings._setStack(stack);
  }
  const { provider, props, opts } = seen!;
  const declared: Inputs = {};
  for (const [k, v] of Object.entries(props)) {
    if (v === undefined) continue; // output properties
    // A value the class wraps (pulumi.secret): the test passes it in the engine's form already (secret(...)).
    declared[k] = pulumi.Output.isInstance(v) ? inputs[k] : v;
  }
  return {
    name,
    type,
    provider,
    inputs: declared,
    ...(opts.deleteBeforeReplace !== undefined && { deleteBeforeReplace: opts.deleteBeforeReplace }),
    ...(opts.additionalSecretOutputs && { additionalSecretOutputs: opts.additionalSecretOutputs }),
  };
}

export const businessUnit = (name: string, inputs: Inputs) => asDeclared(BusinessUnit, TYPES.BusinessUnit, name, inputs);
export const consumer = (name: string, inputs: Inputs) => asDeclared(Consumer, TYPES.Consumer, name, inputs);
export const node = (name: string, inputs: Inputs) => asDeclared(Node, TYPES.Node, name, inputs);
export const nodeProxy = (name: string, inputs: Inputs) => asDeclared(NodeProxy, TYPES.NodeProxy, name, inputs);

/** Engines whose provider host gets the emulator's connection from the environment. */
export function engines(emu: () => Emulator) {
  const made: TestEngine[] = [];
  return {
    engine(opts: TestEngineOptions = {}): TestEngine {
      const e = new TestEngine({ stack: "test", ...opts, env: { ...envFor(emu()), ...(opts.env ?? {}) } });
      made.push(e);
      return e;
    },
    track(e: TestEngine): TestEngine {
      made.push(e);
      return e;
    },
    async closeAll(): Promise<void> {
      await Promise.all(made.splice(0).map((e) => e.close()));
    },
  };
}

/** The requests since `mark` that change something (token requests excluded; activation is a GET but writes). */
export function writesSince(emu: Emulator, mark: number) {
  return emu
    .requests()
    .slice(mark)
    .filter((r) => (r.method !== "GET" || r.path.includes("/node/activate")) && r.path !== "/v1/oauth");
}

export const ops = (steps: Array<{ urn: string; op: string }>) => Object.fromEntries(steps.map((s) => [s.urn.split("::").pop()!, s.op]));

/** A client suite (test/support/portal.ts) whose engines talk to its emulator, closed after each test. */
export function portalSuite() {
  const suite = clientSuite();
  const e = engines(() => suite.emu);
  after(() => e.closeAll());
  afterEach(() => e.closeAll());
  return {
    get emu(): Emulator {
      return suite.emu;
    },
    get client(): PortalClient {
      return suite.client;
    },
    engine: e.engine,
    track: e.track,
    restart: suite.restart,
  };
}
