import assert from "node:assert/strict";
import { nodeBody, SEED, useAccounts, type Api } from "./helpers";

describe("emulator: consumers and nodes", () => {
  const ctx = useAccounts();

  const newConsumer = async (a: Api, name: string, bu = 2): Promise<number> => {
    const r = await a.post(`/v1/bunits/${bu}/consumers`, { name });
    assert.equal(r.status, 200, r.text);
    return r.body.id as number;
  };
  const withNode = async (a: Api, name: string, bu = 2): Promise<number> => {
    const id = await newConsumer(a, name, bu);
    assert.equal((await a.post(`/v1/bunits/${bu}/consumers/${id}/node`, nodeBody())).status, 200);
    return id;
  };

  it("creates a consumer from its name only; duplicates allowed; incomplete objects", async () => {
    const r = await ctx.tenant.post("/v1/bunits/2/consumers", { name: "dup" });
    assert.equal(r.status, 200);
    assert.equal(r.body.$type, "Consumer");
    assert.equal(r.body.href, `${ctx.em.url}/v1/bunits/2/consumers/${r.body.id}`);
    assert.equal(r.body.businessUnit.id, 2);
    assert.deepEqual(r.body.dataSourceType, { id: 1, name: "SP Backup node" });
    assert.equal(typeof r.body.billingStartDate, "string");
    for (const absent of ["note", "tags", "dataSourceState", "limitHighStorage"]) assert.equal(absent in r.body, false, absent);
    const again = await ctx.tenant.post("/v1/bunits/2/consumers", { Name: "dup" });
    assert.notEqual(again.body.id, r.body.id);
    const list = await ctx.tenant.get("/v1/bunits/2/consumers");
    assert.equal(list.body.items.filter((c: { name: string }) => c.name === "dup").length, 2);
    assert.equal((await ctx.tenant.post("/v1/bunits/2/consumers", {})).status, 400);
  });

  it("updates and deletes a consumer (deleteAssociations, deletionComment)", async () => {
    const id = await newConsumer(ctx.tenant, "c1");
    const put = await ctx.tenant.put(`/v1/bunits/2/consumers/${id}`, { note: "hello", allowNoActivity: true });
    assert.deepEqual([put.body.name, put.body.note, put.body.allowNoActivity], ["c1", "hello", true]);
    assert.equal((await ctx.tenant.del(`/v1/bunits/2/consumers/${id}?deleteAssociations=maybe`)).status, 400);
    const del = await ctx.tenant.del(
      `/v1/bunits/2/consumers/${id}?deleteAssociations=true&deletionComment=${encodeURIComponent("no longer needed")}`,
    );
    assert.equal(del.status, 204);
    assert.equal((await ctx.tenant.get(`/v1/bunits/2/consumers/${id}`)).status, 404);
    const entry = ctx.em.state().auditLogs.find((e) => e.consumerId === id && e.type === 300);
    assert.ok(entry && entry.message.includes("no longer needed"));
  });

  it("a consumer is reached only through its own business unit; 403 outside the subtree", async () => {
    const { erp, web } = SEED.consumers;
    assert.equal((await ctx.admin.get(`/v1/bunits/3/consumers/${web.id}`)).status, 404, "wrong business unit");
    assert.equal((await ctx.tenant.get(`/v1/bunits/3/consumers/${erp.id}`)).status, 403);
    assert.equal((await ctx.tenant.get(`/v1/bunits/2/consumers/${erp.id}`)).status, 403, "the consumer exists outside");
    assert.equal((await ctx.tenant.get(`/v1/bunits/2/consumers/99999`)).status, 404);
    assert.equal((await ctx.tenant.get(`/v1/bunits/3/consumers/${erp.id}/node`)).status, 403);
    assert.equal((await ctx.tenant.del(`/v1/bunits/3/consumers/${erp.id}`)).status, 403);
    assert.equal((await ctx.tenant.post("/v1/bunits/1/consumers", { name: "x" })).status, 403);
  });

  it("posting an existing consumer's id to another business unit moves it", async () => {
    const id = await newConsumer(ctx.admin, "mover", 2);
    const r = await ctx.admin.post("/v1/bunits/3/consumers", { id });
    assert.equal(r.status, 200);
    assert.equal(r.body.id, id);
    assert.equal(r.body.businessUnit.id, 3);
    assert.equal((await ctx.admin.get(`/v1/bunits/2/consumers/${id}`)).status, 404);
  });

  it("creates a node (409 on a second), validates references, hides the password", async () => {
    const id = await newConsumer(ctx.tenant, "n1");
    const base = `/v1/bunits/2/consumers/${id}/node`;
    assert.equal((await ctx.tenant.get(base)).status, 404);
    const missing = await ctx.tenant.post(base, { operatingSystem: { id: 3 }, type: { id: 1 } });
    assert.equal(missing.status, 400);
    assert.match(missing.body.message, /domain/);
    assert.equal((await ctx.tenant.post(base, nodeBody({ operatingSystem: { id: 999 } }))).status, 400);
    assert.equal((await ctx.tenant.post(base, nodeBody({ server: { id: 42 } }))).status, 400);
    const r = await ctx.tenant.post(base, { OperatingSystem: { Id: 3 }, Type: { id: 1 }, Domain: { id: 1 }, CpuCount: 2, Contact: "ops" });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.$type, "Node");
    assert.equal(r.body.href, `${ctx.em.url}${base}`);
    assert.deepEqual(r.body.operatingSystem, { id: 3, name: "Linux", shortName: "Linux" });
    assert.equal(r.body.server.id, SEED.server.id, "server defaults to the default server");
    assert.deepEqual([r.body.cpuCount, r.body.contact, r.body.locked], [2, "ops", false]);
    for (const absent of ["clientOptionSet", "tsmName", "activatedDate", "tsmPassword"]) assert.equal(absent in r.body, false, absent);
    assert.deepEqual((await ctx.tenant.get(`/v1/bunits/2/consumers/${id}`)).body.dataSourceState, { id: 2, name: "Not activated" });
    const second = await ctx.tenant.post(base, nodeBody());
    assert.equal(second.status, 409);
    assert.equal(second.body.code, "NodeExists");

    const put = await ctx.tenant.put(base, { cpuCount: 8, clientOptionSet: { id: 3 } });
    assert.deepEqual([put.body.cpuCount, put.body.clientOptionSet.name, put.body.domain.id], [8, "FORCE_ENCRYPT", 1]);
    assert.equal((await ctx.tenant.put(base, { domain: null })).status, 400);

    const pw = await ctx.tenant.post(`${base}/password`, { tsmPassword: "n0de-Secret" });
    assert.equal(pw.status, 200);
    assert.ok(!pw.text.includes("n0de-Secret"));
    assert.equal("tsmPassword" in pw.body, false);
    assert.equal((await ctx.tenant.post(`${base}/password`, { tsmPassword: "" })).status, 400);
    assert.equal((await ctx.tenant.post(`${base}/password`, { tsmPassword: "x".repeat(65) })).status, 400);
  });

  it("activation follows the naming rules and answers a JSON string", async () => {
    const id = await withNode(ctx.tenant, "act");
    const activate = (name: string) => ctx.tenant.get(`/v1/bunits/2/consumers/${id}/node/activate?tsmName=${encodeURIComponent(name)}`);
    for (const bad of ["has space", "a/b", "é", "x".repeat(65)]) {
      const r = await activate(bad);
      assert.equal(r.status, 400, bad);
      assert.equal(r.body.code, "InvalidTsmName");
    }
    assert.equal((await ctx.tenant.get(`/v1/bunits/2/consumers/${id}/node/activate`)).status, 400);
    const taken = await activate("web-01");
    assert.equal(taken.status, 409);
    assert.equal(taken.body.code, "TsmNameTaken");
    const ok = await activate("acme_web-01.x+y&z");
    assert.equal(ok.status, 200);
    assert.equal(ok.text, JSON.stringify("ACME_WEB-01.X+Y&Z"));
    assert.equal((await activate("ACME_web-01.X+Y&Z")).body, "ACME_WEB-01.X+Y&Z", "same name again is fine");
    const other = await activate("OTHER");
    assert.equal(other.status, 409);
    assert.equal(other.body.code, "AlreadyActivated");
    const node = await ctx.tenant.get(`/v1/bunits/2/consumers/${id}/node`);
    assert.equal(node.body.tsmName, "ACME_WEB-01.X+Y&Z");
    assert.equal(typeof node.body.activatedDate, "string");
    assert.deepEqual((await ctx.tenant.get(`/v1/bunits/2/consumers/${id}`)).body.dataSourceState, { id: 3, name: "Active" });
    const max = await withNode(ctx.tenant, "max");
    assert.equal((await ctx.tenant.get(`/v1/bunits/2/consumers/${max}/node/activate?tsmName=${"A".repeat(64)}`)).status, 200);
  });

  it("spname proposes a valid, free name that activates", async () => {
    const id = await withNode(ctx.tenant, "sp");
    const r = await ctx.tenant.get(`/v1/bunits/2/consumers/${id}/node/spname`);
    assert.equal(r.status, 200);
    // The bare name, as text (the published Go client puts the body into activate?tsmName= as it is).
    assert.match(r.text, /^[A-Z0-9_.\-+&]{1,64}$/);
    assert.match(r.headers.get("content-type") ?? "", /^text\/plain/);
    assert.equal((await ctx.tenant.get(`/v1/bunits/2/consumers/${id}/node/activate?tsmName=${encodeURIComponent(r.body)}`)).body, r.body);
  });

  it("deleting a node removes its consumer and answers 200 with the deleted node", async () => {
    const id = await withNode(ctx.tenant, "gone");
    const node = (await ctx.tenant.get(`/v1/bunits/2/consumers/${id}/node`)).body;
    const r = await ctx.tenant.del(`/v1/bunits/2/consumers/${id}/node`);
    assert.equal(r.status, 200);
    assert.deepEqual(r.body, node);
    assert.equal((await ctx.tenant.get(`/v1/bunits/2/consumers/${id}`)).status, 404);
    assert.equal(
      ctx.em.state().consumers.some((c) => c.id === id),
      false,
    );
    assert.equal((await ctx.tenant.del(`/v1/bunits/2/consumers/${id}/node`)).status, 404);
  });

  it("proxy relations are set up and severed from either side and visible from both", async () => {
    const target = await withNode(ctx.tenant, "target");
    const agent = await withNode(ctx.tenant, "agent");
    const node = (id: number) => ctx.tenant.get(`/v1/bunits/2/consumers/${id}/node`).then((r) => r.body);
    const possible = await ctx.tenant.get(`/v1/bunits/2/consumers/${target}/node/possibleproxynodes`);
    assert.ok(possible.body.items.some((n: { href: string }) => n.href.endsWith(`/consumers/${agent}/node`)));

    const add = await ctx.tenant.post(`/v1/bunits/2/consumers/${target}/node/proxyagents?proxyAgentId=${agent}`, {});
    assert.equal(add.status, 200);
    assert.deepEqual(
      add.body.proxyAgents.map((p: { id: number }) => p.id),
      [agent],
    );
    assert.deepEqual(
      (await node(agent)).proxyTargets.map((p: { id: number; name: string }) => [p.id, p.name]),
      [[target, "target"]],
    );
    await ctx.tenant.post(`/v1/bunits/2/consumers/${target}/node/proxyagents?proxyAgentId=${agent}`, {});
    assert.equal((await node(target)).proxyAgents.length, 1, "adding again is a no-op");
    // Severed from the other side.
    assert.equal((await ctx.tenant.del(`/v1/bunits/2/consumers/${agent}/node/proxytargets/${target}`)).status, 204);
    assert.deepEqual((await node(target)).proxyAgents, []);
    assert.equal((await ctx.tenant.del(`/v1/bunits/2/consumers/${agent}/node/proxytargets/${target}`)).status, 404);
    // Set up from the agent's side, severed from the target's.
    assert.equal((await ctx.tenant.post(`/v1/bunits/2/consumers/${agent}/node/proxytargets?proxyTargetId=${target}`)).status, 200);
    assert.deepEqual(
      (await node(target)).proxyAgents.map((p: { id: number }) => p.id),
      [agent],
    );
    assert.equal((await ctx.tenant.del(`/v1/bunits/2/consumers/${target}/node/proxyagents/${agent}`)).status, 204);
    assert.deepEqual((await node(agent)).proxyTargets, []);

    assert.equal((await ctx.tenant.post(`/v1/bunits/2/consumers/${target}/node/proxyagents`)).status, 400, "proxyAgentId required");
    const noNode = await newConsumer(ctx.tenant, "bare");
    assert.equal((await ctx.tenant.post(`/v1/bunits/2/consumers/${target}/node/proxyagents?proxyAgentId=${noNode}`)).status, 400);
    assert.equal(
      (await ctx.tenant.post(`/v1/bunits/2/consumers/${target}/node/proxyagents?proxyAgentId=${SEED.consumers.erp.id}`)).status,
      403,
    );
    assert.equal((await ctx.tenant.post(`/v1/bunits/2/consumers/${target}/node/proxyagents?proxyAgentId=99999`)).status, 404);
    const actions = ctx.em
      .state()
      .auditLogs.filter((e) => e.consumerId === target && e.objectType === "Node")
      .map((e) => e.action);
    assert.deepEqual(
      actions.filter((a) => a.endsWith("Proxy")),
      ["AddProxy", "RemoveProxy", "AddProxy", "RemoveProxy"],
    );
  });

  it("filespaces of a node", async () => {
    const r = await ctx.tenant.get(`/v1/bunits/2/consumers/${SEED.consumers.web.id}/node/filespaces?tsmSync=false`);
    assert.equal(r.status, 200);
    assert.ok(r.body.total >= 1);
    assert.deepEqual(Object.keys(r.body.items[0]).sort(), ["capacity", "id", "lastBackupDate", "name", "type", "used"]);
    assert.equal((await ctx.tenant.get(`/v1/bunits/2/consumers/${SEED.consumers.web.id}/node/filespaces?tsmSync=perhaps`)).status, 400);
  });
});
