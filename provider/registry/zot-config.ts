// zot's config.json: the defaults from spec 001 (part B, "Registry configuration"), a deep
// merge for user overrides, and a pure validator that rejects, before anything is created,
// every configuration zot itself would refuse at startup.
//
// zot reads config.json through viper + mapstructure: keys are matched case-insensitively
// and any key it does not know stops startup ("unknown keys"). The tree in ZOT_KEYS below
// is the set of keys documented for zot v2.1.18–v2.1.20 (see
// /work/shared/reference/zot-chart-facts.md and zot's pkg/extensions/config). Subtrees we do
// not model key by key (tls, ldap, accessControl, sync, retention, ...) are "open": their
// contents are passed through unchecked.

/** A JSON object as it appears in config.json. */
export type JsonObject = { [key: string]: unknown };

/** Where zot finds the htpasswd file: the Secret is mounted read-only at /secret. */
export const HTPASSWD_PATH = "/secret/htpasswd";
/** Where the chart mounts the StatefulSet's PVC (fixed in the chart templates). */
export const ROOT_DIRECTORY = "/var/lib/registry";
/** The container port the chart exposes (fixed in the chart templates). */
export const ZOT_PORT = "5000";

/**
 * The configuration of spec 001's config.json table, key by key. `realm` is not given a
 * value by the spec ("registry realm name"); it defaults to "zot" and shows up in
 * `WWW-Authenticate: Basic realm="zot"`.
 */
export function defaultZotConfig(realm = "zot"): JsonObject {
  return {
    distSpecVersion: "1.1.0",
    storage: {
      rootDirectory: ROOT_DIRECTORY,
      dedupe: true,
      gc: true,
      gcDelay: "1h",
      gcInterval: "24h",
    },
    http: {
      address: "0.0.0.0",
      port: ZOT_PORT,
      realm,
      auth: { htpasswd: { path: HTPASSWD_PATH } },
    },
    log: { level: "info", output: "/dev/stdout" },
    extensions: {
      metrics: { enable: true, prometheus: { path: "/metrics" } },
      search: { enable: true, cve: { updateInterval: "24h" } },
      ui: { enable: true },
    },
  };
}

/** A plain data object (JSON/YAML-like); class instances such as pulumi Outputs are not. */
export function isPlainObject(v: unknown): v is JsonObject {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

function findKey(obj: JsonObject, key: string): string | undefined {
  if (Object.prototype.hasOwnProperty.call(obj, key)) return key;
  const lower = key.toLowerCase();
  return Object.keys(obj).find((k) => k.toLowerCase() === lower);
}

function setOwn(obj: JsonObject, key: string, value: unknown): void {
  // defineProperty so that a "__proto__" key coming from YAML/JSON stays a plain (and,
  // for the validator, unknown) key instead of replacing the prototype.
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * Deep merge for configuration overrides: objects merge key by key (keys matched
 * case-insensitively like zot does, keeping the base's spelling), arrays and scalars
 * replace, and `null` deletes the key (e.g. `extensions: { search: { cve: null } }`).
 * Neither input is modified.
 */
export function deepMerge(base: JsonObject, override: JsonObject | undefined): JsonObject {
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(base)) setOwn(out, k, isPlainObject(v) ? deepMerge(v, undefined) : clone(v));
  if (!override) return out;
  for (const [k, v] of Object.entries(override)) {
    const existing = findKey(out, k) ?? k;
    if (v === null) {
      delete out[existing];
    } else if (isPlainObject(v) && isPlainObject(out[existing])) {
      setOwn(out, existing, deepMerge(out[existing] as JsonObject, v));
    } else {
      setOwn(out, existing, isPlainObject(v) ? deepMerge({}, v) : clone(v));
    }
  }
  return out;
}

function clone(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(clone);
  if (isPlainObject(v)) return deepMerge(v, undefined);
  return v;
}

/** Returns the value at a path of keys (matched case-insensitively), or undefined. */
export function getPath(obj: unknown, keys: string[]): unknown {
  let cur: unknown = obj;
  for (const k of keys) {
    if (!isPlainObject(cur)) return undefined;
    const found = findKey(cur, k);
    if (found === undefined) return undefined;
    cur = cur[found];
  }
  return cur;
}

function deletePath(obj: JsonObject, keys: string[]): void {
  const parent = getPath(obj, keys.slice(0, -1));
  if (!isPlainObject(parent)) return;
  const k = findKey(parent, keys[keys.length - 1]);
  if (k !== undefined) delete parent[k];
}

function ensureObject(obj: JsonObject, keys: string[]): JsonObject {
  let cur = obj;
  for (const k of keys) {
    const found = findKey(cur, k);
    if (found === undefined || !isPlainObject(cur[found])) {
      const next: JsonObject = {};
      setOwn(cur, found ?? k, next);
      cur = next;
    } else {
      cur = cur[found] as JsonObject;
    }
  }
  return cur;
}

/** Options of {@link buildZotConfig}. */
export interface ZotConfigOptions {
  /** Overrides deep-merged over the defaults (see {@link deepMerge}). */
  overrides?: JsonObject;
  /** Whether an htpasswd Secret is mounted (users were given). */
  withHtpasswd: boolean;
  /** `http.realm`; default "zot". */
  realm?: string;
  /** CVE scanning (applied after the overrides). */
  cve?: { enabled?: boolean; dbRepository?: string; javaDbRepository?: string };
}

/**
 * Builds the final config.json: defaults, then overrides, then the `cve` options, then, when
 * no users are given, `http.auth.htpasswd` is removed (zot refuses to start when the file
 * it names is missing) together with `http.auth` if nothing else is left in it.
 */
export function buildZotConfig(opts: ZotConfigOptions): JsonObject {
  const cfg = deepMerge(defaultZotConfig(opts.realm ?? "zot"), opts.overrides);
  const cve = opts.cve ?? {};
  if (cve.enabled === false) {
    deletePath(cfg, ["extensions", "search", "cve"]);
  } else if (cve.dbRepository !== undefined || cve.javaDbRepository !== undefined) {
    if (isPlainObject(getPath(cfg, ["extensions", "search"]))) {
      const trivy = ensureObject(cfg, ["extensions", "search", "cve", "trivy"]);
      // zot's TrivyConfig fields are DBRepository / JavaDBRepository (mapstructure, so any
      // casing works); the spelling below is the one of zot's own examples.
      if (cve.dbRepository !== undefined) setOwn(trivy, findKey(trivy, "dbRepository") ?? "dbRepository", cve.dbRepository);
      if (cve.javaDbRepository !== undefined)
        setOwn(trivy, findKey(trivy, "javaDBRepository") ?? "javaDBRepository", cve.javaDbRepository);
    }
  }
  if (!opts.withHtpasswd) {
    deletePath(cfg, ["http", "auth", "htpasswd"]);
    const auth = getPath(cfg, ["http", "auth"]);
    if (isPlainObject(auth) && Object.keys(auth).length === 0) deletePath(cfg, ["http", "auth"]);
  }
  return cfg;
}

// ---------------------------------------------------------------------------------------
// The schema of zot's known keys.

type Check = (v: unknown) => string | undefined;
type Spec =
  | { t: "object"; keys: Record<string, Spec> }
  | { t: "open" } // an object whose contents are not modelled
  | { t: "string"; check?: Check }
  | { t: "boolean" }
  | { t: "duration" }
  | { t: "port" }
  | { t: "any" };

const obj = (keys: Record<string, Spec>): Spec => ({ t: "object", keys });
const open: Spec = { t: "open" };
const str = (check?: Check): Spec => ({ t: "string", check });
const bool: Spec = { t: "boolean" };
const dur: Spec = { t: "duration" };
const any: Spec = { t: "any" };

const nonEmpty =
  (fix: string): Check =>
  (v) =>
    typeof v === "string" && v.trim() === "" ? `must not be empty; ${fix}` : undefined;

export const LOG_LEVELS = ["panic", "fatal", "error", "warn", "info", "debug", "trace"] as const;

const ZOT_KEYS: Spec = obj({
  distSpecVersion: str(nonEmpty('use "1.1.0"')),
  storage: obj({
    rootDirectory: str(nonEmpty(`use "${ROOT_DIRECTORY}"`)),
    dedupe: bool,
    gc: bool,
    gcDelay: dur,
    gcInterval: dur,
    gcTimeWindow: dur,
    retention: open,
    remoteCache: bool,
    storageDriver: open,
    cacheDriver: open,
    subPaths: open,
    maxRepos: any,
    commit: bool,
    redirectBlobURL: any,
    fastRestart: any,
  }),
  http: obj({
    address: str(nonEmpty('use "0.0.0.0"')),
    externalURL: str(),
    port: { t: "port" },
    realm: str(),
    allowOrigin: str(),
    readTimeout: dur,
    writeTimeout: dur,
    tls: open,
    // auth has more methods than the facts list key by key: unknown keys under auth pass.
    auth: obj({
      htpasswd: obj({ path: str(nonEmpty(`use "${HTPASSWD_PATH}"`)) }),
      failDelay: any,
      ldap: open,
      bearer: open,
      openid: open,
      apikey: any,
    }),
    accessControl: open,
    ratelimit: open,
    compat: any,
  }),
  log: obj({
    level: str((v) =>
      typeof v === "string" && !(LOG_LEVELS as readonly string[]).includes(v)
        ? `is not a log level zot accepts; use one of ${LOG_LEVELS.join(", ")}`
        : undefined,
    ),
    output: str(nonEmpty('use "/dev/stdout"')),
    audit: str(),
  }),
  extensions: obj({
    search: obj({
      enable: bool,
      cve: obj({
        updateInterval: dur,
        trivy: obj({ dbRepository: str(nonEmpty("give an OCI repository or remove the key")), javaDBRepository: str() }),
      }),
    }),
    metrics: obj({ enable: bool, prometheus: obj({ path: str() }) }),
    ui: obj({ enable: bool }),
    sync: open,
    scrub: open,
    lint: open,
    mgmt: open,
    trust: open,
    events: open,
  }),
  scheduler: open,
  cluster: open,
});

/** Objects whose unknown keys are tolerated (modelled partially). */
const PARTIAL = new Set(["http.auth"]);

/** Go's time.ParseDuration grammar (a sign, then one or more number+unit pairs, or "0"). */
const GO_DURATION = /^[-+]?((\d+(\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h))+$/;

function parseDurationSeconds(s: string): number | undefined {
  if (s === "0" || s === "+0" || s === "-0") return 0;
  if (!GO_DURATION.test(s)) return undefined;
  const unit: Record<string, number> = { ns: 1e-9, us: 1e-6, "µs": 1e-6, "μs": 1e-6, ms: 1e-3, s: 1, m: 60, h: 3600 };
  let total = 0;
  for (const m of s.replace(/^[-+]/, "").matchAll(/(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/g)) {
    total += parseFloat(m[1]) * unit[m[2]];
  }
  return s.startsWith("-") ? -total : total;
}

function show(v: unknown): string {
  const s = JSON.stringify(v);
  return s === undefined ? String(v) : s.length > 80 ? s.slice(0, 77) + "..." : s;
}

function levenshtein(a: string, b: string): number {
  const d: number[] = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = d[0];
    d[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = d[j];
      d[j] = Math.min(d[j] + 1, d[j - 1] + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return d[b.length];
}

/** The closest of `candidates` to `key`, if close enough to be a likely typo. */
export function suggest(key: string, candidates: string[]): string | undefined {
  const k = key.toLowerCase();
  if (k.length >= 3) {
    const prefixed = candidates.find((c) => c.toLowerCase().startsWith(k) || k.startsWith(c.toLowerCase()));
    if (prefixed !== undefined) return prefixed;
  }
  let best: string | undefined;
  let bestD = Infinity;
  for (const c of candidates) {
    const d = levenshtein(key.toLowerCase(), c.toLowerCase());
    if (d < bestD) {
      bestD = d;
      best = c;
    }
  }
  return best !== undefined && bestD <= Math.max(2, Math.floor(best.length / 3)) ? best : undefined;
}

function walk(value: unknown, spec: Spec, path: string, specPath: string, problems: string[]): void {
  switch (spec.t) {
    case "any":
      return;
    case "open":
      if (!isPlainObject(value)) problems.push(`${path}: ${show(value)} must be an object`);
      return;
    case "boolean":
      if (typeof value !== "boolean") problems.push(`${path}: ${show(value)} must be a boolean (true or false)`);
      return;
    case "string": {
      if (typeof value !== "string") {
        problems.push(`${path}: ${show(value)} must be a string`);
        return;
      }
      const msg = spec.check?.(value);
      if (msg) problems.push(`${path}: ${show(value)} ${msg}`);
      return;
    }
    case "duration": {
      if (typeof value !== "string") {
        problems.push(`${path}: ${show(value)} must be a duration string; use e.g. "1h" or "30m"`);
        return;
      }
      const secs = parseDurationSeconds(value);
      if (secs === undefined) problems.push(`${path}: ${show(value)} is not a duration zot can parse; use e.g. "1h", "24h" or "90m"`);
      else if (secs < 0) problems.push(`${path}: ${show(value)} must not be negative; use e.g. "1h"`);
      return;
    }
    case "port": {
      const s = typeof value === "number" ? String(value) : value;
      if (typeof s !== "string" || !/^\d{1,5}$/.test(s) || Number(s) > 65535) {
        problems.push(`${path}: ${show(value)} is not a port zot accepts (a number 0-65535 as a string); use "${ZOT_PORT}"`);
      }
      return;
    }
    case "object": {
      if (!isPlainObject(value)) {
        problems.push(`${path}: ${show(value)} must be an object`);
        return;
      }
      const seen = new Map<string, string>();
      for (const key of Object.keys(value)) {
        const childPath = `${path}.${key}`;
        const lower = key.toLowerCase();
        const dup = seen.get(lower);
        if (dup !== undefined) {
          problems.push(`${childPath}: duplicates "${dup}" (zot matches keys case-insensitively); keep only one of them`);
          continue;
        }
        seen.set(lower, key);
        const known = Object.keys(spec.keys).find((k) => k.toLowerCase() === lower);
        if (known === undefined) {
          if (PARTIAL.has(specPath)) continue;
          const s = suggest(key, Object.keys(spec.keys));
          problems.push(
            `${childPath}: unknown key (zot refuses to start on unknown keys); ` +
              (s ? `did you mean "${s}"?` : `known keys here: ${Object.keys(spec.keys).join(", ")}`),
          );
          continue;
        }
        walk(value[key], spec.keys[known], childPath, specPath ? `${specPath}.${known}` : known, problems);
      }
      return;
    }
  }
}

/** An extension counts as enabled when present, unless `enable: false` (zot's rule). */
export function extensionEnabled(config: unknown, name: string): boolean {
  const ext = getPath(config, ["extensions", name]);
  if (!isPlainObject(ext)) return false;
  return getPath(ext, ["enable"]) !== false;
}

/**
 * Checks a complete config.json the way zot checks it at startup and returns every problem,
 * each naming its key path under `path` and the fix (an empty list means zot will accept
 * it). Pure: no I/O, usable by the stack program before any resource is created.
 */
export function validateZotConfig(config: unknown, path = "registry.config"): string[] {
  const problems: string[] = [];
  if (!isPlainObject(config)) return [`${path}: ${show(config)} must be an object (zot's config.json)`];
  if (Object.keys(config).length === 0) return [`${path}: is empty; zot rejects an empty configuration`];
  walk(config, ZOT_KEYS, path, "", problems);

  if (getPath(config, ["storage", "rootDirectory"]) === undefined) {
    problems.push(`${path}.storage.rootDirectory: is missing; zot needs it, use "${ROOT_DIRECTORY}"`);
  }
  if (extensionEnabled(config, "ui") && !extensionEnabled(config, "search")) {
    problems.push(
      `${path}.extensions.ui: the UI needs the search extension ("search extension must be enabled"); ` +
        `set extensions.search.enable to true or extensions.ui.enable to false`,
    );
  }
  if (extensionEnabled(config, "metrics")) {
    const p = getPath(config, ["extensions", "metrics", "prometheus", "path"]);
    const at = `${path}.extensions.metrics.prometheus.path`;
    if (typeof p === "string") {
      if (p === "/" || p === "/v2" || p === "/v2/" || p.startsWith("/v2/")) {
        problems.push(`${at}: ${show(p)} is reserved (it would shadow the UI or the registry API); use e.g. "/metrics"`);
      } else if (!p.startsWith("/")) {
        problems.push(`${at}: ${show(p)} must start with "/"; use e.g. "/metrics"`);
      }
    }
  }
  return problems;
}
