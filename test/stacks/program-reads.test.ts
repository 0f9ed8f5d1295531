// Issue 35, item 7: what the stack program costs the portal. The program itself sends no request: its names are
// checked by the name check's Check in the provider host (provider/resources/name-check.ts), which reads each list
// once per kind, shared with the resources' own Checks in the same host. So a preview of a stack that adopts N
// tenants makes the same requests for 5 tenants as for 50, and an unchanged stack's preview makes none:
// per-object existence is left to the provider, which reads only for what changed.
import assert from "node:assert/strict";
import { portalSuite } from "../resources/support";
import { plant } from "../export/support";
import { runStack, settings } from "./support";
import { BusinessUnitConfig, TenantsConfig } from "../../provider/tenants/model";
import { TestEngine } from "../engine/engine";

/** What a preview of an adopted stack costs, whatever its size: the provider host's reads, one of each. */
const PREVIEW_REQUESTS = [
  // Its token; the root, its children (where the tenants' adoptIds are found) and the time zones, read by the name
  // check and shared with the business units' Checks, which look up their adoptIds (new to the state) in the same
  // children. A sub-unit's and a consumer's adoptId are not read: their parent has no id in a preview that adopts
  // it, so the up's Check reads them, one list per parent.
  "POST /v1/oauth",
  "GET /v1/bunits/1",
  "GET /v1/bunits/1/bunits",
  "GET /v1/timezones",
];

describe("what the stack program costs the portal (issue 35, item 7)", function () {
  this.timeout(300_000);
  const p = portalSuite();

  /** Plants tenants `from`..`to - 1` under the root, each with a sub-unit and consumers; adds their config, adopting all. */
  function adoptedTenants(from: number, to: number, into: TenantsConfig): TenantsConfig {
    const unit = (name: string, adoptId: number, consumers: Record<string, [string, number]>): BusinessUnitConfig => ({
      name,
      registrationNumber: `R-${name}`,
      timeZone: "UTC",
      adoptId,
      consumers: Object.fromEntries(Object.entries(consumers).map(([key, [cname, id]]) => [key, { name: cname, adoptId: id }])),
    });
    for (let i = from; i < to; i++) {
      const made = plant(p.emu, [
        {
          name: `Tenant ${i}`,
          registrationNumber: `R-Tenant ${i}`,
          timeZoneId: 1,
          consumers: [{ name: `web-${i}` }, { name: `db-${i}` }],
          children: [{ name: `Labs ${i}`, registrationNumber: `R-Labs ${i}`, timeZoneId: 1, consumers: [{ name: `ws-${i}` }] }],
        },
      ]);
      const [tenant, labs] = made.businessUnits;
      const [web, db, ws] = made.consumers;
      into[`tenant${i}`] = {
        ...unit(`Tenant ${i}`, tenant, { web: [`web-${i}`, web], db: [`db-${i}`, db] }),
        businessUnits: { labs: unit(`Labs ${i}`, labs, { ws: [`ws-${i}`, ws] }) },
      };
    }
    return into;
  }

  /** One run of the program through `eng` (a new provider host per deployment, as each `pulumi` command has): its requests and steps. */
  async function run(tenants: TenantsConfig, eng: TestEngine, preview: boolean) {
    const mark = p.emu.requests().length;
    const { steps } = await runStack(eng, settings(tenants), preview);
    const requests = p.emu
      .requests()
      .slice(mark)
      .map((r) => `${r.method} ${r.path}`);
    return { requests: requests.sort(), ops: new Set(steps.map((s) => s.op)) };
  }

  it("a preview adopting 5 tenants makes the same requests as one adopting 50", async () => {
    const tenants = adoptedTenants(0, 5, {});
    const five = (await run(tenants, p.engine(), true)).requests;
    const fifty = (await run(adoptedTenants(5, 50, tenants), p.engine(), true)).requests;
    assert.deepEqual(five, [...PREVIEW_REQUESTS].sort(), five.join("\n"));
    assert.deepEqual(fifty, five, "the same requests for 50 tenants as for 5");
  });

  it("an unchanged stack of 5 tenants, and one of 50, asks the portal nothing", async () => {
    const eng = p.engine();
    const tenants = adoptedTenants(0, 5, {});
    await run(tenants, eng, false);
    const five = await run(tenants, eng, true);
    await run(adoptedTenants(5, 50, tenants), eng, false);
    const fifty = await run(tenants, eng, true);
    assert.deepEqual([...five.ops, ...fifty.ops], ["same", "same"], "unchanged");
    // The name check's state holds these names checked, and each adoptId is in the state already.
    assert.deepEqual(five.requests, [], five.requests.join("\n"));
    assert.deepEqual(fifty.requests, [], fifty.requests.join("\n"));
  });
});
