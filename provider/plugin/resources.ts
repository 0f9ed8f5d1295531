// The resources the plugin serves: each type token with the lifecycle the dynamic providers use
// (provider/resources/*) and the resource's own table (provider/rules/resources.ts: its ids, fields, secrets
// and outputs, the same the classes and the reference pages read). The one thing only the plugin needs is
// here: how a `pulumi import` id names the object.
import type { Lifecycle } from "../dynamic/provider";
import { businessUnitLifecycle } from "../resources/business-unit";
import { consumerLifecycle } from "../resources/consumer";
import { nodeLifecycle } from "../resources/node";
import { nodeProxyLifecycle } from "../resources/node-proxy";
import { MAX_INTEGER, portalId } from "../rules/fields";
import { BUSINESS_UNIT, CONSUMER, NODE, NODE_PROXY, ResourceSpec, resourceInputs } from "../rules/resources";
import { tokenOfName } from "./package";

export { PACKAGE } from "./package";

export interface PluginResource {
  /** The resource's table: the dynamic provider's type name (also the token's last part), inputs, outputs. */
  spec: ResourceSpec;
  lifecycle: Lifecycle;
  /** How `pulumi import` ids look, and the properties they stand for. */
  importId: { form: string; parse(id: string): { id: string; props: Record<string, number> } | undefined };
}

/** What each id of an import id must be: a portal id (rules/fields.ts), beyond which digits would read as another. */
export const IMPORT_ID_RULE = `each id a positive integer up to ${MAX_INTEGER}, without leading zeros`;

/** One id of an import id, spelled exactly (no sign, space or leading zero), or undefined. */
const digits = (s: string | undefined) => (s !== undefined && /^[1-9][0-9]*$/.test(s) ? portalId(s) : undefined);

/** `<businessUnitId>/<id>`: objects the portal addresses under their business unit. */
function underBusinessUnit(key: string) {
  return (id: string) => {
    const m = /^([^/]+)\/([^/]+)$/.exec(id);
    const b = digits(m?.[1]);
    const own = digits(m?.[2]);
    if (b === undefined || own === undefined) return undefined;
    return { id: String(own), props: { businessUnitId: b, [key]: own } };
  };
}

export const RESOURCES: PluginResource[] = [
  {
    spec: BUSINESS_UNIT,
    lifecycle: businessUnitLifecycle,
    importId: {
      form: "<businessUnitId>",
      parse: (id) => (digits(id) === undefined ? undefined : { id, props: {} }),
    },
  },
  {
    spec: CONSUMER,
    lifecycle: consumerLifecycle,
    importId: { form: "<businessUnitId>/<consumerId>", parse: underBusinessUnit("consumerId") },
  },
  {
    spec: NODE,
    lifecycle: nodeLifecycle,
    importId: { form: "<businessUnitId>/<consumerId>", parse: underBusinessUnit("consumerId") },
  },
  {
    spec: NODE_PROXY,
    lifecycle: nodeProxyLifecycle,
    importId: {
      form: "<businessUnitId>/<agentConsumerId>:<targetConsumerId>",
      parse: (id) => {
        const m = /^([^/]+)\/([^:]+):(.+)$/.exec(id);
        const [b, a, t] = [digits(m?.[1]), digits(m?.[2]), digits(m?.[3])];
        if (b === undefined || a === undefined || t === undefined) return undefined;
        return { id: `${a}:${t}`, props: { businessUnitId: b, agentConsumerId: a, targetConsumerId: t } };
      },
    },
  },
];

export const tokenOf = (r: PluginResource) => tokenOfName(r.spec.name);

/** Every input key of the resource, in the table's order. */
export const inputKeys = (r: PluginResource): string[] => resourceInputs(r.spec).map(([k]) => k);

export function resourceOf(token: string): PluginResource | undefined {
  return RESOURCES.find((r) => tokenOf(r) === token);
}
