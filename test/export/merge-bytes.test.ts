// `export --merge` keeps the file's bytes (issue 36 item 6): a portal that brings nothing leaves the file byte for
// byte as it was, comments of every kind, blank lines and CRLF included; one that brings business units changes the
// file only by the lines of those units, inserted where their map ends.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { parse } from "yaml";
import { clientSuite } from "../support/portal";
import { exportCli, plant } from "./support";
import { VARIED } from "./fixtures";
import { mergeInto, MergeError } from "../../provider/export/merge";
import { OutMap, OutValue } from "../../provider/export/out";
import type { ReferenceLists } from "../../provider/export/read";

const TENANTS = "backup-portal:tenants";

/** `text` with `line` (a whole line, found once) given `before` lines above it and `after` text at its end. */
function edit(text: string, line: string, change: { before?: string[]; after?: string }): string {
  const lines = text.split("\n");
  const at = lines.indexOf(line);
  assert.ok(at >= 0 && lines.indexOf(line, at + 1) < 0, `one line ${JSON.stringify(line)} in the export`);
  lines.splice(at, 1, ...(change.before ?? []), line + (change.after ?? ""));
  return lines.join("\n");
}

/**
 * An export hand-edited the ways people edit: a comment above the file, above a config key, above a tenant key (at
 * its column, at a shallower one, after a blank line), inside an entry, deeper than its neighbours, inline after
 * three spaces, after the last tenant and at the end of the file; blank lines between tenants.
 */
function handEdited(exported: string): string {
  let t = `# hand: what this stack is\n\n${exported}`;
  t = edit(t, "config:", { after: "   # hand: inline after three spaces" });
  t = edit(t, '  backup-portal:rootBusinessUnitId: "1"', { before: ["  # hand: above a config key"] });
  t = edit(t, "    acme-ab-2:", { before: ["", "    # hand: above a tenant key, at its column"] });
  t = edit(t, "    refused-values:", { before: ["  # hand: above a tenant key, shallower", ""] });
  t = edit(t, "    tenant-a:", { before: ["          # hand: deeper than its neighbours"] });
  t = edit(t, '      registrationNumber: "556000-0002"', { after: "   # hand: inline" });
  t = edit(t, "        web:", { before: ["        # hand: inside a business unit, above a consumer"] });
  return `${t.replace(/\n$/, "")}\n    # hand: after the last tenant\n\n# hand: end of the file\n`;
}

/**
 * The runs of lines `merged` has beyond `original`, asserting that every line of `original` is in `merged`, in
 * order, unchanged (line ends included).
 */
function insertions(merged: string, original: string): string[][] {
  const keep = original.split("\n");
  const runs: string[][] = [];
  let j = 0;
  let run: string[] | undefined;
  for (const line of merged.split("\n")) {
    if (j < keep.length && line === keep[j]) {
      j++;
      run = undefined;
      continue;
    }
    if (!run) runs.push((run = []));
    run.push(line);
  }
  assert.equal(j, keep.length, `every line of the file is kept, in order; the first one missing: ${JSON.stringify(keep[j])}`);
  return runs;
}

const indentOf = (line: string) => line.length - line.trimStart().length;

describe("export --merge keeps the file's bytes", function () {
  this.timeout(60_000);
  const p = clientSuite();
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "merge-bytes-"));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** VARIED, with a proxy relation across business units: export writes a review comment at the end of a unit. */
  function portal(): { businessUnits: number[]; consumers: number[] } {
    const made = plant(p.emu, VARIED);
    const [web, , , , , , , zeroCpus] = made.consumers;
    p.emu.update((s) => {
      s.proxies.push({ agentConsumerId: web, targetConsumerId: zeroCpus, createdDate: "2024-01-01T00:00:00Z" });
    });
    return made;
  }

  async function exported(): Promise<string> {
    const r = await exportCli(p.emu, ["--bunit", "1"]);
    assert.equal(r.code, 0, r.err);
    return r.out;
  }

  for (const eol of ["\n", "\r\n"]) {
    const name = eol === "\n" ? "LF" : "CRLF";

    it(`an unchanged portal: the hand-edited export (${name}) stays byte for byte as it was`, async () => {
      portal();
      const text = handEdited(await exported());
      assert.match(text, /^ {6}# review: .*outside this business unit/m, "an end-of-unit review comment");
      const file = path.join(dir, "Pulumi.prod.yaml");
      const bytes = Buffer.from(text.replace(/\n/g, eol));
      fs.writeFileSync(file, bytes);
      const past = new Date("2024-01-01T00:00:00Z");
      fs.utimesSync(file, past, past);
      const r = await exportCli(p.emu, ["--merge", file]);
      assert.equal(r.code, 0, r.err);
      assert.equal(fs.statSync(file).mtimeMs, past.getTime(), "not even written");
      assert.equal(r.out, "", "nor printed");
      assert.match(r.err, /: 0 business units added, 0 entries differ from the portal, 0 gone from it, 0 not added/);
      assert.ok(fs.readFileSync(file).equals(bytes), `the file changed:\n${fs.readFileSync(file, "utf8")}`);
    });

    it(`a portal with new business units (${name}): the file changes by their lines only, each where its map ends`, async () => {
      const made = portal();
      const text = handEdited(await exported()).replace(/\n/g, eol);
      const file = path.join(dir, "Pulumi.prod.yaml");
      fs.writeFileSync(file, text);
      // A tenant, a unit below one that has units, and one below a unit that has none.
      const [acme, , , acmeAb2] = made.businessUnits;
      plant(p.emu, [{ name: "New Co", registrationNumber: "N-1", timeZoneId: 1, consumers: [{ name: "files" }] }]);
      plant(p.emu, [{ name: "Acme Labs", registrationNumber: "L-1", timeZoneId: 1 }], acme);
      plant(p.emu, [{ name: "Second Site", registrationNumber: "S-1", timeZoneId: 1 }], acmeAb2);
      const r = await exportCli(p.emu, ["--merge", file]);
      assert.equal(r.code, 0, r.err);
      assert.match(r.err, /: 3 business units added, 0 entries differ from the portal, 0 gone from it, 0 not added/);
      const merged = fs.readFileSync(file, "utf8");
      if (eol === "\r\n") assert.doesNotMatch(merged, /(?<!\r)\n/, "CRLF throughout");
      else assert.doesNotMatch(merged, /\r/, "LF throughout");
      const runs = insertions(merged, text);
      assert.deepEqual(
        runs.map((run) => run[0].replace(/\r$/, "")),
        ["        acme-labs:", "      businessUnits:", "    new-co:"],
        "three blocks inserted: below acme-ab's units, as acme-ab-2's units, after the last tenant",
      );
      for (const run of runs)
        assert.ok(
          run.slice(1).every((l) => indentOf(l) > indentOf(run[0])),
          run.join("\n"),
        );
      // What the portal exports for the units added is what the file now holds.
      const fresh = (parse(await exported()) as { config: Record<string, any> }).config[TENANTS];
      const now = (parse(merged) as { config: Record<string, any> }).config[TENANTS];
      assert.deepEqual(now["new-co"], fresh["new-co"]);
      assert.deepEqual(now["acme-ab"].businessUnits["acme-labs"], fresh["acme-ab"].businessUnits["acme-labs"]);
      assert.deepEqual(now["acme-ab-2"].businessUnits, fresh["acme-ab-2"].businessUnits);
      assert.deepEqual(
        Object.keys(now),
        Object.keys(fresh)
          .filter((k) => k !== "new-co")
          .concat("new-co"),
        "the new tenant goes last",
      );
    });
  }
});

/** The portal's side, built directly: one business unit b (2) that every file below lacks. */
const REFS: ReferenceLists = { list: () => [] };
const out = (entries: Record<string, OutValue>) => Object.entries(entries).reduce((m, [k, v]) => m.set(k, v), new OutMap());
const merged = (file: string) =>
  mergeInto(file, "Pulumi.x.yaml", { rootId: 1, tenants: out({ b: out({ adoptId: 2, name: "b" }) }) }, REFS).text;
const B = "    b:\n      adoptId: 2\n      name: b\n";
const HEAD = "config:\n  backup-portal:rootBusinessUnitId: 1\n  backup-portal:tenants:";

describe("export --merge, in process: where the added lines go, and nothing else changes", () => {
  it("an empty tenants block ({}, null, ~, nothing but commented-out entries): the entries below its key, its comment kept", () => {
    const cases: Array<[string, string]> = [
      [`${HEAD} {} # none yet\n`, `${HEAD} # none yet\n${B}`],
      [`${HEAD} null\n`, `${HEAD}\n${B}`],
      [`${HEAD} ~\n`, `${HEAD}\n${B}`],
      [`${HEAD}\n    # acme:\n    #   adoptId: 9\n`, `${HEAD}\n    # acme:\n    #   adoptId: 9\n${B}`],
      [`${HEAD}\n  backup-portal:url: https://x\n`, `${HEAD}\n${B}  backup-portal:url: https://x\n`],
    ];
    for (const [file, expected] of cases) assert.equal(merged(file), expected, file);
  });

  it("after the last entry and the comments that close it, before blank lines and comments that belong to what follows", () => {
    const a = "    a:\n      adoptId: 1\n";
    const cases: Array<[string, string]> = [
      // A comment at a shallower column between entries is inside the block: the end is after the last entry.
      [
        `${HEAD}\n${a}  # about c\n    c:\n      adoptId: 3\n  # about the url\n  backup-portal:url: x\n`,
        `${HEAD}\n${a}  # about c\n    c:\n      adoptId: 3\n${B}  # about the url\n  backup-portal:url: x\n`,
      ],
      [
        `${HEAD}\n${a}      # review: closes a\n\n  backup-portal:url: x\n`,
        `${HEAD}\n${a}      # review: closes a\n${B}\n  backup-portal:url: x\n`,
      ],
      [`${HEAD}\n${a}    # c:\n    #   adoptId: 3\n# the end\n`, `${HEAD}\n${a}    # c:\n    #   adoptId: 3\n${B}# the end\n`],
      // The last line without a line end gets one; a document end marker stays last.
      [`${HEAD}\n${a.trimEnd()}`, `${HEAD}\n${a}${B}`],
      [`${HEAD}\n${a}...\n`, `${HEAD}\n${a}${B}...\n`],
      // A BOM stays, and is no column; CRLF lines are added as CRLF.
      [`\uFEFF${HEAD}\n${a}`, `\uFEFF${HEAD}\n${a}${B}`],
      [`${HEAD}\n${a}`.replace(/\n/g, "\r\n"), `${HEAD}\n${a}${B}`.replace(/\n/g, "\r\n")],
    ];
    for (const [file, expected] of cases) assert.equal(merged(file), expected, JSON.stringify(file));
  });

  it("a last line without a line end gets one, once, however many blocks are added at the end of the file", () => {
    // splice.ts: a unit's businessUnits and a new tenant both go after a's last line, which has no line end.
    const a = "    a:\n      adoptId: 5\n      name: a\n";
    const c = "      businessUnits:\n        c:\n          adoptId: 6\n          name: c\n";
    const portal = out({
      a: out({ adoptId: 5, name: "a", businessUnits: out({ c: out({ adoptId: 6, name: "c" }) }) }),
      b: out({ adoptId: 2, name: "b" }),
    });
    const text = mergeInto(`${HEAD}\n${a.trimEnd()}`, "Pulumi.x.yaml", { rootId: 1, tenants: portal }, REFS).text;
    assert.equal(text, `${HEAD}\n${a}${c}${B}`);
  });

  it("after the blank lines a last |+ block scalar keeps: its value stays as it was, blank lines and all", () => {
    const a = "    a:\n      adoptId: 1\n      description: |+\n        text\n   \n\n";
    const file = `${HEAD}\n${a}  backup-portal:url: x\n`;
    const text = merged(file);
    assert.equal(text, `${HEAD}\n${a}${B}  backup-portal:url: x\n`);
    const description = (t: string) => (parse(t) as { config: Record<string, any> }).config[TENANTS].a.description;
    assert.equal(description(text), "text\n\n\n");
    assert.equal(description(text), description(file));
  });

  it("a block written as a flow map with entries is refused in one line (its entries could not carry comments)", () => {
    assert.throws(
      () => merged(`${HEAD} {a: {adoptId: 1}}\n`),
      (e: Error) =>
        e instanceof MergeError &&
        e.message ===
          "Pulumi.x.yaml: config.backup-portal:tenants is written as a flow map ({…}); write it as a block, one key a line; nothing was merged",
    );
  });
});
