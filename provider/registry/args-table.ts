// The Registry component's arguments as a table: type, default (the constants planRegistry
// uses), where each goes (Kubernetes object, Helm value, config.json key). The reference page
// (scripts/reference-docs.ts) is generated from it; test/docs/reference.test.ts holds it to
// RegistryArgs' keys.
import { CHART_REPOSITORY, CHART_VERSION } from "./chart-values";
import { DEFAULTS } from "./plan";

export interface ComponentArg {
  type: string;
  doc: string;
  required?: boolean;
  default?: string | number | boolean;
  /** Where the value ends up. */
  mapsTo: string;
  secret?: boolean;
}
export type ComponentArgTable = Record<string, ComponentArg>;

export const REGISTRY_ARGS: ComponentArgTable = {
  namespace: {
    type: "string",
    default: DEFAULTS.namespace,
    doc: "namespace of everything",
    mapsTo: "the Namespace and every object's namespace",
  },
  createNamespace: {
    type: "boolean",
    default: true,
    doc: "create the namespace; false uses an existing one",
    mapsTo: "a Namespace object",
  },
  releaseName: {
    type: "string",
    default: DEFAULTS.releaseName,
    doc: "Helm release name, also the Service name",
    mapsTo: "the Helm release's name and the chart's `fullnameOverride`",
  },
  chartVersion: {
    type: "string",
    default: CHART_VERSION,
    doc: "chart version; another version than the pinned one gets a warning (the checks are the pinned chart's)",
    mapsTo: "the Helm release's version",
  },
  chartRepository: {
    type: "string",
    default: CHART_REPOSITORY,
    doc: "chart repository (https:// or oci://)",
    mapsTo: "the Helm release's repository",
  },
  storageSize: { type: "string", default: DEFAULTS.storageSize, doc: "size of the volume", mapsTo: "chart value `pvc.storage`" },
  storageClass: {
    type: "string",
    default: DEFAULTS.storageClass,
    doc: 'storage class of the volume; "" uses the cluster\'s default class',
    mapsTo: "chart value `pvc.storageClassName`",
  },
  realm: { type: "string", default: DEFAULTS.realm, doc: "authentication realm", mapsTo: "config.json `http.realm`" },
  users: {
    type: "{ username: string; password: Input<string> }[]",
    secret: true,
    doc: "htpasswd users; none means no authentication. Passwords are only stored bcrypt-hashed, in a Secret",
    mapsTo: "a Secret with `htpasswd`; config.json `http.auth.htpasswd.path`",
  },
  config: {
    type: "object",
    doc: "overrides of zot's config.json, deep-merged over the defaults; null deletes a key; checked against the keys the pinned zot accepts",
    mapsTo: "the ConfigMap's `config.json`",
  },
  cve: {
    type: "{ enabled?: boolean; dbRepository?: string; javaDbRepository?: string }",
    doc: "CVE scanning (applied after config): enabled false turns it off (air-gapped clusters), or name mirrors of the Trivy databases",
    mapsTo: "config.json `extensions.search.cve`",
  },
  values: {
    type: "object",
    doc: "extra Helm values deep-merged last, checked against the keys the pinned chart reads",
    mapsTo: "the Helm release's values",
  },
  kubeconfig: {
    type: "Input<string>",
    secret: true,
    doc: "the cluster's kubeconfig, to check at preview that it has storageClass (read when it holds a token or a client certificate; the stack program passes its own)",
    mapsTo: "the storage guard's secret input (never an output)",
  },
};

/** The component's outputs. */
export const REGISTRY_OUTPUTS: Record<string, { type: string; doc: string }> = {
  namespace: { type: "string", doc: "the namespace everything lives in" },
  releaseName: { type: "string", doc: "the Helm release name" },
  serviceName: { type: "string", doc: "the registry's Service (ClusterIP, port 5000)" },
  url: { type: "string", doc: "in-cluster URL: http://<service>.<namespace>.svc.cluster.local:5000" },
  accessCommands: { type: "string[]", doc: "port-forward and curl commands to check the registry (a placeholder instead of any password)" },
};
