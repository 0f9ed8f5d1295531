// Keys from names: valid stack-config keys, unique among siblings, numbered in id order, the same whatever order
// the portal lists the objects in.
import assert from "node:assert/strict";
import fc from "fast-check";
import { byText, keysFor, slug } from "../../provider/export/keys";
import { KEY_PATTERN } from "../../provider/tenants/fields";

describe("export keys", () => {
  it("slugs: lower case, accents dropped, other runs one dash, nothing left for a name without a-z or digits", () => {
    assert.equal(slug("Acme AB"), "acme-ab");
    assert.equal(slug("  Zürich  Ölfabrik!! "), "zurich-olfabrik");
    assert.equal(slug("東京"), "");
    assert.equal(slug("a".repeat(100)).length, 63);
    assert.equal(slug(`${"a".repeat(62)} b`), "a".repeat(62), "cut at 63, a dash left at the end is dropped");
  });

  it("a numbered key is cut so that the number fits, without a dash before the dash of the number", () => {
    const name = `${"a".repeat(60)} b`;
    const keys = keysFor(
      [
        { id: 1, name },
        { id: 2, name },
      ],
      "consumer",
    );
    assert.deepEqual([...keys.values()], [`${"a".repeat(60)}-b`, `${"a".repeat(60)}-2`]);
  });

  it("an object without a name gets the fallback; a fallback that breaks the key rule is an internal error", () => {
    assert.deepEqual(Object.fromEntries(keysFor([{ id: 4 }, { id: 3 }], "consumer")), { 3: "consumer", 4: "consumer-2" });
    assert.throws(() => keysFor([{ id: 1, name: "東京" }], "_x"), { message: 'internal: key "_x" breaks the key rule' });
  });

  it("byText orders by code unit, equal texts as equal", () => {
    assert.deepEqual([byText("a", "b"), byText("b", "a"), byText("a", "a"), byText("B", "a")], [-1, 1, 0, -1]);
  });

  it("duplicates numbered in id order; a name that is itself numbered keeps its key", () => {
    const keys = keysFor(
      [
        { id: 9, name: "acme" },
        { id: 3, name: "ACME" },
        { id: 5, name: "acme-2" },
        { id: 7, name: "Acme!" },
        { id: 8, name: "東京" },
        { id: 2, name: "大阪" },
      ],
      "consumer",
    );
    assert.deepEqual(Object.fromEntries(keys), { 2: "consumer", 3: "acme", 5: "acme-2", 7: "acme-3", 8: "consumer-2", 9: "acme-4" });
  });

  it("property: valid, unique, and independent of the listing order", () => {
    const names = fc.oneof(
      fc.constantFrom("acme", "Acme", "acme-2", "ACME-2", "東京", "", "a".repeat(70), "a".repeat(70) + "-2"),
      fc.string(),
    );
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.record({ id: fc.integer({ min: 1, max: 10_000 }), name: names }), { selector: (x) => x.id, maxLength: 30 }),
        (items) => {
          const keys = keysFor(items, "business-unit");
          const values = [...keys.values()];
          assert.equal(new Set(values).size, items.length);
          for (const k of values) assert.match(k, KEY_PATTERN);
          assert.deepEqual(keysFor([...items].reverse(), "business-unit"), keys);
        },
      ),
      { numRuns: 300 },
    );
  });
});
