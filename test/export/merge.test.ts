// `export --merge FILE`: missing business units added, the file's entries, order and comments kept, differences
// listed and not applied.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { parse } from "yaml";
import { clientSuite } from "../support/portal";
import { exportCli, plant } from "./support";
import { VARIED } from "./fixtures";
import { mergeInto, MergeError, MergeResult } from "../../provider/export/merge";
import { OutMap, OutValue } from "../../provider/export/out";
import type { ReferenceLists } from "../../provider/export/read";

const STACK = `# yaml-language-server: $schema=./tenants.schema.json
# Production: reviewed by the platform team.
config:
  backup-portal:url: https://portal.example.com
  backup-portal:rootBusinessUnitId: 1
  backup-portal:tenants:
    # Tenant B came first; keep it on top.
    tenant-b:
      adoptId: 3
      name: Tenant B
      registrationNumber: TB-9999 # the contract says so
      timeZone: utc
      consumers:
        erp:
          adoptId: 3
          name: erp-01
    made-by-code:
      name: Made By Code
      registrationNumber: M-1
      timeZone: UTC
`;

/** Whether `lines` appear in `text` in this order (other lines may sit between them). */
function inOrder(text: string, lines: string[]): boolean {
  const have = text.split("\n");
  let i = 0;
  for (const l of lines) {
    while (i < have.length && have[i] !== l) i++;
    if (i++ >= have.length) return false;
  }
  return true;
}

/**
 * The stack's outputs as `pulumi stack output --json` prints them: what the stack made and adopted, by resource
 * name. Here the stack adopted tenant-b and its consumer and has not made made-by-code yet (a pull request adds it).
 */
const OUTPUTS = { businessUnitIds: { "tenant-b": 3 }, consumerIds: { "tenant-b/erp": 3 }, nodeNames: { "tenant-b/erp": "ERP-01" } };

describe("backup-portal export --merge", function () {
  this.timeout(60_000);
  const p = clientSuite();
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "merge-"));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("adds the business units the file lacks and keeps every line of the file, in order", async () => {
    plant(p.emu, VARIED);
    const file = path.join(dir, "Pulumi.prod.yaml");
    fs.writeFileSync(file, STACK);
    const outputs = path.join(dir, "outputs.json");
    fs.writeFileSync(outputs, JSON.stringify(OUTPUTS));
    const r = await exportCli(p.emu, ["--merge", file, "--stack-outputs", outputs]);
    assert.equal(r.code, 0, r.err);
    assert.equal(r.out, "");
    const merged = fs.readFileSync(file, "utf8");
    assert.ok(inOrder(merged, STACK.trimEnd().split("\n")), merged);
    const t = (parse(merged) as { config: Record<string, any> }).config["backup-portal:tenants"];
    assert.deepEqual(Object.keys(t), ["tenant-b", "made-by-code", "acme-ab", "acme-ab-2", "refused-values", "tenant-a"]);
    assert.equal(t["tenant-b"].registrationNumber, "TB-9999", "a difference is reported, not applied");
    assert.equal(t["acme-ab"].consumers.web.node.tsmName, "ACME-WEB");
    assert.match(merged, /# password: cannot be read back from the portal/, "added entries carry their comments");
    assert.match(r.err, /^added tenants\.acme-ab$/m);
    assert.match(r.err, /^differs tenants\.tenant-b\.registrationNumber: the portal has "TB-0001", the file "TB-9999"$/m);
    assert.doesNotMatch(r.err, /tenant-b\.timeZone/, "utc names the same time zone as UTC");
    assert.match(r.err, /^differs tenants\.tenant-b\.consumers\.erp\.node: the consumer has a node on the portal, none in the file$/m);
    // Issue 36 item 11: the two units below acme-ab are added with it, and counted.
    assert.match(r.err, /^added tenants\.acme-ab\.businessUnits\.acme-olfabrik\nadded tenants\.acme-ab\.businessUnits\.business-unit$/m);
    assert.match(r.err, /^merged into .*Pulumi\.prod\.yaml: 6 business units added, 4 entries differ/m);
    // Merging again adds nothing: every business unit is in the file now.
    const again = await exportCli(p.emu, ["--merge", file, "--stack-outputs", outputs]);
    assert.equal(again.code, 0, again.err);
    assert.equal(fs.readFileSync(file, "utf8"), merged);
    assert.match(again.err, /0 business units added/);
    // A business unit missing below one the file has goes below it.
    const without = merged.replace(/\n {8}acme-olfabrik:\n(?: {10}.*\n)+/, "\n");
    assert.notEqual(without, merged);
    fs.writeFileSync(file, without);
    const nested = await exportCli(p.emu, ["--merge", file, "--stack-outputs", outputs]);
    assert.match(nested.err, /^added tenants\.acme-ab\.businessUnits\.acme-olfabrik$/m);
    const n = (parse(fs.readFileSync(file, "utf8")) as { config: Record<string, any> }).config["backup-portal:tenants"];
    assert.deepEqual(Object.keys(n["acme-ab"].businessUnits), ["business-unit", "acme-olfabrik"]);
  });

  it("a file whose tenants block is empty gets every business unit, as blocks", async () => {
    const file = path.join(dir, "Pulumi.new.yaml");
    fs.writeFileSync(file, "config:\n  backup-portal:tenants: {}\n");
    const r = await exportCli(p.emu, ["--merge", file]);
    assert.equal(r.code, 0, r.err);
    const text = fs.readFileSync(file, "utf8");
    assert.match(text, /^ {4}tenant-a:\n {6}adoptId: 2$/m);
    const exported = (parse((await exportCli(p.emu)).out) as { config: Record<string, unknown> }).config;
    // The merge adds business units, not the connection keys an export writes (it names those the file lacks).
    for (const key of ["url", "origin", "clientId", "username"]) delete exported[`backup-portal:${key}`];
    assert.deepEqual((parse(text) as { config: Record<string, unknown> }).config, exported);
    assert.match(
      r.err,
      /\/Pulumi\.new\.yaml: backup-portal:url: not set, and the stack's preview needs it: pulumi config set backup-portal:url http:\S+ --stack new/m,
    );
  });

  it("without the stack's outputs, an entry without adoptId that matches nothing stops every addition (it may be one, renamed)", async () => {
    plant(p.emu, VARIED);
    const file = path.join(dir, "Pulumi.prod.yaml");
    fs.writeFileSync(file, STACK);
    const r = await exportCli(p.emu, ["--merge", file]);
    assert.equal(r.code, 0, r.err);
    assert.equal(fs.readFileSync(file, "utf8"), STACK, "nothing added: the file is as it was");
    assert.match(
      r.err,
      /^gone tenants\.made-by-code: no business unit named "Made By Code" here on the portal: deleted or renamed there, or not made by the stack yet/m,
    );
    assert.match(
      r.err,
      /^not added tenants\.acme-ab: business unit \d+ \("Acme AB"\) is on the portal, not added: tenants\.made-by-code has no adoptId and matches nothing on the portal by name, so this may be it, renamed or moved there; give --stack-outputs <file>/m,
    );
    assert.match(r.err, /: 0 business units added, 4 entries differ from the portal, 1 gone from it, 4 not added/);
  });

  it("an entry without adoptId (made by the stack) is matched by name, not added twice", async () => {
    plant(p.emu, [{ name: "Made By Code", registrationNumber: "M-1", timeZoneId: 1 }]);
    const file = path.join(dir, "Pulumi.prod.yaml");
    fs.writeFileSync(file, STACK);
    const r = await exportCli(p.emu, ["--merge", file]);
    assert.equal(r.code, 0, r.err);
    const t = (parse(fs.readFileSync(file, "utf8")) as { config: Record<string, any> }).config["backup-portal:tenants"];
    assert.deepEqual(Object.keys(t), ["tenant-b", "made-by-code", "tenant-a"]);
  });

  it("a file with a number written with a leading zero is refused, each one named, and left as it was", async () => {
    const file = path.join(dir, "Pulumi.prod.yaml");
    const text = STACK.replace("adoptId: 3\n      name: Tenant B", "adoptId: 03\n      name: Tenant B\n      invoiceDay: 010");
    fs.writeFileSync(file, text);
    const r = await exportCli(p.emu, ["--merge", file]);
    assert.equal(r.code, 1);
    assert.equal(
      r.err,
      [
        "backup-portal export: the stack config has 2 problems; nothing was merged:",
        `${file}: backup-portal:tenants.tenant-b.adoptId: 03 has a leading zero: the Pulumi CLI (yaml.v3) and YAML 1.1 read it as octal 3, YAML 1.2 as 3; write 3`,
        `${file}: backup-portal:tenants.tenant-b.invoiceDay: 010 has a leading zero: the Pulumi CLI (yaml.v3) and YAML 1.1 read it as octal 8, YAML 1.2 as 10; write 10`,
        "",
      ].join("\n"),
    );
    assert.equal(fs.readFileSync(file, "utf8"), text);
  });

  it("a file below another root is refused, and left as it was", async () => {
    const file = path.join(dir, "Pulumi.prod.yaml");
    fs.writeFileSync(file, STACK);
    const [other] = plant(p.emu, [
      { name: "Other", registrationNumber: "O", timeZoneId: 1, children: [{ name: "Kid", registrationNumber: "K", timeZoneId: 1 }] },
    ]).businessUnits;
    const r = await exportCli(p.emu, ["--merge", file, "--bunit", String(other)]);
    assert.equal(r.code, 1);
    assert.ok(
      r.err.includes(
        `Pulumi.prod.yaml: config.backup-portal:rootBusinessUnitId is 1, but the export is below business unit ${other}; export with --bunit 1`,
      ),
      r.err,
    );
    assert.equal(fs.readFileSync(file, "utf8"), STACK);
  });
});

/** The portal's side of a merge, built directly: business units and consumers as export maps them. */
const out = (entries: Record<string, OutValue>) => Object.entries(entries).reduce((m, [k, v]) => m.set(k, v), new OutMap());
const REFS: ReferenceLists = {
  list: (kind) =>
    ({
      timeZone: [
        { id: 1, name: "(GMT) UTC", windowsId: "UTC" },
        { id: 2, name: "Other" },
      ],
      domain: [{ id: 7, name: "STANDARD" }],
    })[kind as string] ?? [],
};
const merged = (file: string, tenants: OutMap) => mergeInto(file, "Pulumi.x.yaml", { rootId: 1, tenants }, REFS);
const differences = (r: MergeResult) => r.differences.map((d) => `${d.path}: ${d.message}`);

describe("export --merge, in process: what is kept, what is added, what is listed", () => {
  it("matched entries are compared, field by field, by the meaning of each value", () => {
    const file = [
      "config:",
      "  backup-portal:rootBusinessUnitId: 1",
      "  backup-portal:tenants:",
      "    made-by-code:",
      "      registrationNumber: tb-1",
      "      timeZone: utc",
      '      supportResponsible: "true"',
      "      domainFilter: [standard]",
      "      consumers:",
      "        erp:",
      "          name: erp-01",
      "          note: x",
      "          node:",
      "            tsmName: acme-web",
      "            cpuCount: 4",
      "        other:",
      "          adoptId: 3",
      "        plain:",
      "          adoptId: 12",
      "        renamed:",
      "          adoptId: 13",
      "          node:",
      "            tsmName: old-name",
      "    tz:",
      "      adoptId: 5",
      "      timeZone: Atlantis",
      "      note: kept",
      "",
    ].join("\n");
    const r = merged(
      file,
      out({
        "made-by-code": out({
          adoptId: 4,
          name: "made-by-code",
          registrationNumber: "TB-1",
          timeZone: "UTC",
          supportResponsible: true,
          domainFilter: ["STANDARD"],
          businessUnits: out({ kid: out({ adoptId: 6, name: "kid", registrationNumber: "K", timeZone: "UTC" }) }),
          consumers: out({
            "erp-01": out({ adoptId: 9, name: "erp-01", node: out({ adopt: true, tsmName: "ACME-WEB", cpuCount: 2 }) }),
            lost: out({ adoptId: 11, name: "lost" }),
            other: out({ adoptId: 3, name: "other", node: out({ adopt: true, cpuCount: 1 }) }),
            plain: out({ adoptId: 12, name: "plain" }),
            renamed: out({ adoptId: 13, name: "renamed", node: out({ adopt: true, tsmName: "NEW-NAME" }) }),
          }),
        }),
        tz: out({ adoptId: 5, name: "tz", registrationNumber: "R", timeZone: "Lemuria" }),
      }),
    );
    assert.equal(
      r.text,
      [
        "config:",
        "  backup-portal:rootBusinessUnitId: 1",
        "  backup-portal:tenants:",
        "    made-by-code:",
        "      registrationNumber: tb-1",
        "      timeZone: utc",
        '      supportResponsible: "true"',
        "      domainFilter: [standard]",
        "      consumers:",
        "        erp:",
        "          name: erp-01",
        "          note: x",
        "          node:",
        "            tsmName: acme-web",
        "            cpuCount: 4",
        "        other:",
        "          adoptId: 3",
        "        plain:",
        "          adoptId: 12",
        "        renamed:",
        "          adoptId: 13",
        "          node:",
        "            tsmName: old-name",
        "      businessUnits:",
        "        kid:",
        "          adoptId: 6",
        "          name: kid",
        "          registrationNumber: K",
        "          timeZone: UTC",
        "    tz:",
        "      adoptId: 5",
        "      timeZone: Atlantis",
        "      note: kept",
      ].join("\n") + "\n",
    );
    assert.deepEqual(differences(r), [
      'tenants.made-by-code.registrationNumber: the portal has "TB-1", the file "tb-1"',
      'tenants.made-by-code.supportResponsible: the portal has true, the file "true"',
      'tenants.made-by-code.consumers.erp.note: the portal has none, the file "x"',
      "tenants.made-by-code.consumers.erp.node.cpuCount: the portal has 2, the file 4",
      'tenants.made-by-code.consumers.lost: consumer 11 ("lost") is on the portal, not in the file; add it by hand or export it',
      "tenants.made-by-code.consumers.other.node: the consumer has a node on the portal, none in the file",
      'tenants.made-by-code.consumers.renamed.node.tsmName: the portal has "NEW-NAME", the file "old-name"',
      'tenants.tz.registrationNumber: the portal has "R", the file none',
      'tenants.tz.timeZone: the portal has "Lemuria", the file "Atlantis"',
      'tenants.tz.note: the portal has none, the file "kept"',
    ]);
    assert.deepEqual(r.added, ["tenants.made-by-code.businessUnits.kid"]);
  });

  it("values and entries written through YAML aliases are read as the Pulumi CLI reads them: the values they stand for", () => {
    const file = [
      "config:",
      "  backup-portal:rootBusinessUnitId: 1",
      "  backup-portal:tenants:",
      "    a:",
      "      adoptId: 2",
      "      registrationNumber: &rn R-1",
      "    b: &b",
      "      adoptId: 3",
      "      registrationNumber: *rn",
      "",
    ].join("\n");
    const portal = out({
      a: out({ adoptId: 2, name: "a", registrationNumber: "R-1" }),
      b: out({ adoptId: 3, name: "b", registrationNumber: "R-1" }),
    });
    assert.deepEqual(differences(merged(file, portal)), []);
    // An entry that is an alias of another stands for two places (it adopts the same object, too): refused.
    assert.throws(
      () => merged(`${file}    c: *b\n`, portal),
      (e: Error) =>
        e instanceof MergeError && /^Pulumi\.x\.yaml: tenants\.c is a YAML alias \(\*b\): .*nothing was merged$/.test(e.message),
    );
    // An alias that expands without bound is refused in one line, not as a crash.
    const bomb = ["      x0: &x0 [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]"];
    for (let i = 1; i < 9; i++)
      bomb.push(
        `      x${i}: &x${i} [${Array(10)
          .fill(`*x${i - 1}`)
          .join(", ")}]`,
      );
    assert.throws(
      () => merged(`${file}${bomb.join("\n")}\n`, portal),
      (e: Error) =>
        e instanceof MergeError && /^Pulumi\.x\.yaml: config\.backup-portal:tenants: .*alias.*; nothing was merged$/.test(e.message),
    );
  });

  it("an alias for an id, a name or a proxy's consumer is its value; an alias for what holds entries or a node is refused", () => {
    const file = [
      "ids:",
      "  - &two 2",
      "  - &web web",
      "config:",
      "  backup-portal:rootBusinessUnitId: 1",
      "  backup-portal:tenants:",
      "    a:",
      "      adoptId: *two",
      "      name: &name Acme",
      "      consumers:",
      "        web:",
      "          adoptId: 5",
      "          node: { tsmName: WEB }",
      "        db:",
      "          adoptId: 6",
      "          node: { tsmName: DB }",
      "      proxies:",
      "        - { agent: *web, target: db }",
      "",
    ].join("\n");
    const node = (tsmName: string) => out({ tsmName });
    const portal = out({
      a: out({
        adoptId: 2,
        name: "Acme",
        consumers: out({ web: out({ adoptId: 5, name: "web", node: node("WEB") }), db: out({ adoptId: 6, name: "db", node: node("DB") }) }),
        proxies: [out({ agent: "web", target: "db" })],
      }),
    });
    const r = merged(file, portal);
    assert.deepEqual(
      [r.added, differences(r), r.gone.map((g) => g.path)],
      [[], [], []],
      "matched by the id and name the aliases stand for",
    );
    assert.equal(r.text, file, "nothing to add: the file's bytes are kept");
    const renamed = merged(file.replace("name: &name Acme", "name: &name Acme AB"), portal);
    assert.deepEqual(differences(renamed), ['tenants.a.name: the portal has "Acme", the file "Acme AB"']);

    for (const [what, text] of [
      [
        "consumers",
        `${file}    b:\n      adoptId: 3\n      consumers: *c\n`.replace(
          "      consumers:\n        web:",
          "      consumers: &c\n        web:",
        ),
      ],
      [
        "node",
        file
          .replace("          node: { tsmName: DB }", "          node: *n")
          .replace("node: { tsmName: WEB }", "node: &n { tsmName: WEB }"),
      ],
    ]) {
      assert.throws(
        () => merged(text, portal),
        (e: Error) =>
          e instanceof MergeError &&
          /^Pulumi\.x\.yaml: tenants\.[ab](\.consumers\.db)?\.(consumers|node) is a YAML alias \(\*[cn]\): .*; nothing was merged$/.test(
            e.message,
          ),
        what,
      );
    }
  });

  it("a business unit the file lacks is added at the end, under a free key, in the file's indentation; entries are kept as they are", () => {
    const file = [
      "# top",
      "config:",
      "        # a comment is no indentation",
      "    backup-portal:tenants:",
      "        acme:",
      "            note: x - y",
      "            adoptId: 99",
      "            name: acme",
      "            aliases:",
      "                - old-acme",
      "        acme-2:",
      "            adoptId: 98",
      "            name: someone else",
      "        dup-a:",
      "            adoptId: 96",
      "            name: Dup",
      "        dup-b:",
      "            adoptId: 97",
      "            name: Dup",
      "        broken: null",
      "        scalar: 5",
      "",
    ].join("\n");
    const r = merged(
      file,
      out({
        acme: out({ adoptId: 1, name: "acme", note: "n".repeat(100), tags: ["a", "b"] }),
        dup: out({ adoptId: 2, name: "Dup" }),
      }),
    );
    assert.equal(
      r.text,
      [
        "# top",
        "config:",
        "        # a comment is no indentation",
        "    backup-portal:tenants:",
        "        acme:",
        "            note: x - y",
        "            adoptId: 99",
        "            name: acme",
        "            aliases:",
        "                - old-acme",
        "        acme-2:",
        "            adoptId: 98",
        "            name: someone else",
        "        dup-a:",
        "            adoptId: 96",
        "            name: Dup",
        "        dup-b:",
        "            adoptId: 97",
        "            name: Dup",
        "        broken: null",
        "        scalar: 5",
        "        acme-3:",
        "            adoptId: 1",
        "            name: acme",
        "            note: nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn",
        "            tags:",
        "                - a",
        "                - b",
        "        dup:",
        "            adoptId: 2",
        "            name: Dup",
        '    backup-portal:rootBusinessUnitId: "1"',
      ].join("\n") + "\n",
    );
    assert.deepEqual(differences(r), []);
    assert.deepEqual(r.added, ["tenants.acme-3", "tenants.dup"]);
    assert.deepEqual(
      r.gone.map((g) => g.path),
      ["tenants.acme", "tenants.acme-2", "tenants.dup-a", "tenants.dup-b"],
      "each entry whose business unit the portal no longer has is said",
    );
  });

  it("two portal business units with one name, and the file's entry of it without adoptId: neither is taken for it, nor added", () => {
    const same = (adoptId: number) => out({ adoptId, name: "Same", registrationNumber: "R" });
    const file =
      "config:\n  backup-portal:rootBusinessUnitId: 1\n  backup-portal:tenants:\n    same:\n      name: Same\n      registrationNumber: R\n";
    const r = merged(file, out({ same: same(1), "same-2": same(2) }));
    assert.equal(r.text, file);
    assert.deepEqual(r.added, []);
    assert.deepEqual(
      r.gone.map((g) => `${g.path}: ${g.message}`),
      [
        'tenants.same: "Same" names 2 business units here on the portal (1, 2) and the entry has no adoptId, so the merge cannot tell which it is: ' +
          "add adoptId: <id> to it, or give --stack-outputs <file> (`pulumi stack output --json` of the stack)",
      ],
    );
    assert.deepEqual(
      r.notAdded.map((g) => g.path),
      ["tenants.same-2", "tenants.same-2-2"],
    );
    // The stack's outputs say which one it made (2): that one is the entry's, the other is added.
    const known = mergeInto(file, "Pulumi.x.yaml", { rootId: 1, tenants: out({ same: same(1), "same-2": same(2) }) }, REFS, {
      file: "outputs.json",
      businessUnits: new Map([["same", 2]]),
      consumers: new Map(),
    });
    assert.deepEqual(known.added, ["tenants.same-2"]);
    assert.match(known.text, /^ {4}same-2:\n {6}adoptId: 1$/m);
    assert.deepEqual([...known.gone, ...known.notAdded], []);
  });

  it("sequences written flush with their key, as the file writes them", () => {
    // A note's line that starts with "- " is no sequence: the first sequence is aliases, flush.
    const file = [
      "config:",
      "  backup-portal:tenants:",
      "    acme:",
      "      adoptId: 1",
      "      note: |",
      "        - a point",
      "      aliases:",
      "      - old-acme",
      "",
    ].join("\n");
    const r = merged(
      file,
      out({ acme: out({ adoptId: 1, name: "acme", note: "- a point\n" }), b: out({ adoptId: 2, name: "b", tags: ["a"] }) }),
    );
    assert.equal(
      r.text,
      [
        "config:",
        "  backup-portal:tenants:",
        "    acme:",
        "      adoptId: 1",
        "      note: |",
        "        - a point",
        "      aliases:",
        "      - old-acme",
        "    b:",
        "      adoptId: 2",
        "      name: b",
        "      tags:",
        "      - a",
        '  backup-portal:rootBusinessUnitId: "1"',
      ].join("\n") + "\n",
    );
    assert.deepEqual(differences(r), []);
    assert.deepEqual(r.added, ["tenants.b"]);
  });

  it("every scalar of the file keeps its source text: 0123 stays 0123, True stays True (another reader may read them otherwise)", () => {
    const file = [
      "config:",
      "  other:code: 0123",
      "  other:flag: True",
      "  other:big: 1e3",
      "  other:plus: +5",
      "  other:none: ~",
      "  other:hex: 0x1F",
      "  backup-portal:rootBusinessUnitId: 1",
      "  backup-portal:tenants:",
      "    acme:",
      "      adoptId: 1",
      "      name: acme",
      "      registrationNumber: 0123",
      "      storageLimit: 1.50",
      "      protect: FALSE",
      "      note: '2024-01-01'",
      "",
    ].join("\n");
    const r = merged(file, out({ acme: out({ adoptId: 1, name: "acme", registrationNumber: "0123" }), b: out({ adoptId: 2, name: "b" }) }));
    assert.equal(r.text, `${file}    b:\n      adoptId: 2\n      name: b\n`);
  });

  it("a file the merge cannot use is refused with one line naming it; an empty file or block gets what is missing", () => {
    const b = out({ b: out({ adoptId: 2, name: "b", tags: ["t"] }) });
    let deep = "config:\n  backup-portal:tenants:\n";
    for (let i = 0; i < 40; i++) deep += `${" ".repeat(4 + 4 * i)}u:\n${" ".repeat(6 + 4 * i)}businessUnits:\n`;
    deep += `${" ".repeat(164)}u: {}\n`;
    const refused: Array<[string, string]> = [
      [
        "a: [",
        "Pulumi.x.yaml: not YAML the merge can read: Flow sequence in block collection must be sufficiently indented and end with a ] at line 1, column 5:",
      ],
      ["- a\n", "Pulumi.x.yaml: the file must be a map with a config: key"],
      ["config: 5\n", "Pulumi.x.yaml: config: must be a map"],
      ["config:\n  backup-portal:tenants: [1]\n", "Pulumi.x.yaml: config.backup-portal:tenants must be a map from key to business unit"],
      [
        "config:\n  backup-portal:rootBusinessUnitId: 2\n",
        "Pulumi.x.yaml: config.backup-portal:rootBusinessUnitId is 2, but the export is below business unit 1; export with --bunit 2",
      ],
      // What the CLI would read as a date, not as the text the merge reads: the file is refused as for 0123.
      [
        "config:\n  backup-portal:tenants:\n    a:\n      name: 2024-01-01\n",
        'the stack config has 1 problem; nothing was merged:\nPulumi.x.yaml: backup-portal:tenants.a.name: is read by the Pulumi CLI (yaml.v3) as a date (as "2024-01-01 00:00:00 +0000 UTC"), not as this text; quote it: "2024-01-01"',
      ],
      // 40 business units, each below the last: one line, not a RangeError.
      [deep, `Pulumi.x.yaml: tenants${".u.businessUnits".repeat(32)} nests more than 32 levels of business units; flatten it`],
    ];
    for (const [file, message] of refused) {
      assert.throws(
        () => merged(file, b),
        (e: Error) => e instanceof MergeError && e.message === message,
        file,
      );
    }
    const added = "    b:\n      adoptId: 2\n      name: b\n      tags:\n        - t\n";
    const filled: Array<[string, string]> = [
      ["", `config:\n  backup-portal:rootBusinessUnitId: "1"\n  backup-portal:tenants:\n${added}`],
      ["other: 1\n", `other: 1\nconfig:\n  backup-portal:rootBusinessUnitId: "1"\n  backup-portal:tenants:\n${added}`],
      ["config:\n", `config:\n  backup-portal:rootBusinessUnitId: "1"\n  backup-portal:tenants:\n${added}`],
      ["config:\n  backup-portal:tenants:\n", `config:\n  backup-portal:tenants:\n${added}  backup-portal:rootBusinessUnitId: "1"\n`],
    ];
    for (const [file, text] of filled) {
      const r = merged(file, b);
      assert.equal(r.text, text, file);
      assert.deepEqual(r.added, ["tenants.b"]);
    }
  });
});
