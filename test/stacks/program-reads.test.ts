// Issue 35, item 7: what the stack program itself costs the portal. Its checks read each list once per kind, so a
// preview of a stack that adopts N tenants, and an unchanged stack's preview, make the same requests for 5
// tenants as for 50; per-object existence is left to the provider, which reads only for what changed.
import assert from "node:assert/strict";
import { portalSuite } from "../resources/support";
import { clientFor } from "../support/portal";
import { plant } from "../export/support";
import { runStack, settings } from "./support";
import { BusinessUnitConfig, TenantsConfig } from "../../provider/tenants/model";
import { TestEngine } from "../engine/engine";

/** What a preview of an adopted stack costs, whatever its size: the program's and the provider host's reads. */
const PREVIEW_REQUESTS = [
  // The program: its token, the root, the root's children (the tenants' adoptIds), the time zones.
  "POST /v1/oauth",
  "GET /v1/bunits/1",
  "GET /v1/bunits/1/bunits",
  "GET /v1/timezones",
  // The provider host's Checks: its token, the time zones they resolve and the root's children, where the tenants'
  // adoptIds (new to the state) are looked up, once per host. A sub-unit's and a consumer's adoptId are not read:
  // their parent has no id in a preview that adopts it, so the up's Check reads them, one list per parent.
  "POST /v1/oauth",
  "GET /v1/timezones",
  "GET /v1/bunits/1/bunits",
];

/**
 * What the preview of an unchanged stack costs: the program's reads only (the provider's Checks need none: each
 * adoptId is in the state already).
 */
const UNCHANGED_REQUESTS = ["POST /v1/oauth", "GET /v1/bunits/1", "GET /v1/bunits/1/bunits", "GET /v1/timezones"];

describe("the program's own portal reads (issue 35, item 7)", function () {
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

  /** One run of the program through `eng` with a fresh client, as each `pulumi` command has: its requests and steps. */
  async function run(tenants: TenantsConfig, eng: TestEngine, preview: boolean) {
    const client = clientFor(p.emu);
    const mark = p.emu.requests().length;
    try {
      const { steps } = await runStack(eng, settings(tenants, client), preview);
      const requests = p.emu
        .requests()
        .slice(mark)
        .map((r) => `${r.method} ${r.path}`);
      return { requests: requests.sort(), ops: new Set(steps.map((s) => s.op)) };
    } finally {
      client.close();
    }
  }

  it("a preview adopting 5 tenants makes the same requests as one adopting 50", async () => {
    const tenants = adoptedTenants(0, 5, {});
    const five = (await run(tenants, p.engine(), true)).requests;
    const fifty = (await run(adoptedTenants(5, 50, tenants), p.engine(), true)).requests;
    assert.deepEqual(five, [...PREVIEW_REQUESTS].sort(), five.join("\n"));
    assert.deepEqual(fifty, five, "the same requests for 50 tenants as for 5");
  });

  it("an unchanged stack of 5 tenants makes the same requests as one of 50", async () => {
    const eng = p.engine();
    const tenants = adoptedTenants(0, 5, {});
    await run(tenants, eng, false);
    const five = await run(tenants, eng, true);
    await run(adoptedTenants(5, 50, tenants), eng, false);
    const fifty = await run(tenants, eng, true);
    assert.deepEqual([...five.ops, ...fifty.ops], ["same", "same"], "unchanged");
    assert.deepEqual(five.requests, [...UNCHANGED_REQUESTS].sort(), five.requests.join("\n"));
    assert.deepEqual(fifty.requests, five.requests, "the same requests for 50 tenants as for 5");
  });
});
