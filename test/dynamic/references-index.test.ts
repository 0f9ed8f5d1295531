// References.childOf and consumerOf find an id in the parent's list through an index made once per list read (a
// stack of 1,500 adopted tenants asks the root's children list 1,500 times): the same answers as a search of the
// list, the first of an id when a list holds it twice, one read of the list for any number of lookups, a read of
// the object itself for an id the list lacks, and a failed list read forgotten, index and all.
import assert from "node:assert/strict";
import { MisplacedObjectError, References } from "../../provider/dynamic/references";
import { PortalClient } from "../../provider/portal/client";

interface Unit {
  id: number;
  name: string;
  parentBusinessUnit?: { id: number };
}

/** A portal of lists in memory, counting each read; `failNext` makes the next list read fail. */
function fakePortal(children: Record<number, Unit[]>, consumers: Record<number, Array<{ id: number; name: string }>>) {
  const reads: string[] = [];
  let failNext = false;
  const fail = () => {
    if (!failNext) return;
    failNext = false;
    throw new Error("the portal did not answer");
  };
  const client = {
    url: "http://fake.portal",
    businessUnits: {
      children: async (id: number) => {
        reads.push(`children ${id}`);
        fail();
        return (children[id] ?? []).map((c) => ({ ...c }));
      },
      get: async (id: number) => {
        reads.push(`bunit ${id}`);
        const unit = Object.values(children)
          .flat()
          .find((c) => c.id === id);
        if (!unit) throw new Error(`no business unit ${id}`);
        return { ...unit };
      },
    },
    consumers: {
      list: async (b: number) => {
        reads.push(`consumers ${b}`);
        fail();
        return (consumers[b] ?? []).map((c) => ({ ...c }));
      },
      get: async (b: number, id: number) => {
        reads.push(`consumer ${b}/${id}`);
        const c = (consumers[b] ?? []).find((x) => x.id === id);
        if (!c) throw new Error(`no consumer ${id}`);
        return { ...c };
      },
    },
  };
  return {
    client: client as unknown as PortalClient,
    reads,
    failNextRead: () => {
      failNext = true;
    },
  };
}

describe("References: a parent's list by id", () => {
  const tenants = Array.from({ length: 300 }, (_, i) => ({ id: 1000 + i, name: `t${i}` }));

  it("finds every child of the one list read, each as the list has it", async () => {
    const portal = fakePortal({ 1: tenants }, {});
    const refs = new References(portal.client);
    for (const t of [...tenants].reverse()) assert.deepEqual(await refs.childOf(1, t.id), t);
    assert.deepEqual(portal.reads, ["children 1"]);
  });

  it("takes the first of an id a list holds twice, as a search of the list does", async () => {
    const portal = fakePortal(
      {
        1: [
          { id: 7, name: "first" },
          { id: 8, name: "other" },
          { id: 7, name: "second" },
        ],
      },
      {
        5: [
          { id: 3, name: "c-first" },
          { id: 3, name: "c-second" },
        ],
      },
    );
    const refs = new References(portal.client);
    assert.equal((await refs.childOf(1, 7)).name, "first");
    assert.equal((await refs.consumerOf(5, 3)).name, "c-first");
  });

  it("reads an id the list lacks (it may be new since), and names its parent when it is elsewhere", async () => {
    const portal = fakePortal({ 1: [{ id: 2, name: "listed" }], 9: [{ id: 4, name: "elsewhere", parentBusinessUnit: { id: 9 } }] }, {});
    const refs = new References(portal.client);
    await assert.rejects(refs.childOf(1, 4), MisplacedObjectError);
    assert.deepEqual(portal.reads, ["children 1", "bunit 4"]);
  });

  it("finds consumers in their business unit's list, one read per business unit, and reads one it lacks", async () => {
    const list = Array.from({ length: 50 }, (_, i) => ({ id: 500 + i, name: `c${i}` }));
    const portal = fakePortal({}, { 5: list, 6: [{ id: 900, name: "x" }] });
    const refs = new References(portal.client);
    for (const c of list) assert.deepEqual(await refs.consumerOf(5, c.id), c);
    assert.deepEqual(await refs.consumerOf(6, 900), { id: 900, name: "x" });
    await assert.rejects(refs.consumerOf(6, 901), /no consumer 901/);
    assert.deepEqual(portal.reads, ["consumers 5", "consumers 6", "consumer 6/901"]);
  });

  it("forgets a list read that failed: the next lookup reads it again", async () => {
    const portal = fakePortal({ 1: tenants }, { 5: [{ id: 3, name: "c" }] });
    const refs = new References(portal.client);
    portal.failNextRead();
    await assert.rejects(refs.childOf(1, 1000), /did not answer/);
    assert.equal((await refs.childOf(1, 1000)).name, "t0");
    portal.failNextRead();
    await assert.rejects(refs.consumerOf(5, 3), /did not answer/);
    assert.equal((await refs.consumerOf(5, 3)).name, "c");
    assert.deepEqual(portal.reads, ["children 1", "children 1", "consumers 5", "consumers 5"]);
  });

  it("shares the list with children(): one read for both", async () => {
    const portal = fakePortal({ 1: tenants }, {});
    const refs = new References(portal.client);
    assert.equal((await refs.children(1)).length, tenants.length);
    assert.equal((await refs.childOf(1, 1299)).name, "t299");
    assert.deepEqual(portal.reads, ["children 1"]);
  });
});
