// Stack-config keys from portal names: a lower-case slug, the same portal always giving the same keys. Siblings
// whose names make the same slug are numbered in id order (acme, acme-2, acme-3), so a key stays with its object.
import { KEY_PATTERN } from "../tenants/fields";

const MAX_KEY = 63;

/** The slug of a name: lower case, accents dropped, every run of other characters one "-"; "" when nothing is left. */
export function slug(name: string): string {
  return name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, MAX_KEY)
    .replace(/-+$/, "");
}

const numbered = (base: string, n: number) => `${base.slice(0, MAX_KEY - String(n).length - 1).replace(/-+$/, "")}-${n}`;

/**
 * Keys for siblings (`fallback` when a name leaves no slug, e.g. only CJK letters): by id. The first of each slug
 * (lowest id) keeps it; the others get the lowest free number from 2, after every unnumbered slug is taken, so a
 * name that itself ends in "-2" keeps its key.
 */
export function keysFor(items: Array<{ id: number; name?: string }>, fallback: string): Map<number, string> {
  const sorted = [...items].sort((a, b) => a.id - b.id);
  const base = new Map(sorted.map((i) => [i.id, slug(i.name ?? "") || fallback]));
  const taken = new Set<string>();
  const keys = new Map<number, string>();
  for (const i of sorted) {
    const b = base.get(i.id)!;
    if (!taken.has(b)) {
      taken.add(b);
      keys.set(i.id, b);
    }
  }
  const last = new Map<string, number>();
  for (const i of sorted) {
    if (keys.has(i.id)) continue;
    const b = base.get(i.id)!;
    const key = freeNumbered(taken, last, b, (n) => numbered(b, n));
    taken.add(key);
    keys.set(i.id, key);
  }
  for (const k of keys.values()) if (!KEY_PATTERN.test(k)) throw new Error(`internal: key ${JSON.stringify(k)} breaks the key rule`);
  return keys;
}

/**
 * `name(n)` for the lowest n from 2 that `taken` does not hold. `last` remembers where the search for `base` ended:
 * the numbers below it were taken then and still are (names are only ever added), so the next search of the same
 * base starts there, and 1,000 siblings of one name cost 1,000 steps, not half a million.
 */
export function freeNumbered(taken: ReadonlySet<string>, last: Map<string, number>, base: string, name: (n: number) => string): string {
  let n = last.get(base) ?? 2;
  while (taken.has(name(n))) n++;
  last.set(base, n + 1);
  return name(n);
}

/** Code-unit order: the same on every machine and locale (keys are ASCII). */
export const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
