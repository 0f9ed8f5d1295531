// zot's config.json: the defaults from spec 001 (part B, "Registry configuration"), a deep
// merge for user overrides, and a pure validator that rejects, before anything is created,
// every configuration zot itself would refuse at startup.
//
// zot reads config.json through viper + mapstructure: keys are matched case-insensitively
// and any key it does not know stops startup ("unknown keys"). The keys and their types are
// those of zot's config structs at the pinned version (ZOT_KEY_DATA, derived by
// scripts/derive-zot-keys.ts); zot's startup checks of values are kept by hand below.
import { PINNED_ZOT_VERSION, ZOT_KEY_DATA, ZotKeyNode } from "./key-data";
import { suggest } from "../rules/suggest";

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
      // The zot image's own config.json (build/Dockerfile at v2.1.18) accepts Docker v2 schema 2 manifests, which
      // most CI builders still push; without it zot answers 415. Turn off with config: { http: { compat: [] } }.
      compat: [...ZOT_KEY_DATA.facts.imageDefaultCompat],
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
      if (cve.javaDbRepository !== undefined) setOwn(trivy, findKey(trivy, "javaDBRepository") ?? "javaDBRepository", cve.javaDbRepository);
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
// zot's known keys come from ZOT_KEY_DATA (derived from zot's config structs, key-data.ts);
// what zot checks beyond the key names and types at startup is kept by hand below.

type Check = (v: unknown) => string | undefined;

const nonEmpty =
  (fix: string): Check =>
  (v) =>
    typeof v === "string" && v.trim() === "" ? `must not be empty; ${fix}` : undefined;

/** The levels zot's log.ParseLevel accepts (compared case-insensitively). */
export const LOG_LEVELS = ["panic", "fatal", "error", "warn", "warning", "info", "debug", "trace"] as const;

/**
 * zot's own startup checks of single values (pkg/api/config and pkg/cli/server at the pinned
 * version), by key path (case-insensitive; "*" a map entry, "[]" a list element). `replacesType`:
 * the check also decides the type (http.port: zot's examples give it as a string or a number).
 */
export const ZOT_VALUE_CHECKS: Record<string, { check: Check; replacesType?: boolean }> = {
  distSpecVersion: { check: nonEmpty('use "1.1.0"') },
  "storage.rootDirectory": { check: nonEmpty(`use "${ROOT_DIRECTORY}"`) },
  "storage.gcDelay": { check: notNegative },
  "storage.gcInterval": { check: notNegative },
  "http.address": { check: nonEmpty('use "0.0.0.0"') },
  "http.port": { check: portCheck, replacesType: true },
  "http.auth.htpasswd.path": { check: nonEmpty(`use "${HTPASSWD_PATH}"`) },
  "log.level": {
    check: (v) =>
      typeof v === "string" && !(LOG_LEVELS as readonly string[]).includes(v.toLowerCase())
        ? `is not a log level zot accepts; use one of ${LOG_LEVELS.join(", ")}`
        : undefined,
  },
  "log.output": { check: nonEmpty('use "/dev/stdout"') },
  "extensions.search.cve.trivy.dbRepository": { check: nonEmpty("give an OCI repository or remove the key") },
};
const CHECKS_BY_PATH = new Map(Object.entries(ZOT_VALUE_CHECKS).map(([k, v]) => [k.toLowerCase(), v]));

function notNegative(v: unknown): string | undefined {
  const secs = typeof v === "string" ? parseDurationSeconds(v) : undefined;
  return secs !== undefined && secs < 0 ? 'must not be negative; use e.g. "1h"' : undefined;
}

function portCheck(v: unknown): string | undefined {
  const s = typeof v === "number" ? String(v) : v;
  if (typeof s !== "string" || !/^\d{1,5}$/.test(s) || Number(s) > 65535) {
    return `is not a port zot accepts (a number 0-65535 as a string); use "${ZOT_PORT}"`;
  }
  return undefined;
}

/** Go's path.Clean for an absolute path: no empty, "." or ".." elements, no trailing slash. */
export function goPathClean(p: string): string {
  const out: string[] = [];
  for (const part of p.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") out.pop();
    else out.push(part);
  }
  return "/" + out.join("/");
}

/** Go's time.ParseDuration grammar (a sign, then one or more number+unit pairs, or "0"). */
const GO_DURATION = /^[-+]?((\d+(\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h))+$/;

/** Seconds of a Go duration string (time.ParseDuration's grammar), undefined when it is not one. */
export function parseDurationSeconds(s: string): number | undefined {
  if (s === "0" || s === "+0" || s === "-0") return 0;
  if (!GO_DURATION.test(s)) return undefined;
  const unit: Record<string, number> = { ns: 1e-9, us: 1e-6, µs: 1e-6, μs: 1e-6, ms: 1e-3, s: 1, m: 60, h: 3600 };
  let total = 0;
  // The sign is no part of a number+unit pair: it is applied once, below.
  for (const m of s.matchAll(/(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/g)) {
    total += parseFloat(m[1]) * unit[m[2]];
  }
  return s.startsWith("-") ? -total : total;
}

function show(v: unknown): string {
  const s = JSON.stringify(v);
  return s === undefined ? String(v) : s.length > 80 ? s.slice(0, 77) + "..." : s;
}

const TYPE_NAMES: Record<string, string> = {
  string: "a string",
  bool: "a boolean (true or false)",
  int: "a whole number",
  float: "a number",
  list: "a list",
  map: "an object",
  object: "an object",
};

function typeProblem(value: unknown, node: ZotKeyNode): string | undefined {
  const ok =
    node.type === "string"
      ? typeof value === "string"
      : node.type === "bool"
        ? typeof value === "boolean"
        : node.type === "int"
          ? Number.isInteger(value)
          : node.type === "float"
            ? typeof value === "number"
            : node.type === "list"
              ? Array.isArray(value)
              : node.type === "map" || node.type === "object"
                ? isPlainObject(value)
                : true;
  if (ok) return undefined;
  return `must be ${TYPE_NAMES[node.type]}`;
}

function walk(value: unknown, node: ZotKeyNode, path: string, keyPath: string, problems: string[]): void {
  const extra = CHECKS_BY_PATH.get(keyPath.toLowerCase());
  if (extra?.replacesType) {
    const msg = extra.check(value);
    if (msg) problems.push(`${path}: ${show(value)} ${msg}`);
    return;
  }
  if (node.type === "duration") {
    if (typeof value !== "string") {
      problems.push(`${path}: ${show(value)} must be a duration string; use e.g. "1h" or "30m"`);
      return;
    }
    if (parseDurationSeconds(value) === undefined) {
      problems.push(`${path}: ${show(value)} is not a duration zot can parse; use e.g. "1h", "24h" or "90m"`);
      return;
    }
  } else {
    const typeMsg = typeProblem(value, node);
    if (typeMsg) {
      problems.push(`${path}: ${show(value)} ${typeMsg}`);
      return;
    }
  }
  const msg = extra?.check(value);
  if (msg) problems.push(`${path}: ${show(value)} ${msg}`);

  if (node.type === "list") {
    (value as unknown[]).forEach((item, i) => walk(item, node.items, `${path}[${i}]`, `${keyPath}[]`, problems));
  } else if (node.type === "map") {
    for (const [k, v] of Object.entries(value as JsonObject)) walk(v, node.values, `${path}.${k}`, `${keyPath}.*`, problems);
  } else if (node.type === "object") {
    const known = Object.keys(node.keys);
    const seen = new Map<string, string>();
    for (const key of Object.keys(value as JsonObject)) {
      const childPath = `${path}.${key}`;
      const lower = key.toLowerCase();
      const dup = seen.get(lower);
      if (dup !== undefined) {
        problems.push(`${childPath}: duplicates "${dup}" (zot matches keys case-insensitively); keep only one of them`);
        continue;
      }
      seen.set(lower, key);
      const match = known.find((k) => k.toLowerCase() === lower);
      if (match === undefined) {
        if (node.open) continue; // zot ignores unknown keys here (see the data file's note)
        const s = suggest(key, known);
        problems.push(
          `${childPath}: unknown key (zot ${PINNED_ZOT_VERSION} refuses to start on unknown keys); ` +
            (s ? `did you mean "${s}"?` : `known keys here: ${known.join(", ")}`),
        );
        continue;
      }
      walk((value as JsonObject)[key], node.keys[match], childPath, keyPath === "" ? match : `${keyPath}.${match}`, problems);
    }
  }
}

/**
 * What zot accepts but says at startup it ignores (pkg/cli/server at the pinned version): worth a
 * warning, since the setting has no effect.
 */
export function zotConfigWarnings(config: unknown, path = "registry.config"): string[] {
  const warnings: string[] = [];
  if (getPath(config, ["extensions", "apikey"]) !== undefined) {
    warnings.push(
      `${path}.extensions.apikey: zot ${PINNED_ZOT_VERSION} ignores this extension; API keys are turned on with http.auth.apikey: true`,
    );
  }
  if (getPath(config, ["extensions", "mgmt"]) !== undefined) {
    warnings.push(`${path}.extensions.mgmt: zot ${PINNED_ZOT_VERSION} ignores this extension (search and ui provide it)`);
  }
  return warnings;
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
  walk(config, ZOT_KEY_DATA.config, path, "", problems);

  if (getPath(config, ["storage", "rootDirectory"]) === undefined) {
    problems.push(`${path}.storage.rootDirectory: is missing; zot needs it, use "${ROOT_DIRECTORY}"`);
  }
  if (extensionEnabled(config, "ui") && !extensionEnabled(config, "search")) {
    problems.push(
      `${path}.extensions.ui: the UI needs the search extension ("search extension must be enabled"); ` +
        `set extensions.search.enable to true or extensions.ui.enable to false`,
    );
  }
  // zot checks the metrics path whenever it is given, enabled or not. "/v2/<x>" passes zot's
  // check but would sit inside the registry API: refused as well.
  const p = getPath(config, ["extensions", "metrics", "prometheus", "path"]);
  const at = `${path}.extensions.metrics.prometheus.path`;
  if (typeof p === "string") {
    if (p === "/" || p === "/v2" || p === "/v2/" || p.startsWith("/v2/")) {
      problems.push(`${at}: ${show(p)} is reserved (it would shadow the UI or the registry API); use e.g. "/metrics"`);
    } else if (!p.startsWith("/")) {
      problems.push(`${at}: ${show(p)} must start with "/"; use e.g. "/metrics"`);
    } else if (goPathClean(p) !== p) {
      problems.push(`${at}: ${show(p)} is not a clean path (zot requires it equal to its cleaned form); use ${show(goPathClean(p))}`);
    }
  }
  return problems;
}
