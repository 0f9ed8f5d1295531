// `export --merge` never adds what the stack already manages (issue 36 item 4): a business unit the stack made and
// the portal renamed, one moved to another parent, siblings of one name, an id only the stack's outputs hold. The
// stack here really made its units (the stack program through the engine stand-in, against the emulator) and its
// outputs are what `pulumi stack output --json` prints of them.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { parse } from "yaml";
import { portalSuite } from "../resources/support";
import { runStack, settings } from "../stacks/support";
import { valueOf } from "../support/mocks";
import { exportCli, plant, readsSince } from "./support";

const TENANTS = "backup-portal:tenants";

/** A stack file whose units the stack makes itself (no adoptId): two tenants, a consumer, a unit below one. */
const stackFile = (root: number) => `config:
  backup-portal:rootBusinessUnitId: ${root}
  # Made by this stack.
  backup-portal:tenants:
    made-a:
      name: Made A
      registrationNumber: A-1
      timeZone: UTC
      consumers:
        files: {}
      businessUnits:
        lab:
          name: Lab
          registrationNumber: L-1
          timeZone: UTC
    made-b:
      name: Made B
      registrationNumber: B-1
      timeZone: UTC
`;

describe("export --merge adds nothing the stack manages", function () {
  this.timeout(120_000);
  const p = portalSuite();
  let dir: string;
  let file: string;
  let outputs: string;
  let root: number;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "merge-managed-"));
    file = path.join(dir, "Pulumi.prod.yaml");
    outputs = path.join(dir, "outputs.json");
    [root] = plant(p.emu, [{ name: "Root", registrationNumber: "ROOT", timeZoneId: 1 }]).businessUnits;
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** Runs `pulumi up` of `text` (engine stand-in) and writes the file and the stack's outputs; returns the ids. */
  async function up(text: string): Promise<{ businessUnitIds: Record<string, number>; consumerIds: Record<string, number> }> {
    const tenants = (parse(text) as { config: Record<string, unknown> }).config[TENANTS];
    const r = await runStack(p.engine(), settings(tenants, p.client, {}, { rootBusinessUnitId: root }));
    const ids = {
      businessUnitIds: await valueOf(r.result.businessUnitIds),
      consumerIds: await valueOf(r.result.consumerIds),
      nodeNames: await valueOf(r.result.nodeNames),
    };
    fs.writeFileSync(file, text);
    fs.writeFileSync(outputs, `${JSON.stringify(ids, null, 2)}\n`);
    return ids;
  }

  const merge = (...extra: string[]) => exportCli(p.emu, ["--bunit", String(root), "--merge", file, ...extra]);
  const rename = (id: number, name: string) =>
    p.emu.update((s) => {
      s.businessUnits.find((b) => b.id === id)!.name = name;
    });

  it("a unit the stack made and the portal renamed: with the outputs, the entry's name differs; without, it is not added", async () => {
    const text = stackFile(root);
    const ids = await up(text);
    rename(ids.businessUnitIds["made-a"], "Made A (old)");

    const known = await merge("--stack-outputs", outputs);
    assert.equal(known.code, 0, known.err);
    assert.equal(fs.readFileSync(file, "utf8"), text, "nothing added");
    assert.match(known.err, /^differs tenants\.made-a\.name: the portal has "Made A \(old\)", the file "Made A"$/m);
    assert.match(known.err, /: 0 business units added, 1 entry differs from the portal, 0 gone from it, 0 not added/);

    const blind = await merge();
    assert.equal(blind.code, 0, blind.err);
    assert.equal(fs.readFileSync(file, "utf8"), text, "nothing added");
    assert.match(
      blind.err,
      new RegExp(
        `^not added tenants\\.made-a-old: business unit ${ids.businessUnitIds["made-a"]} \\("Made A \\(old\\)"\\) is on the portal, not added: ` +
          "tenants\\.made-a has no adoptId and matches nothing on the portal by name, so this may be it, renamed or moved there; " +
          "give --stack-outputs <file> \\(`pulumi stack output --json` of the stack\\), or add adoptId to the entry that is it$",
        "m",
      ),
    );
    assert.match(
      blind.err,
      /^gone tenants\.made-a: no business unit named "Made A" here on the portal: deleted or renamed there, or not made by the stack yet/m,
    );
    assert.doesNotMatch(blind.err, /^added /m);
  });

  it("a unit moved to another parent on the portal is not added there a second time: the entry says where it went", async () => {
    const ids = await up(stackFile(root));
    const lab = ids.businessUnitIds["made-a/lab"];
    const move = () =>
      p.emu.update((s) => {
        s.businessUnits.find((b) => b.id === lab)!.parentId = ids.businessUnitIds["made-b"];
      });
    move();
    const text = fs.readFileSync(file, "utf8");
    const r = await merge("--stack-outputs", outputs);
    assert.equal(r.code, 0, r.err);
    assert.equal(fs.readFileSync(file, "utf8"), text);
    assert.match(
      r.err,
      new RegExp(
        `^gone tenants\\.made-a\\.businessUnits\\.lab: business unit ${lab} \\(the stack's "made-a/lab", by .*outputs\\.json\\) is at ` +
          "tenants\\.made-b\\.businessUnits\\.lab on the portal, not here \\(moved there\\); the file keeps it here: move the entry there, or the business unit back$",
        "m",
      ),
    );
    assert.match(r.err, /: 0 business units added, 0 entries differ from the portal, 1 gone from it, 0 not added/);

    // An exported file (every unit adopted): the same, from its adoptId.
    p.emu.reset();
    [root] = plant(p.emu, [{ name: "Root", registrationNumber: "ROOT", timeZoneId: 1 }]).businessUnits;
    const made = plant(
      p.emu,
      [
        { name: "A", registrationNumber: "A", timeZoneId: 1, children: [{ name: "Lab", registrationNumber: "L", timeZoneId: 1 }] },
        { name: "B", registrationNumber: "B", timeZoneId: 1 },
      ],
      root,
    );
    const exported = await exportCli(p.emu, ["--bunit", String(root)]);
    fs.writeFileSync(file, exported.out);
    p.emu.update((s) => {
      s.businessUnits.find((b) => b.id === made.businessUnits[1])!.parentId = made.businessUnits[2];
    });
    const again = await merge();
    assert.equal(again.code, 0, again.err);
    assert.equal(fs.readFileSync(file, "utf8"), exported.out);
    assert.match(
      again.err,
      /^gone tenants\.a\.businessUnits\.lab: business unit \d+ is at tenants\.b\.businessUnits\.lab on the portal, not here \(moved there\)/m,
    );
    assert.doesNotMatch(again.err, /^added /m);
  });

  it("siblings of one name: the outputs say which is the stack's, and only the other is added; without them, neither", async () => {
    // Made on the portal first (the lower id, so export keys it made-a), then the stack makes its own Made A.
    const [byHand] = plant(p.emu, [{ name: "Made A", registrationNumber: "H-1", timeZoneId: 1 }], root).businessUnits;
    const text = stackFile(root);
    const ids = await up(text);
    assert.ok(byHand < ids.businessUnitIds["made-a"]);

    const blind = await merge();
    assert.equal(blind.code, 0, blind.err);
    assert.equal(fs.readFileSync(file, "utf8"), text, "neither taken for the entry, nor added");
    assert.match(
      blind.err,
      new RegExp(
        `^gone tenants\\.made-a: "Made A" names 2 business units here on the portal \\(${byHand}, ${ids.businessUnitIds["made-a"]}\\) ` +
          "and the entry has no adoptId, so the merge cannot tell which it is",
        "m",
      ),
    );

    const known = await merge("--stack-outputs", outputs);
    assert.equal(known.code, 0, known.err);
    assert.match(known.err, /^added tenants\.made-a-2$/m);
    const t = (parse(fs.readFileSync(file, "utf8")) as { config: Record<string, any> }).config[TENANTS];
    assert.equal(t["made-a-2"].adoptId, byHand, "the one made by hand is added; the stack's stays its entry");
    assert.equal(t["made-a"].adoptId, undefined);
    assert.doesNotMatch(known.err, /^differs tenants\.made-a\./m, "the entry is compared with the stack's unit, which it matches");
  });

  it("an id only the outputs hold (its entry gone from the file) is not added, and the line says what the next up does", async () => {
    const ids = await up(stackFile(root));
    const without = stackFile(root).replace(/ {4}made-b:\n(?: {6}.*\n)+/, "");
    assert.notEqual(without, stackFile(root));
    fs.writeFileSync(file, without);
    const r = await merge("--stack-outputs", outputs);
    assert.equal(r.code, 0, r.err);
    assert.equal(fs.readFileSync(file, "utf8"), without);
    assert.match(
      r.err,
      new RegExp(
        `^not added tenants\\.made-b: business unit ${ids.businessUnitIds["made-b"]} \\("Made B"\\) is on the portal, not added: the stack manages it ` +
          '\\(.*outputs\\.json: businessUnitIds\\["made-b"\\]\\), but no entry of this file is it; if the entry was removed on purpose, the next up ' +
          "deletes the object; to keep it, put the entry back$",
        "m",
      ),
    );
  });

  it("a file that adopts one object twice is refused, at both keys, and left as it was", async () => {
    const text = [
      "config:",
      `  backup-portal:rootBusinessUnitId: ${root}`,
      "  backup-portal:tenants:",
      "    one:",
      "      adoptId: 2",
      "      consumers:",
      "        web:",
      "          adoptId: 1",
      "    two:",
      "      adoptId: 2",
      "      consumers:",
      "        web:",
      "          adoptId: 1",
      "",
    ].join("\n");
    fs.writeFileSync(file, text);
    const r = await merge();
    assert.equal(r.code, 1);
    const problem = (kind: string, id: number, other: string) =>
      `${kind} ${id} is also adopted at ${other}: two resources for one portal object fight on every up, and removing either deletes the object; keep adoptId ${id} on one entry only`;
    assert.equal(
      r.err,
      [
        "backup-portal export: the stack config has 4 problems; nothing was merged:",
        `${file}: backup-portal:tenants.one.adoptId: ${problem("business unit", 2, "tenants.two.adoptId")}`,
        `${file}: backup-portal:tenants.one.consumers.web.adoptId: ${problem("consumer", 1, "tenants.two.consumers.web.adoptId")}`,
        `${file}: backup-portal:tenants.two.adoptId: ${problem("business unit", 2, "tenants.one.adoptId")}`,
        `${file}: backup-portal:tenants.two.consumers.web.adoptId: ${problem("consumer", 1, "tenants.one.consumers.web.adoptId")}`,
        "",
      ].join("\n"),
    );
    assert.equal(fs.readFileSync(file, "utf8"), text);
  });

  it("--stack-outputs that are no stack's outputs are refused in one line, before the portal is read", async () => {
    fs.writeFileSync(file, stackFile(root));
    const cases: Array<[string, string]> = [
      ["{", `${outputs}: not JSON (`],
      ["[]", `${outputs}: must be a JSON object; give the output of \`pulumi stack output --json --stack <stack>\``],
      ['{"url": "x"}', `${outputs}: has neither businessUnitIds nor consumerIds, so it is no output of this stack program;`],
      [
        '{"businessUnitIds": {"made-a": "[secret]", "made-b": 0}, "consumerIds": []}',
        [
          "the stack outputs have 3 problems; nothing was merged:",
          `${outputs}: businessUnitIds["made-a"]: "[secret]" is not a portal id; give the output of \`pulumi stack output --json --stack <stack>\``,
          `${outputs}: businessUnitIds["made-b"]: 0 is not a portal id; give the output of \`pulumi stack output --json --stack <stack>\``,
          `${outputs}: consumerIds must be a map from resource name to id, got []`,
        ].join("\n"),
      ],
    ];
    for (const [json, message] of cases) {
      fs.writeFileSync(outputs, json);
      const mark = p.emu.requests().length;
      const r = await merge("--stack-outputs", outputs);
      assert.equal(r.code, 1, json);
      assert.ok(r.err.startsWith(`backup-portal export: ${message}`), `${json}: ${r.err}`);
      assert.deepEqual(readsSince(p.emu, mark), [], "nothing read from the portal");
    }
    const alone = await exportCli(p.emu, ["--stack-outputs", outputs]);
    assert.equal(alone.code, 2);
    assert.match(alone.err, /--stack-outputs goes with --merge <file>/);
  });
});
