// The JSON schema of the zot chart's values, built from the key list derived from the chart
// itself (CHART_KEY_DATA): a closed object wherever the templates read keys one by one, an open
// one where they render a value verbatim (Kubernetes structures, free maps). The chart has no
// schema of its own and Helm drops unknown values silently, so a misspelt key is refused here.
// What is kept by hand: value shapes (enums, ranges, Kubernetes field shapes) in
// CHART_VALUE_RULES, and the hints for keys users often give under a wrong name.
import { CHART_KEY_DATA, ChartKeyNode, PINNED_CHART_VERSION } from "./key-data";

type Schema = Record<string, unknown>;

const stringMap: Schema = { type: "object", additionalProperties: { type: "string" } };
const quantity: Schema = { type: ["string", "number"], pattern: "^[0-9]+(\\.[0-9]+)?(m|k|Ki|M|Mi|G|Gi|T|Ti|P|Pi|E|Ei)?$" };
const port: Schema = { type: "integer", minimum: 1, maximum: 65535 };
const objectList: Schema = { type: "array", items: { type: "object" } };
const trafficPolicy: Schema = { enum: ["", "Cluster", "Local", null] };

/**
 * Value shapes by key path ("a.b", list elements "a[]"), laid over the derived schema. Every
 * path must be a key of the chart (test/registry/key-lists.test.ts checks it): these refine
 * values, they never add keys the chart does not read.
 */
export const CHART_VALUE_RULES: Record<string, Schema> = {
  replicaCount: { type: "integer", minimum: 0 },
  "image.repository": { type: "string", minLength: 1 },
  "image.pullPolicy": { enum: ["Always", "IfNotPresent", "Never"] },
  nameOverride: { type: "string" },
  fullnameOverride: { type: "string", maxLength: 63 },
  imagePullSecrets: { type: "array", items: { type: "object", required: ["name"], properties: { name: { type: "string" } } } },
  "serviceAccount.annotations": stringMap,
  "service.type": { enum: ["ClusterIP", "NodePort", "LoadBalancer"] },
  "service.port": port,
  "service.nodePort": { type: ["integer", "null"], minimum: 30000, maximum: 32767 },
  "service.clusterIP": { type: ["string", "null"] },
  "service.annotations": stringMap,
  "service.internalTrafficPolicy": trafficPolicy,
  "service.externalTrafficPolicy": trafficPolicy,
  "service.trafficDistribution": { type: ["string", "null"] },
  "serviceHeadless.port": port,
  "serviceHeadless.annotations": stringMap,
  "ingress.annotations": stringMap,
  "httproute.annotations": stringMap,
  "httproute.labels": stringMap,
  "listenerset.annotations": stringMap,
  "listenerset.labels": stringMap,
  "listenerset.listeners": objectList,
  "httpGet.scheme": { enum: ["HTTP", "HTTPS"] },
  "httpGet.port": { type: ["integer", "string"] },
  "startupProbe.initialDelaySeconds": { type: "integer", minimum: 0 },
  "startupProbe.periodSeconds": { type: "integer", minimum: 1 },
  "startupProbe.failureThreshold": { type: "integer", minimum: 1 },
  authHeader: { type: "string", description: "base64 of user:password, sent by the probes; it puts a credential in the release values" },
  configFiles: { type: "object", additionalProperties: { type: "string" } },
  secretFiles: { type: "object", additionalProperties: { type: "string" } },
  "externalSecrets[]": { type: "object", required: ["secretName", "mountPath"] },
  "externalSecrets[].secretName": { type: "string", minLength: 1 },
  "externalSecrets[].mountPath": { type: "string", pattern: "^/" },
  persistence: {
    type: "boolean",
    description: "true renders a StatefulSet with a volumeClaimTemplate from pvc; a map would count as true and its keys be ignored",
  },
  "pvc.name": { type: ["string", "null"] },
  "pvc.accessModes": {
    type: "array",
    minItems: 1,
    items: { enum: ["ReadWriteOnce", "ReadOnlyMany", "ReadWriteMany", "ReadWriteOncePod"] },
  },
  "pvc.storage": quantity,
  "pvc.storageClassName": { type: ["string", "null"] },
  env: { type: ["array", "null"], items: { type: "object", required: ["name"] } },
  extraVolumes: { type: "array", items: { type: "object", required: ["name"], properties: { name: { type: "string", minLength: 1 } } } },
  // A Kubernetes VolumeMount, closed: a misspelt readOnly would mount read-write.
  extraVolumeMounts: {
    type: "array",
    items: {
      type: "object",
      additionalProperties: false,
      required: ["name", "mountPath"],
      properties: {
        name: { type: "string", minLength: 1 },
        mountPath: { type: "string", pattern: "^/" },
        subPath: { type: "string" },
        subPathExpr: { type: "string" },
        readOnly: { type: "boolean" },
        recursiveReadOnly: { type: "string" },
        mountPropagation: { type: "string" },
      },
    },
  },
  extraContainers: objectList,
  initContainers: objectList,
  hostAliases: objectList,
  topologySpreadConstraints: objectList,
  tolerations: objectList,
  extraArgs: { type: "array", items: { type: "string" } },
  strategy: {
    type: "object",
    additionalProperties: false,
    properties: { type: { enum: ["RollingUpdate", "Recreate"] }, rollingUpdate: { type: "object" } },
  },
  podAnnotations: stringMap,
  podLabels: stringMap,
  deploymentAnnotations: stringMap,
  dnsPolicy: { enum: ["ClusterFirst", "ClusterFirstWithHostNet", "Default", "None"] },
  // A Kubernetes ResourceRequirements, closed.
  resources: {
    type: "object",
    additionalProperties: false,
    properties: {
      limits: { type: "object", additionalProperties: quantity },
      requests: { type: "object", additionalProperties: quantity },
      claims: { type: "array" },
    },
  },
  podSecurityContext: { type: "object" },
  securityContext: { type: "object" },
  nodeSelector: stringMap,
  "podDisruptionBudget.minAvailable": { type: ["integer", "string", "null"] },
  "podDisruptionBudget.maxUnavailable": { type: ["integer", "string", "null"] },
};

/**
 * Keys the chart does not read that users give for one it does: path → the chart's key, and why.
 * Every target must be a key of the chart (checked by test/registry/key-lists.test.ts).
 */
export const CHART_KEY_HINTS: Record<string, { key: string; why: string }> = {
  livenessProbe: {
    key: "httpGet",
    why: "the chart writes the liveness and readiness probes itself (/livez, /readyz) from httpGet.{scheme,port}; startupProbe sets the startup probe's timing",
  },
  readinessProbe: {
    key: "httpGet",
    why: "the chart writes the liveness and readiness probes itself (/livez, /readyz) from httpGet.{scheme,port}; startupProbe sets the startup probe's timing",
  },
  "service.headless": { key: "serviceHeadless", why: "the headless Service is configured at the top level ({enabled, port, annotations})" },
};

const DEFAULT_TYPES: Record<string, string> = {
  string: "string",
  integer: "integer",
  number: "number",
  boolean: "boolean",
  map: "object",
  list: "array",
};

function nodeSchema(node: ChartKeyNode, path: string): Schema {
  const t = node.default ? DEFAULT_TYPES[node.default] : undefined;
  let s: Schema = {};
  const keys = Object.keys(node.keys ?? {});
  if (node.open) {
    if (t === "object" || t === "array") s.type = t;
  } else if (node.items) {
    s = { type: "array", items: nodeSchema(node.items, `${path}[]`) };
  } else if (keys.length > 0) {
    if (!node.scalar) s.type = "object";
    s.properties = Object.fromEntries(keys.map((k) => [k, nodeSchema(node.keys![k], path === "" ? k : `${path}.${k}`)]));
    s.additionalProperties = false;
  } else if (t !== undefined) {
    s.type = t;
  }
  const rule = CHART_VALUE_RULES[path];
  return rule ? { ...s, ...rule } : s;
}

let built: Schema | undefined;

/** The values schema of the pinned chart (draft-07, for ajv). */
export function chartValuesSchema(): Schema {
  if (built) return built;
  const root = nodeSchema({ sources: [], keys: CHART_KEY_DATA.keys }, "");
  const src = CHART_KEY_DATA.source;
  built = {
    $schema: "http://json-schema.org/draft-07/schema#",
    $id: `https://backup-portal.local/schemas/zot-chart-values-${PINNED_CHART_VERSION}.json`,
    title: `Values read by the zot Helm chart ${src.version} (${src.repository} ${src.ref}, commit ${src.commit}, appVersion ${src.appVersion})`,
    ...root,
    type: "object",
  };
  return built;
}

/** The data node at a key path (list indexes step into the element), or undefined. */
export function chartKeyAt(path: string[]): ChartKeyNode | undefined {
  let cur: ChartKeyNode | undefined = { sources: [], keys: CHART_KEY_DATA.keys };
  for (const k of path) {
    if (!cur) return undefined;
    cur = /^\d+$/.test(k) && cur.items ? cur.items : cur.keys?.[k];
  }
  return cur;
}
