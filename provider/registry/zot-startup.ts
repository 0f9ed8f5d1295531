// What zot v2.1.18 checks in a config.json after loading it, beyond key names and types (zot-config.ts):
// pkg/cli/server/root.go `validateConfiguration` and every function it calls, applied to the values as zot sees
// them after `applyDefaultValues`. Each rule names the zot function it follows and gives zot's own reason, so a
// config zot would refuse (the pod crash-looping after a green `up`) is refused at preview instead. Where zot only
// warns or silently changes a value, `zotStartupWarnings` says so. Facts and line references: docs/registry.md
// ("Reference notes"). Kept by hand (these are code paths, not struct keys): re-read them on a zot bump.
import { PINNED_ZOT_VERSION, ZOT_KEY_DATA } from "./key-data";
import { getPath, goPathClean, isPlainObject, JsonObject, parseDurationSeconds } from "./zot-config";

/**
 * The distribution-spec version the pinned zot reports: `distspec.Version` of the distribution-spec module its go.mod
 * pins (ZOT_DIST_SPEC_MODULE; that module's specs-go/version.go at a139cc423184 says 1.1.1, read by hand: it is another
 * repository). zot replaces any other `distSpecVersion` with it at startup (`updateDistSpecVersion`, with a warning).
 */
export const ZOT_DIST_SPEC_VERSION = "1.1.1";
/** The distribution-spec module version ZOT_DIST_SPEC_VERSION was read for; a test fails when the derived one differs. */
export const ZOT_DIST_SPEC_MODULE = "v0.0.0-20250123160558-a139cc423184";
/** The shortest `extensions.search.cve.updateInterval` zot keeps (`applyDefaultValues`: shorter becomes 2h). */
export const ZOT_MIN_CVE_UPDATE_INTERVAL = "2h";
/** `http.compat` values zot knows (derived from pkg/compat/compat.go: `DockerManifestV2SchemaV2 = "docker2s2"`). */
export const ZOT_COMPAT_VALUES: readonly string[] = ZOT_KEY_DATA.facts.compatValues;

/** One of zot's startup rules: the function it follows and its check. */
export interface ZotStartupRule {
  /** zot's function (pkg/cli/server/root.go at the pinned version). */
  zotFunction: string;
  /** Problems (each "<key path>: <what and why>; <fix>"), none when the config passes. */
  check: (cfg: JsonObject, path: string) => string[];
}

const get = (obj: unknown, ...keys: string[]): unknown => getPath(obj, keys);
const str = (v: unknown): string => (typeof v === "string" ? v : "");
const present = (v: unknown): boolean => v !== undefined && v !== null;
/** A Go map/slice with entries (`len(x) != 0`). */
const nonEmpty = (v: unknown): boolean => (isPlainObject(v) ? Object.keys(v).length > 0 : Array.isArray(v) ? v.length > 0 : false);
const entries = (v: unknown): Array<[string, unknown]> => (isPlainObject(v) ? Object.entries(v) : []);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const show = (v: unknown): string => JSON.stringify(v);
const why = (zotFn: string, reason: string): string => `zot ${PINNED_ZOT_VERSION} refuses to start (${zotFn}: "${reason}")`;

/** The default store and each sub path, as zot's validators walk them. */
function stores(cfg: JsonObject, path: string): Array<{ route: string; at: string; s: unknown }> {
  const out = [{ route: "", at: `${path}.storage`, s: get(cfg, "storage") }];
  for (const [route, s] of entries(get(cfg, "storage", "subPaths"))) out.push({ route, at: `${path}.storage.subPaths.${route}`, s });
  return out;
}

/** `getStorageType`: "local" without a driver, else the driver's name as Go's %v prints it. */
function storageType(s: unknown): string {
  const driver = get(s, "storageDriver");
  if (!present(driver)) return "local";
  const name = get(driver, "name");
  return name === undefined || name === null ? "<nil>" : String(name);
}

/** `remoteCache` after applyDefaultValues: as given, else true for dedupe with a remote driver. */
function remoteCache(s: unknown): boolean {
  const given = get(s, "remoteCache");
  if (typeof given === "boolean") return given;
  return get(s, "dedupe") === true && present(get(s, "storageDriver"));
}

/** `IsSearchEnabled` / `IsCveScanningEnabled` after applyDefaultValues (enable defaults to true; trivy is filled in). */
function cveScanning(cfg: JsonObject): boolean {
  const search = get(cfg, "extensions", "search");
  return isPlainObject(search) && get(search, "enable") !== false && present(get(search, "cve"));
}

/** `IsSyncEnabled` after applyDefaultValues (enable defaults to true when sync is given). */
function syncEnabled(cfg: JsonObject): boolean {
  const sync = get(cfg, "extensions", "sync");
  return isPlainObject(sync) && get(sync, "enable") !== false;
}

/**
 * doublestar v4's `ValidatePattern` (zot's glob library, go.mod v4.10.0), its refusals: a trailing escape, a
 * `[` class without `]`, unbalanced `{ }`. The reason, or undefined for a valid pattern.
 */
export function globProblem(pattern: string): string | undefined {
  let braces = 0;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === "\\") {
      if (i === pattern.length - 1) return "ends with an escape";
      i++;
    } else if (c === "[") {
      let j = i + 1;
      if (pattern[j] === "!" || pattern[j] === "^") j++;
      if (pattern[j] === "]") j++;
      while (j < pattern.length && pattern[j] !== "]") j += pattern[j] === "\\" ? 2 : 1;
      if (j >= pattern.length) return "has a [ without ]";
      i = j;
    } else if (c === "{") braces++;
    else if (c === "}") {
      if (braces === 0) return "has a } without {";
      braces--;
    }
  }
  return braces > 0 ? "has a { without }" : undefined;
}

/**
 * Go's regexp (RE2) `Compile`: what JavaScript cannot compile either, and what RE2 refuses though JavaScript takes
 * it (look-around, back references). `(?P<name>` is RE2's named group. The reason, or undefined.
 */
export function goRegexpProblem(re: string): string | undefined {
  if (/\(\?<?[=!]/.test(re)) return "uses look-around, which Go's regexp (RE2) does not support";
  if (/(^|[^\\])\\[1-9]/.test(re)) return "uses a back reference, which Go's regexp (RE2) does not support";
  try {
    new RegExp(re.replace(/\(\?P</g, "(?<"), "u");
    return undefined;
  } catch (err) {
    return `does not compile (${(err as Error).message.replace(/^Invalid regular expression: /, "")})`;
  }
}

const OPENID_PROVIDERS = ["google", "gitlab", "oidc"]; // config.go openIDSupportedProviders
const OAUTH2_PROVIDERS = ["github"]; // config.go oauth2SupportedProviders
const STORAGE_DRIVERS = ["s3", "gcs", "azure"]; // pkg/storage/constants: S3/GCS/AzureStorageDriverName
const MTLS_IDENTITY_ATTRIBUTES = ["CommonName", "CN", "Subject", "DN", "Email", "rfc822name", "URI", "URL", "DNSName", "DNS"];

/** zot's validateConfiguration, rule by rule, in zot's order. */
export const ZOT_STARTUP_RULES: ZotStartupRule[] = [
  {
    zotFunction: "validateGC",
    check: (cfg, path) =>
      entries(get(cfg, "storage", "subPaths")).flatMap(([route, s]) => {
        const delay = get(s, "gcDelay");
        // Not given: applyDefaultValues sets the default (1h). Given as 0 (or below): refused.
        if (get(s, "gc") !== true || (seconds(delay) ?? 1) > 0) return [];
        return [
          `${path}.storage.subPaths.${route}.gcDelay: ${show(delay)} with gc: true; ${why("validateGC", "invalid GC delay configuration - cannot be negative or zero")}; use e.g. "1h"`,
        ];
      }),
  },
  {
    zotFunction: "validateGCRules",
    check: (cfg, path) =>
      stores(cfg, path).flatMap(({ at, s }) =>
        list(get(s, "retention", "policies")).flatMap((policy, i) => [
          ...list(get(policy, "repositories")).flatMap((p, j) => {
            const bad = typeof p === "string" ? globProblem(p) : undefined;
            return bad
              ? [
                  `${at}.retention.policies[${i}].repositories[${j}]: ${show(p)} ${bad}; ${why("validateGCRules", "retention repo glob pattern could not be compiled")}`,
                ]
              : [];
          }),
          ...list(get(policy, "keepTags")).flatMap((rule, k) =>
            list(get(rule, "patterns")).flatMap((re, j) => {
              const bad = typeof re === "string" ? goRegexpProblem(re) : undefined;
              return bad
                ? [
                    `${at}.retention.policies[${i}].keepTags[${k}].patterns[${j}]: ${show(re)} ${bad}; ${why("validateGCRules", "retention tag regex could not be compiled")}`,
                  ]
                : [];
            }),
          ),
        ]),
      ),
  },
  {
    zotFunction: "validateLDAP",
    check: (cfg, path) => {
      const ldap = get(cfg, "http", "auth", "ldap");
      if (!present(ldap)) return [];
      return (["userAttribute", "address", "baseDN"] as const)
        .filter((k) => str(get(ldap, k)) === "")
        .map(
          (k) =>
            `${path}.http.auth.ldap.${k}: is missing; ${why("validateLDAP", `invalid LDAP configuration, missing mandatory key: ${k === "baseDN" ? "basedn" : k}`)}`,
        );
    },
  },
  {
    zotFunction: "validateMTLS",
    check: (cfg, path) => {
      const mtls = get(cfg, "http", "auth", "mtls");
      if (!present(mtls)) return [];
      const at = `${path}.http.auth.mtls`;
      const tls = get(cfg, "http", "tls");
      if (!(str(get(tls, "key")) && str(get(tls, "cert")) && str(get(tls, "caCert")))) {
        return [
          `${at}: is set without http.tls key, cert and caCert; ${why("validateMTLS", "mTLS configuration requires TLS to be enabled with CA certificate")}`,
        ];
      }
      const attrs = list(get(mtls, "identityAttributes")).map(String);
      const unknown = attrs.filter((a) => !MTLS_IDENTITY_ATTRIBUTES.some((v) => v.toLowerCase() === a.trim().toLowerCase()));
      if (unknown.length)
        return [
          `${at}.identityAttributes: ${show(unknown)} unsupported; ${why("validateMTLS", "unsupported identityAttributes")}; use ${MTLS_IDENTITY_ATTRIBUTES.join(", ")}`,
        ];
      const useSan = attrs.some((a) => ["uri", "url"].includes(a.trim().toLowerCase()));
      const out: string[] = [];
      for (const k of ["dnsSanIndex", "emailSanIndex", "uriSanIndex", "uriSanPattern"]) {
        const v = get(mtls, k);
        if (v !== undefined && v !== 0 && v !== "" && !useSan) {
          out.push(
            `${at}.${k}: ${show(v)} without a URI/URL identity attribute; ${why("validateMTLS", `${k} is only supported for URI/URL MTLS identity attribute`)}`,
          );
        }
      }
      const pattern = get(mtls, "uriSanPattern");
      const bad = typeof pattern === "string" && pattern !== "" ? goRegexpProblem(pattern) : undefined;
      if (bad && useSan) out.push(`${at}.uriSanPattern: ${show(pattern)} ${bad}; ${why("validateMTLS", "invalid regex pattern")}`);
      return out;
    },
  },
  {
    zotFunction: "validateOpenIDConfig",
    check: (cfg, path) =>
      entries(get(cfg, "http", "auth", "openID", "providers")).flatMap(([name, p]) => {
        const at = `${path}.http.auth.openID.providers.${name}`;
        // A credentialsFile supplies clientID (updateOpenIDConfig runs before the check): only the rest is known here.
        const hasClient = str(get(p, "clientID")) !== "" || str(get(p, "credentialsFile")) !== "";
        const hasScopes = list(get(p, "scopes")).length > 0;
        if (OPENID_PROVIDERS.includes(name)) {
          return hasClient && str(get(p, "issuer")) !== "" && hasScopes
            ? []
            : [
                `${at}: needs clientID (or credentialsFile), issuer and scopes; ${why("validateOpenIDConfig", "OpenID provider config requires clientid, issuer and scopes parameters")}`,
              ];
        }
        if (OAUTH2_PROVIDERS.includes(name)) {
          return hasClient && hasScopes
            ? []
            : [
                `${at}: needs clientID (or credentialsFile) and scopes; ${why("validateOpenIDConfig", "OAuth2 provider config requires clientid and scopes parameters")}`,
              ];
        }
        return [
          `${at}: unknown provider; ${why("validateOpenIDConfig", "unsupported openid/oauth2 provider")}; use one of ${[...OPENID_PROVIDERS, ...OAUTH2_PROVIDERS].join(", ")}`,
        ];
      }),
  },
  {
    zotFunction: "validateBearerConfig",
    check: (cfg, path) => {
      const bearer = get(cfg, "http", "auth", "bearer");
      if (!present(bearer)) return [];
      const at = `${path}.http.auth.bearer`;
      const asm = get(bearer, "awsSecretsManager");
      if (str(get(bearer, "cert")) !== "" && present(asm)) {
        return [
          `${at}: cert and awsSecretsManager are both set; ${why("validateBearerConfig", "cannot configure both cert and awsSecretsManager for bearer authentication")}`,
        ];
      }
      if (!present(asm)) return [];
      for (const k of ["region", "secretName"]) {
        if (str(get(asm, k)) === "")
          return [`${at}.awsSecretsManager.${k}: is missing; ${why("validateBearerConfig", `awsSecretsManager ${k} must be specified`)}`];
      }
      const interval = get(asm, "refreshInterval");
      if ((seconds(interval) ?? 0) < 0) {
        return [
          `${at}.awsSecretsManager.refreshInterval: ${show(interval)}; ${why("validateBearerConfig", "awsSecretsManager refreshInterval must be non-negative")}`,
        ];
      }
      return [];
    },
  },
  {
    zotFunction: "validateSync",
    check: (cfg, path) =>
      list(get(cfg, "extensions", "sync", "registries")).flatMap((reg, i) => {
        const at = `${path}.extensions.sync.registries[${i}]`;
        const out: string[] = [];
        if (present(get(reg, "maxRetries")) && !present(get(reg, "retryDelay"))) {
          out.push(
            `${at}.retryDelay: is missing while maxRetries is set; ${why("validateSync", "retryDelay is required when using maxRetries")}; add e.g. "5m"`,
          );
        }
        if (get(reg, "preserveDigest") === true && list(get(cfg, "http", "compat")).length === 0) {
          out.push(
            `${at}.preserveDigest: true without http.compat; ${why("validateSync", "can not use PreserveDigest option without enabling http.Compat")}; keep http.compat ["docker2s2"]`,
          );
        }
        list(get(reg, "content")).forEach((content, j) => {
          const cat = `${at}.content[${j}]`;
          const prefix = str(get(content, "prefix"));
          const bad = globProblem(prefix);
          if (bad) out.push(`${cat}.prefix: ${show(prefix)} ${bad}; ${why("validateSync", "sync prefix could not be compiled")}`);
          for (const [k, reason] of [
            ["regex", "sync content regex could not be compiled"],
            ["excludeRegex", "sync content excludeRegex could not be compiled"],
          ]) {
            const re = get(content, "tags", k);
            const problem = typeof re === "string" ? goRegexpProblem(re) : undefined;
            if (problem) out.push(`${cat}.tags.${k}: ${show(re)} ${problem}; ${why("validateSync", reason)}`);
          }
          if (get(content, "stripPrefix") === true && !prefix.includes("/*") && get(content, "destination") === "/") {
            out.push(
              `${cat}: stripPrefix true and destination "/" with a prefix without "/*"; ${why("validateSync", "can not use stripPrefix true and destination '/' without using glob patterns in prefix")}`,
            );
          }
        });
        return out;
      }),
  },
  {
    zotFunction: "validateStorageConfig",
    check: (cfg, path) => {
      const all = stores(cfg, path).map((x) => ({ ...x, root: str(get(x.s, "rootDirectory")), type: storageType(x.s) }));
      const abs = (p: string): string => goPathClean(p.startsWith("/") ? p : `/${p}`);
      const inside = (a: string, b: string): boolean => abs(a) !== abs(b) && abs(a).startsWith(abs(b) === "/" ? "/" : `${abs(b)}/`);
      const name = (route: string): string => (route === "" ? "default storage" : `substore (route: ${route})`);
      const out: string[] = [];
      all.forEach((a, i) =>
        all.slice(i + 1).forEach((b) => {
          if (a.type !== b.type) return;
          const reason =
            a.root.toLowerCase() === b.root.toLowerCase()
              ? `invalid storage config, ${name(a.route)} and ${name(b.route)} cannot use the same root directory`
              : inside(a.root, b.root)
                ? `invalid storage config, ${name(a.route)} root directory cannot be inside ${name(b.route)} root directory`
                : inside(b.root, a.root)
                  ? `invalid storage config, ${name(b.route)} root directory cannot be inside ${name(a.route)} root directory`
                  : undefined;
          if (reason)
            out.push(
              `${b.at}.rootDirectory: ${show(b.root)} against ${show(a.root)}; ${why("validateStorageConfig", reason)}; give each store its own directory beside the others`,
            );
        }),
      );
      return out;
    },
  },
  {
    zotFunction: "validateCacheConfig",
    check: (cfg, path) =>
      stores(cfg, path).flatMap(({ route, at, s }) => {
        const driver = present(get(s, "storageDriver"));
        const cache = get(s, "cacheDriver");
        const remote = remoteCache(s);
        const bang = route === "" ? "" : "!";
        if (get(s, "dedupe") === true && driver && remote && !present(cache)) {
          return [
            `${at}.cacheDriver: is missing (dedupe with remote storage uses a remote database); ${why("validateCacheConfig", `invalid database config, dedupe set to true with remote storage and database, but no remote database configured${bang}`)}; add a cacheDriver or set remoteCache: false`,
          ];
        }
        if (!present(cache) || !remote) return [];
        const name = get(cache, "name");
        const supported = route === "" ? ["dynamodb", "redis"] : ["dynamodb"];
        if (!driver && (route !== "" || name !== "redis")) {
          return [
            `${at}.cacheDriver: a remote database with local storage; ${why("validateCacheConfig", "invalid database config, cannot have local storage driver with remote database!")}; remove cacheDriver or set remoteCache: false`,
          ];
        }
        if (!supported.includes(String(name))) {
          return [
            `${at}.cacheDriver.name: ${show(name)}; ${why("validateCacheConfig", "invalid database config, unsupported database driver")}; use ${supported.join(" or ")}`,
          ];
        }
        return [];
      }),
  },
  {
    zotFunction: "validateRemoteSessionStoreConfig",
    check: (cfg, path) => {
      const driver = get(cfg, "http", "auth", "sessionDriver");
      if (!present(driver)) return [];
      const at = `${path}.http.auth.sessionDriver`;
      const name = get(driver, "name");
      if (name === undefined)
        return [`${at}.name: is missing; ${why("validateRemoteSessionStoreConfig", "must provide session driver name!")}`];
      if (name !== "redis" && name !== "local") {
        return [
          `${at}.name: ${show(name)}; ${why("validateRemoteSessionStoreConfig", `session store driver ${String(name)} is not allowed!`)}; use redis or local`,
        ];
      }
      if (name === "redis" && str(get(cfg, "http", "auth", "sessionKeysFile")) !== "") {
        return [
          `${path}.http.auth.sessionKeysFile: set with the redis session driver; ${why("validateRemoteSessionStoreConfig", "session keys not supported when redis session driver is used!")}`,
        ];
      }
      return [];
    },
  },
  {
    zotFunction: "validateExtensionsConfig",
    check: (cfg, path) =>
      cveScanning(cfg) && stores(cfg, path).some(({ s }) => present(get(s, "storageDriver")))
        ? [
            `${path}.extensions.search.cve: CVE scanning with remote storage; ${why("validateExtensionsConfig", "failed to enable cve scanning due to incompatibility with remote storage, please disable cve")}; set cve.enabled: false`,
          ]
        : [],
  },
  {
    zotFunction: "validateAuthzPolicies",
    check: (cfg, path) => {
      const acl = get(cfg, "http", "accessControl");
      if (!present(acl)) return [];
      const auth = get(cfg, "http", "auth");
      const openid = entries(get(auth, "openID", "providers")).some(([n]) => OPENID_PROVIDERS.includes(n) || OAUTH2_PROVIDERS.includes(n));
      const basic = str(get(auth, "htpasswd", "path")) !== "" || present(get(auth, "ldap")) || openid || get(auth, "apikey") === true;
      const tls = get(cfg, "http", "tls");
      const mtls = str(get(tls, "key")) !== "" && str(get(tls, "cert")) !== "" && str(get(tls, "caCert")) !== "";
      const bearer = get(auth, "bearer");
      const bearerOn =
        present(bearer) &&
        ((str(get(bearer, "realm")) !== "" &&
          str(get(bearer, "service")) !== "" &&
          (str(get(bearer, "cert")) !== "" || present(get(bearer, "awsSecretsManager")))) ||
          list(get(bearer, "oidc")).length > 0);
      if (basic || mtls || bearerOn || onlyAnonymous(acl) || onlyMetricsAnonymous(acl)) return [];
      return [
        `${path}.http.accessControl: policies for users without any authentication; ${why("validateAuthzPolicies", "access control config requires one of htpasswd, ldap, openid or mTLS authentication or using only 'anonymousPolicy' policies")}; add registry users or keep only anonymousPolicy`,
      ];
    },
  },
  {
    zotFunction: "validateStorageConfigSection",
    check: (cfg, path) =>
      stores(cfg, path).flatMap(({ at, s }) => {
        const driver = get(s, "storageDriver");
        if (get(s, "redirectBlobURL") === true && !nonEmpty(driver)) {
          return [
            `${at}.redirectBlobURL: true with local storage; ${why("validateStorageConfigSection", "invalid storage config, redirectBlobURL is supported only for s3/gcs/azure storage")}; remove it`,
          ];
        }
        if (!nonEmpty(driver)) return [];
        if (!STORAGE_DRIVERS.includes(String(get(driver, "name")))) {
          return [
            `${at}.storageDriver.name: ${show(get(driver, "name"))}; ${why("validateStorageConfigSection", "unsupported storage driver")}; use ${STORAGE_DRIVERS.join(", ")}`,
          ];
        }
        if (syncEnabled(cfg) && str(get(cfg, "extensions", "sync", "downloadDir")) === "") {
          return [
            `${path}.extensions.sync.downloadDir: is missing while ${at}.storageDriver is remote; ${why("validateStorageConfigSection", "using both sync and remote storage features needs config.Extensions.Sync.DownloadDir to be specified")}; set a directory on the volume, e.g. "/var/lib/registry/.sync"`,
          ];
        }
        return [];
      }),
  },
  {
    zotFunction: "validateConfiguration (access control patterns)",
    check: (cfg, path) =>
      entries(get(cfg, "http", "accessControl", "repositories")).flatMap(([pattern]) => {
        const bad = globProblem(pattern);
        return bad
          ? [
              `${path}.http.accessControl.repositories.${pattern}: the pattern ${bad}; ${why("validateConfiguration", "failed to compile authorization pattern")}`,
            ]
          : [];
      }),
  },
  {
    zotFunction: "validateClusterConfig",
    check: (cfg, path) => {
      const cluster = get(cfg, "cluster");
      if (!present(cluster)) return [];
      if (list(get(cluster, "members")).length === 0)
        return [`${path}.cluster.members: is empty; ${why("validateClusterConfig", "cannot have 0 members in a scale out cluster")}`];
      const key = str(get(cluster, "hashKey"));
      // Go's len() counts bytes.
      return Buffer.byteLength(key) === 16
        ? []
        : [
            `${path}.cluster.hashKey: ${Buffer.byteLength(key)} bytes; ${why("validateClusterConfig", "hashKey for scale out cluster must have 16 characters")}`,
          ];
    },
  },
];

/** config.go `ContainsOnlyAnonymousPolicy`. */
function onlyAnonymous(acl: unknown): boolean {
  const admin = get(acl, "adminPolicy");
  if (list(get(admin, "actions")).length + list(get(admin, "users")).length > 0) return false;
  let anonymous = false;
  for (const [, repo] of entries(get(acl, "repositories"))) {
    if (list(get(repo, "defaultPolicy")).length > 0) return false;
    if (list(get(repo, "anonymousPolicy")).length > 0) anonymous = true;
    for (const p of list(get(repo, "policies"))) if (list(get(p, "actions")).length + list(get(p, "users")).length > 0) return false;
  }
  return anonymous;
}

/** config.go `ContainsOnlyMetricsAnonymousPolicy`. */
function onlyMetricsAnonymous(acl: unknown): boolean {
  const admin = get(acl, "adminPolicy");
  if (list(get(admin, "actions")).length + list(get(admin, "users")).length + list(get(admin, "groups")).length > 0) return false;
  return (
    entries(get(acl, "repositories")).length === 0 &&
    entries(get(acl, "groups")).length === 0 &&
    list(get(acl, "metrics", "anonymousPolicy")).includes("read")
  );
}

/** Every problem of zot's startup rules (empty: zot's validateConfiguration passes). */
export function zotStartupProblems(cfg: unknown, path = "registry.config"): string[] {
  if (!isPlainObject(cfg)) return [];
  return ZOT_STARTUP_RULES.flatMap((rule) => rule.check(cfg, path));
}

/** Seconds of a Go duration given as a string, undefined otherwise. */
const seconds = (v: unknown): number | undefined => (typeof v === "string" ? parseDurationSeconds(v) : undefined);

/**
 * Where zot starts but warns, or silently changes the value: said at preview (`pulumi.log.warn`), never refused.
 */
export function zotStartupWarnings(cfg: unknown, path = "registry.config", overrides?: unknown): string[] {
  if (!isPlainObject(cfg)) return [];
  const out: string[] = [];
  const storage = get(cfg, "storage");
  if (get(storage, "gc") === false) {
    out.push(
      `${path}.storage.gc: false — zot ${PINNED_ZOT_VERSION} never removes unreferenced blobs, so the volume only grows; ` +
        `gcDelay and gcInterval are ignored (validateGC warns "garbage-collect ... specified without enabling garbage-collect, will be ignored")`,
    );
  }
  const interval = get(cfg, "extensions", "search", "cve", "updateInterval");
  const s = seconds(interval);
  if (cveScanning(cfg) && s !== undefined && s < seconds(ZOT_MIN_CVE_UPDATE_INTERVAL)!) {
    out.push(
      `${path}.extensions.search.cve.updateInterval: ${show(interval)} is below zot's minimum; zot ${PINNED_ZOT_VERSION} uses ${ZOT_MIN_CVE_UPDATE_INTERVAL} instead ` +
        `(applyDefaultValues: "cve update interval set to too-short interval < 2h, changing update duration to 2 hours")`,
    );
  }
  // Only a value the user gave: spec 001's default (1.1.0) is kept as the spec says, and zot replacing it is documented.
  const dist = get(overrides === undefined ? cfg : overrides, "distSpecVersion");
  if (typeof dist === "string" && dist !== "" && dist !== ZOT_DIST_SPEC_VERSION) {
    out.push(
      `${path}.distSpecVersion: ${show(dist)} is not what zot ${PINNED_ZOT_VERSION} implements; it uses ${ZOT_DIST_SPEC_VERSION} instead ` +
        `(updateDistSpecVersion: "config dist-spec version differs from version actually used"); set "${ZOT_DIST_SPEC_VERSION}" or leave the default`,
    );
  }
  const known = ZOT_COMPAT_VALUES;
  list(get(cfg, "http", "compat")).forEach((v, i) => {
    if (!known.includes(String(v))) {
      out.push(
        `${path}.http.compat[${i}]: ${show(v)} is no compatibility zot ${PINNED_ZOT_VERSION} knows (pkg/compat: ${known.join(", ")}); it has no effect`,
      );
    }
  });
  for (const { at, s: store } of stores(cfg, path)) {
    if (present(get(store, "cacheDriver")) && get(store, "remoteCache") === false) {
      out.push(
        `${at}.cacheDriver: is ignored with remoteCache: false; zot ${PINNED_ZOT_VERSION} uses its local database (validateCacheConfig warns)`,
      );
    }
  }
  return out;
}
