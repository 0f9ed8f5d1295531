// Property: export --merge pairs a level's entries and portal objects (bindLevel) exactly as the search it replaced
// did, one search of the whole level per object (kept below as the reference): by id, the first entry of an id
// not bound yet; else by name (sameValue: a number and its text are one name, a list or a map only equal to its
// like), when exactly one entry without an id and one free object have it. Same bindings, same ambiguous marks
// (their objects and entries, in order), the same objects left, and notHeld asked for the same objects in order.
import assert from "node:assert/strict";
import fc from "fast-check";
import { sameValue } from "../../provider/dynamic/values";
import { bindLevel, FileEntry, PortalEntry } from "../../provider/export/merge";

/** The search bindLevel replaced (merge.ts before), word for word. */
function reference(file: FileEntry[], portal: PortalEntry[], notHeld: (p: PortalEntry) => boolean): PortalEntry[] {
  const free: PortalEntry[] = [];
  for (const p of portal) {
    const f = file.find((e) => e.id === p.id && !e.bound);
    if (f) f.bound = p;
    else if (notHeld(p)) free.push(p);
  }
  const left: PortalEntry[] = [];
  for (const p of free) {
    const named = (e: { name: unknown }) => p.name !== undefined && e.name !== undefined && sameValue(e.name, p.name);
    const entries = file.filter((e) => e.id === undefined && !e.bound && named(e));
    const objects = free.filter(named);
    if (entries.length === 1 && objects.length === 1) entries[0].bound = p;
    else {
      for (const e of entries) e.ambiguous = { objects, entries };
      left.push(p);
    }
  }
  return left;
}

// Few ids and few names, so that they repeat; names of every kind a YAML file can give.
const id = fc.integer({ min: 1, max: 6 });
const textName = fc.constantFrom("acme", "Acme", "1", "01", "", "globex");
const name = fc.oneof(
  { weight: 6, arbitrary: textName },
  { weight: 2, arbitrary: fc.constantFrom(1, 1.0, 0, 2.5) },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(true, null, [1], ["acme"], { a: 1 }, [], {}) },
);
const fileEntry = fc.record({ id: fc.option(id, { nil: undefined }), name }, { requiredKeys: ["name"] });
const portalEntry = fc.record({ id, name: fc.option(fc.oneof(textName, fc.constantFrom(1, 0)), { nil: undefined }) });

interface Case {
  file: Array<{ id?: number; name: unknown }>;
  portal: Array<{ id: number; name: unknown }>;
  held: boolean[];
}

/** The case as entries and objects of its own (bindLevel marks them). */
function build(c: Case) {
  const file = c.file.map((e, i) => ({ key: `f${i}`, path: `tenants.f${i}`, ...e }) as unknown as FileEntry);
  const portal = c.portal.map((p, i) => ({ key: `p${i}`, path: `tenants.p${i}`, ...p }) as unknown as PortalEntry);
  const asked: number[] = [];
  const notHeld = (p: PortalEntry) => {
    const i = portal.indexOf(p);
    asked.push(i);
    return !c.held[i % c.held.length];
  };
  return { file, portal, asked, notHeld };
}

/** What binding did, by position: comparable across the two runs. */
function outcome(file: FileEntry[], portal: PortalEntry[], left: PortalEntry[], asked: number[]) {
  const at = (p: PortalEntry) => portal.indexOf(p);
  return {
    left: left.map(at),
    asked,
    bound: file.map((e) => (e.bound ? at(e.bound) : -1)),
    ambiguous: file.map((e) =>
      e.ambiguous ? { objects: e.ambiguous.objects.map(at), entries: e.ambiguous.entries.map((x) => file.indexOf(x)) } : null,
    ),
  };
}

describe("export --merge: binding a level's entries to the portal's objects (property)", () => {
  it("binds, marks and leaves exactly what a search of the whole level did", () => {
    const cases = fc.record({
      file: fc.array(fileEntry, { maxLength: 12 }),
      portal: fc.array(portalEntry, { maxLength: 12 }),
      held: fc.array(fc.boolean(), { minLength: 1, maxLength: 5 }),
    });
    fc.assert(
      fc.property(cases, (c) => {
        const mine = build(c);
        const theirs = build(c);
        const got = outcome(mine.file, mine.portal, bindLevel(mine.file, mine.portal, mine.notHeld), mine.asked);
        const want = outcome(theirs.file, theirs.portal, reference(theirs.file, theirs.portal, theirs.notHeld), theirs.asked);
        assert.deepEqual(got, want);
      }),
      { numRuns: 3000 },
    );
  });

  it("a level of 3,000 tenants without ids binds by name in one pass", () => {
    const n = 3000;
    const file = Array.from(
      { length: n },
      (_, i) => ({ key: `t${i}`, path: `tenants.t${i}`, name: `Tenant ${i}` }) as unknown as FileEntry,
    );
    const portal = Array.from(
      { length: n },
      (_, i) => ({ key: `t${i}`, path: `tenants.t${i}`, id: 10_000 + i, name: `Tenant ${n - 1 - i}` }) as unknown as PortalEntry,
    );
    const left = bindLevel(file, portal, () => true);
    assert.equal(left.length, 0);
    assert.ok(file.every((e, i) => e.bound === portal[n - 1 - i]));
  });
});
