// `backup-portal export` against the emulator: the stack file it writes, that the first `pulumi up` of it (the
// stack program through the engine stand-in) adopts everything without a write and the next preview is empty,
// the reads against the API's minimum, read-only for real, secrets, progress, JSON and merge.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { parse } from "yaml";
import { startEmulator } from "../../emulator";
import { portalSuite, writesSince } from "../resources/support";
import { runStack, settings } from "../stacks/support";
import { validateTenants } from "../../provider/tenants/validate";
import { toTenants } from "../../provider/export/map";
import { exportPortal, minimumReads } from "../../provider/export";
import { plain } from "../../provider/export/out";
import { clientFor } from "../support/portal";
import { exportCli, plant, readsSince } from "./support";
import { schemaPath } from "../../provider/cli/export";
import { VARIED } from "./fixtures";
import { captured } from "../support/captured";
import { run as validateCommand } from "../../provider/cli/validate";

type StackFile = { config: Record<string, unknown> };
const tenantsOf = (text: string) => (parse(text) as StackFile).config["backup-portal:tenants"] as Record<string, any>;

describe("backup-portal export", function () {
  this.timeout(120_000);
  const p = portalSuite();

  it("writes the tenants block the stack reads: adopted, names for reference data, slug keys numbered in id order", async () => {
    plant(p.emu, VARIED);
    const r = await exportCli(p.emu);
    assert.equal(r.code, 0, r.err);
    const file = parse(r.out) as StackFile;
    assert.equal(file.config["backup-portal:rootBusinessUnitId"], "1", "a string, as the Pulumi CLI writes it back");
    const t = tenantsOf(r.out);
    assert.deepEqual(Object.keys(t), ["acme-ab", "acme-ab-2", "refused-values", "tenant-a", "tenant-b"], "sorted, the later id numbered");
    const acme = t["acme-ab"];
    assert.equal(acme.adoptId > 3, true);
    assert.equal(t["acme-ab-2"].name, "acme ab");
    assert.equal(acme.timeZone, "W. Europe Standard Time", "a time zone by its windowsId");
    assert.deepEqual(acme.domainFilter, ["STANDARD", "30DAYS"]);
    assert.deepEqual(acme.clientOptionSetFilter, ["DEDUP_AND_COMPRESS"]);
    assert.equal(acme.note, "first line\nsecond line\twith a tab");
    assert.deepEqual(Object.keys(acme.consumers), ["backup-proxy", "no-node", "web", "web-2"]);
    assert.equal(acme.consumers.web.name, "web");
    assert.equal(acme.consumers["web-2"].name, "Web");
    assert.deepEqual(acme.consumers.web.node, {
      adopt: true,
      operatingSystem: "Linux",
      type: "File server",
      domain: "STANDARD",
      clientOptionSet: "DEDUP_AND_COMPRESS",
      contact: "ops@acme.example",
      cpuCount: 4,
      tsmName: "ACME-WEB",
    });
    assert.equal(acme.consumers["no-node"].node, undefined);
    assert.deepEqual(acme.proxies, [
      { agent: "backup-proxy", target: "web", adopt: true },
      { agent: "backup-proxy", target: "web-2", adopt: true },
    ]);
    assert.deepEqual(Object.keys(acme.businessUnits), ["acme-olfabrik", "business-unit"], "accents dropped; a name with no slug");
    assert.deepEqual(Object.keys(acme.businessUnits["business-unit"].consumers), ["consumer", "consumer-2"]);
    assert.deepEqual(validateTenants(t, { hasSecret: () => false }), [], "the stack's own validation takes it");
  });

  it("comments out what the rules refuse, with the reason, and counts it; nothing is dropped silently", async () => {
    plant(p.emu, VARIED);
    const r = await exportCli(p.emu);
    const t = tenantsOf(r.out);
    const refused = t["refused-values"];
    assert.equal(refused.invoiceDay, undefined, "invoiceDay 30 is not written as a value");
    assert.match(r.out, /# invoiceDay: 30\n\s+# review: invoiceDay must be an integer from 1 to 28, got 30; left out/);
    assert.equal(refused.consumers["zero-cpus"].node, undefined, "a node the stack would refuse stays out");
    assert.equal(refused.consumers["zero-cpus"].adoptId > 0, true, "its consumer is still adopted");
    assert.match(r.out, /# node: left out until the values marked review below are fixed/);
    assert.match(r.out, /#\s+# cpuCount: 0\n/);
    // Seed: db-01 has no cpuCount. So three values: invoiceDay, two cpuCounts; the two nodes are left out.
    assert.match(
      r.err,
      /^exported 7 business units, 11 consumers, 6 nodes \(and 2 nodes left out as a comment until their values are fixed\); 3 values need review \(see comments\)\n$/m,
    );
    assert.equal((r.out.match(/# review: /g) ?? []).length, 3, "one comment per counted value");
    // What export counts is what the file declares: validate, reading it, counts the same.
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "export-count-")), "Pulumi.prod.yaml");
    try {
      fs.writeFileSync(file, r.out);
      const v = await captured((io) => validateCommand([file, "--offline"], io));
      assert.match(v.out + v.err, /: valid: 7 business units, 11 consumers, 6 nodes;/, v.out + v.err);
    } finally {
      fs.rmSync(path.dirname(file), { recursive: true, force: true });
    }
  });

  it("round trip: the first up of the export writes nothing, the next preview is empty, and the portal exports the same", async () => {
    plant(p.emu, VARIED);
    const first = await exportCli(p.emu);
    assert.equal(first.code, 0, first.err);
    const eng = p.engine();
    const mark = p.emu.requests().length;
    const up = await runStack(eng, settings(tenantsOf(first.out), p.client));
    assert.deepEqual(writesSince(p.emu, mark), [], "no POST, PUT or DELETE: every object adopted as it is");
    // 7 business units, 11 consumers, 6 nodes (two are left out for review), 2 proxy relations, and the program's
    // name check (a create that sends nothing).
    assert.equal(up.steps.length, 27);
    assert.ok(
      up.steps.every((s) => s.op === "create"),
      JSON.stringify(up.steps.map((s) => s.op)),
    );
    const preview = await runStack(eng, settings(tenantsOf(first.out), p.client), true);
    assert.deepEqual(
      preview.steps.filter((s) => s.op !== "same"),
      [],
      "the preview after adoption shows no change",
    );
    const again = await exportCli(p.emu);
    assert.equal(again.out, first.out, "the adopted portal exports byte for byte the same");
  });

  it("reads at the API minimum: a list of children and of consumers per business unit, a node read per consumer, each reference list once", async () => {
    plant(p.emu, VARIED);
    const mark = p.emu.requests().length;
    const r = await exportCli(p.emu, ["--bunit", "1"]);
    assert.equal(r.code, 0, r.err);
    const reads = readsSince(p.emu, mark);
    assert.deepEqual(
      reads.filter((x) => x.method !== "GET"),
      [],
    );
    const s = p.emu.state();
    const below = new Set<number>();
    for (let grew = true; grew;) {
      grew = false;
      for (const b of s.businessUnits)
        if (!below.has(b.id) && (b.parentId === 1 || below.has(b.parentId!))) {
          below.add(b.id);
          grew = true;
        }
    }
    const consumers = s.consumers.filter((c) => below.has(c.businessUnitId)).length;
    // Root's children list and its own consumers, two lists per business unit, a node read per consumer, five
    // reference lists.
    const minimum = 2 + 2 * below.size + consumers + 5;
    assert.equal(reads.length, minimum, reads.map((x) => x.path).join("\n"));
    // The figure the benchmark prints is the same count, made from the tree read.
    assert.equal(minimumReads((await exportPortal(p.client, 1)).tree), minimum);
    const paths = reads.map((x) => x.path);
    assert.equal(new Set(paths).size, paths.length, "nothing is read twice");
  });

  it("the same portal twice gives byte-identical files; JSON holds the same values", async () => {
    plant(p.emu, VARIED);
    const a = await exportCli(p.emu);
    const b = await exportCli(p.emu);
    assert.equal(a.out, b.out);
    const j = await exportCli(p.emu, ["--format", "json"]);
    assert.equal(j.code, 0, j.err);
    assert.deepEqual(JSON.parse(j.out), parse(a.out));
    assert.match(j.err, /^review tenants\.refused-values\.invoiceDay: invoiceDay must be an integer from 1 to 28/m);
  });

  it("secrets stay out: no password field, a password note on each node; a portal's node password never reaches the file", async () => {
    plant(p.emu, VARIED);
    await p.client.nodes.setPassword(2, 1, "Node-Pw-Do-Not-Leak-1");
    const r = await exportCli(p.emu);
    assert.doesNotMatch(JSON.stringify(parse(r.out)), /passwordSecret|tsmPassword/, "no password key in the values");
    for (const text of [r.out, r.err]) {
      assert.doesNotMatch(text, /Node-Pw-Do-Not-Leak-1|tsmPassword/);
      // The username (admin, as the emulator's password is) is a connection key of the file; the password never is.
      const other = text.replace(/^ {2}backup-portal:username: admin\n/m, "");
      assert.ok(!other.includes("admin\n") && !other.includes(": admin"), "the account's password is not written");
      assert.doesNotMatch(text, /^\s*backup-portal:password:/m);
    }
    const nodes = (r.out.match(/^\s+node:$/gm) ?? []).length;
    assert.equal((r.out.match(/# password: cannot be read back from the portal/g) ?? []).length, nodes);
    // A portal that answers a node's password (the real one does): the mapping never writes it.
    const tree = {
      rootId: 1,
      references: { list: () => [{ id: 1, name: "X", windowsId: "X" }] },
      businessUnits: [
        {
          parentId: 1,
          children: [],
          bu: { id: 9, name: "B", registrationNumber: "R", timeZone: { id: 1 } },
          consumers: [
            {
              consumer: { id: 5, name: "c" },
              node: { id: 5, operatingSystem: { id: 1 }, type: { id: 1 }, domain: { id: 1 }, cpuCount: 1, tsmPassword: "LEAK-ME" },
            },
          ],
        },
      ],
    };
    const text = JSON.stringify(plain(toTenants(tree as any).tenants));
    assert.doesNotMatch(text, /LEAK-ME|tsmPassword/);
  });

  it("progress (done/total) on stderr only when stderr is a terminal", async () => {
    plant(p.emu, VARIED);
    const tty = await exportCli(p.emu, [], { errIsTTY: true });
    assert.match(tty.err, /\r\x1b\[Kexport: portal reads: \d+\/\d+ entries/);
    const quiet = await exportCli(p.emu, [], { errIsTTY: false });
    assert.doesNotMatch(quiet.err, /portal reads/);
    assert.equal(tty.out, quiet.out);
  });

  it("--out writes the file; bad arguments exit 2 with the usage", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "export-"));
    try {
      const file = path.join(dir, "Pulumi.prod.yaml");
      const r = await exportCli(p.emu, ["--out", file]);
      assert.equal(r.code, 0, r.err);
      assert.equal(r.out, "");
      // stdout here (this checkout's folder) names the schema beside its stack files; the file, from its own folder.
      const stdout = (await exportCli(p.emu)).out;
      const schemaLine = /^# yaml-language-server: \$schema=\S+\n/;
      assert.equal(fs.readFileSync(file, "utf8"), stdout.replace(schemaLine, `# yaml-language-server: $schema=${schemaPath(dir)}\n`));
      const bad = await exportCli(p.emu, ["--format", "toml"]);
      assert.equal(bad.code, 2);
      assert.match(bad.err, /--format needs yaml, json or pulumi-import, got "toml"/);
      const mark = p.emu.requests().length;
      const both = await exportCli(p.emu, ["--format", "json", "--merge", file]);
      assert.equal(both.code, 2);
      assert.match(both.err, /--merge writes the stack file's YAML; it takes no --format json\nusage: /);
      assert.equal(p.emu.requests().length, mark, "refused before any request");
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("backup-portal export against a read-only portal", function () {
  this.timeout(60_000);

  it("succeeds where every write fails: it only reads", async () => {
    const emu = await startEmulator({ quiet: true, readOnly: true });
    const client = clientFor(emu);
    try {
      plant(emu, VARIED);
      await assert.rejects(client.consumers.create(2, { name: "x" }), /read-only/, "the emulator does refuse writes");
      const r = await exportCli(emu);
      assert.equal(r.code, 0, r.err);
      assert.match(r.err, /exported 7 business units, 11 consumers, 6 nodes \(and 2 nodes left out/);
      assert.ok(emu.requests().every((x) => x.method === "GET" || x.path === "/v1/oauth" || x.status === 403));
    } finally {
      client.close();
      await emu.close();
    }
  });
});
