import assert from "node:assert/strict";
import { api, call, login, SEED, useEmulator, type Api } from "./helpers";

describe("emulator: reference data", () => {
  const ctx = useEmulator();
  let a: Api;
  before(async () => {
    a = api(ctx.em, await login(ctx.em));
  });

  it("time zones, one by id, and the offset action", async () => {
    const list = await a.get("/v1/timezones");
    assert.equal(list.status, 200);
    assert.equal(list.body.total, list.body.items.length);
    assert.ok(list.body.items.length >= 5);
    assert.ok(list.body.items.some((z: { windowsId: string }) => z.windowsId === "UTC"));
    const tz = await a.get(`/v1/timezones/${SEED.timeZones.amsterdam.id}`);
    assert.equal(tz.body.windowsId, "W. Europe Standard Time");
    assert.equal(tz.body.name, SEED.timeZones.amsterdam.name);
    assert.equal(tz.body.href, `${ctx.em.url}/v1/timezones/4`);
    assert.equal(tz.body.actions[0].method, "GET");
    assert.match(tz.body.actions[0].href, /\/v1\/timezones\/4\/offset\?date=/);
    assert.deepEqual((await a.get("/v1/timezones/4/offset?date=2026-07-01T00:00:00Z")).body, { offset: 120 });
    assert.deepEqual((await a.get("/v1/timezones/4/offset?date=2026-01-15")).body, { offset: 60 });
    assert.equal((await a.get("/v1/timezones/4/offset?date=garbage")).status, 400);
    assert.equal((await a.get("/v1/timezones/999")).status, 404);
  });

  it("operating systems, node types and warning types", async () => {
    const oses = await a.get("/v1/nodeoperatingsystems");
    assert.ok(oses.body.items.some((o: { id: number; name: string }) => o.id === 3 && o.name === "Linux"));
    assert.ok(oses.body.items.some((o: { id: number; name: string }) => o.id === 2 && o.name === "Windows server"));
    const linux = await a.get("/v1/nodeoperatingsystems/3");
    assert.deepEqual([linux.body.name, typeof linux.body.shortName, typeof linux.body.href], ["Linux", "string", "string"]);
    const types = await a.get("/v1/nodetypes");
    assert.deepEqual(types.body.items.map((t: { name: string }) => t.name).sort(), ["Application server", "File server", "Workstation"]);
    assert.equal((await a.get("/v1/nodetypes/1")).body.name, "File server");
    assert.equal((await a.get("/v1/nodetypes/99")).status, 404);
    const warnings = await a.get("/v1/nodewarningtypes");
    assert.ok(warnings.body.items.length > 0);
    assert.deepEqual(Object.keys(warnings.body.items[0]).sort(), ["description", "id", "name"]);
  });

  it("the default server with its domains and client option sets", async () => {
    const server = await a.get("/v1/bunits/1/defaultserver");
    assert.equal(server.body.id, SEED.server.id);
    const domains = (await a.get("/v1/bunits/1/defaultserver/domains")).body.items.map((d: { name: string }) => d.name);
    assert.deepEqual(domains, ["STANDARD", "30DAYS", "60DAYS", "90DAYS", "180DAYS", "1YEAR", "2YEAR"]);
    assert.equal((await a.get("/v1/bunits/1/defaultserver/domains")).body.items[0].id, 1);
    const sets = (await a.get("/v1/bunits/2/defaultserver/clientoptionsets")).body.items;
    assert.ok(sets.some((c: { id: number; name: string }) => c.id === 2 && c.name === "DEDUP_AND_COMPRESS"));
    assert.ok(sets.some((c: { name: string }) => c.name === "FORCE_ENCRYPT"));
    assert.ok(sets.some((c: { name: string }) => c.name === "None"));
    assert.equal((await a.get("/v1/bunits/999/defaultserver")).status, 404);
    // One item of each list, and an unknown one.
    assert.equal((await a.get("/v1/bunits/1/defaultserver/domains/1")).body.name, "STANDARD");
    assert.equal((await a.get("/v1/bunits/2/defaultserver/clientoptionsets/2")).body.name, "DEDUP_AND_COMPRESS");
    const missing = await a.get("/v1/bunits/1/defaultserver/clientoptionsets/999");
    assert.equal(missing.status, 404);
    assert.match(missing.body.message, /Client option set 999/);
  });

  it("unknown paths are 404 and wrong methods 405, both in the error shape", async () => {
    const r = await a.get("/v1/nothing/here");
    assert.equal(r.status, 404);
    assert.equal(r.body.code, "NotFound");
    const m = await call(ctx.em, "PATCH", "/v1/nodetypes", { token: await login(ctx.em) });
    assert.equal(m.status, 405);
    assert.equal(m.body.status, 405);
    assert.equal(m.headers.get("allow"), "GET");
  });
});
