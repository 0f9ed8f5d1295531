// Retry-After as the portal client and the metadata reader read it (RFC 9110 §10.2.3).
import assert from "node:assert/strict";
import { parseRetryAfter } from "../../provider/http/retry-after";

describe("Retry-After", () => {
  const now = Date.parse("2025-01-01T00:00:00Z");

  it("delta-seconds: whole seconds, as ms", () => {
    assert.equal(parseRetryAfter("3", now), 3000);
    assert.equal(parseRetryAfter(" 0 ", now), 0);
  });

  it("an HTTP date: the time until it, 0 when it is past", () => {
    assert.equal(parseRetryAfter("Wed, 01 Jan 2025 00:00:02 GMT", now), 2000);
    assert.equal(parseRetryAfter("Wed, 01 Jan 2020 00:00:02 GMT", now), 0);
  });

  it("absent or unreadable: no floor", () => {
    for (const v of [null, undefined, "", "soon", "-1", "1.5", "1e3"]) assert.equal(parseRetryAfter(v, now), undefined, String(v));
  });
});
