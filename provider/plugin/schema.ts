// The Pulumi package schema GetSchema answers, generated from the rule tables
// (provider/rules/fields.ts) and the plugin's resource list: a property per
// field, its type and description, required inputs, secrets, and
// replaceOnChanges where a change replaces the object. Nothing here decides
// what is valid; SDKs generated from it (`pulumi package gen-sdk`) follow the
// same tables the lifecycles check with.
import { FieldRule, MAX_INTEGER, REFERENCE_WHAT, upperBound } from "../rules/fields";
import { CONFIG_DOCS, CONFIG_KEYS, OPTIONAL_KEYS, SECRET_CONFIG_KEYS } from "./config";
import { PACKAGE, PluginResource, RESOURCES, tokenOf } from "./resources";
import { RESOURCES as RESOURCE_TABLES, resourceReplaces } from "../rules/resources";

type TypeSpec = Record<string, unknown>;
export interface PropertySpec extends TypeSpec {
  description?: string;
  secret?: boolean;
  replaceOnChanges?: boolean;
}

const ID: TypeSpec = { oneOf: [{ type: "integer" }, { type: "string" }] };
const NAME_OR_ID: TypeSpec = { oneOf: [{ type: "string" }, { type: "integer" }] };

/** The schema type of a field's input. */
export function inputType(rule: FieldRule): TypeSpec {
  switch (rule.kind) {
    case "string":
      return { type: "string" };
    case "integer":
    case "number":
      return { type: rule.kind };
    case "boolean":
      return { type: "boolean" };
    case "strings":
      return { type: "array", items: { type: "string" } };
    case "reference":
      return NAME_OR_ID;
    case "references":
      return { type: "array", items: NAME_OR_ID };
  }
}

/** The description: the table's doc, with the bounds the rule holds a value to. */
function describe(rule: FieldRule): string {
  const doc = rule.doc.charAt(0).toUpperCase() + rule.doc.slice(1);
  switch (rule.kind) {
    case "string":
      return `${doc}. At most ${rule.maxLength} characters.`;
    case "integer":
    case "number": {
      const max = upperBound(rule);
      return `${doc}. At least ${rule.min}${max === undefined || max === MAX_INTEGER ? "" : `, at most ${max}`}.`;
    }
    case "reference":
    case "references":
      return `${doc}. A ${REFERENCE_WHAT[rule.ref]} name (case-insensitive) or id.`;
    default:
      return `${doc}.`;
  }
}

/**
 * The inputs whose change replaces the object. Until the rule tables carry a `replaces` flag, this asks each
 * resource's own Diff (the function the engine calls) whether a change of the input alone replaces it, so the
 * schema cannot say otherwise than the provider does. The one function to switch to the table flag.
 */
export async function replacingInputs(r: PluginResource): Promise<Set<string>> {
  // The resource's own table (provider/rules/resources.ts), which its Diff reads too.
  const spec = RESOURCE_TABLES.find((s) => s.name === r.name);
  if (!spec) throw new Error(`no resource table for ${r.name}`);
  return new Set(resourceReplaces(spec).keys());
}

export function inputKeys(r: PluginResource): string[] {
  return [...r.ids.map((i) => i.key), ...Object.keys(r.table), ...(r.extraInputs ?? []).map((x) => x.key)];
}

async function resourceSpec(r: PluginResource): Promise<Record<string, unknown>> {
  const replacing = await replacingInputs(r);
  const inputs: Record<string, PropertySpec> = {};
  const outputs: Record<string, PropertySpec> = {};
  const mark = (key: string, spec: PropertySpec): PropertySpec => (replacing.has(key) ? { ...spec, replaceOnChanges: true } : spec);
  for (const id of r.ids) {
    const doc = id.doc.charAt(0).toUpperCase() + id.doc.slice(1) + ".";
    inputs[id.key] = mark(id.key, { ...ID, description: doc });
    outputs[id.key] = { type: "integer", description: doc };
  }
  for (const [key, rule] of Object.entries(r.table)) {
    inputs[key] = mark(key, { ...inputType(rule), description: describe(rule) });
    // A named reference is kept as the user spelled it (a name or an id).
    outputs[key] = { ...inputType(rule), description: describe(rule) };
  }
  for (const x of r.extraInputs ?? []) {
    const spec: PropertySpec = {
      type: "string",
      description: x.doc.charAt(0).toUpperCase() + x.doc.slice(1) + ".",
      ...(x.secret ? { secret: true } : {}),
    };
    inputs[x.key] = mark(x.key, spec);
    outputs[x.key] = spec;
  }
  for (const o of r.outputs) {
    const type = o.type === "integers" ? { type: "array", items: { type: "integer" } } : { type: o.type };
    outputs[o.key] = { ...type, description: o.doc.charAt(0).toUpperCase() + o.doc.slice(1) + ".", ...(o.secret ? { secret: true } : {}) };
  }
  const requiredInputs = [
    ...r.ids.filter((i) => i.required).map((i) => i.key),
    ...Object.entries(r.table)
      .filter(([, x]) => x.required)
      .map(([k]) => k),
  ];
  return {
    description: `${r.doc}\n\nImport: \`pulumi import ${tokenOf(r)} <name> ${r.importId.form}\`.`,
    inputProperties: inputs,
    requiredInputs,
    properties: outputs,
    required: requiredInputs,
  };
}

/** The package schema of plugin version `version`. */
export async function packageSchema(version: string): Promise<Record<string, unknown>> {
  const variables: Record<string, PropertySpec> = {};
  for (const key of [...CONFIG_KEYS, ...OPTIONAL_KEYS]) {
    variables[key] = {
      type: key === "recoverInterruptedCreates" ? "boolean" : "string",
      description: CONFIG_DOCS[key],
      ...(SECRET_CONFIG_KEYS.includes(key) ? { secret: true } : {}),
    };
  }
  const resources: Record<string, unknown> = {};
  for (const r of RESOURCES) resources[tokenOf(r)] = await resourceSpec(r);
  return {
    name: PACKAGE,
    displayName: "Backup Portal",
    version,
    description: "Business units, consumers, backup nodes and node proxies of a Backup Portal (Auwau Cloutility).",
    license: "Apache-2.0",
    config: { variables },
    provider: {
      description: "The backupportal provider: one portal and account. Keys not set fall back to the BACKUP_PORTAL_* environment.",
      inputProperties: variables,
    },
    resources,
    language: { nodejs: { packageName: "@backup-portal/backupportal" } },
  };
}
