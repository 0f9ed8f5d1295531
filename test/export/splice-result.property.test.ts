// Property: the merged text that Splicer.result joins from pieces in one pass is the text that applying its edits
// one after another (each to the text the ones before made, as it did before) gives: for additions to any of a
// file's maps in any order, fills of empty values, edits at one place, and CRLF files.
import assert from "node:assert/strict";
import fc from "fast-check";
import { isMap, parseDocument, Pair, YAMLMap } from "yaml";
import { OutMap } from "../../provider/export/out";
import { Splicer } from "../../provider/export/splice";

interface Edit {
  from: number;
  to: number;
  text: string;
  col: number;
  order: number;
}

/** The edits applied one at a time, in the order result() applies them. */
function sequential(text: string, edits: Edit[]): string {
  const sorted = [...edits].sort((a, b) => b.from - a.from || a.col - b.col || b.order - a.order);
  for (const e of sorted) text = text.slice(0, e.from) + e.text + text.slice(e.to);
  return text;
}

/** A stack file of `units` tenants, some with children, some with an empty businessUnits to fill. */
function fileOf(units: Array<{ children: number; empty: boolean }>, crlf: boolean): string {
  const lines = ["# header", "config:", '  backup-portal:rootBusinessUnitId: "1"', "  backup-portal:tenants:"];
  units.forEach((u, i) => {
    lines.push(`    t${i}:`, `      adoptId: ${100 + i}`, "      # a comment that stays with t" + i);
    if (u.empty) lines.push("      businessUnits: {}");
    else if (u.children) {
      lines.push("      businessUnits:");
      for (let j = 0; j < u.children; j++) lines.push(`        c${j}:`, `          adoptId: ${1000 + i * 10 + j}`);
    }
  });
  const text = `${lines.join("\n")}\n`;
  return crlf ? text.replace(/\n/g, "\r\n") : text;
}

describe("export --merge: the spliced text (property)", () => {
  it("is the edits applied one by one", () => {
    const units = fc.array(fc.record({ children: fc.integer({ min: 0, max: 3 }), empty: fc.boolean() }), { minLength: 1, maxLength: 8 });
    const picks = fc.array(fc.record({ unit: fc.nat(), top: fc.boolean(), count: fc.integer({ min: 1, max: 2 }) }), { maxLength: 10 });
    fc.assert(
      fc.property(units, picks, fc.boolean(), (us, ps, crlf) => {
        const text = fileOf(us, crlf);
        const doc = parseDocument(text);
        const tenants = doc.getIn(["config", "backup-portal:tenants"], true) as YAMLMap;
        const splice = new Splicer(text, { indent: 2, indentSeq: true });
        const filled = new Set<Pair>();
        for (const [n, p] of ps.entries()) {
          const pairs: Array<[string, OutMap]> = Array.from({ length: p.count }, (_, k) => [
            `new${n}-${k}`,
            new OutMap().set("name", `New ${n} ${k}`).set("registrationNumber", "R"),
          ]);
          if (p.top) {
            splice.append(tenants, pairs);
            continue;
          }
          const unit = tenants.items[p.unit % tenants.items.length].value as YAMLMap;
          const slot = unit.items.find((x) => String((x.key as { value: unknown }).value) === "businessUnits") as Pair | undefined;
          if (!slot) splice.append(unit, [["businessUnits", pairs.reduce((m, [k, v]) => m.set(k, v), new OutMap())]]);
          else if (isMap(slot.value) && (slot.value as YAMLMap).items.length) splice.append(slot.value as YAMLMap, pairs);
          else if (!filled.has(slot)) {
            splice.fill(slot, pairs);
            filled.add(slot);
          }
        }
        const edits = (splice as unknown as { edits: Edit[] }).edits;
        assert.equal(splice.result(), sequential(text, edits));
      }),
      { numRuns: 500 },
    );
  });

  it("a text of 2,000 additions is joined once", () => {
    const us = Array.from({ length: 2000 }, () => ({ children: 1, empty: false }));
    const text = fileOf(us, false);
    const doc = parseDocument(text);
    const tenants = doc.getIn(["config", "backup-portal:tenants"], true) as YAMLMap;
    const splice = new Splicer(text, { indent: 2, indentSeq: true });
    for (const item of tenants.items) {
      const children = (item.value as YAMLMap).get("businessUnits", true) as unknown as YAMLMap;
      splice.append(children, [["added", new OutMap().set("name", "Added").set("registrationNumber", "R")]]);
    }
    const out = splice.result();
    assert.equal(out.split("        added:\n").length - 1, 2000);
    assert.equal(out, sequential(text, (splice as unknown as { edits: Edit[] }).edits));
  });
});
