// The stack config of one fleet group: the base stack's settings (portal
// connection, root business unit, protection, deletion comment) and the group's
// tenants. The registry and the billing receiver stay in the base stack: each is
// one deployment, and a copy in every group stack would fight over one namespace.
import * as fs from "fs";
import * as path from "path";
import { Document, isMap, isScalar } from "yaml";
import { stackYamlText } from "../../provider/export/stack-yaml";
import { configSize, groupConfigSizeProblem } from "../../provider/rules/config-env";
import { parseStackFile, readProject, shortStack, STACK_FILE, stackFilePath } from "../../provider/stack-config/file";
import { parseYamlDocument } from "../../provider/stack-config/yaml-document";
import { configProblemsText } from "../../provider/stack-config/read";
import { TenantsConfig } from "../../provider/tenants/model";
import { walkBusinessUnits } from "../../provider/tenants/validate";

/** Pulumi's config value as the Automation API takes it (`ConfigMap` of @pulumi/pulumi/automation). */
export interface ConfigValue {
  value: string;
  secret?: boolean;
}
export type ConfigMap = Record<string, ConfigValue>;

/** The `config:` map of a stack file, as parsed from YAML: plain values, objects, or `{ secure: ... }`. */
export type BaseConfig = Record<string, unknown>;

export const PROJECT = "backup-portal";
export const TENANTS_KEY = `${PROJECT}:tenants`;
export const PASSWORD_KEY = `${PROJECT}:password`;

/** Keys that belong to the base stack only and are never copied into a group. */
export const BASE_ONLY_KEYS: readonly string[] = [
  TENANTS_KEY,
  `${PROJECT}:registry`,
  `${PROJECT}:billingReceiver`,
  `${PROJECT}:kubeconfig`,
];

// js-yaml ships with @pulumi/pulumi (a dependency of its Automation API).

const yaml: { load(text: string): unknown; dump(value: unknown, opts?: Record<string, unknown>): string } = require("js-yaml");
export { yaml };

/** `web01Password` → `backup-portal:web01Password`; namespaced keys stay as they are. */
export function normalizeKey(key: string): string {
  return key.includes(":") ? key : `${PROJECT}:${key}`;
}

export function isSecure(v: unknown): v is { secure: string } {
  return !!v && typeof v === "object" && !Array.isArray(v) && typeof (v as { secure?: unknown }).secure === "string";
}

/** A plain config value as the CLI passes it to the program: strings as they are, anything else as JSON. */
function plainValue(v: unknown): string {
  return typeof v === "string" ? v : JSON.stringify(v);
}

/** The (namespaced) secret config keys the tenants' nodes name in `passwordSecret`, sorted. */
export function referencedSecrets(tenants: TenantsConfig): string[] {
  const keys = new Set<string>();
  for (const { bu } of walkBusinessUnits(tenants ?? {})) {
    for (const c of Object.values(bu.consumers ?? {})) {
      const key = c?.node?.passwordSecret;
      if (typeof key === "string" && key.trim()) keys.add(normalizeKey(key));
    }
  }
  return [...keys].sort();
}

/** The secure keys of the base config that some group needs: the portal password and the groups' node passwords. */
export function neededSecureKeys(base: BaseConfig, groups: Record<string, TenantsConfig>): string[] {
  const secure = new Set(
    Object.entries(base)
      .filter(([, v]) => isSecure(v))
      .map(([k]) => normalizeKey(k)),
  );
  const wanted = new Set([PASSWORD_KEY, ...Object.values(groups).flatMap(referencedSecrets)]);
  return [...wanted].filter((k) => secure.has(k)).sort();
}

export interface FleetConfigOptions {
  /**
   * Plaintext of secret config values by key (namespaced or not), e.g. read from the base stack with
   * `pulumi config --show-secrets`. Ciphertext in the base file (`secure: v1:...`) is bound to the base
   * stack's key and cannot be copied; each group stack encrypts its own copy.
   */
  secrets?: Record<string, string>;
}

/**
 * The config of one group's stack: every plain key of the base except the base-only ones
 * (tenants, registry, billing receiver, kubeconfig), the group's tenants, and as secrets only the portal password and
 * the node passwords the group's own tenants name (a group never holds another group's node passwords).
 * Keys are namespaced; the result is deterministic (sorted keys).
 */
export function fleetStackConfig(base: BaseConfig, groupTenants: TenantsConfig, opts: FleetConfigOptions = {}): ConfigMap {
  return fleetStackConfigs(base, { group: groupTenants }, opts).group;
}

/**
 * fleetStackConfig of every group at once: the base and the secrets are read once, not once per group (the base
 * of a fleet holds every node's password, so reading it for each group grows with groups times tenants).
 */
export function fleetStackConfigs(
  base: BaseConfig,
  groups: Record<string, TenantsConfig>,
  opts: FleetConfigOptions = {},
): Record<string, ConfigMap> {
  const plain: Array<[string, ConfigValue]> = [];
  for (const [rawKey, v] of Object.entries(base ?? {})) {
    const key = normalizeKey(rawKey);
    if (BASE_ONLY_KEYS.includes(key) || v === null || v === undefined || isSecure(v)) continue;
    plain.push([key, { value: plainValue(v) }]);
  }
  const secrets = new Map(Object.entries(opts.secrets ?? {}).map(([k, v]) => [normalizeKey(k), v]));
  const configs: Record<string, ConfigMap> = {};
  for (const [group, groupTenants] of Object.entries(groups)) {
    const out: ConfigMap = {};
    for (const [key, value] of plain) out[key] = { ...value };
    const sorted: TenantsConfig = {};
    for (const k of Object.keys(groupTenants ?? {}).sort()) sorted[k] = groupTenants[k];
    out[TENANTS_KEY] = { value: JSON.stringify(sorted) };
    for (const key of [PASSWORD_KEY, ...referencedSecrets(groupTenants)]) {
      const value = secrets.get(key);
      if (value !== undefined) out[key] = { value, secret: true };
    }
    configs[group] = Object.fromEntries(Object.entries(out).sort(([a], [b]) => a.localeCompare(b)));
  }
  return configs;
}

/**
 * A line for each group stack whose config is more than the Node.js runtime can hand its program
 * (provider/rules/config-env.ts), naming the stack (`stackOf` the group); none when every group fits. Each group's
 * tenants are counted as the stack file holds them, a YAML map the CLI hands over as Go's JSON.
 */
export function groupSizeProblems(
  configs: Record<string, ConfigMap>,
  groups: Record<string, TenantsConfig>,
  stackOf: (group: string) => string,
): string[] {
  const fleetTenants = Object.values(groups).reduce((n, ts) => n + Object.keys(ts ?? {}).length, 0);
  const problems: string[] = [];
  for (const [group, config] of Object.entries(configs)) {
    const texts: Record<string, unknown> = Object.fromEntries(Object.entries(config).map(([k, v]) => [k, v.value]));
    texts[TENANTS_KEY] = groups[group] ?? {};
    const problem = groupConfigSizeProblem(configSize(texts, TENANTS_KEY, referencedSecrets(groups[group] ?? {})), fleetTenants);
    if (problem) problems.push(`stack ${stackOf(group)}: ${problem}`);
  }
  return problems;
}

/** The tenants of a group's config (parsed back from `backup-portal:tenants`). */
export function tenantsOf(config: ConfigMap): TenantsConfig {
  const v = config[TENANTS_KEY]?.value;
  return v ? (JSON.parse(v) as TenantsConfig) : {};
}

/**
 * Reads the `config:` map of a stack file (`stacks/Pulumi.<stack>.yaml`) with the reader `export --merge` uses, and
 * refuses what the Pulumi CLI (yaml.v3) would read as another number than this reader does (`adoptId: 0123` is 83
 * there): the group stacks must get the tenants the base stack's own `pulumi up` would.
 */
export function readStackConfigFile(file: string): BaseConfig {
  const { config, problems } = parseStackFile(fs.readFileSync(file, "utf8"), file);
  if (problems.length) throw new Error(configProblemsText(file, problems));
  return config;
}

/** `Pulumi.prod.yaml` → `prod`. */
export function stackNameOfFile(file: string): string | undefined {
  return STACK_FILE.exec(path.basename(file))?.[1];
}

/** The last part of a stack name: `org/prod-g03` and `org/backup-portal/prod-g03` → `prod-g03`. */
export const shortStackName = shortStack;

/** Where the CLI keeps a stack's config: `<workDir>/<stackConfigDir>/Pulumi.<stack>.yaml` (stackConfigDir from Pulumi.yaml). */
export function stackConfigPath(workDir: string, stackName: string): string {
  return stackFilePath(readProject(workDir) ?? { dir: workDir, stackDir: workDir, hasStackConfigDir: false }, stackName);
}

/**
 * Writes plain values into a stack's config file, keeping everything else in it (the encryption
 * salt or key, secure values, other keys). Used for values too large for a command-line argument:
 * `pulumi config set-all` takes each value as one argument, and Linux refuses an argument over
 * 128 KiB, which the tenants of a few hundred customers reach. Values holding JSON objects or lists
 * are stored as YAML structures; the CLI hands them to the program as JSON, as `config.getObject` expects.
 * The text is written as export writes stack files (provider/export/stack-yaml.ts): the tenants' names and notes
 * come from the portal, and every reader, the CLI's yaml.v3 first, must read each of them back as the same string.
 */
export function writePlainConfig(file: string, values: Record<string, string>): void {
  const doc: Document = parseYamlDocument(fs.existsSync(file) ? fs.readFileSync(file, "utf8") : "");
  if (doc.contents === null) doc.contents = doc.createNode({});
  if (doc.errors.length || !isMap(doc.contents)) throw new Error(`${file}: not a stack file the fleet can add its config to`);
  // `config:` with nothing under it (its keys removed or commented out) is no config yet, as the CLI reads it.
  const config = doc.get("config", true);
  if (config === null || (isScalar(config) && config.value === null)) doc.set("config", doc.createNode({}));
  else if (config !== undefined && !isMap(config))
    throw new Error(`${file}: config: must be a map of config keys; remove it or make it one`);
  for (const [key, value] of Object.entries(values)) {
    let stored: unknown = value;
    if (/^\s*[[{]/.test(value)) {
      try {
        stored = JSON.parse(value);
      } catch {
        stored = value;
      }
    }
    doc.setIn(["config", key], doc.createNode(stored));
  }
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, stackYamlText(doc));
}
