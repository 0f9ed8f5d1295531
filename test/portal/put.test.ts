// A whole PUT body from the object as read and the caller's fields (provider/portal/put.ts): the same meaning
// whether the portal merges a PUT or replaces the object with it. The client tests drive it against the emulator
// in both readings; these pin each form and each edge of the read object.
import assert from "node:assert/strict";
import fc from "fast-check";
import { BUSINESS_UNIT_SETTABLE, CONSUMER_SETTABLE, NODE_SETTABLE, wholeBody } from "../../provider/portal/put";

describe("portal PUT bodies: the object as read, the caller's fields laid over it", () => {
  it("values as read, references as {id}, lists of references as [{id}]; what is not settable is left out", () => {
    const read = {
      id: 5,
      name: "Acme",
      note: "n",
      timeZone: { id: 3, name: "UTC", offset: 0 },
      domainFilter: [{ id: 1, name: "STANDARD" }, { id: 2 }],
      createdDate: "2020-01-01",
      businessUnits: [],
    };
    assert.deepEqual(wholeBody(read, BUSINESS_UNIT_SETTABLE, {}), {
      name: "Acme",
      note: "n",
      timeZone: { id: 3 },
      domainFilter: [{ id: 1 }, { id: 2 }],
    });
  });

  it("a reference or list entry the portal gave without a numeric id is dropped, not sent as null", () => {
    const read = {
      name: "Acme",
      timeZone: { name: "UTC" },
      domainFilter: [{ id: 1 }, { name: "x" }, null, { id: "2" }],
      clientOptionSetFilter: "x",
    };
    assert.deepEqual(wholeBody(read, BUSINESS_UNIT_SETTABLE, {}), { name: "Acme", domainFilter: [{ id: 1 }] });
  });

  it("the caller's fields win, null clears, and a field given as undefined keeps the value read", () => {
    const read = { name: "web01", note: "keep", tags: ["a"], limitHighStorage: 10, allowNoActivity: false };
    assert.deepEqual(wholeBody(read, CONSUMER_SETTABLE, { name: "web02", note: undefined, tags: null as unknown as string[] }), {
      name: "web02",
      note: "keep",
      tags: null,
      limitHighStorage: 10,
      allowNoActivity: false,
    });
  });

  it("a node's PUT keeps its references and values; its server is sent only when the caller gives it", () => {
    const read = {
      contact: "ops",
      cpuCount: 4,
      operatingSystem: { id: 2 },
      type: { id: 1 },
      domain: { id: 7 },
      clientOptionSet: { id: 9 },
      server: { id: 1 },
    };
    assert.deepEqual(wholeBody(read, NODE_SETTABLE, {}), {
      contact: "ops",
      cpuCount: 4,
      operatingSystem: { id: 2 },
      type: { id: 1 },
      domain: { id: 7 },
      clientOptionSet: { id: 9 },
    });
    assert.deepEqual(wholeBody(read, NODE_SETTABLE, { server: { id: 3 } }).server, { id: 3 });
  });

  it("property: every settable field read comes back unless the caller gives it; no key the table lacks", () => {
    const keys = Object.keys(CONSUMER_SETTABLE);
    const value = fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.array(fc.string(), { maxLength: 3 }));
    fc.assert(
      fc.property(
        fc.dictionary(fc.constantFrom(...keys, "id", "createdDate"), value),
        fc.dictionary(fc.constantFrom(...keys), value),
        (read, fields) => {
          const out = wholeBody(read, CONSUMER_SETTABLE, fields) as Record<string, unknown>;
          for (const k of keys) assert.deepEqual(out[k], k in fields ? fields[k] : read[k], k);
          for (const k of Object.keys(out)) assert.ok(keys.includes(k), k);
        },
      ),
      { numRuns: 200 },
    );
  });
});
