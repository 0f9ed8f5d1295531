// Test support for the providers: an emulator, engines whose provider host talks
// to it, and the desired-resource shapes of the four resource types.
import { DesiredResource, TestEngine, TestEngineOptions } from "../engine/engine";
import { businessUnitProvider } from "../../provider/resources/business-unit";
import { consumerProvider } from "../../provider/resources/consumer";
import { nodeProvider } from "../../provider/resources/node";
import { nodeProxyProvider } from "../../provider/resources/node-proxy";
import { createKeyFor } from "../../provider/dynamic/recovery";
import { clientSuite, Emulator, envFor } from "../support/portal";
import { PortalClient } from "../../provider/portal";

export const TYPES = {
  BusinessUnit: "pulumi-nodejs:dynamic/backup-portal:BusinessUnit",
  Consumer: "pulumi-nodejs:dynamic/backup-portal:Consumer",
  Node: "pulumi-nodejs:dynamic/backup-portal:Node",
  NodeProxy: "pulumi-nodejs:dynamic/backup-portal:NodeProxy",
} as const;

type Inputs = Record<string, unknown>;

/** What the resource classes add to every business unit and consumer (the engine's stack is "test"). */
const createKey = (type: string, name: string) => createKeyFor(type, name, "backup-portal", "test");

export const businessUnit = (name: string, inputs: Inputs): DesiredResource =>
  ({ name, type: TYPES.BusinessUnit, provider: businessUnitProvider, inputs: { createKey: createKey("BusinessUnit", name), ...inputs } });
export const consumer = (name: string, inputs: Inputs): DesiredResource =>
  ({ name, type: TYPES.Consumer, provider: consumerProvider, inputs: { deleteAssociations: true, createKey: createKey("Consumer", name), ...inputs } });
export const node = (name: string, inputs: Inputs): DesiredResource =>
  ({ name, type: TYPES.Node, provider: nodeProvider, inputs, additionalSecretOutputs: ["tsmPassword"] });
export const nodeProxy = (name: string, inputs: Inputs): DesiredResource =>
  ({ name, type: TYPES.NodeProxy, provider: nodeProxyProvider, inputs, deleteBeforeReplace: true });

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
  return emu.requests().slice(mark).filter((r) => (r.method !== "GET" || r.path.includes("/node/activate")) && r.path !== "/v1/oauth");
}

export const ops = (steps: Array<{ urn: string; op: string }>) =>
  Object.fromEntries(steps.map((s) => [s.urn.split("::").pop()!, s.op]));

/** A client suite (test/support/portal.ts) whose engines talk to its emulator, closed after each test. */
export function portalSuite() {
  const suite = clientSuite();
  const e = engines(() => suite.emu);
  after(() => e.closeAll());
  afterEach(() => e.closeAll());
  return {
    get emu(): Emulator { return suite.emu; },
    get client(): PortalClient { return suite.client; },
    engine: e.engine,
    track: e.track,
    restart: suite.restart,
  };
}
