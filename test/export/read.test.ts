// The export's read and its summary, in the mocha process (so the mutation run sees them; export.test.ts runs the
// exported stack through the provider host, which Stryker's sandbox cannot): the reads run at most `concurrency`
// at once, the progress counts every read and ends at done = total = the reads the emulator saw, which is the
// minimum `minimumReads` computes; the summary line and the header say what the issue says.
import assert from "node:assert/strict";
import { startEmulator, Emulator } from "../../emulator";
import { exportPortal, header, leftOutLine, minimumReads, readPortalTree, summaryLine, toTenants } from "../../provider/export";
import { plain } from "../../provider/export/out";
import { clientFor } from "../support/portal";
import { VARIED } from "./fixtures";
import { plant, readsSince } from "./support";

describe("backup-portal export: the read and the summary", () => {
  let emu: Emulator;
  before(async () => {
    emu = await startEmulator({ quiet: true });
    plant(emu, VARIED);
  });
  after(() => emu.close());

  it("reads at most `concurrency` at once, reports every read, and ends at the minimum the tree needs", async () => {
    const client = clientFor(emu);
    await client.businessUnits.children(1); // the token first, so every counted request is a read of the tree
    let active = 0;
    let most = 0;
    const real = client.consumers.list.bind(client.consumers);
    client.consumers.list = async (id: number) => {
      most = Math.max(most, ++active);
      try {
        await new Promise((r) => setTimeout(r, 5));
        return await real(id);
      } finally {
        active--;
      }
    };
    const progress: Array<[number, number | undefined]> = [];
    const mark = emu.requests().length;
    const tree = await readPortalTree(client, 1, { concurrency: 2, onProgress: (d, t) => progress.push([d, t]) });
    const reads = readsSince(emu, mark).length;
    assert.ok(most >= 1 && most <= 2, `at most 2 reads at once, saw ${most}`);
    const [done, total] = progress[progress.length - 1];
    assert.deepEqual([done, total], [reads, reads], "the last progress: every read done");
    assert.ok(
      progress.every(([d, t]) => t === undefined || d <= t),
      "done never passes total",
    );
    // The walk finds its reads as it goes: no total until the last read has started, then the same total to the
    // end, and done = total (100 %) once.
    const known = progress.findIndex(([, t]) => t !== undefined);
    assert.equal(progress[0][1], undefined, "no total while the walk goes on");
    assert.ok(known > progress.length / 2, `the total is known only near the end (at ${known} of ${progress.length})`);
    assert.deepEqual(new Set(progress.slice(known).map(([, t]) => t)), new Set([reads]));
    assert.equal(progress.filter(([d, t]) => t !== undefined && d >= t).length, 1, "done = total once");
    assert.equal(minimumReads(tree), reads, "the reads made are the fewest the tree needs");
    assert.ok(tree.businessUnits.length > 0 && tree.references.list("timeZone", 1).length > 0);
  });

  it("with the default concurrency, up to 16 reads run at once", async () => {
    const client = clientFor(emu);
    let active = 0;
    let most = 0;
    const real = client.nodes.find.bind(client.nodes);
    client.nodes.find = async (bu: number, c: number) => {
      most = Math.max(most, ++active);
      try {
        await new Promise((r) => setTimeout(r, 20));
        return await real(bu, c);
      } finally {
        active--;
      }
    };
    await readPortalTree(client, 1);
    assert.ok(most > 2 && most <= 16, `between 3 and 16 node reads at once, saw ${most}`);
  });

  it("renders YAML by default and JSON when asked, with the same tenants", async () => {
    const client = clientFor(emu);
    const yaml = await exportPortal(client, 1);
    const json = await exportPortal(client, 1, { format: "json" });
    assert.match(yaml.text, /^# Exported by `backup-portal export`: everything below business unit 1/m);
    assert.deepEqual(JSON.parse(json.text).config["backup-portal:tenants"], plain(json.tenants));
    assert.equal(yaml.text.includes('"config"'), false, "the default is not JSON");
    assert.deepEqual(plain(json.tenants), plain(yaml.tenants));
  });

  it("export passes the read's progress on to its caller", async () => {
    const progress: Array<[number, number | undefined]> = [];
    const r = await exportPortal(clientFor(emu), 1, { onProgress: (d, t) => progress.push([d, t]) });
    const total = minimumReads(r.tree);
    assert.deepEqual(progress[progress.length - 1], [total, total]);
    assert.ok(progress.length >= total, `one call per read at least, saw ${progress.length} for ${total}`);
  });

  it("the summary line counts each kind declared and the values to review, singular and plural; nodes left out apart", () => {
    assert.equal(
      summaryLine({ counts: { businessUnits: 212, consumers: 430, nodes: 415, nodesLeftOut: 0 }, reviews: [{}, {}, {}] as never }),
      "exported 212 business units, 430 consumers, 415 nodes; 3 values need review (see comments)",
    );
    assert.equal(
      summaryLine({ counts: { businessUnits: 1, consumers: 1, nodes: 1, nodesLeftOut: 1 }, reviews: [{}] as never }),
      "exported 1 business unit, 1 consumer, 1 node (and 1 node left out as a comment until its values are fixed); 1 value needs review (see comments)",
    );
    assert.equal(
      summaryLine({ counts: { businessUnits: 0, consumers: 0, nodes: 0, nodesLeftOut: 2 }, reviews: [] }),
      "exported 0 business units, 0 consumers, 0 nodes (and 2 nodes left out as a comment until their values are fixed); 0 values need review (see comments)",
    );
  });

  it("the header names the root, adoption, the review marks and how to set a node's password", () => {
    assert.deepEqual(header(7), [
      "Exported by `backup-portal export`: everything below business unit 7, each object adopted",
      "(adoptId, adopt: true), so the first `pulumi up` takes it over. Review the lines marked `review:` before you commit.",
      "A node's password cannot be read back from the portal (the backup client rotates it), so none is exported.",
      "To set one from the stack: `pulumi config set --secret backup-portal:<key>` (it asks for the value, or reads it from stdin), and passwordSecret: <key> on the node.",
    ]);
    // With the schema's path: its line first, where the YAML language server looks for it.
    assert.deepEqual(header(7, "../node_modules/backup-portal-pulumi/stacks/tenants.schema.json"), [
      "yaml-language-server: $schema=../node_modules/backup-portal-pulumi/stacks/tenants.schema.json",
      ...header(7),
    ]);
  });

  it("reads the root's own consumers, which the file cannot hold, and says so in one line: why, and what to do", async () => {
    const tree = await readPortalTree(clientFor(emu), 2);
    assert.deepEqual(tree.businessUnits, []);
    assert.deepEqual(
      tree.rootConsumers?.map((c) => c.name),
      ["web-01", "db-01"],
    );
    assert.equal(
      leftOutLine(tree, 1),
      'business unit 2\'s own 2 consumers ("web-01", "db-01") are not exported: a stack file declares the business units below ' +
        "backup-portal:rootBusinessUnitId, not that unit's own consumers; to manage them as code, export from its parent (--bunit 1), " +
        "which adopts business unit 2 with them",
    );
    const named = (n: number) => Array.from({ length: n }, (_, i) => ({ id: i + 1, name: `c${i + 1}` }));
    assert.equal(leftOutLine({ rootId: 5, rootConsumers: [] }), undefined);
    assert.match(
      leftOutLine({ rootId: 5, rootConsumers: named(1) })!,
      /^business unit 5's own consumer \("c1"\) is not exported: .* to manage it as code, export from the business unit above it \(--bunit <its id>, with an account that can read it\), which adopts business unit 5 with it$/,
    );
    assert.match(
      leftOutLine({ rootId: 5, rootConsumers: named(5) })!,
      /^business unit 5's own 5 consumers \("c1", "c2", "c3", and 2 more\) are not exported/,
    );
  });
});

describe("backup-portal export: the reference lists a tree needs", () => {
  let emu: Emulator;
  after(() => emu?.close());

  it("reads each list the names need once, and a business unit's own list only for an id the root's list lacks", async () => {
    emu = await startEmulator({ quiet: true });
    // Below the root: two business units without a time zone, nodes without an option set, one in each naming a
    // policy domain (99, 98) the root's list lacks.
    const made = plant(emu, [
      {
        name: "Root",
        registrationNumber: "R",
        timeZoneId: 1,
        children: [
          {
            name: "Other server",
            registrationNumber: "O",
            timeZoneId: undefined as unknown as number,
            consumers: [
              { name: "dangling", node: { os: 3, type: 1, domain: 99, cpuCount: 1 } },
              { name: "plain", node: { os: 3, type: 1, domain: 1, cpuCount: 1 } },
            ],
          },
          {
            name: "Third server",
            registrationNumber: "T",
            timeZoneId: undefined as unknown as number,
            consumers: [{ name: "dangling too", node: { os: 3, type: 1, domain: 98, cpuCount: 1 } }],
          },
        ],
      },
    ]);
    const [root, child, third] = made.businessUnits;
    const client = clientFor(emu);
    await client.businessUnits.children(1); // the token first, so every counted request is a read of the tree
    // A portal may leave the time zone out altogether (the emulator sends at least its id): the third one has none.
    const children = client.businessUnits.children.bind(client.businessUnits);
    client.businessUnits.children = async (id: number) =>
      (await children(id)).map((b) => (b.id === third ? { ...b, timeZone: undefined } : b));
    const mark = emu.requests().length;
    const tree = await readPortalTree(client, root);
    const reads = readsSince(emu, mark).map((r) => r.path.replace(/\?.*/, ""));
    // 1 list of the root's children and 1 of its own consumers; for each child 1 of its children, 1 of its consumers,
    // a node read each (2, 1); the root's operating systems, node types and policy domains; each child's own policy
    // domains (for 99, 98). No time zones, no option sets.
    assert.equal(reads.length, 14, reads.join("\n"));
    assert.deepEqual(
      reads.filter((p) => /domain/i.test(p)).sort(),
      [root, child, third].map((id) => `/v1/bunits/${id}/defaultserver/domains`).sort(),
    );
    assert.equal(reads.filter((p) => /timezone|clientoptionset/i.test(p)).length, 0, reads.join("\n"));
    assert.equal(minimumReads(tree), 14);
    assert.deepEqual(tree.references.list("clientOptionSet", child), [], "a kind no name needs is an empty list");
    assert.deepEqual(
      toTenants(tree)
        .reviews.filter((r) => r.path.endsWith(".timeZone"))
        .map((r) => `${r.path}: ${r.message}`),
      [
        "tenants.other-server.timeZone: the stack needs a timeZone: set it on the portal or here",
        "tenants.third-server.timeZone: the stack needs a timeZone: set it on the portal or here",
      ],
      "no time zone, in either shape: a review note, not a crash",
    );
  });
});
