// Reading request input: JSON bodies with case-insensitive keys (the real
// portal accepts PascalCase), references given as `{id}`, and typed query
// parameters. Every failure is a 400 naming the field.
import { validation } from "./errors";
import { parseIsoDate } from "./util";

/** C0 and C1 control characters, and DEL; text of several lines may hold tab, newline and carriage return. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const MULTILINE_CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;

/** A JSON object whose keys are matched case-insensitively. */
export class Input {
  private readonly map = new Map<string, unknown>();

  constructor(
    obj: Record<string, unknown>,
    private readonly prefix = "",
  ) {
    for (const [k, v] of Object.entries(obj)) this.map.set(k.toLowerCase(), v);
  }

  static parse(body: Buffer, required: boolean): Input {
    const text = body.toString("utf8").trim();
    if (text === "") {
      if (required) throw validation("A JSON object body is required");
      return new Input({});
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw validation("The body is not valid JSON");
    }
    if (!isObject(value)) throw validation("The body must be a JSON object");
    return new Input(value);
  }

  private name(key: string): string {
    return this.prefix + key;
  }

  /** undefined: key absent; null: key present with null. */
  raw(key: string): unknown {
    return this.map.has(key.toLowerCase()) ? this.map.get(key.toLowerCase()) : undefined;
  }

  has(key: string): boolean {
    return this.map.has(key.toLowerCase());
  }

  /**
   * undefined = absent (keep), null = clear (null or empty string). Control characters are refused (a name with
   * NUL or ESC breaks every screen and export that shows it); `multiline` text may hold newlines and tabs.
   */
  optString(key: string, max = 4000, opts: { multiline?: boolean } = {}): string | null | undefined {
    const v = this.raw(key);
    if (v === undefined) return undefined;
    if (v === null || v === "") return null;
    if (typeof v !== "string") throw validation(`${this.name(key)} must be a string`);
    if (v.length > max) throw validation(`${this.name(key)} must be at most ${max} characters`);
    if ((opts.multiline ? MULTILINE_CONTROL : CONTROL).test(v)) throw validation(`${this.name(key)} must not contain control characters`);
    return v;
  }

  reqString(key: string, max = 4000): string {
    const v = this.optString(key, max);
    if (v === undefined || v === null || v.trim() === "") throw validation(`${this.name(key)} is required`);
    return v;
  }

  optNumber(key: string, opts: { integer?: boolean; min?: number; max?: number } = {}): number | null | undefined {
    const v = this.raw(key);
    if (v === undefined) return undefined;
    if (v === null) return null;
    const n = typeof v === "string" && v.trim() !== "" ? Number(v) : v;
    if (typeof n !== "number" || !Number.isFinite(n)) throw validation(`${this.name(key)} must be a number`);
    if (opts.integer && !Number.isInteger(n)) throw validation(`${this.name(key)} must be an integer`);
    if (opts.min !== undefined && n < opts.min) throw validation(`${this.name(key)} must be at least ${opts.min}`);
    if (opts.max !== undefined && n > opts.max) throw validation(`${this.name(key)} must be at most ${opts.max}`);
    return n;
  }

  optBool(key: string): boolean | null | undefined {
    const v = this.raw(key);
    if (v === undefined) return undefined;
    if (v === null) return null;
    if (typeof v === "boolean") return v;
    if (v === "true" || v === "false") return v === "true";
    throw validation(`${this.name(key)} must be a boolean`);
  }

  optDate(key: string): number | null | undefined {
    const v = this.raw(key);
    if (v === undefined) return undefined;
    if (v === null || v === "") return null;
    const ms = typeof v === "string" ? parseIsoDate(v) : undefined;
    if (ms === undefined) throw validation(`${this.name(key)} must be an ISO 8601 timestamp`);
    return ms;
  }

  /** An array of strings; null or [] clears. */
  optStringArray(key: string): string[] | null | undefined {
    const v = this.raw(key);
    if (v === undefined) return undefined;
    if (v === null) return null;
    if (!Array.isArray(v) || v.some((x) => typeof x !== "string")) {
      throw validation(`${this.name(key)} must be an array of strings`);
    }
    if (v.some((x) => CONTROL.test(x))) throw validation(`${this.name(key)} must not contain control characters`);
    return v.length === 0 ? null : (v as string[]);
  }

  /** A reference `{id}` (or a bare id). undefined = absent, null = cleared. */
  optRef(key: string): number | null | undefined {
    const v = this.raw(key);
    if (v === undefined) return undefined;
    if (v === null) return null;
    return refId(v, this.name(key));
  }

  reqRef(key: string): number {
    const id = this.optRef(key);
    if (id === undefined || id === null) throw validation(`${this.name(key)} is required`);
    return id;
  }

  /** An array of references (`[{id}]` or ids). null or [] clears. */
  optRefArray(key: string): number[] | null | undefined {
    const v = this.raw(key);
    if (v === undefined) return undefined;
    if (v === null) return null;
    if (!Array.isArray(v)) throw validation(`${this.name(key)} must be an array`);
    const ids = v.map((x, i) => refId(x, `${this.name(key)}[${i}]`));
    return ids.length === 0 ? null : ids;
  }
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function refId(v: unknown, field: string): number {
  let id: unknown = v;
  if (isObject(v)) {
    id = new Input(v).raw("id");
    if (id === undefined || id === null) throw validation(`${field}.id is required`);
  }
  if (typeof id === "string" && /^\d+$/.test(id)) id = Number(id);
  if (typeof id !== "number" || !Number.isInteger(id) || id < 0) throw validation(`${field}.id must be an integer id`);
  return id;
}

// ---- query parameters ----

export function qString(q: URLSearchParams, name: string): string | undefined {
  const v = q.get(name);
  return v === null ? undefined : v;
}

export function qBool(q: URLSearchParams, name: string): boolean | undefined {
  const v = q.get(name);
  if (v === null || v === "") return undefined;
  const l = v.toLowerCase();
  if (l === "true" || l === "1") return true;
  if (l === "false" || l === "0") return false;
  throw validation(`Query parameter ${name} must be true or false`);
}

export function qInt(q: URLSearchParams, name: string, min: number, max: number): number | undefined {
  const v = q.get(name);
  if (v === null || v === "") return undefined;
  if (!/^-?\d+$/.test(v)) throw validation(`Query parameter ${name} must be an integer`);
  const n = Number(v);
  if (n < min || n > max) throw validation(`Query parameter ${name} must be between ${min} and ${max}`);
  return n;
}

export function qDate(q: URLSearchParams, name: string): number | undefined {
  const v = q.get(name);
  if (v === null || v === "") return undefined;
  const ms = parseIsoDate(v);
  if (ms === undefined) throw validation(`Query parameter ${name} must be an ISO 8601 timestamp`);
  return ms;
}
