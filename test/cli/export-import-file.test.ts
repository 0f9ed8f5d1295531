// `backup-portal export --format pulumi-import` as a command, in the mocha process: the file `pulumi import --file`
// reads (its shape, ids, names and parents against the portal's own records), the same walk as the tenants export
// (the same reads, the same nodes left out, the same review notes at the import's names), hostile names that
// never reach the file, --provider, --out and --force, and the flags refused before any request. The real CLI
// reads the file in test/real-engine/export-import-file.test.ts.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { startEmulator, Emulator } from "../../emulator";
import { usageErrorText } from "../../provider/cli/args";
import { COMMAND } from "../../provider/cli/export";
import { VARIED } from "../export/fixtures";
import { exportCli, plant, readsSince } from "../export/support";

const TYPES = ["BusinessUnit", "Consumer", "Node", "NodeProxy"].map((t) => `backupportal:index:${t}`);
const PROVIDER_URN = "urn:pulumi:prod::adopted::pulumi:providers:backupportal::portal";

/** Names that would break a file written by pasting them in (JSON, YAML, a program's source). */
const HOSTILE = ["Default", '", "type": "x', "${acme.id}", "a\nb", "rtl \u202e txt", "line\u2028sep", "}]}", "\\u0022"];

describe("backup-portal export --format pulumi-import", function () {
  this.timeout(60_000);
  let emu: Emulator;
  let dir: string;
  before(async () => {
    emu = await startEmulator({ quiet: true });
    plant(emu, [
      ...VARIED,
      ...HOSTILE.map((name) => ({
        name,
        registrationNumber: "R-1",
        timeZoneId: 1,
        consumers: [{ name, node: { os: 3, type: 1, domain: 1, cpuCount: 1 } }],
      })),
    ]);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "bp-export-import-"));
  });
  after(async () => {
    fs.rmSync(dir, { recursive: true, force: true });
    await emu?.close();
  });

  it("one entry per business unit, consumer, declared node and proxy relation, each id and parent the portal's", async () => {
    const r = await exportCli(emu, ["--bunit", "1", "--format", "pulumi-import", "--no-progress"]);
    assert.equal(r.code, 0, r.err);
    const file = JSON.parse(r.out);
    assert.deepEqual(Object.keys(file), ["resources"], "no name table without --provider");
    const s = emu.state();
    const byName = new Map<string, any>();
    for (const e of file.resources) {
      assert.ok(TYPES.includes(e.type), e.type);
      assert.deepEqual(
        Object.keys(e).filter((k) => !["type", "name", "logicalName", "id", "parent"].includes(k)),
        [],
        `${e.name}: only the keys of pulumi import's file`,
      );
      assert.match(e.name, /^[a-z][A-Za-z0-9]*$/, "an identifier in every language");
      assert.match(e.logicalName, /^[a-z0-9-]+(\/[a-z0-9-]+)*(>[a-z0-9-]+)?$/, "the stack program's name: keys joined by /");
      assert.ok(!byName.has(e.name), `${e.name} once`);
      if (e.parent !== undefined) assert.ok(byName.has(e.parent), `${e.name}: its parent ${e.parent} comes first`);
      byName.set(e.name, e);
      const parent = e.parent === undefined ? undefined : byName.get(e.parent);
      if (e.type === TYPES[0]) {
        const bu = s.businessUnits.find((b) => String(b.id) === e.id)!;
        assert.ok(bu, e.id);
        assert.equal(bu.parentId, parent === undefined ? 1 : Number(parent.id), `${e.name}: nested under its parent unit`);
      } else if (e.type === TYPES[1] || e.type === TYPES[2]) {
        const [buId, consumerId] = e.id.split("/").map(Number);
        const c = s.consumers.find((x) => x.id === consumerId)!;
        assert.equal(c.businessUnitId, buId, `${e.name}: ${e.id} names the consumer's own unit`);
        assert.equal(parent.id, e.type === TYPES[1] ? String(buId) : e.id, `${e.name}: under its unit (a node under its consumer)`);
        if (e.type === TYPES[2]) assert.ok(s.nodes.some((n) => n.consumerId === consumerId));
      } else {
        const [, buId, agent, target] = /^(\d+)\/(\d+):(\d+)$/.exec(e.id)!.map(Number);
        assert.ok(s.proxies.some((p) => p.agentConsumerId === agent && p.targetConsumerId === target));
        assert.equal(parent.id, String(buId));
      }
    }
    // A word TypeScript, Python or Go reserve is no variable's name.
    assert.deepEqual(
      file.resources.filter((e: any) => e.logicalName.startsWith("default")).map((e: any) => e.name),
      ["defaultUnit", "defaultDefault", "defaultDefaultNode"],
    );
    // The portal's text reaches no key and no value: the file is the same with every hostile name taken out.
    for (const name of HOSTILE.filter((n) => /[^A-Za-z]/.test(n)))
      assert.ok(!r.out.includes(JSON.stringify(name).slice(1, -1)), `${JSON.stringify(name)} is not in the file`);
  });

  it("the tenants export's walk: the same reads, the same counts, the node it leaves out left out, its review notes at the import's names", async () => {
    let mark = emu.requests().length;
    const json = await exportCli(emu, ["--bunit", "1", "--format", "json", "--no-progress"]);
    const tenantsReads = readsSince(emu, mark).map((q) => `${q.method} ${q.path}`);
    mark = emu.requests().length;
    const r = await exportCli(emu, ["--bunit", "1", "--format", "pulumi-import", "--no-progress"]);
    assert.deepEqual(
      readsSince(emu, mark)
        .map((q) => `${q.method} ${q.path}`)
        .sort(),
      tenantsReads.sort(),
    );
    const entries = JSON.parse(r.out).resources;
    const n = (t: number) => entries.filter((e: any) => e.type === TYPES[t]).length;
    const tenants = /exported (\d+) business units, (\d+) consumers, (\d+) nodes/.exec(json.err)!;
    assert.deepEqual(
      [n(0), n(1), n(2)],
      [1, 2, 3].map((i) => Number(tenants[i])),
    );
    const lines = r.err.trim().split("\n");
    assert.match(
      lines[lines.length - 1],
      new RegExp(
        `^exported ${n(0)} business units, ${n(1)} consumers, ${n(2)} nodes, ${n(3)} proxy relations for pulumi import \\(and 2 nodes left out until their values are fixed\\); \\d+ values need review`,
      ),
    );
    assert.ok(
      !entries.some((e: any) => e.logicalName === "refused-values/zero-cpus" && e.type === TYPES[2]),
      "the node with 0 cpus is left out",
    );
    assert.ok(
      entries.some((e: any) => e.logicalName === "refused-values/zero-cpus" && e.type === TYPES[1]),
      "its consumer is imported",
    );
    const reviews = lines.filter((l) => l.startsWith("review "));
    assert.equal(
      reviews.length,
      json.err.split("\n").filter((l) => l.startsWith("review ")).length,
      "one line per review note of the tenants export",
    );
    assert.ok(
      reviews.includes(
        "review refusedValues.invoiceDay: invoiceDay must be an integer from 1 to 28, got 30; the import takes it as the portal has it and the plugin refuses it at preview: fix it on the portal and in the generated code",
      ),
      reviews.join("\n"),
    );
    assert.ok(
      reviews.includes(
        "review refusedValuesZeroCpus.node.cpuCount: cpuCount must be an integer from 1 to 4096, got 0; the node is not in the import file: fix it on the portal, then export again",
      ),
      reviews.join("\n"),
    );
    assert.ok(
      reviews.includes(
        "review tenantADb01.node.cpuCount: the portal has no cpuCount, which the plugin needs: the node is not in the import file; set it on the portal, then export again",
      ),
      reviews.join("\n"),
    );
    assert.ok(
      reviews.some((l) => l.startsWith("review aB.name: name contains the control character U+000A")),
      reviews.join("\n"),
    );
    // A review line is one line: no line break or bidi control of a name reaches stderr as it is.
    for (const raw of ["a\nb", "\u2028", "\u202e"]) assert.ok(!r.err.includes(raw), `${JSON.stringify(raw)} on stderr`);
  });

  it("--provider <name>=<urn>: a name table and every entry on that provider; a malformed one refused before any request", async () => {
    const r = await exportCli(emu, ["--bunit", "1", "--format", "pulumi-import", "--provider", `portal=${PROVIDER_URN}`, "--no-progress"]);
    assert.equal(r.code, 0, r.err);
    const file = JSON.parse(r.out);
    assert.deepEqual(file.nameTable, { portal: PROVIDER_URN });
    assert.ok(file.resources.every((e: any) => e.provider === "portal"));
    const cases: Array<[string[], string]> = [
      [
        ["--format", "pulumi-import", "--provider", PROVIDER_URN],
        `--provider needs <name>=<urn>, the name the program gives the provider (letters, digits, _), got ${JSON.stringify(PROVIDER_URN)}`,
      ],
      [
        ["--format", "pulumi-import", "--provider", "portal=urn:pulumi:prod::adopted::pulumi:providers:aws::portal"],
        '--provider portal=: "urn:pulumi:prod::adopted::pulumi:providers:aws::portal" is not the URN of a backupportal provider (urn:pulumi:<stack>::<project>::pulumi:providers:backupportal::<name>; `pulumi stack --show-urns` lists it)',
      ],
      [["--provider", `portal=${PROVIDER_URN}`], "--provider goes with --format pulumi-import"],
      [
        ["--format", "pulumi-import", "--merge", path.join(dir, "m.yaml")],
        "--merge writes the stack file's YAML; it takes no --format pulumi-import",
      ],
    ];
    fs.writeFileSync(path.join(dir, "m.yaml"), "config: {}\n");
    for (const [argv, message] of cases) {
      const mark = emu.requests().length;
      const refused = await exportCli(emu, argv);
      assert.equal(refused.code, 2, argv.join(" "));
      assert.equal(refused.err, usageErrorText(COMMAND, message), argv.join(" "));
      assert.deepEqual(readsSince(emu, mark), [], `${argv.join(" ")}: no request`);
    }
  });

  it("--out writes what stdout would hold; an existing file is refused without --force and replaced with it", async () => {
    const out = path.join(dir, "import.json");
    const stdout = await exportCli(emu, ["--bunit", "1", "--format", "pulumi-import", "--no-progress"]);
    const written = await exportCli(emu, ["--bunit", "1", "--format", "pulumi-import", "--out", out, "--no-progress"]);
    assert.equal(written.code, 0, written.err);
    assert.equal(written.out, "");
    assert.equal(fs.readFileSync(out, "utf8"), stdout.out);
    const again = await exportCli(emu, ["--bunit", "1", "--format", "pulumi-import", "--out", out]);
    assert.equal(again.code, 2);
    assert.match(again.err, /exists; --merge .* updates it, --force replaces it/);
    fs.writeFileSync(out, "old");
    const forced = await exportCli(emu, ["--bunit", "1", "--format", "pulumi-import", "--out", out, "--force", "--no-progress"]);
    assert.equal(forced.code, 0, forced.err);
    assert.equal(fs.readFileSync(out, "utf8"), stdout.out);
  });

  it("--stack-state: a file that is no stack export is one line before any request; it goes with --format pulumi-import only", async () => {
    const cases: Array<[string, string]> = [
      ["{", "not JSON"],
      ['{"version": 3}', "has no deployment.resources, so it is no stack export"],
    ];
    for (const [text, what] of cases) {
      const file = path.join(dir, "state.json");
      fs.writeFileSync(file, text);
      const mark = emu.requests().length;
      const r = await exportCli(emu, ["--bunit", "1", "--format", "pulumi-import", "--stack-state", file]);
      assert.equal(r.code, 1, text);
      assert.equal(r.err.split("\n").filter(Boolean).length, 1, r.err);
      assert.ok(r.err.startsWith(`backup-portal export: ${file}: ${what}`), r.err);
      assert.match(r.err, /give the output of `pulumi stack export --stack <stack>`\n$/);
      assert.deepEqual(
        readsSince(emu, mark).filter((q) => q.path !== "/v1/me"),
        [],
        "no portal read",
      );
    }
    const refused = await exportCli(emu, ["--stack-state", path.join(dir, "state.json")]);
    assert.equal(refused.err, usageErrorText(COMMAND, "--stack-state goes with --format pulumi-import"));
  });

  it("the progress line, as the tenants export shows it", async () => {
    const r = await exportCli(emu, ["--bunit", "1", "--format", "pulumi-import", "--progress"]);
    assert.equal(r.code, 0, r.err);
    assert.match(r.err, /export: portal reads/);
  });
});
