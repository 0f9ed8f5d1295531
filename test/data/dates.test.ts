import assert from "node:assert/strict";
import { formatTimestamp, toDay, toTimestamp } from "../../provider/data";

describe("data: dates", () => {
  const now = Date.parse("2025-03-10T12:00:00Z");
  it("days, timestamps, Dates and durations ago become portal timestamps", () => {
    assert.equal(toTimestamp("2025-01-31"), "2025-01-31T00:00:00Z");
    assert.equal(toTimestamp("2025-01-31", "end"), "2025-01-31T23:59:59.999Z");
    assert.equal(toTimestamp("2025-01-31T10:20:30+01:00"), "2025-01-31T09:20:30Z");
    assert.equal(toTimestamp("2025-01-31T10:20:30"), "2025-01-31T10:20:30Z");
    assert.equal(toTimestamp(new Date("2025-01-31T10:20:30.123Z")), "2025-01-31T10:20:30.123Z");
    assert.equal(toTimestamp("24h", "start", now), "2025-03-09T12:00:00Z");
    assert.equal(toTimestamp("7d", "start", now), "2025-03-03T12:00:00Z");
    assert.equal(toTimestamp("2w", "start", now), "2025-02-24T12:00:00Z");
    assert.equal(formatTimestamp(new Date(0)), "1970-01-01T00:00:00Z");
  });
  it("refuses what is not a date", () => {
    for (const bad of ["2025-02-30", "yesterday", "31/01/2025", "", "5y"]) assert.throws(() => toTimestamp(bad), RangeError, bad);
    assert.throws(() => toTimestamp(new Date(NaN)), RangeError);
    assert.equal(toDay("2025-01-31"), "2025-01-31");
    assert.throws(() => toDay("2025-01-31T00:00:00Z"), RangeError);
  });
});
