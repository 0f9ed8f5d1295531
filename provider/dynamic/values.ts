// Input handling shared by the resources: unknown values during preview, ids,
// check failures, and comparing declared inputs with stored outputs. The rules of
// each field live in provider/rules/.
import type * as pulumi from "@pulumi/pulumi";
import { MAX_INTEGER, portalId, show } from "../rules/fields";

/** How the engine sends a value that is not known yet (preview). */
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

export function isUnknown(v: unknown): boolean {
  return v === UNKNOWN;
}

/** Collects check failures; each names the input property and the fix, once (several checks may meet one cause). */
export class Failures {
  readonly list: pulumi.dynamic.CheckFailure[] = [];

  add(property: string, reason: string): void {
    if (!this.list.some((x) => x.property === property && x.reason === reason)) this.list.push({ property, reason });
  }
}

/** A portal id given as a number or a numeric string, within the safe integers; undefined when it is neither (rules/fields.ts). */
export const toId = portalId;

/** Validates an id input; unknown values pass (preview). Returns the normalized id. */
export function checkId(f: Failures, inputs: Record<string, unknown>, key: string, required = true): void {
  const v = inputs[key];
  if (v === undefined || v === null || v === "") {
    if (required) f.add(key, `${key} is required: the id of an existing portal object`);
    return;
  }
  if (isUnknown(v)) return;
  const id = toId(v);
  if (id === undefined) f.add(key, `${key} must be a positive integer id (at most ${MAX_INTEGER}), got ${show(v)}`);
  else inputs[key] = id;
}

/** Equality of input values as the portal sees them (order of tags does not matter). */
export function sameValue(a: unknown, b: unknown): boolean {
  if ((a === undefined || a === null || a === "") && (b === undefined || b === null || b === "")) return true;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && [...a].map(String).sort().join("\u0000") === [...b].map(String).sort().join("\u0000");
  }
  if (typeof a === "number" || typeof b === "number") return String(a) === String(b);
  return JSON.stringify(a) === JSON.stringify(b);
}

/** The declared input keys whose new value differs from the stored output. */
export function changedKeys(keys: readonly string[], olds: Record<string, unknown>, news: Record<string, unknown>): string[] {
  return keys.filter((k) => !sameValue(olds[k], news[k]));
}

/** Copies the defined values of `keys` from `src`. */
export function pick(src: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of keys) if (src[k] !== undefined && src[k] !== null) out[k] = src[k];
  return out;
}

/**
 * What Read reports for the declared inputs `keys`, given `now` (the inputs as the portal has them): those
 * inputs, and the old outputs with those keys replaced. A value cleared on the portal leaves the outputs too,
 * so that the next Diff (old outputs against the declared inputs) sees the drift and puts it back.
 */
export function readBack(props: Record<string, unknown>, now: Record<string, unknown>, keys: readonly string[]) {
  const inputs = pick(now, keys);
  const outputs: Record<string, unknown> = { ...props };
  for (const k of keys) delete outputs[k];
  return { inputs, outputs: { ...outputs, ...inputs } };
}

/**
 * Drops keys whose value is undefined: the host cannot encode them (a Create
 * answering `{key: undefined}` fails with "Unexpected struct type").
 */
export function defined<T extends Record<string, unknown>>(obj: T): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) if (v !== undefined) out[k] = v;
  return out as T;
}

/** Text fields the portal clears with "" rather than null. */
const TEXT_FIELDS = new Set(["note", "contact"]);

/**
 * The value to send for `key`: the input, or, when the input no longer holds it,
 * what clears the field on the portal ([] for tags, "" for text, null otherwise).
 */
export function sentValue(inputs: Record<string, unknown>, key: string): unknown {
  const v = inputs[key];
  if (v !== undefined && v !== null) return v;
  return key === "tags" ? [] : TEXT_FIELDS.has(key) ? "" : null;
}

/**
 * The settable keys a PUT carries: each one declared now or before (one no longer declared is sent cleared).
 * The API's PUT takes the whole object, so a body of only the changed keys could clear the others on a portal
 * that replaces rather than merges; keys never declared are left to the portal.
 */
export function managedKeys(keys: readonly string[], olds: Record<string, unknown>, news: Record<string, unknown>): string[] {
  const declared = (m: Record<string, unknown>, k: string) => m[k] !== undefined && m[k] !== null;
  return keys.filter((k) => declared(news, k) || declared(olds, k));
}

/**
 * The declared inputs with `keys` taken from a portal object, as refresh and
 * adoption compare them. Keys the user did not declare are left out, so a value
 * the portal fills in by itself never shows as a change.
 */
export function withPortalValues(obj: object, declared: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  const now = { ...declared };
  for (const k of keys) {
    if (!(k in declared)) continue;
    const v = (obj as Record<string, unknown>)[k];
    if (v === undefined || v === null) delete now[k];
    else now[k] = v;
  }
  return now;
}
