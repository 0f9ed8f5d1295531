/**
 * TEST CODE — part of the stand-in for the Pulumi engine (see host.ts / engine.ts).
 *
 * Property-value helpers that mirror how the engine (Go, sdk/go/common/resource/plugin)
 * marshals property maps for a resource provider:
 *  - plain JSON over protobuf Struct;
 *  - unknowns as the string sentinel `04da6b54-80e4-46f7-96ec-b56ff0331ba9` (KeepUnknowns, preview only);
 *  - secrets as `{ "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270", value }`
 *    inside the engine; stripped to plaintext on the wire when the provider answered
 *    acceptSecrets=false (the dynamic-provider host always does);
 *  - `annotateSecrets(outs, ins)`: the engine's way of re-marking provider results as secret.
 * Nulls are NOT skipped for Check/Diff/Create/Update/Read/Delete (no SkipNulls in provider_plugin.go).
 */
import * as pulumi from "@pulumi/pulumi";

export const SIG_KEY = "4dabf18193072939515e22adb298388d";
export const SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270";
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

export type PropertyMap = Record<string, unknown>;

export interface SecretValue {
  [SIG_KEY]: typeof SECRET_SIG;
  value: unknown;
}

/** Marks a value as secret, in the engine's (and the SDK's RPC) representation. */
export function secret<T>(value: T): SecretValue {
  return { [SIG_KEY]: SECRET_SIG, value } as SecretValue;
}

export function isSecret(v: unknown): v is SecretValue {
  return typeof v === "object" && v !== null && (v as Record<string, unknown>)[SIG_KEY] === SECRET_SIG;
}

export function isUnknown(v: unknown): boolean {
  return v === UNKNOWN || pulumi.isUnknown(v);
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

export function containsSecrets(v: unknown): boolean {
  if (isSecret(v)) return true;
  if (Array.isArray(v)) return v.some(containsSecrets);
  if (isPlainObject(v)) return Object.values(v).some(containsSecrets);
  return false;
}

export function containsUnknowns(v: unknown): boolean {
  if (isUnknown(v)) return true;
  if (isSecret(v)) return containsUnknowns(v.value);
  if (Array.isArray(v)) return v.some(containsUnknowns);
  if (isPlainObject(v)) return Object.values(v).some(containsUnknowns);
  return false;
}

/** Deep plaintext copy: secrets unwrapped, `pulumi.unknown` normalized to the sentinel. */
export function unwrapSecrets(v: unknown): unknown {
  if (isSecret(v)) return unwrapSecrets(v.value);
  if (pulumi.isUnknown(v)) return UNKNOWN;
  if (Array.isArray(v)) return v.map(unwrapSecrets);
  if (isPlainObject(v)) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) if (x !== undefined) out[k] = unwrapSecrets(x);
    return out;
  }
  return v;
}

export interface WireOptions {
  /** Keep unknowns as the sentinel (engine: KeepUnknowns, true only for preview calls). Otherwise they are dropped. */
  keepUnknowns: boolean;
  /** Keep secret wrappers (engine: KeepSecrets = provider's acceptSecrets). */
  keepSecrets: boolean;
}

/**
 * Converts an engine-side value into what goes into the protobuf Struct. Throws on values the engine
 * could not hold (functions, class instances such as live Resources).
 */
export function toWire(v: unknown, opts: WireOptions, path = ""): unknown {
  if (v === undefined) return undefined;
  if (isUnknown(v)) return opts.keepUnknowns ? UNKNOWN : undefined;
  if (isSecret(v)) return opts.keepSecrets ? secret(toWire(v.value, opts, path)) : toWire(v.value, opts, path);
  if (v === null || typeof v === "string" || typeof v === "boolean") return v;
  if (typeof v === "number") {
    if (!Number.isFinite(v)) throw new Error(`property ${path}: non-finite number ${v} cannot be marshalled`);
    return v;
  }
  if (Array.isArray(v)) {
    const out: unknown[] = [];
    v.forEach((x, i) => {
      const w = toWire(x, opts, `${path}[${i}]`);
      // The engine drops elements that marshal to nothing (unknowns without KeepUnknowns).
      if (w !== undefined) out.push(w);
    });
    return out;
  }
  if (isPlainObject(v)) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      const w = toWire(x, opts, path ? `${path}.${k}` : k);
      if (w !== undefined) out[k] = w;
    }
    return out;
  }
  throw new Error(`property ${path || "<root>"}: unsupported value of type ${typeof v} (${Object.prototype.toString.call(v)})`);
}

export function toWireMap(m: PropertyMap, opts: WireOptions): PropertyMap {
  return toWire(m, opts) as PropertyMap;
}

/**
 * The engine's annotateSecrets (provider_plugin.go): for each key present in both, recurse when both
 * are objects; otherwise if the input value contains a secret, the whole output value becomes secret.
 * Returns a new map (does not mutate).
 */
export function annotateSecrets(outs: PropertyMap, ins: PropertyMap | undefined): PropertyMap {
  const result: PropertyMap = { ...outs };
  if (!ins) return result;
  for (const [key, inValue] of Object.entries(ins)) {
    if (!(key in result)) continue;
    const outValue = result[key];
    if (isPlainObject(outValue) && !isSecret(outValue) && isPlainObject(inValue) && !isSecret(inValue)) {
      result[key] = annotateSecrets(outValue, inValue);
    } else if (!isSecret(outValue) && containsSecrets(inValue)) {
      result[key] = secret(outValue);
    }
  }
  return result;
}

/** Deep equality on plaintext values (secretness ignored), like PropertyMap.DeepEquals for our purposes. */
export function deepEqual(a: unknown, b: unknown): boolean {
  const x = isSecret(a) ? a.value : a;
  const y = isSecret(b) ? b.value : b;
  if (x === y) return true;
  if (Array.isArray(x) || Array.isArray(y)) {
    if (!Array.isArray(x) || !Array.isArray(y) || x.length !== y.length) return false;
    return x.every((e, i) => deepEqual(e, y[i]));
  }
  if (isPlainObject(x) && isPlainObject(y)) {
    const kx = Object.keys(x).filter((k) => x[k] !== undefined);
    const ky = Object.keys(y).filter((k) => y[k] !== undefined);
    if (kx.length !== ky.length) return false;
    return kx.every((k) => deepEqual(x[k], y[k]));
  }
  return false;
}

/** Top-level keys whose values differ (the engine's ObjectDiff.ChangedKeys, shallow). */
export function changedKeys(olds: PropertyMap, news: PropertyMap): string[] {
  const keys = new Set([...Object.keys(olds), ...Object.keys(news)]);
  return [...keys].filter((k) => !deepEqual(olds[k], news[k])).sort();
}

/** Replaces secret plaintext with a ciphertext placeholder, as the checkpoint stores it. */
export function redactSecrets(v: unknown): unknown {
  if (isSecret(v)) return { [SIG_KEY]: SECRET_SIG, ciphertext: "<redacted>" };
  if (Array.isArray(v)) return v.map(redactSecrets);
  if (isPlainObject(v)) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = redactSecrets(x);
    return out;
  }
  return v;
}

/** Normalizes values coming from the SDK's mock monitor (pulumi.unknown → sentinel), keeping secret wrappers. */
export function normalizeSdkValue(v: unknown): unknown {
  if (pulumi.isUnknown(v)) return UNKNOWN;
  if (isSecret(v)) return secret(normalizeSdkValue(v.value));
  if (Array.isArray(v)) return v.map(normalizeSdkValue);
  if (isPlainObject(v)) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) if (x !== undefined) out[k] = normalizeSdkValue(x);
    return out;
  }
  return v;
}
