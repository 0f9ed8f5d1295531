// The registry's arguments, their defaults (spec 001 part B), and planRegistry(): a pure
// function that turns the arguments into everything the component will create, or into the
// complete list of problems, each naming its key path and the fix.
import { createHash } from "node:crypto";
import type * as pulumi from "@pulumi/pulumi";
import {
  buildChartValues,
  CHART_APP_VERSION,
  CHART_REPOSITORY,
  CHART_VERSION,
  ownEntries,
  validateChartValues,
  volumeConflicts,
} from "./chart-values";
import { PINNED_ZOT_VERSION } from "./key-data";
import { zotCredentialProblems } from "./zot-credentials";
import { zotStartupProblems, zotStartupWarnings } from "./zot-startup";
import { usernamesProblems } from "./htpasswd";
import { shellQuote } from "../shell/quote";
import { DNS_1035_LABEL, DNS_1123_LABEL, DNS_1123_SUBDOMAIN, MAX_HELM_RELEASE, MAX_STATEFULSET_NAME } from "../rules/kubernetes-names";
import {
  buildZotConfig,
  extensionEnabled,
  getPath,
  goPathClean,
  HTPASSWD_PATH,
  isPlainObject,
  JsonObject,
  ROOT_DIRECTORY,
  validateZotConfig,
  ZOT_PORT,
  zotConfigWarnings,
} from "./zot-config";

/** A registry user. The password is treated as a secret and only ever stored hashed. */
export interface RegistryUser {
  username: string;
  password: pulumi.Input<string>;
}

/** CVE scanning. Air-gapped clusters cannot download Trivy's database from ghcr.io. */
export interface RegistryCveOptions {
  /** false removes `extensions.search.cve` (no scanning, no download). Default true. */
  enabled?: boolean;
  /** Mirror of ghcr.io/aquasecurity/trivy-db → `extensions.search.cve.trivy.dbRepository`. */
  dbRepository?: string;
  /** Mirror of ghcr.io/aquasecurity/trivy-java-db → `extensions.search.cve.trivy.javaDBRepository`. */
  javaDbRepository?: string;
}

export interface RegistryArgs {
  /** Namespace of everything; default "zot". */
  namespace?: string;
  /** Create the namespace (default true); false uses an existing one. */
  createNamespace?: boolean;
  /** Helm release name; default "zot". Also the chart's fullnameOverride (the Service name). */
  releaseName?: string;
  /** Chart version; default "0.1.122", the pinned one (another version gets a warning: the checks are the pinned chart's). */
  chartVersion?: string;
  /** Chart repository; default https://zotregistry.dev/helm-charts. */
  chartRepository?: string;
  /** PVC size; default "100Gi". */
  storageSize?: string;
  /** PVC storage class; default "large"; "" uses the cluster's default class. */
  storageClass?: string;
  /** `http.realm` of config.json; default "zot". */
  realm?: string;
  /** htpasswd users; none means no authentication (http.auth removed). */
  users?: RegistryUser[];
  /** Overrides of zot's config.json, deep-merged over the defaults; `null` deletes a key. */
  config?: JsonObject;
  /** CVE scanning options (applied after `config`). */
  cve?: RegistryCveOptions;
  /** Extra Helm values deep-merged last and checked against the keys the pinned chart reads (chart-schema.ts). */
  values?: JsonObject;
  /**
   * The cluster's kubeconfig, to check at preview that it has `storageClass` (with a token or a client certificate
   * inline; another kubeconfig is not read). Kept as a secret; without it the class is not checked.
   */
  kubeconfig?: pulumi.Input<string>;
}

/** Everything the component creates, computed without side effects. */
export interface RegistryPlan {
  namespace: string;
  createNamespace: boolean;
  releaseName: string;
  serviceName: string;
  chartVersion: string;
  chartRepository: string;
  storageSize: string;
  storageClass: string;
  /** The PersistentVolumeClaim the chart's StatefulSet makes for the registry's data. */
  claimName: string;
  usernames: string[];
  zotConfig: JsonObject;
  /** The ConfigMap's `config.json`. */
  configJson: string;
  configChecksum: string;
  tls: boolean;
  /** The chart values with placeholder resource names (what was validated). */
  values: Record<string, unknown>;
  url: string;
  accessCommands: string[];
}

export const DEFAULTS = {
  namespace: "zot",
  releaseName: "zot",
  storageSize: "100Gi",
  storageClass: "large",
  realm: "zot",
} as const;

/** Thrown by the component (at preview) when the arguments have problems. */
export class RegistryConfigError extends Error {
  constructor(public readonly problems: string[]) {
    super(`invalid registry configuration:\n  - ${problems.join("\n  - ")}`);
    this.name = "RegistryConfigError";
  }
}

/** Helm's limit, and the StatefulSet's pods' (rules/kubernetes-names.ts): the lower one. */
const MAX_RELEASE_NAME = Math.min(MAX_HELM_RELEASE, MAX_STATEFULSET_NAME);
const QUANTITY = /^[0-9]+(\.[0-9]+)?(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)?$/;
const SEMVER = /^v?\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/;
const OCI_REPO = /^[a-z0-9]([a-z0-9._-]*[a-z0-9])?(:[0-9]+)?(\/[a-z0-9]([a-z0-9._/-]*[a-z0-9])?)+(:[A-Za-z0-9._-]+)?$/i;

function stringProblem(v: unknown, at: string, re: RegExp, what: string, max = 253): string | undefined {
  if (typeof v !== "string") return `${at}: ${JSON.stringify(v)} must be a string (${what})`;
  if (v.length > max || !re.test(v)) return `${at}: ${JSON.stringify(v)} is not ${what}`;
  return undefined;
}

/** The in-cluster URL of the registry Service. */
export function serviceUrl(serviceName: string, namespace: string, tls = false): string {
  return `${tls ? "https" : "http"}://${serviceName}.${namespace}.svc.cluster.local:5000`;
}

/** Commands to reach and check the registry; passwords appear only as a placeholder. */
export function accessCommands(serviceName: string, namespace: string, firstUser?: string, tls = false): string[] {
  const base = tls ? "https://localhost:5000" : "http://localhost:5000";
  // Every word from the user's input is shell-quoted: a username like x';id;' stays one argument.
  const cred = firstUser !== undefined ? `-u ${shellQuote(`${firstUser}:<password>`)} ` : "";
  return [
    `kubectl -n ${shellQuote(namespace)} port-forward ${shellQuote(`svc/${serviceName}`)} 5000:5000`,
    `curl -i ${base}/v2/`,
    `curl -i ${cred}${base}/v2/_catalog`,
    `curl -s ${cred}${base}/metrics | head`,
    `curl -s ${base}/ | head -n 5`,
  ];
}

/**
 * Computes the registry from its arguments, or lists every problem (key path + fix) that
 * would make the deployment fail or zot refuse to start. Pure: the stack program can call
 * it to report all problems before creating anything; the component calls it too.
 */
export function planRegistry(args: RegistryArgs = {}, path = "registry"): { plan?: RegistryPlan; problems: string[]; warnings: string[] } {
  const problems: string[] = [];
  const p = (m: string | undefined) => m !== undefined && problems.push(m);

  const namespace = args.namespace ?? DEFAULTS.namespace;
  p(
    stringProblem(
      namespace,
      `${path}.namespace`,
      DNS_1123_LABEL,
      "a Kubernetes namespace name (lowercase letters, digits, '-', at most 63)",
      63,
    ),
  );
  const createNamespace = args.createNamespace ?? true;
  if (typeof createNamespace !== "boolean") problems.push(`${path}.createNamespace: must be true or false`);
  const releaseName = args.releaseName ?? DEFAULTS.releaseName;
  // The release name is also the Service's (a DNS-1035 label) and the StatefulSet's, whose pods need it short.
  p(
    stringProblem(
      releaseName,
      `${path}.releaseName`,
      DNS_1035_LABEL,
      `a Helm release name that can name the Service and the StatefulSet (lowercase letters, digits, '-', starting with a letter, at most ${MAX_RELEASE_NAME})`,
      MAX_RELEASE_NAME,
    ),
  );
  const chartVersion = args.chartVersion ?? CHART_VERSION;
  p(stringProblem(chartVersion, `${path}.chartVersion`, SEMVER, `a chart version such as "${CHART_VERSION}"`));
  const chartRepository = args.chartRepository ?? CHART_REPOSITORY;
  p(
    stringProblem(
      chartRepository,
      `${path}.chartRepository`,
      /^(https?|oci):\/\/\S+$/,
      `a chart repository URL such as "${CHART_REPOSITORY}"`,
      2048,
    ),
  );
  const storageSize = args.storageSize ?? DEFAULTS.storageSize;
  p(stringProblem(storageSize, `${path}.storageSize`, QUANTITY, 'a storage quantity such as "100Gi"', 64));
  const storageClass = args.storageClass ?? DEFAULTS.storageClass;
  if (storageClass !== "")
    p(
      stringProblem(
        storageClass,
        `${path}.storageClass`,
        DNS_1123_SUBDOMAIN,
        'a StorageClass name such as "large" ("" for the default class)',
      ),
    );
  const realm = args.realm ?? DEFAULTS.realm;
  if (typeof realm !== "string" || realm === "" || /["\\\x00-\x1f]/.test(realm)) {
    problems.push(
      `${path}.realm: ${JSON.stringify(realm)} must be a non-empty string without quotes or control characters; use e.g. "zot"`,
    );
  }

  const users = args.users ?? [];
  if (!Array.isArray(users)) problems.push(`${path}.users: must be a list of {username, password}`);
  const userList = Array.isArray(users) ? users : [];
  userList.forEach((u, i) => {
    if (typeof u !== "object" || u === null) problems.push(`${path}.users[${i}]: must be {username, password}`);
    else if (u.password === undefined || u.password === null) problems.push(`${path}.users[${i}].password: is missing`);
  });
  const usernames = userList.map((u) => (typeof u === "object" && u !== null ? u.username : undefined));
  problems.push(...usernamesProblems(usernames, `${path}.users`));
  const withHtpasswd = userList.length > 0;

  // zot configuration
  const overrides = args.config;
  if (overrides !== undefined && !isPlainObject(overrides)) problems.push(`${path}.config: must be an object of config.json overrides`);
  const cve = args.cve ?? {};
  if (!isPlainObject(cve)) problems.push(`${path}.cve: must be an object {enabled, dbRepository, javaDbRepository}`);
  const cveOk = isPlainObject(cve) ? cve : {};
  if (cveOk.enabled !== undefined && typeof cveOk.enabled !== "boolean") problems.push(`${path}.cve.enabled: must be true or false`);
  for (const k of ["dbRepository", "javaDbRepository"] as const) {
    const v = cveOk[k];
    if (v === undefined) continue;
    if (cveOk.enabled === false) problems.push(`${path}.cve.${k}: is set but cve.enabled is false; remove one of them`);
    else
      p(stringProblem(v, `${path}.cve.${k}`, OCI_REPO, 'an OCI repository without scheme, e.g. "mirror.local:5000/aquasecurity/trivy-db"'));
  }
  const explicitHtpasswd = getPath(overrides, ["http", "auth", "htpasswd"]);
  if (!withHtpasswd && explicitHtpasswd !== undefined && explicitHtpasswd !== null) {
    problems.push(
      `${path}.config.http.auth.htpasswd: is set but no users are given, so no htpasswd file would exist and zot would not start; add ${path}.users or remove the key`,
    );
  }
  const zotConfig = buildZotConfig({
    overrides: isPlainObject(overrides) ? overrides : undefined,
    withHtpasswd,
    realm: typeof realm === "string" ? realm : DEFAULTS.realm,
    cve: cveOk as RegistryCveOptions,
  });
  const cfgPath = `${path}.config`;
  const keyProblems = validateZotConfig(zotConfig, cfgPath);
  problems.push(...zotCredentialProblems(zotConfig, cfgPath));
  problems.push(...keyProblems);
  // zot's validateConfiguration: only meaningful once the keys and types are right.
  if (keyProblems.length === 0) problems.push(...zotStartupProblems(zotConfig, cfgPath));
  // What this deployment needs beyond zot's own checks.
  const port = getPath(zotConfig, ["http", "port"]);
  if (port !== undefined && /^\d{1,5}$/.test(String(port)) && Number(port) <= 65535 && String(port) !== ZOT_PORT) {
    problems.push(`${cfgPath}.http.port: ${JSON.stringify(port)} differs from the chart's fixed container port; use "${ZOT_PORT}"`);
  }
  const address = getPath(zotConfig, ["http", "address"]);
  if (typeof address === "string" && address !== "" && !["0.0.0.0", "::", "[::]"].includes(address)) {
    problems.push(`${cfgPath}.http.address: ${JSON.stringify(address)} would not be reachable through the Service; use "0.0.0.0"`);
  }
  if (address === undefined) problems.push(`${cfgPath}.http.address: is missing (zot would listen on 127.0.0.1 only); use "0.0.0.0"`);
  const root = getPath(zotConfig, ["storage", "rootDirectory"]);
  // Compared as zot's filesystem sees it: "/var/lib/registry/.." is /var/lib, off the volume.
  const rootDir = typeof root === "string" && root.startsWith("/") ? goPathClean(root) : "";
  if (typeof root === "string" && root !== "" && rootDir !== ROOT_DIRECTORY && !rootDir.startsWith(`${ROOT_DIRECTORY}/`)) {
    problems.push(
      `${cfgPath}.storage.rootDirectory: ${JSON.stringify(root)} is not on the persistent volume (mounted at ${ROOT_DIRECTORY}); use "${ROOT_DIRECTORY}" or a directory below it`,
    );
  }
  const htPath = getPath(zotConfig, ["http", "auth", "htpasswd", "path"]);
  if (withHtpasswd && htPath !== HTPASSWD_PATH && typeof htPath === "string" && htPath !== "") {
    problems.push(
      `${cfgPath}.http.auth.htpasswd.path: ${JSON.stringify(htPath)} is not where the users' Secret is mounted; use "${HTPASSWD_PATH}"`,
    );
  }
  if (withHtpasswd && getPath(zotConfig, ["http", "auth", "htpasswd"]) === undefined) {
    problems.push(`${cfgPath}.http.auth.htpasswd: was removed although users are given; remove the override or the users`);
  }
  if ((cveOk.dbRepository !== undefined || cveOk.javaDbRepository !== undefined) && !extensionEnabled(zotConfig, "search")) {
    problems.push(
      `${path}.cve: Trivy mirrors are set but the search extension (which runs CVE scanning) is disabled; enable extensions.search or remove the mirrors`,
    );
  }

  const configJson = JSON.stringify(zotConfig, null, 2) + "\n";
  const configChecksum = createHash("sha256").update(configJson).digest("hex");
  const tls = getPath(zotConfig, ["http", "tls"]) !== undefined;

  // chart values
  const extra = args.values;
  if (extra !== undefined && !isPlainObject(extra)) problems.push(`${path}.values: must be an object of Helm values`);
  const extraOk = isPlainObject(extra) ? extra : undefined;
  if (extraOk && extraOk.authHeader !== undefined) {
    problems.push(
      `${path}.values.authHeader: a credential in the release values (stored in plain text in state); remove it, the probes need no authentication`,
    );
  }
  for (const k of ["mountConfig", "mountSecret"]) {
    if (extraOk && extraOk[k] === true) {
      problems.push(
        `${path}.values.${k}: true would mount the chart's own ${k === "mountConfig" ? "ConfigMap over /etc/zot" : "Secret over /secret"}, replacing this component's; remove it`,
      );
    }
  }
  problems.push(...volumeConflicts(extraOk as JsonObject | undefined, path));
  const values = buildChartValues<string>({
    fullname: typeof releaseName === "string" ? releaseName : DEFAULTS.releaseName,
    storageSize: typeof storageSize === "string" ? storageSize : DEFAULTS.storageSize,
    storageClass: typeof storageClass === "string" ? storageClass : DEFAULTS.storageClass,
    configMapName: "<configmap>",
    htpasswdSecretName: withHtpasswd ? "<secret>" : undefined,
    configChecksum,
    htpasswdChecksum: withHtpasswd ? "<htpasswd-checksum>" : undefined,
    tls,
    extra: extraOk,
  });
  problems.push(...validateChartValues(values, `${path}.values`, ownEntries(values, extraOk as JsonObject | undefined)));
  if (values.persistence !== true) problems.push(`${path}.values.persistence: must stay true (the registry's data lives on the PVC)`);

  const warnings = [
    ...versionWarnings(chartVersion, extraOk, path),
    ...zotConfigWarnings(zotConfig, cfgPath),
    ...zotStartupWarnings(zotConfig, cfgPath, isPlainObject(overrides) ? overrides : {}),
  ];
  if (problems.length > 0) return { problems, warnings };
  const serviceName = typeof values.fullnameOverride === "string" && values.fullnameOverride !== "" ? values.fullnameOverride : releaseName;
  // The StatefulSet's claim: <volumeClaimTemplate>-<StatefulSet>-0, the template named pvc.name or <release>-pvc.
  const pvc = values.pvc as { name?: unknown; storage?: unknown; storageClassName?: unknown };
  const templateName = typeof pvc.name === "string" && pvc.name !== "" ? pvc.name : `${releaseName}-pvc`;
  return {
    problems,
    warnings,
    plan: {
      namespace,
      createNamespace,
      releaseName,
      serviceName,
      chartVersion,
      chartRepository,
      storageSize: String(pvc.storage),
      storageClass: typeof pvc.storageClassName === "string" ? pvc.storageClassName : "",
      claimName: `${templateName}-${serviceName}-0`,
      usernames: usernames as string[],
      zotConfig,
      configJson,
      configChecksum,
      tls,
      values,
      url: serviceUrl(serviceName, namespace, tls),
      accessCommands: accessCommands(serviceName, namespace, usernames[0] as string | undefined, tls),
    },
  };
}

/**
 * The checks know the keys of the pinned chart and of the zot version it deploys: another chart
 * version or zot image tag, given by the user, may read or refuse other keys.
 */
export function versionWarnings(chartVersion: unknown, values: JsonObject | undefined, path = "registry"): string[] {
  const warnings: string[] = [];
  const regenerate = 'regenerate the key lists for it to check against that version (docs/registry.md, "Bumping the chart or zot version")';
  if (typeof chartVersion === "string" && chartVersion.replace(/^v/, "") !== CHART_VERSION) {
    warnings.push(
      `${path}.chartVersion: ${JSON.stringify(chartVersion)} is not the pinned chart ${CHART_VERSION}; the values are checked against ` +
        `the keys chart ${CHART_VERSION} reads and config.json against zot ${PINNED_ZOT_VERSION}'s, which may differ; ${regenerate}`,
    );
  }
  const image = values?.image;
  const tag = isPlainObject(image) ? image.tag : undefined;
  if (typeof tag === "string" && tag !== CHART_APP_VERSION) {
    warnings.push(
      `${path}.values.image.tag: ${JSON.stringify(tag)} is not ${CHART_APP_VERSION}, the zot version chart ${CHART_VERSION} deploys; ` +
        `config.json is checked against the keys zot ${PINNED_ZOT_VERSION} accepts, which may differ; ${regenerate}`,
    );
  }
  return warnings;
}

/** All problems of the arguments (empty when the registry can be deployed). */
export function validateRegistryArgs(args: RegistryArgs = {}, path = "registry"): string[] {
  return planRegistry(args, path).problems;
}
