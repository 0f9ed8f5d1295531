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
  for (const i of sorted) {
    if (keys.has(i.id)) continue;
    const b = base.get(i.id)!;
    let n = 2;
    while (taken.has(numbered(b, n))) n++;
    taken.add(numbered(b, n));
    keys.set(i.id, numbered(b, n));
  }
  for (const k of keys.values()) if (!KEY_PATTERN.test(k)) throw new Error(`internal: key ${JSON.stringify(k)} breaks the key rule`);
  return keys;
}

/** Code-unit order: the same on every machine and locale (keys are ASCII). */
export const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
