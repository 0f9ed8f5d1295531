import assert from "node:assert/strict";
import { api, login, nodeBody, SEED, useEmulator, type Api } from "./helpers";

const HOUR = 3600_000;

describe("emulator: audit log, jobs and reports", () => {
  const ctx = useEmulator();
  let a: Api;
  before(async () => {
    ctx.em.reset();
    a = api(ctx.em, await login(ctx.em, "tenant"));
  });
  const web = `/v1/bunits/2/consumers/${SEED.consumers.web.id}`;

  describe("audit log", () => {
    let id: number;
    let path: string;
    before(async () => {
      id = (await a.post("/v1/bunits/2/consumers", { name: "audited" })).body.id;
      path = `/v1/bunits/2/consumers/${id}`;
      for (let i = 0; i < 4; i++) await a.put(path, { note: `n${i}` });
      await a.post(`${path}/node`, nodeBody());
      await a.put(`${path}/node`, { cpuCount: 3 });
      await a.post(`${path}/node/password`, { tsmPassword: "pw-123456" });
      await a.get(`${path}/node/activate?tsmName=AUDITED`);
    });
    const log = (q = "") =>
      a.get(`${path}/auditlogs${q}`).then((r) => {
        assert.equal(r.status, 200, r.text);
        return r.body;
      });

    it("answers the consumer's own entries, and its node's with includeDescendants", async () => {
      const own = await log();
      assert.deepEqual(
        own.items.map((e: { type: number }) => e.type),
        [100, 200, 200, 200, 200],
      );
      assert.equal(own.total, 5);
      assert.deepEqual([own.offset, own.limit], [0, 50]);
      assert.deepEqual(Object.keys(own.items[0]).sort(), [
        "action",
        "businessUnitId",
        "consumerId",
        "id",
        "message",
        "objectId",
        "objectType",
        "time",
        "type",
        "user",
      ]);
      const all = await log("?includeDescendants=true");
      assert.equal(all.total, 9);
      assert.deepEqual(
        all.items.filter((e: { objectType: string }) => e.objectType === "Node").map((e: { action: string }) => e.action),
        ["Create", "Modify", "ChangePassword", "Activate"],
      );
      assert.ok(all.items.every((e: { user: string }) => e.user === "tenant"));
      assert.ok(!JSON.stringify(all).includes("pw-123456"));
    });

    it("pages with limit and offset, total counts all", async () => {
      const p1 = await log("?includeDescendants=true&limit=4&offset=0");
      const p2 = await log("?includeDescendants=true&limit=4&offset=4");
      const p3 = await log("?includeDescendants=true&limit=4&offset=8");
      assert.deepEqual([p1.items.length, p2.items.length, p3.items.length], [4, 4, 1]);
      assert.ok([p1, p2, p3].every((p) => p.total === 9));
      const ids = [...p1.items, ...p2.items, ...p3.items].map((e: { id: number }) => e.id);
      assert.equal(new Set(ids).size, 9);
      assert.deepEqual(
        ids,
        [...ids].sort((x, y) => x - y),
      );
      assert.equal((await log("?limit=100000")).limit, 500, "limit capped at 500");
      assert.equal((await a.get(`${path}/auditlogs?limit=-1`)).status, 400);
      assert.equal((await a.get(`${path}/auditlogs?offset=x`)).status, 400);
    });

    it("filters by types (repeatable) and orders descending", async () => {
      const creates = await log("?includeDescendants=true&types=100");
      assert.deepEqual(
        creates.items.map((e: { objectType: string }) => e.objectType),
        ["Consumer", "Node"],
      );
      const two = await log("?includeDescendants=true&types=100&types=300");
      assert.equal(two.total, 2);
      const desc = await log("?includeDescendants=true&orderDesc=true");
      const asc = await log("?includeDescendants=true");
      assert.deepEqual(
        desc.items.map((e: { id: number }) => e.id),
        asc.items.map((e: { id: number }) => e.id).reverse(),
      );
      assert.equal((await a.get(`${path}/auditlogs?types=150`)).status, 400);
    });

    it("filters by startTime/endTime (startDate/endDate too) on the seeded history", async () => {
      const all = await a.get(`${web}/auditlogs?includeDescendants=true&limit=500`).then((r) => r.body);
      assert.ok(all.total >= 10);
      const times = all.items.map((e: { time: string }) => Date.parse(e.time));
      const mid = new Date(times[Math.floor(times.length / 2)]).toISOString();
      const after = await a.get(`${web}/auditlogs?includeDescendants=true&startTime=${mid}`).then((r) => r.body);
      const before = await a.get(`${web}/auditlogs?includeDescendants=true&endDate=${mid}`).then((r) => r.body);
      assert.ok(after.items.every((e: { time: string }) => Date.parse(e.time) >= Date.parse(mid)));
      assert.ok(before.items.every((e: { time: string }) => Date.parse(e.time) <= Date.parse(mid)));
      assert.equal(after.total + before.total, all.total + 1, "the entry at mid is in both");
      const errors = await a.get(`${web}/auditlogs?includeDescendants=true&types=400`).then((r) => r.body);
      assert.ok(errors.total >= 1);
      assert.equal((await a.get(`${web}/auditlogs?startTime=yesterday`)).status, 400);
    });

    it("records deletes", async () => {
      const c = (await a.post("/v1/bunits/2/consumers", { name: "short-lived" })).body.id;
      await a.del(`/v1/bunits/2/consumers/${c}?deletionComment=bye`);
      const entries = ctx.em.state().auditLogs.filter((e) => e.consumerId === c);
      assert.deepEqual(
        entries.map((e) => [e.type, e.action]),
        [
          [100, "Create"],
          [300, "Delete"],
        ],
      );
    });
  });

  describe("jobs", () => {
    it("jobs/first answers placeholders but completed", async () => {
      const first = await a.get(`${web}/jobs/first`);
      assert.equal(first.status, 200);
      const age = Date.now() - Date.parse(first.body.completed);
      assert.ok(age > 5 * 24 * HOUR, "the first job is some days old");
      assert.equal(first.body.bytesTransferred, 0);
      const none = (await a.post("/v1/bunits/2/consumers", { name: "idle" })).body.id;
      assert.equal((await a.get(`/v1/bunits/2/consumers/${none}/jobs/first`)).status, 404);
    });

    it("without a range only the latest 24 hours", async () => {
      const r = await a.get(`${web}/jobs`);
      assert.equal(r.status, 200);
      assert.ok(r.body.items.length >= 3);
      for (const j of r.body.items) assert.ok(Date.now() - Date.parse(j.completed) <= 24 * HOUR);
      assert.deepEqual(Object.keys(r.body.items[0]).sort(), [
        "bytesTransferred",
        "completed",
        "id",
        "objects",
        "started",
        "status",
        "type",
      ]);
    });

    it("startTime may not be before the first job; at the first job it returns the full history", async () => {
      const first = (await a.get(`${web}/jobs/first`)).body.completed as string;
      const early = new Date(Date.parse(first) - 1000).toISOString();
      const bad = await a.get(`${web}/jobs?startTime=${early}`);
      assert.equal(bad.status, 400);
      assert.equal(bad.body.code, "StartTimeBeforeFirstJob");
      const all = await a.get(`${web}/jobs?startTime=${first}`);
      assert.equal(all.status, 200);
      const recent = await a.get(`${web}/jobs`);
      assert.ok(all.body.items.length > recent.body.items.length);
      assert.equal(all.body.items[0].completed, first);
      const bounded = await a.get(`${web}/jobs?startTime=${first}&endTime=${new Date(Date.parse(first) + 36 * HOUR).toISOString()}`);
      assert.equal(bounded.body.items.length, 2);
      const viaFirst = await a.get(`${web}/jobs/first?startTime=${first}`);
      assert.deepEqual(viaFirst.body.items, all.body.items, "the spec's list at jobs/first with a query");
      const future = await a.get(`${web}/jobs?endTime=2999-01-01T00:00:00Z`);
      assert.equal(future.body.items.length, recent.body.items.length, "endTime may be any date");
    });
  });

  describe("reports", () => {
    it("lists reports, with status and warnings only when asked", async () => {
      const plain = await a.get(`${web}/reports`);
      assert.ok(plain.body.items.length >= 7);
      assert.equal("status" in plain.body.items[0], false);
      assert.equal("warnings" in plain.body.items[0], false);
      const full = await a.get(`${web}/reports?status=true&warnings=true`);
      assert.equal(typeof full.body.items[0].status, "string");
      assert.ok(full.body.items.some((r: { warnings: unknown[] }) => r.warnings.length > 0));
      const since = new Date(Date.now() - 3 * 24 * HOUR).toISOString();
      const recent = await a.get(`${web}/reports?startDate=${since}`);
      assert.ok(recent.body.items.length >= 2 && recent.body.items.length <= 4);
    });

    it("the latest report", async () => {
      const latest = await a.get(`${web}/reports/latest?userId=${SEED.users.tenant.id}`);
      assert.equal(latest.status, 200);
      const list = await a.get(`${web}/reports`);
      assert.equal(latest.body.id, list.body.items[list.body.items.length - 1].id);
      assert.ok(Array.isArray(latest.body.warnings));
    });
  });
});
