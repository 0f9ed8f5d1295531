// How much config one stack may hold on the Node.js runtime. The Node.js language host hands the program the whole
// config in ONE environment variable, PULUMI_CONFIG: Go's json.Marshal of `<namespace>:config:<name>` → the value's
// text (pulumi-language-nodejs main.go, constructConfig; @pulumi/pulumi runtime/config.js reads it). Linux refuses to
// exec a program whose single argument or environment string, `NAME=value` with its NUL, is longer than
// MAX_ARG_STRLEN, 32 pages = 131072 bytes (fs/exec.c), and the CLI then fails with "fork/exec .../node: argument list
// too long" (upstream: https://github.com/pulumi/pulumi/issues/8680). Only that one string counts: each string has
// its own limit, so the other variables need no margin here. Every key of every namespace is in it, values as the
// CLI reads them (strings as they are, everything else as Go's JSON), secrets decrypted. A `secure:` value's plaintext
// is not known here: it is counted at its ciphertext's length, which is longer than its plaintext (base64 of the
// plaintext plus a nonce and a tag), so the size is an estimate from above, unless a secret is mostly characters that
// JSON escapes (`"`, `<`, control characters).
//
// The rule: validate reports a stack file over the limit and export a file it writes over it, each in one line
// (configSizeProblem), with the fix: the fleet's group stacks, or fewer tenants per file.

/** Linux's MAX_ARG_STRLEN: the most bytes one environment string may hold, `NAME=` and the terminating NUL included. */
export const ENV_STRING_MAX_BYTES = 131072;

/** The variable the Node.js language host puts the config in. */
export const CONFIG_VARIABLE = "PULUMI_CONFIG";

/** How the fleet splits a stack's tenants into group stacks (docs/gitops.md, "The fleet: one stack per tenant group"). */
export const FLEET_DOCS = 'docs/gitops.md, "The fleet: one stack per tenant group"';

const HEX = "0123456789abcdef";

/**
 * `s` as Go's encoding/json writes a string (json.Marshal escapes HTML): `"` and `\` with a backslash, \b \f \n \r \t
 * so, other C0 controls and `<`, `>`, `&` as \u00XX, U+2028 and U+2029 as \u2028 and \u2029; everything else raw.
 */
export function goJsonString(s: string): string {
  let out = '"';
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    let esc: string | undefined;
    if (c < 0x20 || c === 0x22 || c === 0x5c || c === 0x3c || c === 0x3e || c === 0x26) {
      esc =
        c === 0x22
          ? '\\"'
          : c === 0x5c
            ? "\\\\"
            : c === 0x08
              ? "\\b"
              : c === 0x0c
                ? "\\f"
                : c === 0x0a
                  ? "\\n"
                  : c === 0x0d
                    ? "\\r"
                    : c === 0x09
                      ? "\\t"
                      : `\\u00${HEX[c >> 4]}${HEX[c & 0xf]}`;
    } else if (c === 0x2028 || c === 0x2029) {
      esc = `\\u${c.toString(16)}`;
    }
    if (esc !== undefined) {
      out += s.slice(start, i) + esc;
      start = i + 1;
    }
  }
  return `${out + s.slice(start)}"`;
}

/** A `{secure: <ciphertext>}` map: a secret, as a stack file holds it. */
export function ciphertextOf(v: unknown): string | undefined {
  if (!v || typeof v !== "object" || Array.isArray(v)) return undefined;
  const keys = Object.keys(v);
  const secure = (v as { secure?: unknown }).secure;
  return keys.length === 1 && typeof secure === "string" ? secure : undefined;
}

/** Go's order of strings (by UTF-8 bytes, which is by code point; JavaScript's < compares UTF-16 units). */
export function goCompare(a: string, b: string): number {
  for (let i = 0, j = 0; i < a.length && j < b.length;) {
    const x = a.codePointAt(i)!;
    const y = b.codePointAt(j)!;
    if (x !== y) return x < y ? -1 : 1;
    i += x > 0xffff ? 2 : 1;
    j += y > 0xffff ? 2 : 1;
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

/** A number as Go writes a float64 (ES6's shortest form, which JavaScript's is, but for -0). */
const goNumber = (n: number): string => (Object.is(n, -0) ? "-0" : JSON.stringify(n));

/** Text goJson writes between values (a bracket, a comma, a key and its colon). */
class Punctuation {
  constructor(readonly text: string) {}
}

/**
 * Go's json.Marshal of a value decoded from YAML: maps with sorted keys, no spaces. A `{secure: ...}` inside is the
 * decrypted secret's string, counted here as its ciphertext (see above). Walked without recursion.
 */
export function goJson(value: unknown): string {
  const parts: string[] = [];
  const todo: unknown[] = [value];
  while (todo.length) {
    const v = todo.pop();
    if (v instanceof Punctuation) parts.push(v.text);
    else if (typeof v === "string") parts.push(goJsonString(v));
    else if (typeof v === "number") parts.push(goNumber(v));
    else if (typeof v === "boolean") parts.push(String(v));
    else if (typeof v === "bigint") parts.push(v.toString());
    else if (v === null || v === undefined) parts.push("null");
    else if (Array.isArray(v)) {
      parts.push("[");
      todo.push(new Punctuation("]"));
      for (let i = v.length - 1; i >= 0; i--) {
        todo.push(v[i]);
        if (i > 0) todo.push(new Punctuation(","));
      }
    } else if (typeof v === "object") {
      const secret = ciphertextOf(v);
      if (secret !== undefined) {
        parts.push(goJsonString(secret));
        continue;
      }
      const keys = Object.keys(v).sort(goCompare);
      parts.push("{");
      todo.push(new Punctuation("}"));
      for (let i = keys.length - 1; i >= 0; i--) {
        todo.push((v as Record<string, unknown>)[keys[i]]);
        todo.push(new Punctuation(`${i > 0 ? "," : ""}${goJsonString(keys[i])}:`));
      }
    } else parts.push(goJsonString(String(v)));
  }
  return parts.join("");
}

/**
 * A config value's text as the CLI hands it to the program: a string as it is, a secret as its plaintext (here its
 * ciphertext), anything else (numbers, booleans, maps, lists) as Go's JSON.
 */
export function cliConfigText(value: unknown): string {
  if (typeof value === "string") return value;
  return ciphertextOf(value) ?? goJson(value);
}

/** `namespace:name` as the host names it in PULUMI_CONFIG: `namespace:config:name`. */
export function hostConfigKey(key: string): string {
  const at = key.indexOf(":");
  return at < 0 ? key : `${key.slice(0, at)}:config:${key.slice(at + 1)}`;
}

/** The JSON the host puts in PULUMI_CONFIG for `config` (`namespace:name` → the value's text). */
export function configVariableJson(config: Record<string, string>): string {
  const entries = Object.entries(config)
    .map(([k, v]) => [hostConfigKey(k), v] as const)
    .sort(([a], [b]) => goCompare(a, b));
  return `{${entries.map(([k, v]) => `${goJsonString(k)}:${goJsonString(v)}`).join(",")}}`;
}

/** The bytes of the environment string `PULUMI_CONFIG=<json>` with its NUL: what MAX_ARG_STRLEN is held against. */
export function configVariableBytes(config: Record<string, string>): number {
  return Buffer.byteLength(`${CONFIG_VARIABLE}=`) + Buffer.byteLength(configVariableJson(config)) + 1;
}

export interface ConfigSize {
  /** PULUMI_CONFIG's bytes (with `PULUMI_CONFIG=` and the NUL). */
  bytes: number;
  /** The same for the config without the tenants (an empty block) and without the secrets they name. */
  withoutTenants: number;
  /** The tenants: the entries of the tenants block (each a group's unit in the fleet). */
  tenants: number;
  /** Whether a `secure:` value was counted at its ciphertext's length. */
  estimated: boolean;
  /** The config's largest value (its `namespace:name` and PULUMI_CONFIG bytes), for a config too large without tenants. */
  largest?: { key: string; bytes: number };
}

/**
 * The size of PULUMI_CONFIG for a stack's config: `config` maps `namespace:name` to each value as the stack file
 * holds it (a secret as its `{secure: ...}` map); `tenantsKey` is the tenants block's key and `tenantSecrets` the keys
 * of the secrets its entries name (node passwords), which go with the tenants into their group stack.
 */
export function configSize(config: Record<string, unknown>, tenantsKey: string, tenantSecrets: string[] = []): ConfigSize {
  const texts: Record<string, string> = {};
  let estimated = false;
  let largest: ConfigSize["largest"];
  for (const [key, value] of Object.entries(config)) {
    texts[key] = cliConfigText(value);
    estimated ||= hasSecret(value);
    const bytes = Buffer.byteLength(goJsonString(hostConfigKey(key))) + Buffer.byteLength(goJsonString(texts[key])) + 2;
    if (!largest || bytes > largest.bytes) largest = { key, bytes };
  }
  const bytes = configVariableBytes(texts);
  const tenantsValue = config[tenantsKey];
  const tenants =
    tenantsValue && typeof tenantsValue === "object" && !Array.isArray(tenantsValue) && ciphertextOf(tenantsValue) === undefined
      ? Object.keys(tenantsValue).length
      : 0;
  const rest: Record<string, string> = { ...texts };
  if (tenantsKey in rest) rest[tenantsKey] = "{}";
  for (const key of tenantSecrets) delete rest[key];
  return { bytes, withoutTenants: configVariableBytes(rest), tenants, estimated, largest };
}

/** Whether `v` is or holds a `{secure: ...}` map. */
function hasSecret(v: unknown): boolean {
  const todo = [v];
  while (todo.length) {
    const x = todo.pop();
    if (ciphertextOf(x) !== undefined) return true;
    if (x && typeof x === "object") todo.push(...Object.values(x));
  }
  return false;
}

/** A count as people read it: 131,072. */
export const grouped = (n: number): string => Math.round(n).toLocaleString("en-US");

export interface TenantsFit {
  /** Bytes per tenant in this file (its tenants and the secrets they name, on average). */
  perTenant: number;
  /** The most tenants of that size the file holds beside the rest of its config. */
  maxTenants: number;
  /** Groups for the fleet's --groups: each group stack about half full (room for the hash's uneven split and growth). */
  groups: number;
}

/** How many tenants of this file's size fit in one stack; undefined when it has none or the rest alone is too large. */
export function tenantsFit(size: ConfigSize): TenantsFit | undefined {
  if (size.tenants === 0) return undefined;
  const perTenant = (size.bytes - size.withoutTenants) / size.tenants;
  const room = ENV_STRING_MAX_BYTES - size.withoutTenants;
  if (room <= 0 || perTenant <= 0) return undefined;
  const maxTenants = Math.floor(room / perTenant);
  return { perTenant, maxTenants, groups: Math.ceil(size.tenants / Math.max(1, Math.floor(maxTenants / 2))) };
}

/** The fleet's command that prints the grouping of `file`'s tenants into `groups` stacks (no Pulumi CLI needed). */
export const fleetCommand = (file: string, groups: number): string =>
  `npx ts-node stacks/fleet/main.ts --config ${file} --groups ${groups} groups`;

/** What is over the limit, the first half of each message below. */
function overLimit(size: ConfigSize, fit: TenantsFit | undefined, verb: "is" | "would be"): string {
  const counted = size.estimated ? "; secure: values counted at their ciphertext's length, more than their plaintext" : "";
  return (
    `the config the Pulumi CLI hands a Node.js program ${verb} ${grouped(size.bytes)} bytes` +
    ` (${CONFIG_VARIABLE}${fit ? `: ${grouped(size.tenants)} tenant${size.tenants === 1 ? "" : "s"} at about ${grouped(fit.perTenant)} bytes each` : ""}${counted}),` +
    ` over Linux's ${grouped(ENV_STRING_MAX_BYTES)} for one environment variable: pulumi preview and up fail with "argument list too long"`
  );
}

/** The fix when no number of tenants per stack helps: one tenant alone, or the config without tenants, is too large. */
function noSplitHelps(size: ConfigSize, fit: TenantsFit | undefined): string {
  if (fit) {
    return `a tenant takes about ${grouped(fit.perTenant)} bytes, more than the ${grouped(ENV_STRING_MAX_BYTES - size.withoutTenants)} the rest of the config leaves: one tenant per stack cannot run either`;
  }
  const largest = size.largest
    ? `; its largest value is ${size.largest.key} (${grouped(size.largest.bytes)} bytes): take it out of the stack's config`
    : "";
  return `without its tenants it is ${grouped(size.withoutTenants)} bytes already${largest}`;
}

/**
 * Why a stack file whose config has `size` cannot run on the Node.js runtime, and the fix, in one message (the
 * caller puts the file and key before it); undefined when it fits. `file` is the stack file as the user names it.
 */
export function configSizeProblem(size: ConfigSize, file: string): string | undefined {
  if (size.bytes <= ENV_STRING_MAX_BYTES) return undefined;
  const fit = tenantsFit(size);
  const what = overLimit(size, fit, "is");
  if (fit && fit.maxTenants >= 1) {
    return (
      `${what}; split the tenants into group stacks with the fleet, or keep this file to ${grouped(fit.maxTenants)} tenants` +
      ` or fewer; the fleet's grouping (${FLEET_DOCS}): ${fleetCommand(file, fit.groups)}`
    );
  }
  return `${what}; ${noSplitHelps(size, fit)}`;
}

/**
 * Why one of the fleet's group stacks, whose config would have `size`, cannot run, and the fix, in one message (the
 * caller puts the stack before it); undefined when it fits. `fleetTenants`: the tenants of the whole fleet, for the
 * number of groups that leaves each about half full.
 */
export function groupConfigSizeProblem(size: ConfigSize, fleetTenants: number): string | undefined {
  if (size.bytes <= ENV_STRING_MAX_BYTES) return undefined;
  const fit = tenantsFit(size);
  const what = overLimit(size, fit, "would be");
  if (fit && fit.maxTenants >= 1) {
    const groups = Math.ceil(fleetTenants / Math.max(1, Math.floor(fit.maxTenants / 2)));
    return (
      `${what}; a group holds at most ${grouped(fit.maxTenants)} tenants of this size: use more groups` +
      ` (--groups ${groups} leaves each about half full) or assign fewer tenants to this one (--assign)`
    );
  }
  return `${what}; ${noSplitHelps(size, fit)}`;
}
