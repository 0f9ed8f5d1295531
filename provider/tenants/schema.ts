// The JSON Schema of the `backup-portal:tenants` block of a stack file, made from the same field tables as the
// validation (fields.ts), so an editor flags a wrong key or type while the user types; the whole file's schema
// (provider/stack-config/schema.ts) places it. The validation at `pulumi preview` still checks what a schema
// cannot: names against the portal, duplicate tsmNames, proxies, secrets. (String lengths: JSON Schema counts
// code points, the portal UTF-16 units, so a name of emoji near the limit passes here and is refused at preview.)
import { FieldRule, FieldTable, MAX_INTEGER, REFERENCE_NAME_MAX, upperBound } from "../rules/fields";
import { KEY_DOC, KEY_PATTERN, PROXY_ADOPT_DOC, STACK_BUSINESS_UNIT_FIELDS, STACK_CONSUMER_FIELDS, STACK_NODE_FIELDS } from "./fields";

export type Schema = Record<string, unknown>;

/** JSON Schema patterns are ECMAScript regular expressions: the control characters of each text rule. */
const NO_CONTROL = "[^\\u0000-\\u001f\\u007f-\\u009f]";
const NO_CONTROL_MULTILINE = "[^\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f-\\u009f]";
const TSM_NAME = "^[A-Za-z0-9_.\\-+&]{1,64}$";

function textSchema(text: "line" | "multiline" | "tsmName", nonBlank: boolean): Schema {
  if (text === "tsmName") return { pattern: TSM_NAME };
  const ch = text === "line" ? NO_CONTROL : NO_CONTROL_MULTILINE;
  // Non-blank: at least one character that is not whitespace (what trim() removes).
  return { pattern: nonBlank ? `^${ch}*(?=\\S)${ch}+$` : `^${ch}*$` };
}

const referenceSchema = (what: string): Schema => ({
  anyOf: [
    { type: "string", maxLength: REFERENCE_NAME_MAX, ...textSchema("line", true), description: `the ${what}'s name` },
    { type: "integer", minimum: 1, maximum: MAX_INTEGER, description: `the ${what}'s id` },
  ],
});

/** The schema of one field of the tables. */
export function fieldSchema(r: FieldRule): Schema {
  const base = {
    description: r.stricter ? `${r.doc}. Stricter than the portal: ${r.stricter}` : r.doc,
    ...(r.default !== undefined ? { default: r.default } : {}),
  };
  switch (r.kind) {
    case "string":
      return { ...base, type: "string", maxLength: r.maxLength, ...textSchema(r.text, !!r.nonBlank) };
    case "integer":
    case "number": {
      const max = upperBound(r);
      return { ...base, type: r.kind, minimum: r.min, ...(max !== undefined ? { maximum: max } : {}) };
    }
    case "boolean":
      return { ...base, type: "boolean" };
    case "strings": {
      const text: Schema = { type: "string", ...textSchema(r.text, false) };
      // Both patterns hold: the item rule and the character rule.
      const items: Schema = r.itemPattern
        ? { allOf: [text, { type: "string", pattern: r.itemPattern.source }], description: r.itemDoc }
        : text;
      return { ...base, type: "array", items };
    }
    case "reference":
      return { ...base, ...referenceSchema(r.ref) };
    case "references":
      return { ...base, type: "array", items: referenceSchema(r.ref) };
  }
}

function objectSchema(table: FieldTable, extra: Record<string, Schema>, description: string): Schema {
  const properties: Record<string, Schema> = {};
  for (const [k, r] of Object.entries(table)) properties[k] = fieldSchema(r);
  const required = Object.entries(table)
    .filter(([, r]) => r.required)
    .map(([k]) => k);
  return {
    type: "object",
    description,
    properties: { ...properties, ...extra },
    ...(required.length ? { required } : {}),
    additionalProperties: false,
  };
}

const keyedMap = (item: string, description: string): Schema => ({
  type: "object",
  description,
  propertyNames: { pattern: KEY_PATTERN.source, description: `a key ${KEY_DOC}` },
  additionalProperties: { $ref: `#/definitions/${item}` },
});

/** The definitions of `backup-portal:tenants` (`#/definitions/businessUnits` is the block itself). */
export function tenantDefinitions(): Record<string, Schema> {
  return {
    businessUnits: keyedMap("businessUnit", "business units by key (the key is the resource's stable name)"),
    businessUnit: objectSchema(
      STACK_BUSINESS_UNIT_FIELDS,
      {
        businessUnits: { $ref: "#/definitions/businessUnits" },
        consumers: keyedMap("consumer", "consumers by key"),
        proxies: {
          type: "array",
          description: "proxy relations between the nodes of two consumers of this business unit",
          items: { $ref: "#/definitions/proxy" },
        },
      },
      "a business unit",
    ),
    consumer: objectSchema(STACK_CONSUMER_FIELDS, { node: { $ref: "#/definitions/node" } }, "a consumer (consumption unit)"),
    node: objectSchema(STACK_NODE_FIELDS, {}, "the consumer's backup node; a password goes in a secret named by passwordSecret"),
    proxy: {
      type: "object",
      required: ["agent", "target"],
      additionalProperties: false,
      properties: {
        agent: { type: "string", pattern: KEY_PATTERN.source, description: "the consumer key whose node becomes the agent" },
        target: { type: "string", pattern: KEY_PATTERN.source, description: "the consumer key whose node the agent acts for" },
        adopt: { type: "boolean", description: PROXY_ADOPT_DOC },
      },
    },
  };
}
