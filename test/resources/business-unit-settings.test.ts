// The six business-unit settings of spec 000 that were not declarable before, each through the real provider
// host against the emulator: create, update, drift shown on refresh and undone by the next up, and a refresh
// after no change that changes nothing.
import assert from "node:assert/strict";
import { businessUnit, ops, portalSuite, writesSince } from "./support";
import type { BusinessUnit, BusinessUnitFields } from "../../provider/portal";

interface Setting {
  key: string;
  created: unknown;
  updated: unknown;
  /** What someone sets in the portal UI (as the API takes it). */
  drift: unknown;
  /** The setting as the portal answers it, comparable with `expect`. */
  read(bu: BusinessUnit): unknown;
  /** What `read` gives for a declared value. */
  expect(v: unknown): unknown;
}

const DOMAINS: Record<string, number> = { STANDARD: 1, "30DAYS": 2, "1YEAR": 6 };
const OPTION_SETS: Record<string, number> = { None: 1, DEDUP_AND_COMPRESS: 2, FORCE_ENCRYPT: 3 };
const ids = (list: unknown) => (Array.isArray(list) ? list.map((x) => (x as { id: number }).id).sort() : []);
const plain = (key: keyof BusinessUnit) => ({ read: (bu: BusinessUnit) => bu[key], expect: (v: unknown) => v });

const SETTINGS: Setting[] = [
  {
    key: "domainFilter",
    created: ["STANDARD"],
    updated: ["standard", 2],
    drift: [{ id: 6 }],
    read: (bu) => ids(bu.domainFilter),
    expect: (v) => (v as Array<string | number>).map((x) => (typeof x === "number" ? x : DOMAINS[x.toUpperCase()])).sort(),
  },
  {
    key: "clientOptionSetFilter",
    created: ["DEDUP_AND_COMPRESS", "FORCE_ENCRYPT"],
    updated: ["None"],
    drift: [],
    read: (bu) => ids(bu.clientOptionSetFilter),
    expect: (v) => (v as string[]).map((x) => OPTION_SETS[x]).sort(),
  },
  { key: "billingStorageTypeId", created: 1, updated: 2, drift: 3, ...plain("billingStorageTypeId") },
  { key: "requiredApproversOfDeleteRequest", created: 0, updated: 2, drift: 1, ...plain("requiredApproversOfDeleteRequest") },
  { key: "finalDeleteRequestApprover", created: true, updated: false, drift: true, ...plain("finalDeleteRequestApprover") },
  { key: "usersCanApproveOwnRequests", created: false, updated: true, drift: false, ...plain("usersCanApproveOwnRequests") },
];

describe("BusinessUnit settings: filters, billing storage type, delete-request approvals", function () {
  this.timeout(180_000); // four deployments per test, each with a fresh provider host: slow on a loaded 2-core machine
  const p = portalSuite();
  const unit = (extra: Record<string, unknown>) =>
    businessUnit("acme", { parentId: 1, name: "Acme", registrationNumber: "1", timeZone: "UTC", ...extra });

  for (const s of SETTINGS) {
    it(`${s.key}: create, refresh with no change, update, drift shown and undone`, async () => {
      const eng = p.engine();
      const r = await eng.up([unit({ [s.key]: s.created })]);
      const id = Number(r.ids.acme);
      assert.deepEqual(s.read(await p.client.businessUnits.get(id)), s.expect(s.created), "created with the setting");
      assert.deepEqual(
        (await eng.refresh()).map((x) => x.op),
        ["same"],
        "refresh after create: no change",
      );
      assert.deepEqual(ops(await eng.preview([unit({ [s.key]: s.created })])), { acme: "same" });

      let mark = p.emu.requests().length;
      const u = await eng.up([unit({ [s.key]: s.updated })]);
      assert.deepEqual(ops(u.steps), { acme: "update" });
      assert.deepEqual(
        writesSince(p.emu, mark).map((w) => w.method),
        ["PUT"],
      );
      assert.deepEqual(s.read(await p.client.businessUnits.get(id)), s.expect(s.updated), "updated");
      assert.deepEqual(
        (await eng.refresh()).map((x) => x.op),
        ["same"],
        "refresh after update: no change",
      );

      await p.client.businessUnits.update(id, { [s.key]: s.drift } as BusinessUnitFields);
      assert.deepEqual(
        (await eng.refresh()).map((x) => x.op),
        ["update"],
        "refresh shows the drift",
      );
      const plan = await eng.preview([unit({ [s.key]: s.updated })]);
      assert.deepEqual([plan[0].op, plan[0].diffs], ["update", [s.key]], "the next preview puts it back");
      mark = p.emu.requests().length;
      await eng.up([unit({ [s.key]: s.updated })]);
      assert.deepEqual(s.read(await p.client.businessUnits.get(id)), s.expect(s.updated), "drift undone");
      assert.equal(writesSince(p.emu, mark).length, 1);
      assert.deepEqual(
        (await eng.refresh()).map((x) => x.op),
        ["same"],
      );
    });
  }

  it("a filter naming something the default server lacks fails Check, naming the valid values, and writes nothing", async () => {
    const eng = p.engine();
    const mark = p.emu.requests().length;
    await assert.rejects(
      eng.up([unit({ domainFilter: ["STANDARD", "7YEARS"] })]),
      /domainFilter: unknown policy domain .*"7YEARS"; valid: .*STANDARD/,
    );
    await assert.rejects(eng.preview([unit({ clientOptionSetFilter: [99] })]), /clientOptionSetFilter: unknown client option set .*99/);
    assert.deepEqual(writesSince(p.emu, mark), []);
  });

  it("an empty filter is a value like any other: refresh after it changes nothing", async () => {
    const eng = p.engine();
    await eng.up([unit({ domainFilter: [], clientOptionSetFilter: [] })]);
    assert.deepEqual(
      (await eng.refresh()).map((x) => x.op),
      ["same"],
    );
    assert.deepEqual(ops(await eng.preview([unit({ domainFilter: [], clientOptionSetFilter: [] })])), { acme: "same" });
  });

  it("a filter no longer declared is cleared on the portal", async () => {
    const eng = p.engine();
    const id = Number((await eng.up([unit({ domainFilter: ["STANDARD"] })])).ids.acme);
    await eng.up([unit({})]);
    assert.deepEqual((await p.client.businessUnits.get(id)).domainFilter ?? [], []);
  });
});
