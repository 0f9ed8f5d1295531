// A portal whose business-unit lists are not a tree (issue 36 item 8): a child list that points back up made the
// export read without end (7,734 requests in 25 s), and a unit that moved during the walk was exported twice.
// The walk stops at the first unit it is given twice, with one line saying so, after a handful of reads.
import assert from "node:assert/strict";
import { BusinessUnit } from "../../provider/portal/types";
import { readPortalTree, TreeError } from "../../provider/export/read";
import { clientSuite } from "../support/portal";
import { plant, readsSince } from "./support";

describe("export: a portal whose lists are not a tree", function () {
  this.timeout(30_000);
  const p = clientSuite();

  /** Root 1 → a → b, and c beside a; the client's child lists changed by `rewrite`. */
  async function walk(rewrite: (parentId: number, list: BusinessUnit[], ids: Record<string, number>) => Promise<BusinessUnit[]>) {
    const [a, b, c] = [0, 1, 2].map((i) => ({ name: `unit ${i}`, registrationNumber: "R", timeZoneId: 1 }));
    const made = plant(p.emu, [{ ...a, children: [b] }, c]).businessUnits;
    const ids = { a: made[0], b: made[1], c: made[2] };
    const real = p.client.businessUnits.children.bind(p.client.businessUnits);
    let lists = 0;
    // Bounded: a walk that does not stop gets empty lists after 100, and fails the assertions instead of hanging.
    p.client.businessUnits.children = async (id: number) => (++lists > 100 ? [] : rewrite(id, await real(id), ids));
    await p.client.businessUnits.children(1); // the token first: the reads counted are the walk's
    const mark = p.emu.requests().length;
    const result = await readPortalTree(p.client, 1).then(
      () => undefined,
      (e: unknown) => e,
    );
    return { error: result as Error | undefined, reads: readsSince(p.emu, mark).length, ids };
  }

  it("a child list that points back up to the root stops the export at once, with one line", async () => {
    const root = await p.client.businessUnits.get(1);
    const { error, reads, ids } = await walk(async (id, list, x) => (id === x.b ? [...list, root] : list));
    assert.ok(error instanceof TreeError, String(error));
    assert.equal(
      error.message,
      `the portal lists business unit 1 below ${ids.b}, but it is the export's root (rootId 1): its tree has a cycle, or the unit ` +
        "moved while the export read it; nothing was written. Export again; if it repeats, check that business unit's parent on the portal",
    );
    assert.equal(error.message.includes("\n"), false);
    assert.ok(reads < 40, `the walk stopped after ${reads} reads`);
  });

  it("a unit listed under a second parent (moved during the walk) is not exported twice", async () => {
    const { error, ids } = await walk(async (id, list, x) => {
      if (id !== x.b) return list;
      await new Promise((r) => setTimeout(r, 20)); // c is listed below the root first
      return [...list, await p.client.businessUnits.get(x.c)];
    });
    assert.ok(error instanceof TreeError, String(error));
    assert.match(error.message, new RegExp(`^the portal lists business unit ${ids.c} below ${ids.b}, but it was listed below 1 already `));
  });
});
