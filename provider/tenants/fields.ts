// The field rules of `backup-portal:tenants` entries: each resource's table
// (provider/rules/fields.ts) as the stack declares it, plus the keys only stack
// config has. validate.ts checks with these, schema.ts turns them into the JSON
// Schema the stack files reference.
import { BUSINESS_UNIT_FIELDS, CONSUMER_FIELDS, FieldRule, FieldTable, NODE_FIELDS } from "../rules/fields";

/** Keys become Pulumi resource names: keep them plain so names stay stable and readable. */
export const KEY_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$/;
export const KEY_DOC = 'starts with a letter or digit and holds only letters, digits, "-", "_" and "." (at most 63)';

const optional = (r: FieldRule, doc: string): FieldRule => ({ ...r, required: false, doc });
const without = (t: FieldTable, ...keys: string[]) => Object.fromEntries(Object.entries(t).filter(([k]) => !keys.includes(k)));

const aliases: FieldRule = {
  kind: "strings",
  text: "line",
  itemPattern: KEY_PATTERN,
  itemDoc: `a key that ${KEY_DOC}`,
  doc: "earlier keys of this entry, so that renaming the key does not replace it",
};
const adoptId: FieldRule = { kind: "integer", min: 1, doc: "adopt this existing object (its id) instead of creating one" };

export const STACK_BUSINESS_UNIT_FIELDS: FieldTable = {
  ...BUSINESS_UNIT_FIELDS,
  name: optional(BUSINESS_UNIT_FIELDS.name, "the business unit's name; defaults to the key"),
  adoptId,
  aliases,
  protect: { kind: "boolean", doc: "overrides the stack's protectBusinessUnits for this business unit" },
};

/** nodeName is not declared: the program sets it from the node's tsmName. */
export const STACK_CONSUMER_FIELDS: FieldTable = {
  ...without(CONSUMER_FIELDS, "nodeName"),
  name: optional(CONSUMER_FIELDS.name, "the consumer's name; defaults to the key"),
  adoptId,
  aliases,
};

export const STACK_NODE_FIELDS: FieldTable = {
  ...NODE_FIELDS,
  passwordSecret: {
    kind: "string",
    text: "line",
    maxLength: 200,
    nonBlank: true,
    doc: "the secret config key holding the node's password (pulumi config set --secret backup-portal:<key>, which asks for it)",
  },
  adopt: { kind: "boolean", doc: "manage the node the consumer already has instead of creating one" },
};

/** A proxy's `adopt`: the relation may already exist (export writes it); create then sends nothing for it. */
export const PROXY_ADOPT_DOC = "the relation may already exist on the portal (adoption): it is read first and only made when missing";

/** The keys of the entries inside a business unit and a consumer (checked by their own rules). */
export const BUSINESS_UNIT_CHILDREN = ["businessUnits", "consumers", "proxies"] as const;
export const CONSUMER_CHILDREN = ["node"] as const;
