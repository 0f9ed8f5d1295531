// The Pulumi package schema GetSchema answers, generated from the resource tables
// (provider/rules/resources.ts and the field tables in fields.ts): a property per
// input and output, its type and description, required inputs, secrets, and
// replaceOnChanges where a change replaces the object. Nothing here decides
// what is valid; SDKs generated from it (`pulumi package gen-sdk`) follow the
// same tables the lifecycles check with. It also says where the plugin is
// published (pluginDownloadURL) and what each SDK is called (distribution.ts).
import { FieldRule, MAX_INTEGER, REFERENCE_WHAT, upperBound } from "../rules/fields";
import { CONFIG_DOCS, CONFIG_KEYS, OPTIONAL_KEYS, SECRET_CONFIG_KEYS } from "./config";
import { PACKAGE, PluginResource, RESOURCES, tokenOf } from "./resources";
import { OtherInput, resourceReplaces, secretKeys } from "../rules/resources";
import { goImportBasePath, pluginDownloadUrl, repository, repositoryUrl } from "./distribution";
import { TENANTS_DESCRIPTION, TENANTS_OUTPUTS, TENANTS_TYPE } from "./components";

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

/** A table's doc as a sentence. */
const sentence = (doc: string) => doc.charAt(0).toUpperCase() + doc.slice(1) + (doc.endsWith(".") ? "" : ".");

/** The description: the table's doc, with the bounds the rule holds a value to. */
function describe(rule: FieldRule): string {
  const doc = sentence(rule.doc);
  switch (rule.kind) {
    case "string":
      return `${doc} At most ${rule.maxLength} characters.`;
    case "integer":
    case "number": {
      const max = upperBound(rule);
      return `${doc} At least ${rule.min}${max === undefined || max === MAX_INTEGER ? "" : `, at most ${max}`}.`;
    }
    case "reference":
    case "references":
      return `${doc} A ${REFERENCE_WHAT[rule.ref]} name (case-insensitive) or id.`;
    default:
      return doc;
  }
}

/**
 * The schema type of a TypeScript type the resource tables write (an other input's or an output's). Every number
 * the tables name is a portal id, so an integer; a type the mapping does not know fails the schema's generation
 * instead of becoming a wrong type in every SDK.
 */
export function schemaTypeOf(tsType: string): TypeSpec {
  const t = tsType.replace(/\s*\|\s*undefined$/, "");
  switch (t) {
    case "string":
      return { type: "string" };
    case "number":
      return { type: "integer" };
    case "number[]":
      return { type: "array", items: { type: "integer" } };
    case "number | string":
      return ID;
  }
  throw new Error(`no schema type for the table's type "${tsType}"`);
}

/** The output of an other input: an id the program gave as a number or its digits comes back as the number. */
const otherOutputType = (rule: OtherInput): TypeSpec => (rule.type === "number | string" ? { type: "integer" } : schemaTypeOf(rule.type));

async function resourceSpec(r: PluginResource): Promise<Record<string, unknown>> {
  const { spec } = r;
  const replacing = resourceReplaces(spec);
  const secrets = new Set(secretKeys(spec));
  const inputs: Record<string, PropertySpec> = {};
  const outputs: Record<string, PropertySpec> = {};
  const marks = (key: string): PropertySpec => (secrets.has(key) ? { secret: true } : {});
  const replaces = (key: string): PropertySpec => (replacing.has(key) ? { replaceOnChanges: true } : {});
  for (const [key, rule] of Object.entries(spec.other)) {
    const description = sentence(rule.doc);
    inputs[key] = { ...schemaTypeOf(rule.type), description, ...marks(key), ...replaces(key) };
    outputs[key] = { ...otherOutputType(rule), description, ...marks(key) };
  }
  for (const [key, rule] of Object.entries(spec.fields)) {
    const description = describe(rule);
    inputs[key] = { ...inputType(rule), description, ...replaces(key) };
    // A named reference is kept as the user spelled it (a name or an id).
    outputs[key] = { ...inputType(rule), description };
  }
  for (const [key, out] of Object.entries(spec.outputs))
    outputs[key] = { ...schemaTypeOf(out.type), description: sentence(out.doc), ...marks(key) };
  const requiredInputs = [
    ...Object.entries(spec.other)
      .filter(([, x]) => x.required)
      .map(([k]) => k),
    ...Object.entries(spec.fields)
      .filter(([, x]) => x.required)
      .map(([k]) => k),
  ];
  return {
    description: `${spec.doc}\n\nImport: \`pulumi import ${tokenOf(r)} <name> ${r.importId.form}\`.`,
    inputProperties: inputs,
    requiredInputs,
    properties: outputs,
    required: requiredInputs,
  };
}

/** The Tenants component: no inputs (it reads the stack's config), its outputs maps by resource name. */
function tenantsSpec(): Record<string, unknown> {
  const properties: Record<string, PropertySpec> = {};
  for (const [key, o] of Object.entries(TENANTS_OUTPUTS)) {
    properties[key] = { type: "object", additionalProperties: { type: o.type }, description: o.description };
  }
  return { isComponent: true, description: TENANTS_DESCRIPTION, inputProperties: {}, properties, required: Object.keys(properties) };
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
  resources[TENANTS_TYPE] = tenantsSpec();
  const repo = repository();
  return {
    name: PACKAGE,
    displayName: "Backup Portal",
    version,
    description: "Business units, consumers, backup nodes and node proxies of a Backup Portal (Auwau Cloutility).",
    license: "Apache-2.0",
    repository: repositoryUrl(repo),
    // Where `pulumi plugin install` and the engine fetch the plugin a program's SDK names: this repository's
    // GitHub releases, whose assets scripts/release-assets.ts names (distribution.ts).
    pluginDownloadURL: pluginDownloadUrl(repo),
    config: { variables },
    provider: {
      description: "The backupportal provider: one portal and account. Keys not set fall back to the BACKUP_PORTAL_* environment.",
      inputProperties: variables,
    },
    resources,
    // respectSchemaVersion: the SDKs carry this version (the plugin they need), not a placeholder a build fills in.
    language: {
      nodejs: { packageName: "@backup-portal/backupportal", respectSchemaVersion: true },
      python: { packageName: "pulumi_backupportal", respectSchemaVersion: true },
      go: { importBasePath: goImportBasePath(repo), respectSchemaVersion: true },
      csharp: { respectSchemaVersion: true },
    },
  };
}
