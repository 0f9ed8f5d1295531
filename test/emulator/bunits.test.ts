import assert from "node:assert/strict";
import { SEED, useAccounts } from "./helpers";

describe("emulator: business units", () => {
  const ctx = useAccounts();

  const create = (body: Record<string, unknown>, parent = 1) => ctx.admin.post(`/v1/bunits/${parent}/bunits`, body);

  it("reads a business unit, its children and users", async () => {
    const bu = await ctx.admin.get("/v1/bunits/2");
    assert.equal(bu.status, 200);
    assert.equal(bu.body.$type, "BusinessUnit");
    assert.equal(bu.body.href, `${ctx.em.url}/v1/bunits/2`);
    assert.equal(bu.body.name, "Tenant A");
    assert.equal(bu.body.parentBusinessUnit.id, 1);
    assert.equal(bu.body.timeZone.windowsId, "W. Europe Standard Time");
    assert.equal("note" in bu.body, false, "never set: absent");
    const root = await ctx.admin.get("/v1/bunits/1");
    assert.equal("parentBusinessUnit" in root.body, false);
    const children = await ctx.admin.get("/v1/bunits/1/bunits");
    assert.deepEqual(
      children.body.items.map((b: { id: number }) => b.id),
      [2, 3],
    );
    assert.equal(children.body.total, 2);
    const users = await ctx.admin.get("/v1/bunits/2/users");
    assert.deepEqual(
      users.body.items.map((u: { username: string }) => u.username),
      ["tenant"],
    );
    assert.equal((await ctx.admin.get(users.body.items[0].href.replace(ctx.em.url, ""))).status, 200);
  });

  it("stores and returns every setting of spec 000; a node may use a domain outside its business unit's filter", async () => {
    const r = await create({
      name: "Filtered",
      registrationNumber: "1",
      timeZone: { id: 4 },
      domainFilter: [{ id: 1 }, 2],
      clientOptionSetFilter: [{ id: 3 }],
      BillingStorageType: 2,
      requiredApproversOfDeleteRequest: 1,
      finalDeleteRequestApprover: true,
      usersCanApproveOwnRequests: false,
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const bu = (await ctx.admin.get(`/v1/bunits/${r.body.id}`)).body;
    assert.deepEqual(bu.domainFilter, [
      { id: 1, name: "STANDARD" },
      { id: 2, name: "30DAYS" },
    ]);
    assert.deepEqual(bu.clientOptionSetFilter, [{ id: 3, name: "FORCE_ENCRYPT" }]);
    assert.deepEqual([bu.billingStorageTypeId, bu.billingStorageType], [2, 2], "one value under both names");
    assert.deepEqual([bu.requiredApproversOfDeleteRequest, bu.finalDeleteRequestApprover, bu.usersCanApproveOwnRequests], [1, true, false]);
    for (const bad of [
      { requiredApproversOfDeleteRequest: 1.5 },
      { billingStorageTypeId: -1 },
      { domainFilter: [{ id: 999 }] },
      { usersCanApproveOwnRequests: "maybe" },
    ]) {
      assert.equal((await ctx.admin.put(`/v1/bunits/${r.body.id}`, bad)).status, 400, JSON.stringify(bad));
    }
    const cleared = await ctx.admin.put(`/v1/bunits/${r.body.id}`, { domainFilter: [], clientOptionSetFilter: null });
    assert.equal("domainFilter" in cleared.body || "clientOptionSetFilter" in cleared.body, false, "[] and null clear a filter");
    // The filter is not a rule of the node API (docs/portal-contract.md): domain 6 lies outside [1, 2].
    await ctx.admin.put(`/v1/bunits/${r.body.id}`, { domainFilter: [1, 2] });
    const c = await ctx.admin.post(`/v1/bunits/${r.body.id}/consumers`, { name: "n" });
    const n = await ctx.admin.post(`/v1/bunits/${r.body.id}/consumers/${c.body.id}/node`, {
      operatingSystem: { id: 3 },
      type: { id: 1 },
      domain: { id: 6 },
      cpuCount: 1,
    });
    assert.equal(n.status, 200, JSON.stringify(n.body));
  });

  it("refuses control characters in text and names of only whitespace; a note may hold newlines and tabs", async () => {
    const full = { name: "Acme", registrationNumber: "556677-8899", timeZone: { id: 4 } };
    for (const bad of [
      { name: "Acme\u0000" },
      { registrationNumber: "1\u001b[2J" },
      { tags: ["a\u0007"] },
      { note: "a\u0000" },
      { name: "   " },
      { name: "a\u0085" },
    ]) {
      const r = await create({ ...full, ...bad });
      assert.equal(r.status, 400, JSON.stringify(bad));
    }
    assert.equal((await create({ ...full, note: "line one\n\tline two\r\n" })).status, 200);
  });

  it("create needs name, registrationNumber and timeZone (400 naming the missing one)", async () => {
    const full = { name: "Acme", registrationNumber: "556677-8899", timeZone: { id: 4 } };
    for (const missing of ["name", "registrationNumber", "timeZone"]) {
      const body: Record<string, unknown> = { ...full };
      delete body[missing];
      const r = await create(body);
      assert.equal(r.status, 400, missing);
      assert.equal(r.body.code, "ValidationFailed");
      assert.match(r.body.message, new RegExp(missing));
    }
    const badTz = await create({ ...full, timeZone: { id: 999 } });
    assert.equal(badTz.status, 400);
    assert.match(badTz.body.message, /timeZone/);
    const ok = await create(full);
    assert.equal(ok.status, 200);
    assert.equal(ok.body.name, "Acme");
    assert.equal(ok.body.parentBusinessUnit.id, 1);
    assert.equal(ok.body.timeZone.id, 4);
    assert.equal("tags" in ok.body, false);
    assert.equal((await ctx.admin.get(`/v1/bunits/${ok.body.id}`)).body.registrationNumber, "556677-8899");
  });

  it("accepts PascalCase keys and references carrying only an id", async () => {
    const r = await create({ Name: "Pascal", RegistrationNumber: "1", TimeZone: { Id: 1 }, Note: "n", Tags: ["x"], InvoiceDay: 5 });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(
      [r.body.name, r.body.registrationNumber, r.body.timeZone.id, r.body.note, r.body.tags, r.body.invoiceDay],
      ["Pascal", "1", 1, "n", ["x"], 5],
    );
  });

  it("PUT changes the fields present, keeps the others, and clears with null or empty", async () => {
    const bu = (await create({ name: "Acme", registrationNumber: "R1", timeZone: { id: 4 }, note: "first", tags: ["a"] })).body;
    const put = await ctx.admin.put(`/v1/bunits/${bu.id}`, { note: "second" });
    assert.equal(put.status, 200);
    assert.deepEqual([put.body.name, put.body.note, put.body.tags], ["Acme", "second", ["a"]]);
    const cleared = await ctx.admin.put(`/v1/bunits/${bu.id}`, { note: null, tags: [] });
    assert.equal("note" in cleared.body, false);
    assert.equal("tags" in cleared.body, false);
    assert.equal((await ctx.admin.put(`/v1/bunits/${bu.id}`, { name: "" })).status, 400);
    assert.equal(
      (await ctx.admin.put(`/v1/bunits/${bu.id}`, { parentBusinessUnit: { id: 3 } })).body.parentBusinessUnit.id,
      1,
      "the parent does not change by PUT",
    );
  });

  it("delete: 409 HasChildren with children or consumers, else 204 and gone", async () => {
    const parent = (await create({ name: "P", registrationNumber: "P", timeZone: { id: 4 } })).body;
    const child = (await create({ name: "C", registrationNumber: "C", timeZone: { id: 4 } }, parent.id)).body;
    const withChild = await ctx.admin.del(`/v1/bunits/${parent.id}`);
    assert.equal(withChild.status, 409);
    assert.equal(withChild.body.code, "HasChildren");
    const consumer = (await ctx.admin.post(`/v1/bunits/${child.id}/consumers`, { name: "c" })).body;
    assert.equal((await ctx.admin.del(`/v1/bunits/${child.id}`)).status, 409);
    assert.equal((await ctx.admin.del(`/v1/bunits/${child.id}/consumers/${consumer.id}`)).status, 204);
    assert.equal((await ctx.admin.del(`/v1/bunits/${child.id}`)).status, 204);
    assert.equal((await ctx.admin.del(`/v1/bunits/${parent.id}`)).status, 204);
    assert.equal((await ctx.admin.get(`/v1/bunits/${parent.id}`)).status, 404);
    assert.equal((await ctx.admin.del(`/v1/bunits/${parent.id}`)).status, 404);
  });

  it("the tenant reaches only its subtree: 403 outside, 404 for unknown ids", async () => {
    assert.equal((await ctx.tenant.get("/v1/bunits/2")).status, 200);
    const up = await ctx.tenant.get("/v1/bunits/1");
    assert.equal(up.status, 403);
    assert.equal(up.body.code, "Forbidden");
    assert.match(up.body.developerMessage, /ancestor/);
    assert.equal((await ctx.tenant.get("/v1/bunits/3")).status, 403);
    assert.equal((await ctx.tenant.get("/v1/bunits/3/bunits")).status, 403);
    assert.equal((await ctx.tenant.get("/v1/bunits/999")).status, 404);
    assert.equal((await ctx.tenant.post("/v1/bunits/3/bunits", { name: "x", registrationNumber: "x", timeZone: { id: 1 } })).status, 403);
    assert.equal((await ctx.tenant.put("/v1/bunits/1", { note: "x" })).status, 403);
    assert.equal((await ctx.tenant.del("/v1/bunits/3")).status, 403);
    const own = await ctx.tenant.del("/v1/bunits/2");
    assert.equal(own.status, 403, "its own root cannot be deleted");
    const sub = await ctx.tenant.post("/v1/bunits/2/bunits", { name: "Sub", registrationNumber: "S", timeZone: { id: 1 } });
    assert.equal(sub.status, 200);
    assert.equal((await ctx.tenant.get(`/v1/bunits/${sub.body.id}`)).status, 200);
  });

  it("writes audit entries for business unit changes", async () => {
    const bu = (await create({ name: "Aud", registrationNumber: "A", timeZone: { id: 4 } })).body;
    await ctx.admin.put(`/v1/bunits/${bu.id}`, { note: "n" });
    await ctx.admin.del(`/v1/bunits/${bu.id}`);
    const entries = ctx.em.state().auditLogs.filter((e) => e.objectType === "BusinessUnit" && e.objectId === bu.id);
    assert.deepEqual(
      entries.map((e) => e.type),
      [100, 200, 300],
    );
    assert.ok(entries.every((e) => e.user === "admin"));
    assert.equal(SEED.businessUnits.reseller.id, 1);
  });
});
