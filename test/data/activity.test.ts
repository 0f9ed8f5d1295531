import assert from "node:assert/strict";
import { clientSuite } from "../support/portal";
import { PortalError } from "../../provider/portal";
import { AuditLogEntry } from "../../provider/portal/types";
import {
  auditTypes,
  getAuditLog,
  getFirstJobDate,
  getJobs,
  getLatestReport,
  getRecentJobs,
  getReports,
  jobsSince,
  jobsSinceDetailed,
} from "../../provider/data";

const DAY = 86_400_000;
const HOUR = 3_600_000;

describe("data: reports, jobs and the audit log", function () {
  this.timeout(30000);
  const p = clientSuite();

  describe("reports", () => {
    it("all reports of a consumer, oldest first; status and warnings only when asked", async () => {
      const all = await getReports(p.client, 2, 1);
      assert.equal(all.length, 14);
      assert.ok(all.every((r, i) => i === 0 || r.date! > all[i - 1].date!));
      assert.ok(all.every((r) => r.status === undefined && r.warnings === undefined));
      const full = await getReports(p.client, 2, 1, { status: true, warnings: true });
      assert.deepEqual(full.filter((r) => r.status === "Warning").length, 2);
      assert.ok(full.every((r) => Array.isArray(r.warnings)));
    });

    it("a date range: days are inclusive at both ends", async () => {
      const all = await getReports(p.client, 2, 1);
      const days = all.map((r) => r.date!.slice(0, 10));
      const part = await getReports(p.client, 2, 1, { from: days[3], to: days[6] });
      assert.deepEqual(
        part.map((r) => r.date!.slice(0, 10)),
        days.slice(3, 7),
      );
      const from = new Date(Date.now() - 2.5 * DAY);
      const recent = await getReports(p.client, 2, 1, { from });
      assert.deepEqual(
        recent,
        all.filter((r) => Date.parse(r.date!) >= from.getTime()),
      );
      assert.ok(recent.length >= 2 && recent.length <= 3);
      await assert.rejects(getReports(p.client, 2, 1, { from: days[6], to: days[3] }), RangeError);
      await assert.rejects(getReports(p.client, 2, 1, { from: "yesterday-ish" }), RangeError);
    });

    it("the latest report with status and warnings; undefined for a consumer without reports; 404 for an unknown consumer", async () => {
      const latest = await getLatestReport(p.client, 2, 1);
      const all = await getReports(p.client, 2, 1);
      assert.equal(latest?.date, all[all.length - 1].date);
      assert.equal(latest?.status, "Warning");
      assert.deepEqual(latest?.warnings, [{ warningTypeId: 4, message: "Schedule DAILY missed once" }]);
      assert.equal(await getLatestReport(p.client, 2, 2), undefined);
      await assert.rejects(getLatestReport(p.client, 2, 99), (err: unknown) => err instanceof PortalError && err.status === 404);
    });
  });

  describe("jobs", () => {
    it("the first job's date; undefined without jobs", async () => {
      const first = await getFirstJobDate(p.client, 2, 1);
      assert.ok(first);
      const age = Date.now() - Date.parse(first!);
      assert.ok(age > 10 * DAY - 3 * HOUR && age < 10 * DAY - HOUR, `${first}`);
      assert.equal(await getFirstJobDate(p.client, 2, 2), undefined);
      await assert.rejects(getFirstJobDate(p.client, 2, 99), (err: unknown) => err instanceof PortalError && err.status === 404);
    });

    it("the 24-hour default", async () => {
      const recent = await getRecentJobs(p.client, 2, 1);
      assert.equal(recent.length, 4);
      assert.ok(recent.every((j) => Date.now() - Date.parse(j.completed!) <= DAY));
      assert.deepEqual(await getJobs(p.client, 2, 1), recent);
      const paths = p.emu
        .requests()
        .filter((r) => r.path.includes("/jobs"))
        .map((r) => r.path);
      assert.ok(
        paths.every((p) => !p.includes("startTime")),
        "no start sent: the portal's default window, cut to 24 hours",
      );
    });

    it("jobsSince clamps a start before the first job to its completed time (the portal would refuse it)", async () => {
      const first = (await getFirstJobDate(p.client, 2, 1))!;
      p.emu.clearRequests();
      const r = await jobsSinceDetailed(p.client, 2, 1, new Date(Date.now() - 30 * DAY));
      assert.equal(r.clamped, true);
      assert.equal(r.startTime, first);
      assert.equal(r.jobs.length, 13);
      assert.equal(r.jobs[0].completed, first);
      const sent = p.emu.requests().find((x) => x.path.includes("/jobs/first?"))!;
      assert.equal(sent.status, 200);
      assert.equal(new URL(sent.path, p.emu.url).searchParams.get("startTime"), first);
      // The unclamped start really is refused by the portal.
      await assert.rejects(
        p.client.activity.jobs(2, 1, { startTime: new Date(Date.parse(first) - 1000).toISOString() }),
        (err: unknown) => err instanceof PortalError && err.code === "StartTimeBeforeFirstJob",
      );
    });

    it("a start after the first job is kept; an end bounds the range; no start means from the first job", async () => {
      const since = await jobsSinceDetailed(p.client, 2, 1, new Date(Date.now() - 5 * DAY));
      assert.equal(since.clamped, false);
      assert.ok(since.jobs.length > 4 && since.jobs.length < 13);
      assert.ok(since.jobs.every((j) => Date.now() - Date.parse(j.completed!) <= 5 * DAY));
      const until = await jobsSince(p.client, 2, 1, "30d", new Date(Date.now() - 2 * DAY));
      assert.ok(until.every((j) => Date.now() - Date.parse(j.completed!) >= 2 * DAY));
      assert.equal((await jobsSince(p.client, 2, 1)).length, 13);
      assert.equal((await getJobs(p.client, 2, 1, { to: new Date() })).length, 13);
      assert.deepEqual(await jobsSince(p.client, 2, 2, "30d"), [], "no jobs at all");
      // An end before the first job: nothing, and no refused request.
      assert.deepEqual(await jobsSince(p.client, 2, 1, "60d", "40d"), []);
    });
  });

  describe("audit log", () => {
    it("the consumer's entries, and with descendants its node's too", async () => {
      const own = await getAuditLog(p.client, 2, 1);
      assert.deepEqual(
        own.map((e) => e.action),
        ["Create", "Modify"],
      );
      const all = await getAuditLog(p.client, 2, 1, { includeDescendants: true });
      assert.equal(all.length, 15);
      assert.ok(all.every((e, i) => i === 0 || e.time! >= all[i - 1].time!));
      const desc = await getAuditLog(p.client, 2, 1, { includeDescendants: true, orderDesc: true });
      assert.deepEqual(
        desc.map((e) => e.id),
        all.map((e) => e.id).reverse(),
      );
      assert.deepEqual(
        (await getAuditLog(p.client, 2, 1, { includeDescendants: true, types: ["error"] })).map((e) => e.type),
        [400],
      );
      assert.equal((await getAuditLog(p.client, 2, 1, { includeDescendants: true, types: [100, "modify"] })).length, 4);
      assert.ok(
        (await getAuditLog(p.client, 2, 1, { includeDescendants: true, from: "3d" })).every(
          (e) => Date.now() - Date.parse(e.time!) <= 3 * DAY,
        ),
      );
      assert.deepEqual(auditTypes(["info", "CREATE", "200", 300, "error"]), [0, 100, 200, 300, 400]);
      assert.throws(() => auditTypes(["oops"]), /unknown audit log type "oops"; valid: info \(0\), create \(100\)/);
    });

    it("pages through more than one page (30 updates, page size 7) with progress", async () => {
      for (let i = 0; i < 30; i++) await p.client.consumers.change(2, 1, { note: `change ${i}` });
      p.emu.clearRequests();
      const progress: Array<[number, number | undefined]> = [];
      const entries = await getAuditLog(p.client, 2, 1, { pageSize: 7, onProgress: (seen, total) => progress.push([seen, total]) });
      assert.equal(entries.length, 32);
      assert.equal(new Set(entries.map((e) => e.id)).size, 32);
      assert.deepEqual(
        entries.slice(2).map((e) => e.message),
        Array.from({ length: 30 }, () => "Consumer modified: note"),
      );
      const pages = p.emu
        .requests()
        .filter((r) => r.path.includes("/auditlogs"))
        .map((r) => new URL(r.path, p.emu.url).searchParams);
      assert.deepEqual(
        pages.map((p) => [p.get("offset"), p.get("limit")]),
        [
          ["0", "7"],
          ["7", "7"],
          ["14", "7"],
          ["21", "7"],
          ["28", "7"],
        ],
      );
      assert.deepEqual(progress, [
        [7, 32],
        [14, 32],
        [21, 32],
        [28, 32],
        [32, 32],
      ]);
      // Equal to one big page.
      assert.deepEqual(entries, (await p.client.activity.auditLogPage(2, 1, {}, 0, 500)).items);
    });

    it("gets everything from a portal that caps the page size, and keeps an entry seen twice once", async () => {
      for (let i = 0; i < 12; i++) await p.client.consumers.change(2, 1, { note: `cap ${i}` });
      const expected = (await p.client.activity.auditLogPage(2, 1, {}, 0, 500)).items;
      assert.equal(expected.length, 14);
      // A portal whose largest page is 4 entries, whatever is asked.
      const real = p.client.activity.auditLogPage.bind(p.client.activity);
      p.client.activity.auditLogPage = (b, c, q, offset, limit) => real(b, c, q, offset, Math.min(limit, 4));
      assert.deepEqual(await getAuditLog(p.client, 2, 1, { pageSize: 10 }), expected);
      p.client.activity.auditLogPage = real;
      // An older entry appears while paging: later pages shift by one; nothing is lost or doubled.
      let added = false;
      const entries = await getAuditLog(p.client, 2, 1, {
        pageSize: 5,
        onProgress: () => {
          if (added) return;
          added = true;
          p.emu.update((s) => {
            s.auditLogs.push({
              ...s.auditLogs.find((e) => e.consumerId === 1 && e.objectType === "Consumer")!,
              id: 9999,
              time: "2000-01-01T00:00:00Z",
            });
          });
        },
      });
      assert.equal(new Set(entries.map((e) => e.id)).size, entries.length);
      for (const e of expected)
        assert.ok(
          entries.some((x) => x.id === e.id),
          `entry ${e.id} missing`,
        );
    });

    it("keeps every entry without an id (only numeric ids are de-duplicated)", async () => {
      const real = p.client.activity.auditLogPage.bind(p.client.activity);
      // Two pages: entries without an id (or with a non-numeric one), and numeric ids, one of them repeated.
      const pages = [
        [{ message: "a" }, { message: "b" }, { id: 7, message: "c" }],
        [{ message: "d" }, { id: "x", message: "e" }, { id: 7, message: "c again" }],
      ] as unknown as AuditLogEntry[][];
      p.client.activity.auditLogPage = async (_b, _c, _q, offset) => ({
        offset,
        items: offset === 0 ? pages[0] : offset === 3 ? pages[1] : [],
        total: 6,
      });
      try {
        const entries = await getAuditLog(p.client, 2, 1, { pageSize: 3 });
        assert.deepEqual(
          entries.map((e) => e.message),
          ["a", "b", "c", "d", "e"],
        );
      } finally {
        p.client.activity.auditLogPage = real;
      }
    });

    it("stops at a limit, asking only for what it needs", async () => {
      for (let i = 0; i < 20; i++) await p.client.consumers.change(2, 1, { note: `n${i}` });
      p.emu.clearRequests();
      const first10 = await getAuditLog(p.client, 2, 1, { pageSize: 7, limit: 10 });
      assert.equal(first10.length, 10);
      const pages = p.emu
        .requests()
        .filter((r) => r.path.includes("/auditlogs"))
        .map((r) => new URL(r.path, p.emu.url).searchParams);
      assert.deepEqual(
        pages.map((p) => [p.get("offset"), p.get("limit")]),
        [
          ["0", "7"],
          ["7", "3"],
        ],
      );
      const newest3 = await getAuditLog(p.client, 2, 1, { orderDesc: true, limit: 3 });
      assert.deepEqual(
        newest3.map((e) => e.message),
        ["Consumer modified: note", "Consumer modified: note", "Consumer modified: note"],
      );
      assert.deepEqual(await getAuditLog(p.client, 2, 1, { limit: 0 }), []);
      await assert.rejects(getAuditLog(p.client, 2, 1, { pageSize: 501 }), RangeError);
    });
  });
});
