// NodeProxy: one proxy relation; the agent's node may act for the target's node.
import type * as pulumi from "@pulumi/pulumi";
import { portal } from "../dynamic/connection";
import { hostProvider, Lifecycle, serializedProvider } from "../dynamic/provider";
import { DynamicResource } from "../dynamic/resource";
import { explainMissing, referencesFor } from "../dynamic/references";
import { moduleSpecifier } from "../dynamic/specifier";
import { Failures, checkId, isUnknown, sameValue } from "../dynamic/values";
import { proxyPeers } from "../portal/nodes";
import { NODE_PROXY, replacingChanges } from "../rules/resources";

export { configure as configurePortal } from "../dynamic/connection";
import { currentPortal, withLoginHint } from "../dynamic/connection";
import { withPortalGuard } from "../dynamic/portal-guard";

export interface NodeProxyArgs {
  businessUnitId: pulumi.Input<number | string>;
  /** The consumer whose node becomes the proxy agent. */
  agentConsumerId: pulumi.Input<number | string>;
  /** The consumer whose node the agent may act for. */
  targetConsumerId: pulumi.Input<number | string>;
  /**
   * The relation may already exist (adoption, e.g. from `backup-portal export`): create reads the target's node and
   * sends nothing when the agent is already there. Only read on create, like a resource's adoptId.
   */
  adopt?: pulumi.Input<boolean>;
}

const INPUT_KEYS = Object.keys(NODE_PROXY.other);

type Inputs = Record<string, any>;

async function check(_olds: Inputs, news: Inputs): Promise<pulumi.dynamic.CheckResult> {
  const inputs: Inputs = { ...news };
  const f = new Failures();
  for (const k of INPUT_KEYS) checkId(f, inputs, k);
  const { agentConsumerId: a, targetConsumerId: t } = inputs;
  // Equal and known: the target then is known too.
  if (!isUnknown(a) && a !== undefined && a === t) {
    f.add("targetConsumerId", "a node cannot be its own proxy: agentConsumerId and targetConsumerId must differ");
  }
  return { inputs, failures: f.list };
}

async function diff(_id: string, olds: Inputs, news: Inputs): Promise<pulumi.dynamic.DiffResult> {
  const changed = INPUT_KEYS.filter((k) => !sameValue(olds[k], news[k]));
  // A relation has nothing to change in place. Delete first: the new relation
  // may be the same pair (only the business unit id changed).
  return {
    changes: changed.length > 0,
    replaces: replacingChanges(NODE_PROXY, changed, olds),
    deleteBeforeReplace: !!NODE_PROXY.deleteBeforeReplace,
  };
}

const idOf = (i: Inputs) => `${i.agentConsumerId}:${i.targetConsumerId}`;

/** Whether the target's node already has the agent (an adopted relation). */
async function present(i: Inputs): Promise<boolean> {
  const target = await portal().nodes.find(i.businessUnitId, i.targetConsumerId);
  return !!target && proxyPeers(target.proxyAgents).some((p) => p.id === i.agentConsumerId);
}

async function create(inputs: Inputs): Promise<pulumi.dynamic.CreateResult> {
  const { businessUnitId: b, agentConsumerId: a, targetConsumerId: t } = inputs;
  if (!(inputs.adopt === true && (await present(inputs)))) {
    try {
      await portal().nodes.addProxyAgent(b, t, a);
    } catch (err) {
      throw await explainMissing(err, referencesFor(portal()), [
        { key: "businessUnitId", kind: "businessUnit", id: b },
        { key: "targetConsumerId", kind: "consumer", id: t, bunitId: b },
        { key: "agentConsumerId", kind: "consumer", id: a, bunitId: b },
      ]);
    }
  }
  return { id: idOf(inputs), outs: { ...inputs } };
}

async function read(id: string, props: Inputs): Promise<pulumi.dynamic.ReadResult> {
  if (!(await present(props))) return { id: "" };
  const inputs = { businessUnitId: props.businessUnitId, agentConsumerId: props.agentConsumerId, targetConsumerId: props.targetConsumerId };
  return { id, props: { ...props }, inputs };
}

async function update(_id: string, _olds: Inputs, news: Inputs): Promise<pulumi.dynamic.UpdateResult> {
  // Every input change is a replacement; nothing reaches here but a no-op.
  return { outs: { ...news } };
}

async function remove(_id: string, props: Inputs): Promise<void> {
  // Gone already (relation severed, or a node deleted) is fine.
  await portal().nodes.removeProxyAgent(props.businessUnitId, props.targetConsumerId, props.agentConsumerId);
}

export const nodeProxyLifecycle: Lifecycle = withLoginHint(
  withPortalGuard("node proxy", currentPortal, { check, diff, create, read, update, delete: remove }),
);

/** The provider object the host runs for every NodeProxy; `__provider` names it (dynamic/provider.ts). */
export const nodeProxyProvider = hostProvider(nodeProxyLifecycle);

/** Every NodeProxy's `__provider`: one line that `require`s this module for `nodeProxyProvider`. */
export const nodeProxyProviderText = serializedProvider(moduleSpecifier(__filename), "nodeProxyProvider");

export class NodeProxy extends DynamicResource {
  declare readonly businessUnitId: pulumi.Output<number>;
  declare readonly agentConsumerId: pulumi.Output<number>;
  declare readonly targetConsumerId: pulumi.Output<number>;

  constructor(name: string, args: NodeProxyArgs, opts?: pulumi.CustomResourceOptions) {
    // Every change replaces the relation, delete first: Diff says so, and the option says it at registration
    // too (the same pair cannot exist twice on the portal), unless the caller's options say otherwise.
    super(
      nodeProxyProviderText,
      name,
      { ...args },
      { deleteBeforeReplace: !!NODE_PROXY.deleteBeforeReplace, ...opts },
      "backup-portal",
      "NodeProxy",
    );
  }
}
