// THE table of every key of the `backup-portal:` namespace of a stack's config, and the tables of the
// structured blocks among them. The config reader (provider/stack-config/read.ts) refuses a key that is not
// here (with a did-you-mean from this table), the JSON Schema of the stack files (provider/stack-config/
// schema.ts) and the reference page docs/reference/stack-config.md (provider/stack-config/reference.ts) are
// generated from it. Each block's own rules still decide what its values may be: the tenants'
// (provider/tenants/validate.ts over the field tables), the registry's (provider/registry/from-config.ts) and
// the billing receiver's (provider/billing/from-config.ts); the tables below name their keys for those rules.
import { CONSUMER_FIELDS, FieldRule } from "./fields";

export const NAMESPACE = "backup-portal";

interface StackExtras {
  /** Must be stored as a secret (`pulumi config set --secret`): a plain value is refused. */
  secret?: boolean;
  /** The value used when the key is absent (absent: no default, or the doc says what happens). */
  default?: string | number | boolean;
  /** A string that must be an http(s) URL. */
  format?: "url";
}

/** A single value, checked with the field rules of provider/rules/fields.ts. */
export type ScalarKey = FieldRule & StackExtras;

/** A map passed on as it is, checked by the rules it is handed to. */
export interface MapKey extends StackExtras {
  kind: "map";
  doc: string;
  required?: boolean;
}

/** A map of known keys. */
export interface BlockKey extends StackExtras {
  kind: "block";
  doc: string;
  keys: ConfigTable;
  required?: boolean;
}

/** A list of maps of known keys. */
export interface BlockListKey extends StackExtras {
  kind: "blocks";
  doc: string;
  keys: ConfigTable;
  required?: boolean;
}

/** `backup-portal:tenants`: business units by key, checked by the tenant field tables. */
export interface TenantsKey extends StackExtras {
  kind: "tenants";
  doc: string;
  required: true;
}

export type ConfigRule = ScalarKey | MapKey | BlockKey | BlockListKey | TenantsKey;
export type ConfigTable = Record<string, ConfigRule>;

const line = (doc: string, extra: Partial<ScalarKey> = {}): ScalarKey =>
  ({ kind: "string", text: "line", maxLength: 1000, nonBlank: true, doc, ...extra }) as ScalarKey;
const flag = (doc: string, dflt?: boolean): ScalarKey => ({ kind: "boolean", doc, ...(dflt === undefined ? {} : { default: dflt }) });

/** `backup-portal:registry.users[]`. */
export const REGISTRY_USER_KEYS: ConfigTable = {
  username: line("the user's name in the registry's htpasswd", { required: true, maxLength: 200 }),
  passwordSecretKey: line("the secret config key holding the user's password; default registryPassword-<username>", {
    maxLength: 200,
  }),
};

/** `backup-portal:registry.cve`. */
export const REGISTRY_CVE_KEYS: ConfigTable = {
  enabled: flag("scan images for CVEs (zot's search extension with trivy)"),
  dbRepository: line("the trivy vulnerability database to pull (a mirror for clusters without internet access)"),
  javaDbRepository: line("the trivy Java database to pull"),
};

/** `backup-portal:registry`: the zot registry on the stack's cluster (provider/registry/from-config.ts). */
export const REGISTRY_KEYS: ConfigTable = {
  enabled: flag("deploy the registry (a block without it is enabled)", true),
  namespace: line("the Kubernetes namespace of everything", { default: "zot" }),
  createNamespace: flag("create the namespace; false uses an existing one", true),
  releaseName: line("the Helm release name (and the Service's name)", { default: "zot" }),
  chartVersion: line("the zot chart's version; another than the pinned one gets a warning"),
  chartRepository: line("the Helm repository of the zot chart", { default: "https://zotregistry.dev/helm-charts" }),
  storageSize: line("the size of the registry's volume", { default: "100Gi" }),
  storageClass: {
    kind: "string",
    text: "line",
    maxLength: 253,
    doc: 'the storage class of the volume; "" uses the cluster\'s default class',
    default: "large",
  },
  realm: line("http.realm of zot's config.json", { default: "zot" }),
  users: { kind: "blocks", keys: REGISTRY_USER_KEYS, doc: "htpasswd users; none means no authentication" },
  config: { kind: "map", doc: "overrides of zot's config.json, deep-merged over the defaults (checked against zot's keys)" },
  cve: { kind: "block", keys: REGISTRY_CVE_KEYS, doc: "CVE scanning" },
  values: { kind: "map", doc: "extra Helm values, deep-merged last (checked against the keys the pinned chart reads)" },
};

/** `backup-portal:billingReceiver`: the billing notification receiver (provider/billing/from-config.ts). */
export const BILLING_RECEIVER_KEYS: ConfigTable = {
  enabled: flag("deploy the receiver (a block without it is enabled)", true),
  businessUnitId: { kind: "integer", min: 1, doc: "the reseller business unit whose billing data is stored; default rootBusinessUnitId" },
  namespace: line("the Kubernetes namespace to deploy to (must exist)", { default: "default" }),
  image: line(
    "required while enabled: the receiver image pinned by digest, `<registry>/backup-portal-receiver@sha256:<digest>`, built from provider/billing/Dockerfile",
  ),
  packageSpec: line("no longer supported, and refused: a package installed when the pod starts is not verified; give image instead"),
  serviceType: line("ClusterIP, NodePort or LoadBalancer", { default: "ClusterIP" }),
  port: { kind: "integer", min: 1, max: 65535, doc: "the container port", default: 8080 },
  secretKey: line("the secret config key holding the Post URL's shared secret (at least 8 characters)", { maxLength: 200 }),
  storageSize: line("the size of the volume of received files", { default: "1Gi" }),
};

/** Every key of the `backup-portal:` namespace. Keys named by a block as a secret (node passwords, ...) come on top. */
export const STACK_CONFIG_KEYS: ConfigTable = {
  tenants: {
    kind: "tenants",
    required: true,
    doc: "the business units (tenants) of this stack, by key, with their consumers and nodes; `{}` declares none",
  },
  rootBusinessUnitId: { kind: "integer", min: 1, default: 1, doc: "the business unit the top-level tenants are created under" },
  protectBusinessUnits: flag(
    "protect every business unit from deletion (Pulumi's protect); a tenant's own `protect` overrides it. " +
      "Only the local emulator stack sets false",
    true,
  ),
  deletionComment: {
    ...CONSUMER_FIELDS.deletionComment,
    local: undefined,
    default: "Removed by Pulumi",
    doc: "the comment the portal records when a consumer is deleted",
  } as ScalarKey,
  url: line("the portal API's base address, without /v1 (or BACKUP_PORTAL_URL)", { format: "url" }),
  origin: line("the origin registered with the client ID, sent as Origin (or BACKUP_PORTAL_ORIGIN)", { format: "url" }),
  clientId: line("the API client ID from Settings, API access (or BACKUP_PORTAL_CLIENT_ID)"),
  username: line("the portal account (or BACKUP_PORTAL_USERNAME)"),
  password: line("the portal account's password (or BACKUP_PORTAL_PASSWORD)", { secret: true }),
  maxAnswerBytes: {
    kind: "integer",
    min: 1,
    default: 32 * 1024 * 1024,
    doc: "the largest portal answer accepted, in bytes (or BACKUP_PORTAL_MAX_ANSWER_BYTES)",
  },
  recoverInterruptedCreates: flag(
    "take over objects an interrupted create left on the portal (or BACKUP_PORTAL_RECOVER_INTERRUPTED)",
    false,
  ),
  kubeconfig: {
    kind: "string",
    text: "multiline",
    maxLength: 1_000_000,
    nonBlank: true,
    secret: true,
    doc: "the kubeconfig of the cluster the registry and the billing receiver go to",
  },
  registry: { kind: "block", keys: REGISTRY_KEYS, doc: "the zot registry on the stack's cluster" },
  billingReceiver: { kind: "block", keys: BILLING_RECEIVER_KEYS, doc: "the billing notification receiver on the stack's cluster" },
};

/** `backup-portal:<key>`. */
export const qualified = (key: string) => `${NAMESPACE}:${key}`;

/** The known keys of a block table, for the block's own unknown-key check. */
export const keysOf = (table: ConfigTable): string[] => Object.keys(table);

/**
 * How to store a secret under `key`: the CLI asks for the value (or reads it from stdin, as in CI), so it never
 * stands on a command line, where the shell's history and `ps` would keep it. A key without a namespace is given
 * this one: the CLI would put it in the project's, which is `backup-portal` only in this repository.
 */
export const setSecretHint = (key: string): string =>
  `\`pulumi config set --secret ${key.includes(":") ? key : qualified(key)}\` (it asks for the value, or reads it from stdin)`;

/** The two ways a secret a block names is set and still not found, said where it is not. */
export const NOT_A_SECRET_HERE =
  `a key set without its ${NAMESPACE}: namespace goes into the project's, and one set without --secret sits in plain text ` +
  "and does not count";

/**
 * Why a block may not name `key` as its secret (a node's passwordSecret, ...): it is a key of this table, so the
 * value would be another setting's (`password`: the portal account's) and the hint to set it would overwrite that.
 */
export function reservedKeyProblem(key: string): string | undefined {
  if (!Object.hasOwn(STACK_CONFIG_KEYS, key)) return undefined;
  return (
    `"${key}" names ${qualified(key)}, a key of the stack's own config, not a secret of its own; name another key ` +
    `and set it with ${setSecretHint("<key>")}`
  );
}

/**
 * How deep a config value may nest (maps and lists inside it): each business unit takes two levels, so this
 * allows 30 levels of business units, while the readers' recursion stays far from the stack's end.
 */
export const MAX_CONFIG_DEPTH = 64;

/** Why `v` nests too deep, or undefined. Measured without recursion: the value may be deeper than any stack. */
export function depthProblem(v: unknown): string | undefined {
  let deepest = 0;
  const todo: Array<[unknown, number]> = [[v, 0]];
  while (todo.length) {
    const [x, depth] = todo.pop()!;
    if (!x || typeof x !== "object") continue;
    deepest = Math.max(deepest, depth + 1);
    if (deepest > MAX_CONFIG_DEPTH) {
      return `nests more than ${MAX_CONFIG_DEPTH} levels of maps and lists (about 30 levels of business units); flatten it`;
    }
    for (const child of Object.values(x)) todo.push([child, depth + 1]);
  }
  return undefined;
}
