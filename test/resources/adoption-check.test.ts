// Issue 35, item 7: an adoptId is the provider's Check's to verify (BusinessUnit, Consumer), through the real
// provider host against the emulator. A wrong one fails the preview at adoptId, in one line with what the portal
// has and the fix, before anything is written. It is read only while it is new to the resource: an unchanged
// adopted resource's Check reads nothing, so an unchanged preview costs the portal no request at all.
import assert from "node:assert/strict";
import { ref } from "../engine/engine";
import { secret } from "../engine/values";
import { Plugin, urnOf } from "../plugin/plugin";
import { ORIGIN } from "../support/portal";
import { businessUnit, consumer, ops, portalSuite, writesSince } from "./support";

type Inputs = Record<string, unknown>;

describe("adoptId in Check (BusinessUnit, Consumer)", function () {
  this.timeout(180_000); // an up is two deployments, each starting a host
  const p = portalSuite();

  const SEES = '(this account sees 1 "Reseller", 2 "Tenant A", 3 "Tenant B")';
  const FIX = "; check the id or remove adoptId to create one";
  const labs = (extra: Inputs = {}) =>
    businessUnit("labs", { parentId: 2, name: "Labs", registrationNumber: "L-1", timeZone: "UTC", ...extra });
  const erp = (extra: Inputs = {}) => consumer("erp", { businessUnitId: 3, name: "erp-01", ...extra });
  /** Business unit "Labs" under Tenant A (2), made outside Pulumi: something to adopt. */
  const plantLabs = async () =>
    (await p.client.businessUnits.create(2, { name: "Labs", registrationNumber: "L-1", timeZone: { id: 1 } })).id;

  /** The requests since `mark`, as `METHOD path`. */
  const requestsSince = (mark: number) =>
    p.emu
      .requests()
      .slice(mark)
      .map((r) => `${r.method} ${r.path}`);

  /** The one Check failure of a preview of `resources` through `eng`, which writes nothing and records nothing. */
  async function refusedAtPreview(resources: Parameters<ReturnType<typeof p.engine>["preview"]>[0], eng = p.engine()) {
    const before = eng.state.size;
    const mark = p.emu.requests().length;
    const err = await eng.preview(resources).then(
      () => assert.fail("the preview went through"),
      (e: Error) => e,
    );
    assert.deepEqual(writesSince(p.emu, mark), [], "nothing written");
    assert.equal(eng.state.size, before, "nothing recorded");
    const failed = /check failed: (.*)$/.exec(err.message);
    assert.ok(failed, err.message);
    return failed[1];
  }

  it("a wrong adoptId fails the preview at adoptId: what the portal has, and the fix", async () => {
    const url = p.emu.url;
    assert.equal(
      await refusedAtPreview([labs({ adoptId: 99998 })]),
      `adoptId: adoptId: business unit 99998 does not exist on ${url} ${SEES}${FIX}`,
    );
    assert.equal(
      await refusedAtPreview([labs({ adoptId: 3 })]),
      'adoptId: adoptId: business unit 3 "Tenant B" is not under business unit 2: it is under business unit 1; adopt it under business unit 1',
    );
    assert.equal(
      await refusedAtPreview([erp({ adoptId: 99999 })]),
      `adoptId: adoptId: consumer 99999 of business unit 3 does not exist on ${url} (business unit 3 has 3 "erp-01")${FIX}`,
    );
    assert.equal(
      await refusedAtPreview([erp({ businessUnitId: 2, adoptId: 3 })]),
      `adoptId: adoptId: consumer 3 of business unit 2 does not exist on ${url} (business unit 2 has 1 "web-01", 2 "db-01")${FIX}`,
    );
    // The business unit it is looked for under is the one missing: said at that key.
    assert.equal(
      await refusedAtPreview([erp({ businessUnitId: 1000, adoptId: 3 })]),
      `businessUnitId: businessUnitId: business unit 1000 does not exist on ${url} ${SEES}`,
    );
  });

  it("a new adoptId is found in its parent's list; once adopted, an unchanged preview makes no request", async () => {
    const labsId = await plantLabs();
    const eng = p.engine();
    const mark = p.emu.requests().length;
    const adopted = await eng.preview([labs({ adoptId: labsId }), erp({ adoptId: 3 })]);
    assert.deepEqual(ops(adopted), { labs: "create", erp: "create" });
    const reads = requestsSince(mark);
    assert.ok(reads.includes("GET /v1/bunits/2/bunits") && reads.includes("GET /v1/bunits/3/consumers"), reads.join("\n"));
    assert.ok(!reads.some((r) => r === `GET /v1/bunits/${labsId}` || r === "GET /v1/bunits/3/consumers/3"), "a list, not the object");

    const r = await eng.up([labs({ adoptId: labsId }), erp({ adoptId: 3 })]);
    assert.deepEqual([r.ids.labs, r.ids.erp], [String(labsId), "3"], "adopted, not created");
    const again = p.emu.requests().length;
    const unchanged = await eng.preview([labs({ adoptId: labsId }), erp({ adoptId: 3 })]);
    assert.deepEqual(ops(unchanged), { labs: "same", erp: "same" });
    assert.deepEqual(requestsSince(again), [], "no request: the Checks read nothing");
  });

  it("a changed adoptId, or the same one under another parent, is checked again", async () => {
    const labsId = await plantLabs();
    const eng = p.engine();
    await eng.up([labs({ adoptId: labsId }), erp({ adoptId: 3 })]);
    const url = p.emu.url;
    assert.equal(
      await refusedAtPreview([labs({ adoptId: 99998 }), erp({ adoptId: 3 })], eng),
      `adoptId: adoptId: business unit 99998 does not exist on ${url} ${SEES}${FIX}`,
    );
    assert.equal(
      await refusedAtPreview([labs({ adoptId: labsId, parentId: 3 }), erp({ adoptId: 3 })], eng),
      `adoptId: adoptId: business unit ${labsId} "Labs" is not under business unit 3: it is under business unit 2; adopt it under business unit 2`,
    );
    // The preview's first Check, given the olds, reads it already (not only the engine's second one, without olds,
    // for the replacement a new parent makes).
    const old = eng.get("labs")!;
    const first = await (await eng.getHost()).check(old.urn, old.inputs, { ...old.inputs, parentId: 3 }, { preview: true });
    assert.deepEqual(
      first.failures.map((f) => f.property),
      ["adoptId"],
    );
    assert.equal(
      await refusedAtPreview([labs({ adoptId: labsId }), erp({ adoptId: 99999 })], eng),
      `adoptId: adoptId: consumer 99999 of business unit 3 does not exist on ${url} (business unit 3 has 3 "erp-01")${FIX}`,
    );
  });

  it("under a parent made in the same run (no id at preview), the up's Check refuses it before its create", async () => {
    const acme = businessUnit("acme", { parentId: 1, name: "Acme", registrationNumber: "A-1", timeZone: "UTC" });
    const ghost = consumer("ghost", { businessUnitId: ref("acme"), name: "ghost", adoptId: 99999 });
    const eng = p.engine();
    assert.deepEqual(ops(await eng.preview([acme, ghost])), { acme: "create", ghost: "create" }, "nothing to read it under yet");
    const mark = p.emu.requests().length;
    const err = await eng.up([acme, ghost]).then(
      () => assert.fail("the up went through"),
      (e: Error) => e,
    );
    const acmeId = eng.get("acme")!.id;
    assert.match(err.message, new RegExp(`check failed: adoptId: adoptId: consumer 99999 of business unit ${acmeId} does not exist on `));
    assert.deepEqual(
      writesSince(p.emu, mark).map((w) => `${w.method} ${w.path}`),
      ["POST /v1/bunits/1/bunits"],
      "only the parent's create: nothing for the consumer",
    );
    assert.equal(eng.get("ghost"), undefined);
  });

  it("the plugin runs the same Check: an adoptId in the olds is not read, a changed one is refused at adoptId", async () => {
    const plugin = await Plugin.start();
    try {
      await plugin.configure({ url: p.emu.url, origin: ORIGIN, clientId: "emulator", username: "admin", password: secret("admin") });
      const urn = urnOf("Consumer", "erp");
      const adopted = { businessUnitId: 3, name: "erp-01", adoptId: 3 };
      const mark = p.emu.requests().length;
      assert.deepEqual((await plugin.check(urn, adopted, adopted, true)).failures, []);
      assert.deepEqual(requestsSince(mark), [], "no request");
      const changed = await plugin.check(urn, adopted, { ...adopted, adoptId: 99999 }, true);
      assert.deepEqual(changed.failures, [
        {
          property: "adoptId",
          reason: `adoptId: consumer 99999 of business unit 3 does not exist on ${p.emu.url} (business unit 3 has 3 "erp-01")${FIX}`,
        },
      ]);
    } finally {
      await plugin.close();
    }
  });
});
