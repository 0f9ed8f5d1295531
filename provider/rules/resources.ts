// One table per resource: its other inputs (ids, secrets), its fields (./fields.ts), the inputs outside
// both, and its outputs. Diff takes the inputs that replace a resource from here
// (resourceReplaces), the classes their defaults and output names; the reference
// pages (scripts/reference-docs.ts) are generated from the same tables, and a
// Pulumi schema can take replaceOnChanges and secrets from them.
import { BUSINESS_UNIT_FIELDS, CONSUMER_FIELDS, FieldTable, MAX_INTEGER, NODE_FIELDS, Replaces } from "./fields";

/** An input that is not a field of the portal object: the id of another object, a secret set through its own endpoint. */
export interface OtherInput {
  /** Its TypeScript type as the resource's args declare it. */
  type: string;
  doc: string;
  required?: boolean;
  replaces?: Replaces;
  /** Where the value goes on the portal (the URL path, an endpoint). */
  portalField: string;
  /** Stored as a secret in the state. */
  secret?: boolean;
}

export interface OutputSpec {
  type: string;
  doc: string;
  secret?: boolean;
}

export interface ResourceSpec {
  /** The class name, also the resource type's last part (`backup-portal:<module>:<name>`). */
  name: string;
  /** The module users import the class from. */
  module: string;
  doc: string;
  /** Inputs that are not fields of the object (ids of other objects, secrets), in the order the args declare them. */
  other: Record<string, OtherInput>;
  fields: FieldTable;
  /** Outputs besides the inputs (every input is an output too, under its own name). */
  outputs: Record<string, OutputSpec>;
  /** A replacement deletes the old object before it creates the new one. */
  deleteBeforeReplace?: boolean;
}

const ID_TYPE = "number | string";
const idDoc = (what: string) => `${what} (a positive integer up to ${MAX_INTEGER}, or a string of its digits)`;
const adoptId = (what: string, extra = ""): OtherInput => ({
  type: ID_TYPE,
  doc: `adopt this existing ${what} instead of creating one; it is then updated to the declared inputs${extra}`,
  portalField: `none: the id of the ${what} read at create`,
});
const CREATED_DATE: OutputSpec = { type: "string", doc: "when the portal created it" };
const PORTAL: OutputSpec = {
  type: "string",
  doc: "the portal and account it lives on (`<url without credentials>|<username>`): an up whose connection points elsewhere refuses to change or delete it",
};
const HREF: OutputSpec = { type: "string", doc: "its URL in the portal's API" };

export const BUSINESS_UNIT: ResourceSpec = {
  name: "BusinessUnit",
  module: "backup-portal-pulumi",
  doc: "A business unit of the portal (a customer or a reseller), under a parent business unit.",
  other: {
    parentId: {
      type: ID_TYPE,
      required: true,
      // The API has no call that moves a business unit to another parent.
      replaces: "always",
      doc: idDoc("the parent business unit's id"),
      portalField: "the URL path of the create (`POST /v1/bunits/{parentId}/bunits`); read back from `parentBusinessUnit.id`",
    },
    adoptId: adoptId("business unit", " (its parent must be parentId)"),
  },
  fields: BUSINESS_UNIT_FIELDS,
  outputs: {
    portal: PORTAL,
    businessUnitId: { type: "number", doc: "the portal's id of the business unit (also the resource id, as a string)" },
    timeZoneId: { type: "number", doc: "the id timeZone resolved to" },
    domainFilterIds: { type: "number[] | undefined", doc: "the ids the declared domainFilter resolved to" },
    clientOptionSetFilterIds: { type: "number[] | undefined", doc: "the ids the declared clientOptionSetFilter resolved to" },
    createdDate: CREATED_DATE,
    href: HREF,
  },
};

export const CONSUMER: ResourceSpec = {
  name: "Consumer",
  module: "backup-portal-pulumi",
  doc: "A consumption unit of a business unit; it carries at most one backup node.",
  other: {
    businessUnitId: {
      type: ID_TYPE,
      required: true,
      replaces: "always",
      doc: idDoc("the business unit it belongs to"),
      portalField: "the URL path (`/v1/bunits/{businessUnitId}/consumers`)",
    },
    adoptId: adoptId("consumer", " (it must be in businessUnitId)"),
  },
  fields: CONSUMER_FIELDS,
  outputs: {
    portal: PORTAL,
    consumerId: { type: "number", doc: "the portal's id of the consumer (also the resource id, as a string)" },
    createdDate: CREATED_DATE,
    href: HREF,
  },
};

export const NODE: ResourceSpec = {
  name: "Node",
  module: "backup-portal-pulumi",
  doc: "The backup node of a consumer, with its password and activation. Deleting it deletes its consumer on the portal.",
  other: {
    businessUnitId: {
      type: ID_TYPE,
      required: true,
      replaces: "always",
      doc: idDoc("the business unit of the consumer"),
      portalField: "the URL path (`/v1/bunits/{businessUnitId}/consumers/{consumerId}/node`)",
    },
    consumerId: {
      type: ID_TYPE,
      required: true,
      replaces: "always",
      doc: idDoc("the consumer that carries the node; the node's resource id is this consumer's id"),
      portalField: "the URL path (`/v1/bunits/{businessUnitId}/consumers/{consumerId}/node`)",
    },
    tsmPassword: {
      type: "string",
      secret: true,
      doc: "the node's password, 1 to 64 characters; always stored as a secret, never read back",
      portalField: "the password endpoint (`.../node/password`)",
    },
    adoptId: adoptId("node", "; must equal consumerId: a node is adopted through its consumer"),
  },
  fields: NODE_FIELDS,
  outputs: {
    portal: PORTAL,
    nodeId: { type: "number", doc: "the portal's id of the node" },
    activatedName: {
      type: "string | undefined",
      doc: "the name the backup server stored at activation (upper-case); undefined until activated",
    },
    generatedPassword: {
      type: "string | undefined",
      secret: true,
      doc: "the password the portal chose at activation when no tsmPassword was declared (a secret); undefined otherwise",
    },
    operatingSystemId: { type: "number", doc: "the id operatingSystem resolved to" },
    typeId: { type: "number", doc: "the id type resolved to" },
    domainId: { type: "number", doc: "the id domain resolved to" },
    clientOptionSetId: { type: "number | undefined", doc: "the id clientOptionSet resolved to" },
    serverId: { type: "number", doc: "the backup server the node was created on (the business unit's default server)" },
    createdDate: CREATED_DATE,
    href: HREF,
  },
};

const proxyConsumer = (role: string): OtherInput => ({
  type: ID_TYPE,
  required: true,
  replaces: "always",
  doc: idDoc(role),
  portalField: "the URL path (`/v1/bunits/{businessUnitId}/consumers/{targetConsumerId}/node/proxyagents/{agentConsumerId}`)",
});

export const NODE_PROXY: ResourceSpec = {
  name: "NodeProxy",
  module: "backup-portal-pulumi",
  doc: "One proxy relation: the agent's node may act for the target's node. A relation has nothing to change in place.",
  other: {
    businessUnitId: proxyConsumer("the business unit of both consumers"),
    agentConsumerId: proxyConsumer("the consumer whose node becomes the proxy agent"),
    targetConsumerId: proxyConsumer("the consumer whose node the agent may act for (not the agent)"),
  },
  fields: {
    adopt: {
      kind: "boolean",
      local: true,
      doc: "the relation may already exist (adoption, e.g. from `backup-portal export`): create then sends nothing when the agent is already there",
    },
  },
  outputs: { portal: PORTAL },
  // The same pair cannot exist twice on the portal.
  deleteBeforeReplace: true,
};

export const RESOURCES: readonly ResourceSpec[] = [BUSINESS_UNIT, CONSUMER, NODE, NODE_PROXY];

/** Every input of a resource with its rule, other inputs first, in the order of the tables. */
export function resourceInputs(spec: ResourceSpec): Array<[string, OtherInput | FieldTable[string]]> {
  return [...Object.entries(spec.other), ...Object.entries(spec.fields)];
}

/** The inputs whose change replaces the resource, and how (see Replaces). */
export function resourceReplaces(spec: ResourceSpec): ReadonlyMap<string, Replaces> {
  const out = new Map<string, Replaces>();
  for (const [key, rule] of resourceInputs(spec)) if (rule.replaces) out.set(key, rule.replaces);
  return out;
}

/** Of the `changed` inputs, those that replace the resource: "onceSet" ones only when `olds` had a value. */
export function replacingChanges(spec: ResourceSpec, changed: readonly string[], olds: Record<string, unknown>): string[] {
  const replaces = resourceReplaces(spec);
  return changed.filter((k) => {
    const how = replaces.get(k);
    return how === "always" || (how === "onceSet" && olds[k] !== undefined && olds[k] !== null);
  });
}

/** The values the class gives inputs left out. */
export function inputDefaults(spec: ResourceSpec): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const [key, rule] of Object.entries(spec.fields)) if (rule.default !== undefined) out[key] = rule.default;
  return out;
}

/** The outputs as the class registers them before create: each one unknown (undefined). */
export function outputPlaceholders(spec: ResourceSpec): Record<string, undefined> {
  return Object.fromEntries(Object.keys(spec.outputs).map((k) => [k, undefined]));
}

/** The inputs and outputs stored as secrets. */
export function secretKeys(spec: ResourceSpec): string[] {
  return [
    ...Object.entries(spec.other)
      .filter(([, r]) => r.secret)
      .map(([k]) => k),
    ...Object.entries(spec.outputs)
      .filter(([, r]) => r.secret)
      .map(([k]) => k),
  ];
}
