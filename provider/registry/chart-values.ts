// The values given to the zot Helm chart, in the chart's real keys (see docs/registry.md for
// the translation of spec 001's deployment values), and their validation against the schema
// built from the keys the pinned chart reads (chart-schema.ts).
import Ajv, { ErrorObject } from "ajv";
import { CHART_KEY_HINTS, chartKeyAt, chartValuesSchema } from "./chart-schema";
import { CHART_KEY_DATA, PINNED_CHART_VERSION } from "./key-data";
import { suggest } from "../rules/suggest";
import { deepMerge, JsonObject } from "./zot-config";

export const CHART_NAME = CHART_KEY_DATA.source.chart;
export const CHART_REPOSITORY = "https://zotregistry.dev/helm-charts";
/** The pinned chart version: the one whose values the checks know. */
export const CHART_VERSION = PINNED_CHART_VERSION;
/** The zot image tag the pinned chart deploys by default. */
export const CHART_APP_VERSION = CHART_KEY_DATA.source.appVersion;

/** Names of the pod volumes this component adds through extraVolumes. */
export const CONFIG_VOLUME = "zot-config";
export const HTPASSWD_VOLUME = "zot-htpasswd";

export interface ChartValuesInput<N> {
  /** fullnameOverride: the name of the StatefulSet and of the Service. */
  fullname: string;
  storageSize: string;
  /** "" leaves storageClassName unset (the cluster's default class). */
  storageClass: string;
  /** The ConfigMap holding config.json (a string, or an Output of one). */
  configMapName: N;
  /** The Secret holding htpasswd, when users are given. */
  htpasswdSecretName?: N;
  /** sha256 of config.json, as a pod annotation so a config change rolls the pod. */
  configChecksum: string;
  /**
   * sha256 of the htpasswd file (its bcrypt lines), as a pod annotation so a password change rolls the pod: zot
   * does not see a Secret update (htpasswd.go watches the file for fsnotify Write events, and the kubelet swaps a
   * `..data` symlink instead of writing the file). A string, or an Output of one.
   */
  htpasswdChecksum?: N;
  /** zot serves TLS (http.tls set): the probes must use HTTPS. */
  tls?: boolean;
  /**
   * User values deep-merged last (objects merge, arrays/scalars replace, null deletes), except `extraVolumes` and
   * `extraVolumeMounts`, whose entries are added to this component's: replacing them would drop the config.json
   * and htpasswd mounts, and zot would start on the image's own config, without authentication.
   */
  extra?: JsonObject;
}

/**
 * The chart values. `N` is the type of the resource names: plain strings for validation,
 * `pulumi.Output<string>` when handed to the Release.
 */
export function buildChartValues<N>(input: ChartValuesInput<N>): Record<string, unknown> {
  const extraVolumes: unknown[] = [
    { name: CONFIG_VOLUME, configMap: { name: input.configMapName, items: [{ key: "config.json", path: "config.json" }] } },
  ];
  // The image runs `serve /etc/zot/config.json`: mount our ConfigMap's key exactly there
  // (subPath), read-only; mountConfig stays false so the chart does not mount its own
  // ConfigMap over /etc/zot. A subPath mount is not updated in place, hence the checksum
  // annotation (and the ConfigMap being replaced under a new name) to roll the pod.
  const extraVolumeMounts: unknown[] = [{ name: CONFIG_VOLUME, mountPath: "/etc/zot/config.json", subPath: "config.json", readOnly: true }];
  if (input.htpasswdSecretName !== undefined) {
    extraVolumes.push({
      name: HTPASSWD_VOLUME,
      secret: { secretName: input.htpasswdSecretName, items: [{ key: "htpasswd", path: "htpasswd" }] },
    });
    // A directory mount (no subPath): the kubelet does update the file on a Secret change, but by swapping the
    // `..data` symlink, which zot's fsnotify watch (Write events on the file) does not see. The htpasswd checksum
    // annotation rolls the pod instead.
    extraVolumeMounts.push({ name: HTPASSWD_VOLUME, mountPath: "/secret", readOnly: true });
  }
  const pvc: Record<string, unknown> = { create: true, storage: input.storageSize, accessModes: ["ReadWriteOnce"] };
  if (input.storageClass !== "") pvc.storageClassName = input.storageClass;

  const base: Record<string, unknown> = {
    fullnameOverride: input.fullname,
    replicaCount: 1,
    serviceAccount: { create: true, annotations: {}, name: "" },
    service: { type: "ClusterIP", port: 5000 },
    // The chart's form of spec 001's `persistence: {enabled, storageClass, size}`.
    persistence: true,
    pvc,
    resources: {
      limits: { cpu: "1000m", memory: "1Gi" },
      requests: { cpu: "100m", memory: "256Mi" },
    },
    mountConfig: false,
    mountSecret: false,
    extraVolumes,
    extraVolumeMounts,
    // Probes hit /livez, /readyz, /startupz, which zot serves without authentication: no
    // authHeader (it would put a credential in the release values).
    httpGet: { scheme: input.tls ? "HTTPS" : "HTTP", port: 5000 },
    // Opening a large dedupe store can take a while: allow up to 5 minutes to start.
    startupProbe: { initialDelaySeconds: 5, periodSeconds: 10, failureThreshold: 30 },
    podAnnotations: {
      "checksum/config": input.configChecksum,
      ...(input.htpasswdChecksum !== undefined ? { "checksum/htpasswd": input.htpasswdChecksum } : {}),
    },
  };
  if (!input.extra) return base;
  const { extraVolumes: userVolumes, extraVolumeMounts: userMounts, ...rest } = input.extra;
  // deepMerge clones plain data; Outputs (non-plain objects) are carried over as they are.
  const merged = deepMerge(base as JsonObject, rest) as Record<string, unknown>;
  // A value that is not a list is kept as given, for the schema to name it.
  merged.extraVolumes = Array.isArray(userVolumes) ? [...extraVolumes, ...userVolumes] : (userVolumes ?? extraVolumes);
  merged.extraVolumeMounts = Array.isArray(userMounts) ? [...extraVolumeMounts, ...userMounts] : (userMounts ?? extraVolumeMounts);
  return merged;
}

/**
 * What in the user's extra volumes or mounts would hide the component's own: a volume of the same name, or a
 * mount at (or above) /etc/zot/config.json or /secret.
 */
export function volumeConflicts(extra: JsonObject | undefined, path: string): string[] {
  const problems: string[] = [];
  const ours = [CONFIG_VOLUME, HTPASSWD_VOLUME];
  const guarded = ["/etc/zot/config.json", "/secret"];
  const list = (k: string) => (Array.isArray(extra?.[k]) ? (extra![k] as unknown[]) : []);
  list("extraVolumes").forEach((v, i) => {
    const name = (v as { name?: unknown })?.name;
    if (typeof name === "string" && ours.includes(name)) {
      problems.push(`${path}.values.extraVolumes[${i}].name: "${name}" is this component's own volume; give yours another name`);
    }
  });
  list("extraVolumeMounts").forEach((m, i) => {
    const at = (m as { mountPath?: unknown })?.mountPath;
    if (typeof at !== "string") return;
    const dir = at.replace(/\/+$/, "") || "/";
    // At or above one of the component's paths hides it; below one (/secret/htpasswd) covers the file zot reads.
    const above = guarded.find((g) => g === dir || g.startsWith(dir === "/" ? "/" : `${dir}/`));
    const below = guarded.find((g) => dir.startsWith(`${g}/`));
    if (above ?? below) {
      problems.push(
        `${path}.values.extraVolumeMounts[${i}].mountPath: "${at}" would hide ${above ?? dir}, which this component mounts ` +
          "(zot's config.json and htpasswd); mount it elsewhere",
      );
    }
  });
  return problems;
}

let validator: ReturnType<Ajv["compile"]> | undefined;

/** What to say about a key the chart does not read: the chart's real key, or a likely spelling. */
function unknownKeyHint(parent: string[], key: string): string {
  const named = parent.filter((k) => !/^\d+$/.test(k));
  const hint = CHART_KEY_HINTS[[...named, key].join(".")];
  if (hint) return `the chart's key is ${hint.key}: ${hint.why}`;
  // `service.headless` for `serviceHeadless`: the same words one level up.
  if (named.length > 0) {
    const joined = named[named.length - 1] + key[0].toUpperCase() + key.slice(1);
    if (chartKeyAt([...named.slice(0, -1), joined])) return `the chart's key is ${[...named.slice(0, -1), joined].join(".")}`;
  }
  const siblings = Object.keys(chartKeyAt(parent)?.keys ?? {});
  const s = suggest(key, siblings);
  return s ? `did you mean "${s}"?` : `keys the chart reads here: ${siblings.join(", ")}`;
}

/** Entries this component puts before the caller's in a list of the merged values, by key (`extraVolumes`...). */
export type OwnEntries = Partial<Record<string, number>>;

/** How many of the merged values' list entries are the component's own, for the lists the caller's entries extend. */
export function ownEntries(values: Record<string, unknown>, extra: JsonObject | undefined): OwnEntries {
  const own: OwnEntries = {};
  for (const k of ["extraVolumes", "extraVolumeMounts"]) {
    const mine = extra?.[k];
    if (Array.isArray(mine) && Array.isArray(values[k])) own[k] = (values[k] as unknown[]).length - mine.length;
  }
  return own;
}

function formatError(e: ErrorObject, path: string, own: OwnEntries): string {
  const segments = e.instancePath
    .split("/")
    .slice(1)
    .map((k) => k.replace(/~1/g, "/").replace(/~0/g, "~"));
  // Number an entry of a list the caller extends as the caller wrote it, not as it stands after the component's own.
  const skip = own[segments[0]];
  if (skip !== undefined && /^\d+$/.test(segments[1] ?? "")) segments[1] = String(Number(segments[1]) - skip);
  const at = path + segments.map((k) => (/^\d+$/.test(k) ? `[${k}]` : `.${k}`)).join("");
  if (e.keyword === "additionalProperties") {
    const key = String((e.params as { additionalProperty: string }).additionalProperty);
    return `${at}.${key}: unknown key for the zot chart ${CHART_VERSION} (Helm would silently ignore it); ${unknownKeyHint(segments, key)}`;
  }
  if (e.keyword === "enum") return `${at}: must be one of ${JSON.stringify((e.params as { allowedValues: unknown[] }).allowedValues)}`;
  return `${at}: ${e.message ?? "is invalid"}`;
}

/**
 * Validates chart values against the pinned chart's values schema (ajv) and returns the
 * problems, each with its key path under `path`; an empty list means valid.
 */
export function validateChartValues(values: unknown, path = "registry.values", own: OwnEntries = {}): string[] {
  if (!validator) validator = new Ajv({ allErrors: true, strict: false }).compile(chartValuesSchema());
  if (validator(values)) return [];
  return (validator.errors ?? []).map((e) => formatError(e, path, own));
}
