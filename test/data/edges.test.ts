// The data functions at their edges (provider/data/): ids below 1, a range of one instant, the flags a request
// leaves out, the audit page bounds, durations in either case, a time without a zone on a machine that is not on
// UTC, and a Date as a day.
import assert from "node:assert/strict";
import { clientSuite } from "../support/portal";
import { getAuditLog, getReports, toDay, toTimestamp } from "../../provider/data";
import { MAX_AUDIT_PAGE } from "../../provider/data/activity";

describe("data: edges", function () {
  this.timeout(30000);
  const p = clientSuite();

  it("refuses a business unit or consumer id below 1 before any request", async () => {
    const before = p.emu.requests().length;
    for (const [b, c] of [
      [0, 1],
      [2, 0],
      [-1, 1],
      [2, 1.5],
    ])
      await assert.rejects(getReports(p.client, b, c), /id must be a positive integer/, `${b}/${c}`);
    assert.equal(p.emu.requests().length, before);
  });

  it("a range of one instant is a range; one that ends before it starts is refused", async () => {
    const at = "2025-01-02T03:04:05Z";
    assert.ok(Array.isArray(await getReports(p.client, 2, 1, { from: at, to: at })));
    await assert.rejects(getReports(p.client, 2, 1, { from: "2025-01-02T03:04:06Z", to: at }), /the range starts .* after it ends/);
  });

  it("status and warnings are asked for only when wanted: false sends neither", async () => {
    const mark = p.emu.requests().length;
    await getReports(p.client, 2, 1, { status: false, warnings: false });
    await getReports(p.client, 2, 1, { status: true, warnings: true });
    const [plain, full] = p.emu
      .requests()
      .slice(mark)
      .filter((r) => r.path.includes("/reports"))
      .map((r) => r.path);
    assert.doesNotMatch(plain, /status|warnings/);
    assert.match(full, /status=true/);
    assert.match(full, /warnings=true/);
  });

  it("audit pages of 1 to the maximum", async () => {
    const before = p.emu.requests().length;
    for (const pageSize of [MAX_AUDIT_PAGE + 1, 0])
      await assert.rejects(getAuditLog(p.client, 2, 1, { pageSize }), (e: Error) => e instanceof RangeError && /pageSize/.test(e.message));
    assert.equal(p.emu.requests().length, before, "refused before any request");
    assert.deepEqual(await getAuditLog(p.client, 2, 1, { limit: 0 }), []);
    assert.equal(p.emu.requests().length, before, "a limit of 0 asks the portal nothing");
    assert.ok(Array.isArray(await getAuditLog(p.client, 2, 1, { pageSize: MAX_AUDIT_PAGE, limit: 1 })));
  });

  it("durations in either case; a time without a zone is UTC whatever the machine's zone; a Date as its UTC day", () => {
    const now = Date.parse("2025-06-01T12:00:00Z");
    assert.equal(toTimestamp("2H", "start", now), "2025-06-01T10:00:00Z");
    assert.equal(toTimestamp("1W", "start", now), "2025-05-25T12:00:00Z");
    const tz = process.env.TZ;
    process.env.TZ = "America/New_York";
    try {
      assert.equal(toTimestamp("2025-01-01T10:00"), "2025-01-01T10:00:00Z");
      assert.equal(toTimestamp("2025-01-01T10:00:00+02:00"), "2025-01-01T08:00:00Z");
    } finally {
      if (tz === undefined) delete process.env.TZ;
      else process.env.TZ = tz;
    }
    assert.equal(toDay(new Date("2025-03-04T23:59:59Z")), "2025-03-04");
  });
});
