// `backup-portal export` and `export --merge` of a portal whose tenants wrote hostile or merely unlucky text, read by
// the Pulumi CLI's YAML reader (gopkg.in/yaml.v3), YAML 1.1 and YAML 1.2: every value is what the portal holds and
// every key sits where export meant it (issue 36 item 1, issue 35's export read by the CLI).
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import fc from "fast-check";
import { clientSuite } from "../support/portal";
import { yamlV3Binary } from "../support/yaml-v3";
import { keysFor } from "../../provider/export/keys";
import { BUSINESS_UNIT_FIELDS, CONSUMER_FIELDS, fieldProblem, FieldRule, NODE_FIELDS } from "../../provider/rules/fields";
import { unwritableProblem } from "../../provider/rules/yaml-scalars";
import type { State } from "../../emulator/types";
import { BuSpec, exportCli, plant } from "./support";
import { readByEveryReader } from "./read-by-cli";
import { tenantText } from "./tenant-text";

const ROOT_KEY = "backup-portal:rootBusinessUnitId";
const TENANTS_KEY = "backup-portal:tenants";

const isEmpty = (v: unknown) => v === undefined || v === "" || (Array.isArray(v) && v.length === 0);
/** What export writes for a portal value: the value, or nothing when it is empty or the rules refuse it. */
const written = (v: unknown, rule: FieldRule) => (isEmpty(v) || fieldProblem(v, rule) || unwritableProblem(v) ? undefined : v);
const defined = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

/**
 * The file's tenants against the portal's tree below `root`: at each level the keys export derives from the names,
 * in each entry exactly the fields export writes, each with the portal's value.
 */
function assertTenantsArePortal(file: { config: Record<string, any> }, state: State, root: number): void {
  assert.deepEqual(Object.keys(file), ["config"]);
  // The connection keys the export read the portal with come first (issue 45 item 2); the file is the tenants' below.
  const connection = ["backup-portal:clientId", "backup-portal:origin", "backup-portal:url", "backup-portal:username"];
  assert.deepEqual(
    Object.keys(file.config)
      .filter((k) => !connection.includes(k))
      .sort(),
    [ROOT_KEY, TENANTS_KEY],
  );
  const level = (entries: Record<string, any>, parentId: number, at: string) => {
    const units = state.businessUnits.filter((b) => b.parentId === parentId);
    const keys = keysFor(units, "business-unit");
    assert.deepEqual(Object.keys(entries ?? {}).sort(), [...keys.values()].sort(), `${at}: the keys`);
    for (const bu of units) {
      const key = keys.get(bu.id)!;
      const e = entries[key];
      const consumers = state.consumers.filter((c) => c.businessUnitId === bu.id);
      const children = state.businessUnits.some((b) => b.parentId === bu.id);
      const fields = defined({
        adoptId: bu.id,
        name: written(bu.name, BUSINESS_UNIT_FIELDS.name),
        registrationNumber: written(bu.registrationNumber, BUSINESS_UNIT_FIELDS.registrationNumber),
        note: written(bu.note, BUSINESS_UNIT_FIELDS.note),
        tags: written(bu.tags, BUSINESS_UNIT_FIELDS.tags),
      });
      const { timeZone, consumers: fileConsumers, businessUnits, ...rest } = e;
      assert.equal(typeof timeZone, "string", `${at}.${key}.timeZone`);
      assert.deepEqual(rest, fields, `${at}.${key}`);
      assert.equal(businessUnits !== undefined, children, `${at}.${key}.businessUnits`);
      if (children) level(businessUnits, bu.id, `${at}.${key}.businessUnits`);
      const ckeys = keysFor(consumers, "consumer");
      assert.deepEqual(Object.keys(fileConsumers ?? {}).sort(), [...ckeys.values()].sort(), `${at}.${key}.consumers`);
      for (const c of consumers) {
        const ce = fileConsumers[ckeys.get(c.id)!];
        const { node, ...own } = ce;
        const cat = `${at}.${key}.consumers.${ckeys.get(c.id)}`;
        assert.deepEqual(
          own,
          defined({
            adoptId: c.id,
            name: written(c.name, CONSUMER_FIELDS.name),
            note: written(c.note, CONSUMER_FIELDS.note),
            tags: written(c.tags, CONSUMER_FIELDS.tags),
          }),
          cat,
        );
        const n = state.nodes.find((x) => x.consumerId === c.id);
        if (n) assert.equal(node?.contact, written(n.contact, NODE_FIELDS.contact), `${cat}.node.contact`);
      }
    }
  };
  level(file.config[TENANTS_KEY], root, "tenants");
}

describe("export read by the Pulumi CLI's YAML reader (yaml.v3), YAML 1.1 and YAML 1.2", function () {
  this.timeout(300_000);
  const p = clientSuite();
  let dir: string;
  before(function () {
    this.timeout(300_000);
    yamlV3Binary();
  });
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "cli-reader-"));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** Plants `specs` under a fresh root; returns it. */
  function portal(specs: BuSpec[]): number {
    p.emu.reset();
    const [root] = plant(p.emu, [{ name: "Root", registrationNumber: "ROOT", timeZoneId: 1 }]).businessUnits;
    plant(p.emu, specs, root);
    return root;
  }

  async function exported(root: number, extra: string[] = []): Promise<string> {
    const r = await exportCli(p.emu, ["--bunit", String(root), ...extra]);
    assert.equal(r.code, 0, r.err);
    return extra.includes("--merge") ? fs.readFileSync(extra[extra.indexOf("--merge") + 1], "utf8") : r.out;
  }

  const bu = (name: string, settings: BuSpec["settings"] = {}): BuSpec => ({ name, registrationNumber: "R-1", timeZoneId: 1, settings });

  describe("issue 36 item 1: a tenant's note cannot restructure the file", () => {
    const cases: Array<[string, string]> = [
      [
        "a note written as a value (U+2028) cannot move the next tenant out of backup-portal:tenants",
        "Lab\u2028  zz:moved:\u2028    pad:\u2028      y",
      ],
      ["a note written as a value (U+2028) cannot set protect: false on its tenant", "x\u2028      protect:\u2028        false"],
      ["a note the rules refuse (U+0085), written into a review comment, cannot set protect: false", "x\u0085      protect: false\u0085#"],
      ["a note no UTF-8 file can hold (an unpaired surrogate) is a review comment, not a file the CLI cannot read", "x\ud800y"],
    ];
    for (const [title, note] of cases) {
      it(`${title}: export`, async () => {
        const root = portal([bu("Lab", { note }), bu("Next")]);
        const text = await exported(root);
        assertTenantsArePortal(readByEveryReader(text), p.emu.state(), root);
      });

      it(`${title}: export --merge`, async () => {
        const root = portal([bu("First")]);
        const file = path.join(dir, "Pulumi.prod.yaml");
        fs.writeFileSync(file, await exported(root));
        plant(p.emu, [bu("Lab", { note }), bu("Next")], root);
        assertTenantsArePortal(readByEveryReader(await exported(root, ["--merge", file])), p.emu.state(), root);
      });
    }
  });

  it("export --merge into a hand-edited file (4-space indentation, CRLF, comments above, inside and after entries): read as the portal has it", async () => {
    const root = portal([bu("First", { note: "one\u2028two" }), bu("Second", { tags: ["x"] })]);
    const edited = (await exported(root))
      .replace(/^( +)/gm, "$1$1")
      .replace(/^( {8})second:$/m, "    # hand: above a tenant key, shallower\n$1second:   # hand: inline")
      .replace(/\n$/, "\n        # hand: after the last tenant\n# hand: the end\n")
      .replace(/\n/g, "\r\n");
    const file = path.join(dir, "Pulumi.prod.yaml");
    fs.writeFileSync(file, edited);
    plant(
      p.emu,
      [bu("Lab\u2028  zz:moved:\u2028    pad:\u2028      y", { note: "x\u0085      protect: false\u0085#", tags: ["2024-01-01", "yes"] })],
      root,
    );
    const first = p.emu.state().businessUnits.find((b) => b.name === "First")!.id;
    plant(p.emu, [bu("Below First", { note: "0123" })], first);
    const merged = await exported(root, ["--merge", file]);
    assert.match(merged, /^ {8}# hand: after the last tenant\r$/m);
    assertTenantsArePortal(readByEveryReader(merged), p.emu.state(), root);
  });

  it("names, registration numbers, notes and tags that read as dates, numbers, booleans or null (property)", async () => {
    const consumer = fc.record({ name: tenantText, note: tenantText, tags: fc.array(tenantText, { maxLength: 2 }), contact: tenantText });
    const unit = fc.record({
      name: tenantText,
      registrationNumber: tenantText,
      note: tenantText,
      tags: fc.array(tenantText, { maxLength: 2 }),
      consumers: fc.array(consumer, { maxLength: 2 }),
    });
    const specs = (units: Array<typeof unit extends fc.Arbitrary<infer U> ? U : never>, n = { i: 0 }): BuSpec[] =>
      units.map((u) => ({
        name: u.name,
        registrationNumber: u.registrationNumber,
        timeZoneId: 1,
        settings: { note: u.note, tags: u.tags },
        consumers: u.consumers.map((c) => ({
          name: c.name,
          note: c.note,
          tags: c.tags,
          node: { os: 3, type: 1, domain: 1, cpuCount: 2, contact: c.contact, tsmName: `NODE-${++n.i}` },
        })),
      }));
    await fc.assert(
      fc.asyncProperty(
        fc.array(unit, { minLength: 1, maxLength: 4 }),
        fc.array(unit, { minLength: 1, maxLength: 3 }),
        async (first, later) => {
          const root = portal(specs(first));
          const text = await exported(root);
          assertTenantsArePortal(readByEveryReader(text), p.emu.state(), root);
          // Merged: the business units added later come in as safely as the first export.
          const file = path.join(dir, "Pulumi.prod.yaml");
          fs.writeFileSync(file, text);
          plant(p.emu, specs(later, { i: 100 }), root);
          assertTenantsArePortal(readByEveryReader(await exported(root, ["--merge", file])), p.emu.state(), root);
        },
      ),
      { numRuns: 30, seed: 3536 },
    );
  });
});
