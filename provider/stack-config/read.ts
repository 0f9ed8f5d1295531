// THE reader of a stack's config: takes the whole config map the runtime hands the program (not only the keys
// the program asks for), checks every `backup-portal:` key against the table (provider/rules/stack-config.ts),
// requires `backup-portal:tenants`, hands each block to its own rules (blocks.ts) and returns either the typed
// config or every problem at once. Keys of other namespaces are left alone. Nothing here talks to the portal.
import * as pulumi from "@pulumi/pulumi";
import type { PortalConnection } from "../billing/from-config";
import { fieldProblem, takesNumber } from "../rules/fields";
import {
  ConfigRule,
  depthProblem,
  NAMESPACE,
  qualified,
  reservedKeyProblem,
  setSecretHint,
  STACK_CONFIG_KEYS,
} from "../rules/stack-config";
import { suggest } from "../rules/suggest";
import { cliTimestampProblem, leadingZeroProblem } from "../rules/yaml-scalars";
import { Problem, TenantsConfig } from "../tenants/model";
import { checkStackBlocks, StackBlocks } from "./blocks";
import { namedSecrets } from "./secrets";

export interface ConfigSource {
  /** `namespace:key` → the value as text (objects as JSON): `pulumi.runtime.allConfig()`. */
  config: Record<string, string>;
  /** Whether the (namespaced) key is stored as a secret: the runtime's `isConfigSecret`. */
  isSecret(key: string): boolean;
  /**
   * Whether the value is the ciphertext, not the secret (a stack file read as it is, as the fleet reads its base
   * stack): its value is not checked, only where it is stored.
   */
  encrypted?(key: string): boolean;
}

/** The stack's config, checked: what the stack program declares from. */
export interface StackConfig extends StackBlocks {
  tenants: TenantsConfig;
  protectBusinessUnits: boolean;
  deletionComment: string;
}

export type ReadResult = { config: StackConfig; problems: [] } | { config?: undefined; problems: Problem[] };

const PREFIX = `${NAMESPACE}:`;

/** A config text as the value its rule takes; text that is not one stays text, for the rule to name. */
function parse(text: string, rule: ConfigRule): unknown {
  switch (rule.kind) {
    case "integer":
    case "number":
      return /^\s*-?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?\s*$/i.test(text) ? Number(text) : text;
    case "boolean":
      return text === "true" ? true : text === "false" ? false : text;
    case "string":
      return text;
    default:
      try {
        return JSON.parse(text);
      } catch {
        return text;
      }
  }
}

const NULL_TENANTS =
  "is empty (null: nothing after the key, or every entry commented out); write `backup-portal:tenants: {}` to declare " +
  "none on purpose (an empty block would plan to delete every tenant the stack manages)";

/** What a secret stored in plain text gets: the command that stores it as one (never its value). */
const PLAIN_SECRET = (key: string) => `is stored in plain text in the stack's config file; set it again as a secret: ${setSecretHint(key)}`;

/** The problem of a single value (not a block: those have their own rules); never shows a secret's value. */
function scalarProblem(key: string, v: unknown, rule: ConfigRule, stored: { secret: boolean }): string | undefined {
  if (rule.kind === "map" || rule.kind === "block" || rule.kind === "blocks" || rule.kind === "tenants") return undefined;
  if (rule.secret) {
    if (!stored.secret) return PLAIN_SECRET(key);
    return typeof v === "string" && v.trim() === "" ? `is empty; set it: ${setSecretHint(key)}` : undefined;
  }
  const problem = fieldProblem(v, rule);
  if (problem) return problem;
  if (rule.kind === "string" && rule.format === "url" && typeof v === "string") {
    let ok = false;
    try {
      ok = /^https?:$/.test(new URL(v).protocol);
    } catch {
      ok = false;
    }
    if (!ok) return `must be an http:// or https:// URL, got ${JSON.stringify(v)}; e.g. https://portal.example.com`;
  }
  return undefined;
}

function unknownKeyMessage(key: string, candidates: string[], secret: boolean): string {
  const s = suggest(key, candidates);
  if (s !== undefined) return `unknown key; did you mean ${qualified(s)}?`;
  if (secret) {
    return (
      "unknown key: a secret that no passwordSecret, passwordSecretKey or billingReceiver.secretKey names; " +
      `name it there, or remove it: \`pulumi config rm ${qualified(key)}\``
    );
  }
  return `unknown key; known keys: ${Object.keys(STACK_CONFIG_KEYS).join(", ")}`;
}

export interface NamespaceCheck {
  problems: Problem[];
  /** The paths that name a key of the table as their secret (each has its problem). */
  reservedSecretPaths: Set<string>;
  /** The values of the table's keys that passed, parsed by their rule. */
  values: Record<string, unknown>;
}

/**
 * The namespace itself: every `backup-portal:` key against the table (unknown ones with a did-you-mean), the
 * single values by their rule, tenants required. The blocks' own rules are not run here (readStackConfig runs them).
 */
export function checkNamespace(src: ConfigSource): NamespaceCheck {
  const problems: Problem[] = [];
  const raw = new Map<string, string>();
  for (const [k, v] of Object.entries(src.config)) if (k.startsWith(PREFIX)) raw.set(k.slice(PREFIX.length), v);

  const values: Record<string, unknown> = {};
  for (const [key, rule] of Object.entries(STACK_CONFIG_KEYS)) {
    const text = raw.get(key);
    if (text === undefined) continue;
    const secret = src.isSecret(qualified(key));
    if (secret && src.encrypted?.(qualified(key))) continue; // ciphertext: nothing to check but where it is stored
    const v = parse(text, rule);
    const problem =
      (takesNumber(rule) ? leadingZeroProblem(text) : undefined) ??
      (rule.kind === "tenants" && v === null ? NULL_TENANTS : undefined) ??
      depthProblem(v) ??
      scalarProblem(key, v, rule, { secret });
    if (problem) problems.push({ path: key, message: problem });
    else values[key] = v;
    if (!problem && !secret) problems.push(...misreadTimestamps(v, key));
  }
  if (!raw.has("tenants")) {
    problems.push({
      path: "tenants",
      message:
        "is not set; declare the stack's tenants under backup-portal:tenants, or write `backup-portal:tenants: {}` " +
        "to declare none on purpose (an absent key would plan to delete every tenant the stack manages)",
    });
  }

  const named = namedSecrets(values.tenants, values.registry, values.billingReceiver);
  const reservedSecretPaths = new Set<string>();
  for (const { key, path } of named) {
    const problem = reservedKeyProblem(key);
    if (problem) problems.push({ path, message: problem });
    if (problem) reservedSecretPaths.add(path);
  }
  // A Set: every node's password is a key here, and a list would be searched once per key of the namespace.
  const known = new Set([...Object.keys(STACK_CONFIG_KEYS), ...named.map((s) => s.key)]);
  let candidates: string[] | undefined;
  for (const key of raw.keys()) {
    if (!known.has(key))
      problems.push({ path: key, message: unknownKeyMessage(key, (candidates ??= [...known]), src.isSecret(qualified(key))) });
  }
  return { problems, values, reservedSecretPaths };
}

/**
 * The texts in `v` (at `path`) that are timestamps the CLI read from plain dates in the stack file: Go's time text
 * where the author wrote 2024-01-01, which would rename a business unit on the first up. Walked without recursion.
 */
function misreadTimestamps(v: unknown, path: string): Problem[] {
  const problems: Problem[] = [];
  const todo: Array<[unknown, string]> = [[v, path]];
  while (todo.length) {
    const [node, at] = todo.pop()!;
    if (typeof node === "string") {
      const problem = cliTimestampProblem(node);
      if (problem) problems.push({ path: at, message: problem });
    } else if (Array.isArray(node)) node.forEach((item, i) => todo.push([item, `${at}[${i}]`]));
    else if (node && typeof node === "object")
      for (const [k, item] of Object.entries(node)) {
        // A key too: a tenant's key written as a plain date names its resource by Go's time text.
        const problem = cliTimestampProblem(k);
        if (problem) problems.push({ path: `${at}.${k}`, message: `the key ${problem}` });
        todo.push([item, `${at}.${k}`]);
      }
  }
  return problems;
}

/** Reads and checks the whole `backup-portal:` namespace of `src`, and hands each block to its rules. */
export function readStackConfig(src: ConfigSource): ReadResult {
  const { problems, values, reservedSecretPaths } = checkNamespace(src);
  const text = (key: string) => (typeof values[key] === "string" ? (values[key] as string) : undefined);
  const hasSecret = (key: string) => src.isSecret(qualified(key)) && src.config[qualified(key)] !== undefined;
  const secret = (key: string): pulumi.Output<string> => {
    const value = src.config[qualified(key)];
    if (value === undefined) throw new Error(`${qualified(key)} is not set`);
    if (!src.isSecret(qualified(key))) throw new Error(`${qualified(key)} ${PLAIN_SECRET(key)}`);
    return pulumi.secret(value);
  };
  const [url, origin, clientId, username] = ["url", "origin", "clientId", "username"].map(text);
  const connection: PortalConnection | undefined =
    url && origin && clientId && username && values.password !== undefined
      ? { url, origin, clientId, username, password: secret("password") }
      : undefined;
  const config: StackConfig = {
    tenants: (values.tenants ?? {}) as TenantsConfig,
    rootBusinessUnitId: (values.rootBusinessUnitId as number | undefined) ?? (STACK_CONFIG_KEYS.rootBusinessUnitId.default as number),
    protectBusinessUnits:
      (values.protectBusinessUnits as boolean | undefined) ?? (STACK_CONFIG_KEYS.protectBusinessUnits.default as boolean),
    deletionComment: text("deletionComment") ?? (STACK_CONFIG_KEYS.deletionComment.default as string),
    registry: values.registry,
    billingReceiver: values.billingReceiver,
    connection,
    kubeconfig: values.kubeconfig !== undefined ? secret("kubeconfig") : undefined,
    secret,
    hasSecret,
  };
  // A secret named by a key of the table has its line already: not another one saying how to set that key.
  problems.push(...checkStackBlocks(config).problems.filter((p) => !reservedSecretPaths.has(p.path)));
  return problems.length ? { problems } : { config, problems: [] };
}

export { configProblemsText, formatConfigProblems, sortProblems } from "./problems";
