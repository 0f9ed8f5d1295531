// The resources the plugin serves: each type token with the lifecycle the dynamic
// providers use (provider/resources/*), its rule table (provider/rules/fields.ts),
// and what the table does not hold yet: the id inputs Check reads with checkId,
// the outputs, and how an import id names the object. (These move into the rule
// tables once they carry outputs; the schema then reads them from there.)
import type { Lifecycle } from "../dynamic/provider";
import { businessUnitLifecycle } from "../resources/business-unit";
import { consumerLifecycle } from "../resources/consumer";
import { nodeLifecycle } from "../resources/node";
import { nodeProxyLifecycle } from "../resources/node-proxy";
import { BUSINESS_UNIT_FIELDS, CONSUMER_FIELDS, FieldTable, NODE_FIELDS } from "../rules/fields";

export const PACKAGE = "backupportal";

export interface IdInput {
  key: string;
  doc: string;
  required: boolean;
}

export interface OutputField {
  key: string;
  type: "integer" | "string" | "integers";
  doc: string;
  secret?: boolean;
}

export interface PluginResource {
  /** The dynamic provider's type name, also the last part of the token. */
  name: "BusinessUnit" | "Consumer" | "Node" | "NodeProxy";
  doc: string;
  lifecycle: Lifecycle;
  table: FieldTable;
  ids: IdInput[];
  /** Inputs outside the table and the ids (the node's password). */
  extraInputs?: Array<{ key: string; doc: string; secret: boolean }>;
  outputs: OutputField[];
  /** How `pulumi import` ids look, and the properties they stand for. */
  importId: { form: string; parse(id: string): { id: string; props: Record<string, number> } | undefined };
}

const ADOPT: IdInput = {
  key: "adoptId",
  doc: "adopt this existing object instead of creating one; it is then updated to the declared inputs",
  required: false,
};
const CREATED: OutputField[] = [
  { key: "createdDate", type: "string", doc: "when the portal created it" },
  { key: "href", type: "string", doc: "its address in the portal's API" },
];

const digits = (s: string | undefined) => (s !== undefined && /^[1-9][0-9]*$/.test(s) ? Number(s) : undefined);

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
    name: "BusinessUnit",
    doc: "A business unit of the Backup Portal, under a parent business unit.",
    lifecycle: businessUnitLifecycle,
    table: BUSINESS_UNIT_FIELDS,
    ids: [
      {
        key: "parentId",
        doc: "the parent business unit's id; changing it replaces the business unit (the API cannot move one)",
        required: true,
      },
      ADOPT,
    ],
    outputs: [
      { key: "businessUnitId", type: "integer", doc: "the portal's id of the business unit (also the resource id)" },
      { key: "timeZoneId", type: "integer", doc: "the id the time zone resolved to" },
      { key: "domainFilterIds", type: "integers", doc: "the ids the declared domainFilter resolved to" },
      { key: "clientOptionSetFilterIds", type: "integers", doc: "the ids the declared clientOptionSetFilter resolved to" },
      ...CREATED,
    ],
    importId: {
      form: "<businessUnitId>",
      parse: (id) => (digits(id) === undefined ? undefined : { id, props: {} }),
    },
  },
  {
    name: "Consumer",
    doc: "A consumption unit of a business unit; it carries at most one backup node.",
    lifecycle: consumerLifecycle,
    table: CONSUMER_FIELDS,
    ids: [{ key: "businessUnitId", doc: "the business unit it belongs to; changing it replaces the consumer", required: true }, ADOPT],
    outputs: [{ key: "consumerId", type: "integer", doc: "the portal's id of the consumer (also the resource id)" }, ...CREATED],
    importId: { form: "<businessUnitId>/<consumerId>", parse: underBusinessUnit("consumerId") },
  },
  {
    name: "Node",
    doc: "The backup node of a consumer; activated under its tsmName.",
    lifecycle: nodeLifecycle,
    table: NODE_FIELDS,
    ids: [
      { key: "businessUnitId", doc: "the business unit of the consumer", required: true },
      { key: "consumerId", doc: "the consumer that carries the node; the node's resource id is this consumer's id", required: true },
      { key: "adoptId", doc: "adopt the existing node of consumerId instead of creating one (must equal consumerId)", required: false },
    ],
    extraInputs: [{ key: "tsmPassword", doc: "the node's password, set through the password endpoint (1-64 characters)", secret: true }],
    outputs: [
      { key: "activatedName", type: "string", doc: "the name the backup server stored at activation (upper-case)" },
      { key: "nodeId", type: "integer", doc: "the portal's id of the node" },
      { key: "operatingSystemId", type: "integer", doc: "the id the operating system resolved to" },
      { key: "typeId", type: "integer", doc: "the id the node type resolved to" },
      { key: "domainId", type: "integer", doc: "the id the policy domain resolved to" },
      { key: "clientOptionSetId", type: "integer", doc: "the id the client option set resolved to" },
      { key: "serverId", type: "integer", doc: "the backup server the node is on" },
      ...CREATED,
    ],
    importId: { form: "<businessUnitId>/<consumerId>", parse: underBusinessUnit("consumerId") },
  },
  {
    name: "NodeProxy",
    doc: "One proxy relation: the agent consumer's node may act for the target consumer's node.",
    lifecycle: nodeProxyLifecycle,
    table: {},
    ids: [
      { key: "businessUnitId", doc: "the business unit of both consumers", required: true },
      { key: "agentConsumerId", doc: "the consumer whose node becomes the proxy agent", required: true },
      { key: "targetConsumerId", doc: "the consumer whose node the agent may act for", required: true },
    ],
    outputs: [],
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

export const tokenOf = (r: PluginResource) => `${PACKAGE}:index:${r.name}`;

export function resourceOf(token: string): PluginResource | undefined {
  return RESOURCES.find((r) => tokenOf(r) === token);
}
