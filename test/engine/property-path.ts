/**
 * TEST CODE — the engine's property paths as `ignoreChanges` uses them (pulumi/pulumi 3.260,
 * sdk/go/common/resource/properties_path.go: ParsePropertyPath and PropertyPath.Reset; applied by
 * step_generator.go, processIgnoreChanges). A path is JavaScript-like property access with literal keys:
 * `consumers[0].name`, `tags["x"]`, `["a.b"][1]`, `items[*].name`. Written from the behaviour those
 * functions document, not translated from them.
 */
import { isSecret, secret } from "./values";

export type PathElement = string | number;

/** Parses a path; throws on a malformed one (the engine then skips that path). */
export function parsePropertyPath(path: string): PathElement[] {
  const out: PathElement[] = [];
  let i = path.startsWith(".") ? 1 : 0;
  while (i < path.length) {
    const ch = path[i];
    if (ch === "[") {
      const close = path.indexOf("]", i);
      if (path[i + 1] === '"') {
        // A quoted key: `\"` escapes a quote, anything else is taken as it is (dots and brackets included).
        let key = "";
        let j = i + 2;
        for (; j < path.length && path[j] !== '"'; j++) {
          if (path[j] === "\\" && path[j + 1] === '"') j++;
          key += path[j];
        }
        if (path[j] !== '"' || path[j + 1] !== "]")
          throw new Error(`missing closing quote or bracket in property path ${JSON.stringify(path)}`);
        out.push(key);
        i = j + 2;
      } else {
        if (close < 0) throw new Error(`missing closing bracket in property path ${JSON.stringify(path)}`);
        const index = path.slice(i + 1, close);
        if (index === "*") out.push("*");
        else if (/^\d+$/.test(index)) out.push(Number(index));
        else throw new Error(`invalid array index ${JSON.stringify(index)} in property path ${JSON.stringify(path)}`);
        i = close + 1;
      }
      if (path[i] === ".") i++;
      continue;
    }
    // A bare name runs to the next '.' or '['.
    let j = i;
    while (j < path.length && path[j] !== "." && path[j] !== "[") j++;
    if (j === i) throw new Error(`empty property name in property path ${JSON.stringify(path)}`);
    out.push(path.slice(i, j));
    i = path[j] === "." ? j + 1 : j;
  }
  if (out.length === 0) throw new Error("empty property path");
  return out;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v) && !isSecret(v);
const unwrap = (v: unknown): { value: unknown; wasSecret: boolean } =>
  isSecret(v) ? { value: v.value, wasSecret: true } : { value: v, wasSecret: false };

/**
 * Puts the value at `path` in `olds` back into `news` (or removes it from news when olds has none), in place.
 * False is a path error, as the engine reports it: the path reaches into an element added or removed (an array
 * index only one side has, an object key only old has on the way).
 */
export function resetPath(path: PathElement[], olds: unknown, news: unknown, oldSecret = false, newSecret = false): boolean {
  const o = unwrap(olds);
  const n = unwrap(news);
  oldSecret ||= o.wasSecret;
  newSecret ||= n.wasSecret;
  const old = o.value;
  const nu = n.value;
  const [key, ...rest] = path;
  const carry = (v: unknown) => (oldSecret && !newSecret && !isSecret(v) ? secret(v) : v);
  if (typeof key === "number") {
    const both = Array.isArray(old) && Array.isArray(nu);
    if (!both) return !Array.isArray(old) && !Array.isArray(nu);
    const [a, b] = [old as unknown[], nu as unknown[]];
    if (rest.length === 0) {
      if (key >= a.length && key >= b.length) return true;
      if (key >= a.length || key >= b.length) return false;
      b[key] = carry(a[key]);
      return true;
    }
    if (key >= a.length || key >= b.length) return false;
    return resetPath(rest, a[key], b[key], oldSecret, newSecret);
  }
  if (key === "*") {
    if (isObject(old) && isObject(nu)) {
      if (rest.length === 0) {
        for (const k of Object.keys(nu)) if (!(k in old)) delete nu[k];
        for (const [k, v] of Object.entries(old)) nu[k] = carry(v);
        return true;
      }
      return Object.keys(old).every((k) => k in nu && resetPath(rest, old[k], nu[k], oldSecret, newSecret));
    }
    if (Array.isArray(old) && Array.isArray(nu)) {
      const ok = old.every(
        (v, i) => i >= nu.length || (rest.length === 0 ? ((nu[i] = carry(v)), true) : resetPath(rest, v, nu[i], oldSecret, newSecret)),
      );
      return ok && old.length === nu.length;
    }
    return rest.length === 0 ? isObject(nu) || Array.isArray(nu) : false;
  }
  if (rest.length === 0) {
    if (isObject(old) && key in old) {
      if (!isObject(nu)) return false;
      nu[key] = carry(old[key]);
    } else if (isObject(nu)) {
      delete nu[key];
    }
    return true;
  }
  if (!isObject(old) || !isObject(nu)) return !isObject(old) && !isObject(nu);
  if (key in old && !(key in nu)) return false;
  if (!(key in old) && !(key in nu)) return true;
  return resetPath(rest, old[key], nu[key], oldSecret, newSecret);
}
