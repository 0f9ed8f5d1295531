// The API client against the emulator over real HTTP on loopback.
import assert from "node:assert/strict";
import { PortalClient, PortalError } from "../../provider/portal";
import { markerFor } from "../../provider/portal/marker";
import { clientFor, Emulator, ORIGIN, RUN_READINGS, settingsFor, startEmulator } from "../support/portal";
import { login } from "../emulator/helpers";
import { waitFor } from "../support/wait";

describe("portal client", function () {
  let emu: Emulator;
  let client: PortalClient;

  before(async () => {
    emu = await startEmulator({ port: 0, quiet: true });
  });
  after(async () => emu.close());
  beforeEach(async () => {
    await emu.reset();
    client = clientFor(emu);
  });
  afterEach(() => client.close());

  it("reads the version without a token, and the reference data", async () => {
    assert.match(await client.reference.fullVersion(), /^\d+\.\d+\.\d+\.\d+$/);
    const oses = (await client.reference.operatingSystems()).map((o) => o.name);
    assert.ok(oses.includes("Linux") && oses.includes("Windows server"), oses.join());
    assert.equal((await client.reference.operatingSystem(3)).name, "Linux");
    const types = (await client.reference.nodeTypes()).map((t) => t.name);
    for (const t of ["File server", "Workstation", "Application server"]) assert.ok(types.includes(t), t);
    assert.equal((await client.reference.nodeType(1)).name, "File server");
    assert.ok((await client.reference.defaultServer(1)).id > 0);
    const domains = (await client.reference.domains(1)).map((d) => d.name);
    for (const d of ["STANDARD", "30DAYS", "1YEAR"]) assert.ok(domains.includes(d), d);
    const sets = (await client.reference.clientOptionSets(1)).map((d) => d.name);
    for (const s of ["DEDUP_AND_COMPRESS", "FORCE_ENCRYPT"]) assert.ok(sets.includes(s), s);
    assert.ok((await client.reference.nodeWarningTypes()).length > 0);
    assert.equal((await client.reference.me()).businessUnit?.id, 1);
    const zones = await client.timeZones.list();
    const west = zones.find((z) => z.windowsId === "W. Europe Standard Time")!;
    assert.ok(west && zones.some((z) => z.windowsId === "UTC"));
    assert.equal((await client.timeZones.get(west.id)).windowsId, "W. Europe Standard Time");
    assert.ok(await client.timeZones.offset(west.id, "2026-07-01T00:00:00Z"));
  });

  it("creates, reads, updates and deletes business units, consumers and nodes", async () => {
    const bu = await client.businessUnits.create(1, {
      name: "Acme",
      registrationNumber: "556677-8899",
      timeZone: { id: 4 },
      note: "n",
      tags: ["a"],
    });
    assert.equal(bu.name, "Acme");
    assert.deepEqual(bu.tags, ["a"], "the create marker is not shown");
    assert.equal((await client.businessUnits.get(bu.id)).registrationNumber, "556677-8899");
    assert.ok((await client.businessUnits.children(1)).some((b) => b.id === bu.id));
    assert.ok(Array.isArray(await client.businessUnits.users(1)));
    assert.equal((await client.businessUnits.change(bu.id, { note: "changed" })).note, "changed");

    const c = await client.consumers.create(bu.id, { name: "web01" });
    assert.equal(c.name, "web01");
    assert.equal((await client.consumers.get(bu.id, c.id)).id, c.id);
    assert.equal((await client.consumers.change(bu.id, c.id, { note: "x" })).note, "x");
    assert.deepEqual(
      (await client.consumers.list(bu.id)).map((x) => x.id),
      [c.id],
    );

    const node = await client.nodes.create(bu.id, c.id, {
      operatingSystem: { id: 3 },
      type: { id: 1 },
      domain: { id: 1 },
      clientOptionSet: { id: 2 },
      contact: "ops",
      cpuCount: 2,
    });
    assert.equal(node.operatingSystem?.id, 3);
    assert.equal((await client.nodes.change(bu.id, c.id, { cpuCount: 4 })).cpuCount, 4);
    const pw = await client.nodes.setPassword(bu.id, c.id, "s3cret-pass");
    assert.equal("tsmPassword" in pw, false, "the password is never returned");
    assert.equal(await client.nodes.activate(bu.id, c.id, "acme-web01"), "ACME-WEB01");
    assert.equal((await client.nodes.get(bu.id, c.id)).tsmName, "ACME-WEB01");
    assert.match(await client.nodes.proposeName(bu.id, c.id), /^[A-Z0-9_.\-+&]{1,64}$/);
    assert.ok(Array.isArray(await client.nodes.filespaces(bu.id, c.id, false)));

    const c2 = await client.consumers.create(bu.id, { name: "agent" });
    await client.nodes.create(bu.id, c2.id, { operatingSystem: { id: 3 }, type: { id: 1 }, domain: { id: 1 }, cpuCount: 1 });
    assert.ok((await client.nodes.possibleProxyNodes(bu.id, c.id)).length >= 1);
    await client.nodes.addProxyAgent(bu.id, c.id, c2.id);
    const agentSide = await client.nodes.get(bu.id, c2.id);
    const { proxyPeers } = await import("../../provider/portal");
    assert.ok(
      proxyPeers(agentSide.proxyTargets).some((p) => p.id === c.id),
      "visible from the agent's side",
    );
    assert.equal(await client.nodes.removeProxyTarget(bu.id, c2.id, c.id), true);
    assert.equal(proxyPeers((await client.nodes.get(bu.id, c.id)).proxyAgents).length, 0);
    await client.nodes.addProxyTarget(bu.id, c2.id, c.id);
    assert.equal(await client.nodes.removeProxyAgent(bu.id, c.id, c2.id), true);
    assert.equal(await client.nodes.removeProxyAgent(bu.id, c.id, c2.id), false, "already gone");

    assert.equal(await client.nodes.delete(bu.id, c.id), true);
    await assert.rejects(client.consumers.get(bu.id, c.id), (e: PortalError) => e.status === 404, "the node's consumer went with it");
    assert.equal(await client.consumers.delete(bu.id, c2.id, { deletionComment: "done" }), true);
    assert.equal(await client.consumers.delete(bu.id, c2.id), false);
    assert.equal(await client.businessUnits.delete(bu.id), true);
    assert.equal(await client.businessUnits.delete(bu.id), false);
  });

  it("reads reports, jobs, audit logs and billing of the seeded data", async () => {
    const tenantConsumers = await client.consumers.list(2);
    assert.ok(tenantConsumers.length > 0, "seed has a consumer under Tenant A");
    const c = tenantConsumers[0];
    assert.ok((await client.activity.reports(2, c.id, { status: true, warnings: true })).length > 0);
    assert.ok(await client.activity.latestReport(2, c.id));
    const first = await client.activity.firstJob(2, c.id);
    assert.ok(first.completed);
    assert.ok((await client.activity.jobs(2, c.id)).length > 0, "latest 24 hours");
    assert.ok((await client.activity.jobs(2, c.id, { startTime: first.completed })).length > 0);
    await assert.rejects(client.activity.jobs(2, c.id, { startTime: "2000-01-01T00:00:00Z" }), (e: PortalError) => e.status === 400);
    const page = await client.activity.auditLogPage(2, c.id, {}, 0, 1);
    assert.equal(page.items.length, 1);
    assert.ok(await client.billing.contract(1));
    const invoices = await client.billing.invoices(1);
    assert.ok(invoices.length > 0);
    const { invoiceDate } = await import("../../provider/portal");
    assert.ok(await client.billing.invoice(1, invoiceDate(invoices[0])!));
    const uploaded = await client.billing.uploadInvoiceFile(1, {
      fileName: "inv.pdf",
      content: Buffer.from("%PDF-1.4 test"),
      erpReference: "E1",
    });
    assert.equal(uploaded.fileName, "inv.pdf");
    assert.ok((await client.billing.invoiceFiles(1)).some((f) => f.fileName === "inv.pdf"));
    const periods = await client.billing.billingData(1, 1);
    assert.ok(periods.length > 0);
    assert.ok(await client.billing.billingDataFor(1, periods[0].period!.slice(0, 10)));
    await assert.rejects(client.billing.billingData(2), (e: PortalError) => e.status === 400, "billing only on a reseller");
  });

  it("pages through the audit log", async () => {
    const c = await client.consumers.create(1, { name: "audited" });
    for (let i = 0; i < 7; i++) await client.consumers.change(1, c.id, { note: `n${i}` });
    const seen: number[] = [];
    const all = await client.activity.auditLog(1, c.id, {}, { pageSize: 3, onPage: (n) => seen.push(n) });
    assert.equal(all.length, 8, "one create and seven modifications");
    assert.deepEqual(seen, [3, 6, 8]);
    assert.equal((await client.activity.auditLog(1, c.id, { types: [200] }, { pageSize: 3 })).length, 7);
    assert.equal((await client.activity.auditLog(1, c.id, {}, { pageSize: 3, max: 4 })).length, 4);
  });

  it("renews once for 50 concurrent calls at token expiry", async () => {
    await client.reference.nodeTypes();
    const before = client.stats.tokenRequests;
    await emu.expireTokens();
    await Promise.all(Array.from({ length: 50 }, () => client.reference.nodeTypes()));
    // One renewal: one grant, or, where the portal refuses refresh tokens (a reading of this run), the refused
    // refresh and the password grant after it.
    const grants = RUN_READINGS.refresh === "refused" ? 2 : 1;
    assert.equal(client.stats.tokenRequests - before, grants);
    assert.equal(emu.requests().filter((r) => r.path === "/v1/oauth").length, 1 + grants);
  });

  it("falls back to the password grant when the client ID does not allow refresh", async () => {
    const c = new PortalClient(settingsFor(emu, "admin", { clientId: "norefresh" }));
    await c.reference.nodeTypes();
    await emu.expireTokens();
    await c.reference.nodeTypes();
    c.close();
    const oauth = emu
      .requests()
      .filter((r) => r.path === "/v1/oauth")
      .map((r) => r.status);
    assert.ok(oauth.includes(200));
  });

  it("retries 503 and 429 answers and succeeds", async () => {
    await emu.setFaults({ errorRate: 0.3, statuses: [503, 429], retryAfterSeconds: 0, seed: 11 });
    for (let i = 0; i < 20; i++) await client.reference.operatingSystems();
    const statuses = emu.requests().map((r) => r.status);
    assert.ok(statuses.includes(503) && statuses.includes(429), "faults were injected");
    assert.ok(client.stats.retries > 0);
  });

  it("does not duplicate a create whose answer was lost", async () => {
    await emu.setFaults({ dropAfterRate: 1, match: { method: "POST", pathPrefix: "/v1/bunits/1/consumers" }, count: 1 });
    const c = await client.consumers.create(1, { name: "lost-answer" });
    await emu.clearFaults();
    const same = (await client.consumers.list(1)).filter((x) => x.name === "lost-answer");
    assert.deepEqual(
      same.map((x) => x.id),
      [c.id],
      "exactly one consumer",
    );
    const posts = emu.requests().filter((r) => r.method === "POST" && r.path === "/v1/bunits/1/consumers");
    assert.equal(posts.length, 1, "the create was looked up, not repeated");
  });

  it("a create slower than the timeout is looked for, never posted again", async () => {
    const slow = clientFor(emu, "admin", { timeoutMs: 150 });
    const posts = () => emu.requests().filter((r) => r.method === "POST" && r.path === "/v1/bunits/1/consumers");
    const named = async (name: string) => (await client.consumers.list(1)).filter((x) => x.name === name);
    // Answered after 350 ms: the client gives up at 150 ms, keeps looking, and finds it.
    await emu.setFaults({ latencyMs: 350, match: { method: "POST", pathPrefix: "/v1/bunits/1/consumers" }, count: 1 });
    const c = await slow.consumers.create(1, { name: "slow" });
    assert.deepEqual(
      (await named("slow")).map((x) => x.id),
      [c.id],
    );
    assert.equal(posts().length, 1, "one POST");

    // Slower than the client keeps looking (150 ms + 2 × 150 ms): it fails, says why and what to do, and posts once.
    await emu.setFaults({ latencyMs: 800, match: { method: "POST", pathPrefix: "/v1/bunits/1/consumers" }, count: 1 });
    await assert.rejects(
      slow.consumers.create(1, { name: "slower" }),
      /timed out after 150 ms.*was not sent again.*recoverInterruptedCreates: true/s,
    );
    await waitFor(async () => (await named("slower")).length > 0, "the late consumer", 5000);
    assert.equal((await named("slower")).length, 1, "made once, by the portal, late");
    assert.equal(posts().length, 2, "one POST each");
    slow.close();
  });

  it("a lost answer is looked up by the call's own marker, never by the stable one an older object carries", async () => {
    // What a forced replacement (pulumi up --replace) does: the same resource, so the same stable marker.
    const stable = markerFor("urn:pulumi:test::p::Consumer::web");
    const old = await client.consumers.create(1, { name: "web" }, stable);
    await emu.setFaults({ dropAfterRate: 1, match: { method: "POST", pathPrefix: "/v1/bunits/1/consumers" }, count: 1 });
    const replacement = await client.consumers.create(1, { name: "web" }, stable);
    await emu.clearFaults();
    assert.notEqual(replacement.id, old.id, "the replacement is the new consumer, not the one it replaces");
    assert.deepEqual(
      (await client.consumers.list(1))
        .filter((c) => c.name === "web")
        .map((c) => c.id)
        .sort(),
      [old.id, replacement.id].sort(),
    );
    // The stable marker still finds them both after a crash (recovery picks among those).
    assert.ok(await client.consumers.findCreated(1, "web", stable));
  });

  it("repeats a create that was dropped before the portal processed it", async () => {
    await emu.setFaults({ dropBeforeRate: 1, match: { method: "POST", pathPrefix: "/v1/bunits/1/bunits" }, count: 1 });
    const bu = await client.businessUnits.create(1, { name: "dropped", registrationNumber: "1", timeZone: { id: 4 } });
    await emu.clearFaults();
    const same = (await client.businessUnits.children(1)).filter((x) => x.name === "dropped");
    assert.deepEqual(
      same.map((x) => x.id),
      [bu.id],
    );
  });

  it("keeps the tenant inside its subtree", async () => {
    const tenant = clientFor(emu, "tenant");
    assert.equal((await tenant.businessUnits.get(2)).name, "Tenant A");
    await assert.rejects(tenant.businessUnits.get(1), (e: PortalError) => e.status === 403 && /ancestor/.test(e.message));
    await assert.rejects(tenant.consumers.create(1, { name: "x" }), (e: PortalError) => e.status === 403);
    await assert.rejects(tenant.billing.billingData(1), (e: PortalError) => e.status === 403);
    tenant.close();
  });

  it("fails without Origin, and with the wrong one", async () => {
    // A valid token, so the only thing wrong is the missing Origin.
    const token = await login(emu);
    const res = await fetch(`${emu.url}/v1/nodetypes`, { headers: { Authorization: `Bearer ${token}` } });
    assert.equal(res.status, 401);
    const body = (await res.json()) as Record<string, unknown>;
    assert.deepEqual(Object.keys(body).sort(), ["code", "developerMessage", "message", "status"]);
    assert.equal(body.code, "OriginRequired");
    const withOrigin = await fetch(`${emu.url}/v1/nodetypes`, { headers: { Authorization: `Bearer ${token}`, Origin: ORIGIN } });
    assert.equal(withOrigin.status, 200, "the same token with Origin is accepted");
    const elsewhere = await fetch(`${emu.url}/v1/nodetypes`, { headers: { Authorization: `Bearer ${token}`, Origin: "http://elsewhere" } });
    assert.equal(elsewhere.status, 401);
    assert.equal(((await elsewhere.json()) as Record<string, unknown>).code, "OriginMismatch");
    const wrong = new PortalClient(settingsFor(emu, "admin", { origin: "http://elsewhere" }));
    await assert.rejects(wrong.reference.nodeTypes(), (e: PortalError) => e.status === 401 && /origin/i.test(e.message));
    wrong.close();
  });

  it("never puts the password or a token in an error", async () => {
    const bad = new PortalClient(settingsFor(emu, "admin", { password: "Wr0ng-Pa55word!" }));
    const e1 = await bad.reference.nodeTypes().then(
      () => undefined,
      (e: Error) => e,
    );
    assert.ok(e1 instanceof PortalError && e1.status === 400 && e1.code === "invalid_grant");
    for (const text of [e1.message, e1.stack ?? "", JSON.stringify(e1), String(e1)]) assert.ok(!text.includes("Wr0ng-Pa55word!"), text);
    bad.close();

    await client.reference.nodeTypes();
    const tokens = (client as unknown as { core: { secrets(): string[] } }).core.secrets().slice(1);
    assert.ok(tokens.length >= 1);
    const e2 = await client.nodes.get(1, 999999).then(
      () => undefined,
      (e: Error) => e,
    );
    assert.ok(e2 instanceof PortalError && e2.status === 404);
    const texts = [e2.message, e2.stack ?? "", JSON.stringify(e2), JSON.stringify(client), require("util").inspect(client, { depth: 5 })];
    // Every token (long and random); the account password is searched for in holes.test.ts, where it is long.
    for (const t of texts) for (const s of tokens) assert.ok(!t.includes(s), `secret leaked into: ${t.slice(0, 200)}`);
    assert.ok(!require("util").inspect(client, { depth: 5 }).includes("Bearer"));
  });
});
