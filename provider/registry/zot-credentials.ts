// Credentials never go into config.json: it becomes a ConfigMap (readable by anyone who can read the namespace's
// ConfigMaps) and plain text in the Pulumi state. zot v2.1.18 reads each of these from a file or the environment
// instead, which a Kubernetes Secret provides (mounted with values.extraVolumes/extraVolumeMounts, or given with
// values.env and valueFrom.secretKeyRef). A credential in the config is refused at preview, saying how to pass it.
import { PINNED_ZOT_VERSION } from "./key-data";
import { isPlainObject } from "./zot-config";

const MOUNT = "mount a Kubernetes Secret with values.extraVolumes / values.extraVolumeMounts (e.g. at /secret-zot)";
const ENV = "give them with values.env as {name, valueFrom: {secretKeyRef: {name: <your Secret>, key: ...}}}";

/** A credential key, by where it sits (case-insensitive; "*" a map entry, "[]" a list element), and how to pass it instead. */
export const ZOT_CREDENTIAL_KEYS: Array<{ at: string; keys: string[]; instead: string }> = [
  {
    at: "storage.storageDriver",
    keys: ["accesskey", "secretkey", "sessiontoken"],
    instead: `leave them out: zot's s3 driver then takes AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN) from the environment or the pod's IAM role; ${ENV}`,
  },
  {
    at: "storage.storageDriver",
    keys: ["accountkey", "password", "clientsecret"],
    instead: `use the driver's environment credentials (azure: credentials {type: default_credentials} with AZURE_CLIENT_ID, AZURE_TENANT_ID, AZURE_CLIENT_SECRET); ${ENV}`,
  },
  {
    at: "storage.cacheDriver",
    keys: ["accesskey", "secretkey", "sessiontoken", "password"],
    instead: `dynamodb takes AWS credentials from the environment (${ENV}); zot ${PINNED_ZOT_VERSION} reads a redis password only from config.json, so use a redis reachable only inside the cluster without one`,
  },
  {
    at: "http.auth.sessionDriver",
    keys: ["password"],
    instead: `zot ${PINNED_ZOT_VERSION} reads a redis password only from config.json; use a redis reachable only inside the cluster, or the local session driver`,
  },
  {
    at: "http.auth.ldap",
    keys: ["bindPassword", "bindDN"],
    instead: `put {"bindDN": ..., "bindPassword": ...} in a file and set http.auth.ldap.credentialsFile to it (zot's updateLDAPConfig reads it); ${MOUNT}`,
  },
  {
    at: "http.auth.openID.providers.*",
    keys: ["clientSecret"],
    instead: `put {"clientid": ..., "clientsecret": ...} in a file and set credentialsFile to it (zot's updateOpenIDConfig reads it); ${MOUNT}`,
  },
  {
    at: "http.auth",
    keys: ["sessionHashKey", "sessionEncryptKey"],
    instead: `put {"hashKey": ..., "encryptKey": ...} in a file and set http.auth.sessionKeysFile to it (zot's loadSessionKeys reads it); ${MOUNT}`,
  },
  {
    at: "extensions.sync.registries[]",
    keys: ["password", "username", "token"],
    instead: `put {"<registry host>": {"username": ..., "password": ...}} in a file and set extensions.sync.credentialsFile to it; ${MOUNT}`,
  },
  {
    at: "extensions.events.sinks[].credentials",
    keys: ["password", "token"],
    instead: `set credentials.file to a file holding them; ${MOUNT}`,
  },
];

/** The objects at `at` (a path of keys, "*" every map entry, "[]" every list element), each with its key path. */
function objectsAt(cfg: unknown, at: string, path: string): Array<{ obj: Record<string, unknown>; where: string }> {
  let cur: Array<{ v: unknown; where: string }> = [{ v: cfg, where: path }];
  for (const step of at.replace(/\[\]/g, ".[]").split(".")) {
    const next: Array<{ v: unknown; where: string }> = [];
    for (const { v, where } of cur) {
      if (step === "[]") {
        if (Array.isArray(v)) v.forEach((x, i) => next.push({ v: x, where: `${where}[${i}]` }));
      } else if (isPlainObject(v)) {
        for (const [k, x] of Object.entries(v))
          if (step === "*" || k.toLowerCase() === step.toLowerCase()) next.push({ v: x, where: `${where}.${k}` });
      }
    }
    cur = next;
  }
  return cur
    .filter((x): x is { v: Record<string, unknown>; where: string } => isPlainObject(x.v))
    .map(({ v, where }) => ({ obj: v, where }));
}

/** A URL with a password in it (`redis://:pw@host`, `https://u:p@host`). */
const URL_WITH_PASSWORD = /^[a-z][a-z0-9+.-]*:\/\/[^/@\s]*:[^/@\s]+@/i;

/**
 * Every credential in a config.json (`cfg`, under `path`): one problem each, naming the key and how to pass it
 * instead. Never quotes the value.
 */
export function zotCredentialProblems(cfg: unknown, path = "registry.config"): string[] {
  const out: string[] = [];
  const why = "a credential in config.json is stored in plain text in the ConfigMap and the Pulumi state";
  for (const rule of ZOT_CREDENTIAL_KEYS) {
    const stores = rule.at.startsWith("storage.") ? [rule.at, rule.at.replace(/^storage\./, "storage.subPaths.*.")] : [rule.at];
    for (const at of stores) {
      for (const { obj, where } of objectsAt(cfg, at, path)) {
        for (const key of Object.keys(obj)) {
          if (rule.keys.some((k) => k.toLowerCase() === key.toLowerCase()) && obj[key] !== "" && obj[key] !== null) {
            out.push(`${where}.${key}: ${why}; ${rule.instead}`);
          }
        }
      }
    }
  }
  // A password inside a URL anywhere (a redis url of the cache or session driver, a sync registry URL).
  const walk = (v: unknown, where: string): void => {
    if (typeof v === "string" && URL_WITH_PASSWORD.test(v))
      out.push(
        `${where}: a URL with a password in it; ${why}; take the password out of the URL and pass it as described for that setting in docs/registry.md`,
      );
    else if (Array.isArray(v)) v.forEach((x, i) => walk(x, `${where}[${i}]`));
    else if (isPlainObject(v)) for (const [k, x] of Object.entries(v)) walk(x, `${where}.${k}`);
  };
  walk(cfg, path);
  return out;
}
