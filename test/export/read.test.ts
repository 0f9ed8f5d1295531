// The export's read and its summary, in the mocha process (so the mutation run sees them; export.test.ts runs the
// exported stack through the provider host, which Stryker's sandbox cannot): the reads run at most `concurrency`
// at once, the progress counts every read and ends at done = total = the reads the emulator saw, which is the
// minimum `minimumReads` computes; the summary line and the header say what the issue says.
import assert from "node:assert/strict";
import { startEmulator, Emulator } from "../../emulator";
import { exportPortal, header, minimumReads, readPortalTree, summaryLine, toTenants } from "../../provider/export";
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
    const progress: Array<[number, number]> = [];
    const mark = emu.requests().length;
    const tree = await readPortalTree(client, 1, { concurrency: 2, onProgress: (d, t) => progress.push([d, t]) });
    const reads = readsSince(emu, mark).length;
    assert.ok(most >= 1 && most <= 2, `at most 2 reads at once, saw ${most}`);
    const [done, total] = progress[progress.length - 1];
    assert.deepEqual([done, total], [reads, reads], "the last progress: every read done");
    assert.ok(
      progress.every(([d, t]) => d <= t),
      "done never passes total",
    );
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
    const progress: Array<[number, number]> = [];
    const r = await exportPortal(clientFor(emu), 1, { onProgress: (d, t) => progress.push([d, t]) });
    const total = minimumReads(r.tree);
    assert.deepEqual(progress[progress.length - 1], [total, total]);
    assert.ok(progress.length >= total, `one call per read at least, saw ${progress.length} for ${total}`);
  });

  it("the summary line counts each kind and the values to review, singular and plural", () => {
    assert.equal(
      summaryLine({ counts: { businessUnits: 212, consumers: 430, nodes: 415 }, reviews: [{}, {}, {}] as never }),
      "exported 212 business units, 430 consumers, 415 nodes; 3 values need review (see comments)",
    );
    assert.equal(
      summaryLine({ counts: { businessUnits: 1, consumers: 1, nodes: 1 }, reviews: [{}] as never }),
      "exported 1 business unit, 1 consumer, 1 node; 1 value needs review (see comments)",
    );
    assert.equal(
      summaryLine({ counts: { businessUnits: 0, consumers: 0, nodes: 0 }, reviews: [] }),
      "exported 0 business units, 0 consumers, 0 nodes; 0 values need review (see comments)",
    );
  });

  it("the header names the root, adoption, the review marks and how to set a node's password", () => {
    assert.deepEqual(header(7), [
      "Exported by `backup-portal export`: everything below business unit 7, each object adopted",
      "(adoptId, adopt: true), so the first `pulumi up` takes it over. Review the lines marked `review:` before you commit.",
      "A node's password cannot be read back from the portal (the backup client rotates it), so none is exported.",
      "To set one from the stack: `pulumi config set --secret <key> <password>`, and passwordSecret: <key> on the node.",
    ]);
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
    // 1 list of the root's children; for each child 1 of its children, 1 of its consumers, a node read each (2, 1);
    // the root's operating systems, node types and policy domains; each child's own policy domains (for 99, 98).
    // No time zones, no option sets.
    assert.equal(reads.length, 13, reads.join("\n"));
    assert.deepEqual(
      reads.filter((p) => /domain/i.test(p)).sort(),
      [root, child, third].map((id) => `/v1/bunits/${id}/defaultserver/domains`).sort(),
    );
    assert.equal(reads.filter((p) => /timezone|clientoptionset/i.test(p)).length, 0, reads.join("\n"));
    assert.equal(minimumReads(tree), 13);
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
