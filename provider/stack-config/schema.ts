// The JSON Schema of a stack file (Pulumi.<stack>.yaml), generated from the table of every `backup-portal:` key
// (provider/rules/stack-config.ts) and the tenant field tables, so an editor flags a misspelt key, a wrong type or
// a plain-text secret while the user types. Keys of other namespaces (`kubernetes:`, `aws:`, the user's own) are
// left free; a `backup-portal:` key that is not in the table is allowed only as a secret (`secure:`), since
// blocks name secrets of their own (node passwords, registry users, the receiver's). `npm run schema` writes it
// to stacks/tenants.schema.json; test/stacks/schema.test.ts fails when the committed file differs.
//
// Its messages are a validator's own (ajv, the YAML language server), so the schema is laid out for them: where a
// value may be a secret or a typed value, `if` it is a map it is read as a secret, `else` by its type, so a wrong
// type gets its type's message and not `must have required property 'secure'`; a key that is neither in the table
// nor a secret fails at that key on a schema that says so (`#/definitions/notAKeyOfBackupPortal`). Only keywords of
// draft-07, so that ajv's strict mode compiles it as it is.
import { ConfigRule, ConfigTable, NAMESPACE, qualified, STACK_CONFIG_KEYS } from "../rules/stack-config";
import { fieldSchema, Schema, tenantDefinitions } from "../tenants/schema";

/** A value stored with `pulumi config set --secret`: the file holds its ciphertext only. */
const SECURE: Schema = {
  type: "object",
  description: "a secret (`pulumi config set --secret <key>`: it asks for the value, or reads it from stdin)",
  properties: { secure: { type: "string" } },
  required: ["secure"],
  additionalProperties: false,
};

const SECRET_REF: Schema = { $ref: "#/definitions/secret" };

/** Whether a value is written as a secret: a map with `secure:` (what else it holds, the secret's schema says). */
const LOOKS_SECURE: Schema = { type: "object", required: ["secure"] };

/** A value that is `secret` when it is a map, else `typed`: each failure is its own schema's, not both. */
const secretOr = (typed: Schema, description: string): Schema => ({ description, if: { type: "object" }, then: SECRET_REF, else: typed });

const NOT_A_KEY = "notAKeyOfBackupPortal";

/** The table's doc, its default and whether it is a secret. */
export function describeKey(rule: ConfigRule): string {
  const dflt = rule.default !== undefined ? ` (default: ${JSON.stringify(rule.default)})` : "";
  return `${rule.doc}${dflt}${rule.secret ? "; a secret: set it with `pulumi config set --secret`" : ""}`;
}

function blockSchema(table: ConfigTable, description: string): Schema {
  const required = Object.entries(table)
    .filter(([, r]) => r.required)
    .map(([k]) => k);
  return {
    type: "object",
    description,
    properties: Object.fromEntries(Object.entries(table).map(([k, r]) => [k, ruleSchema(r, false)])),
    ...(required.length ? { required } : {}),
    additionalProperties: false,
  };
}

/** The schema of one key's value; `top`: a key of the namespace itself, which may also be stored as a secret. */
function ruleSchema(rule: ConfigRule, top: boolean): Schema {
  const description = describeKey(rule);
  switch (rule.kind) {
    case "tenants":
      return { $ref: "#/definitions/businessUnits", description };
    case "map":
      return { type: "object", description };
    case "block":
      return blockSchema(rule.keys, description);
    case "blocks":
      return { type: "array", description, items: blockSchema(rule.keys, "an entry") };
    default: {
      if (rule.secret) return { ...SECURE, description };
      const typed = { ...fieldSchema(rule), description };
      return top ? secretOr(typed, description) : typed;
    }
  }
}

const UNKNOWN_KEY =
  `not a key of ${NAMESPACE}: (a typo? \`backup-portal validate\` names the key meant), unless it is a secret ` +
  "(`secure:`) that a passwordSecret, passwordSecretKey or secretKey names";

/** The schema of a whole stack file. */
export function stackFileSchema(): Schema {
  return {
    $schema: "http://json-schema.org/draft-07/schema#",
    title: "Pulumi stack file of backup-portal-pulumi",
    description:
      "Generated from provider/rules/stack-config.ts, provider/rules/fields.ts and provider/tenants/fields.ts by `npm run schema`; do not edit.",
    type: "object",
    properties: {
      config: {
        type: "object",
        properties: Object.fromEntries(Object.entries(STACK_CONFIG_KEYS).map(([k, r]) => [qualified(k), ruleSchema(r, true)])),
        // Other namespaces: whatever their owners allow.
        patternProperties: { [`^(?!${NAMESPACE}:)[^:]+:`]: {} },
        // A key of this project's namespace (`backup-portal:x`, or `x` without one) that is not in the table: only a
        // secret a block names (the program checks that it does). Anything else fails at the key, on a schema whose
        // name and description say why, instead of asking for the `secure:` a misspelt key was never meant to have.
        additionalProperties: {
          description: UNKNOWN_KEY,
          if: LOOKS_SECURE,
          then: SECRET_REF,
          else: { $ref: `#/definitions/${NOT_A_KEY}` },
        },
        required: [qualified("tenants")],
      },
    },
    additionalProperties: true,
    definitions: {
      ...tenantDefinitions(),
      secret: SECURE,
      [NOT_A_KEY]: { description: UNKNOWN_KEY, not: {} },
    },
  };
}

/** The schema file's text, as committed. */
export function schemaText(): string {
  return `${JSON.stringify(stackFileSchema(), null, 2)}\n`;
}
