// Property: siblings whose names give one key, and import names that camelCase alike, are numbered as before (the
// lowest free number from 2, searched from 2 for each: kept below as the reference), though the search of a base now
// starts where its last one ended: keysFor for any names and ids, and freeNumbered for the import file's `acme2`
// names among names of other bases that may hold the same text.
import assert from "node:assert/strict";
import fc from "fast-check";
import { freeNumbered, keysFor, slug } from "../../provider/export/keys";
import { KEY_PATTERN } from "../../provider/tenants/fields";

/** keysFor as it was. */
function referenceKeys(items: Array<{ id: number; name?: string }>, fallback: string): Map<number, string> {
  const numbered = (base: string, n: number) => `${base.slice(0, 63 - String(n).length - 1).replace(/-+$/, "")}-${n}`;
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
  for (const k of keys.values()) assert.match(k, KEY_PATTERN);
  return keys;
}

// Names that slug alike, that end in what numbering adds, and one long enough to be cut.
const name = fc.constantFrom(
  "Acme",
  "acme",
  "ACME!",
  "Acme 2",
  "acme-2",
  "acme-3",
  "Acme-10",
  "",
  "東京",
  "x".repeat(70),
  "x".repeat(61) + "-2",
);

describe("export: numbering of names that collide (property)", () => {
  it("keysFor gives every sibling the key it gave before", () => {
    const items = fc.uniqueArray(fc.record({ id: fc.integer({ min: 1, max: 500 }), name: fc.option(name, { nil: undefined }) }), {
      selector: (i) => i.id,
      maxLength: 40,
    });
    fc.assert(
      fc.property(items, (list) => {
        assert.deepEqual(keysFor(list, "business-unit"), referenceKeys(list, "business-unit"));
      }),
      { numRuns: 2000 },
    );
  });

  it("import names: the name, else the lowest free number after it, among names of every base", () => {
    const base = fc.constantFrom("acme", "acme1", "acme2", "acmeNode", "a");
    fc.assert(
      fc.property(
        fc.array(base, { maxLength: 60 }),
        fc.uniqueArray(fc.constantFrom("acme3", "acme12", "acme22", "a2"), { maxLength: 4 }),
        (bases, pre) => {
          const mine = new Set<string>(pre);
          const theirs = new Set<string>(pre);
          const last = new Map<string, number>();
          for (const b of bases) {
            const got = mine.has(b) ? freeNumbered(mine, last, b, (n) => `${b}${n}`) : b;
            mine.add(got);
            let want: string = b;
            for (let n = 2; theirs.has(want); n++) want = `${b}${n}`;
            theirs.add(want);
            assert.equal(got, want);
          }
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("3,000 siblings of one name are numbered in one pass", () => {
    const keys = keysFor(
      Array.from({ length: 3000 }, (_, i) => ({ id: i + 1, name: "Customer" })),
      "business-unit",
    );
    assert.equal(keys.get(1), "customer");
    assert.equal(keys.get(3000), "customer-3000");
    assert.equal(new Set(keys.values()).size, 3000);
  });
});
