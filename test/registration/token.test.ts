// One-time registration tokens (provider/broker/token.ts): what they bind, and that no change to one passes.
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  CLOCK_SKEW_SECONDS,
  MAX_TOKEN_TTL_SECONDS,
  mintRegistrationToken,
  TokenLedger,
  TokenRefused,
  verifyRegistrationToken,
} from "../../provider/broker";

const SECRET = "a-broker-secret-of-at-least-32-bytes";
const NOW = Date.parse("2026-01-01T00:00:00Z");

function refusal(f: () => unknown): string | undefined {
  try {
    f();
    return undefined;
  } catch (err) {
    assert.ok(err instanceof TokenRefused, String(err));
    return err.reason;
  }
}

describe("registration: one-time registration tokens", () => {
  it("a token gives back its business unit and expiry, for at most an hour", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }), fc.integer({ min: 60, max: MAX_TOKEN_TTL_SECONDS }), (bu, ttl) => {
        const token = mintRegistrationToken(SECRET, { businessUnitId: bu, ttlSeconds: ttl, now: NOW });
        const claims = verifyRegistrationToken(SECRET, token, NOW);
        assert.equal(claims.businessUnitId, bu);
        assert.equal(claims.expiresAt, NOW / 1000 + ttl);
        assert.equal(
          refusal(() => verifyRegistrationToken(SECRET, token, NOW + ttl * 1000 - 1)),
          undefined,
        );
        assert.equal(
          refusal(() => verifyRegistrationToken(SECRET, token, NOW + ttl * 1000)),
          "expired",
        );
      }),
      { numRuns: 200 },
    );
    assert.throws(
      () => mintRegistrationToken(SECRET, { businessUnitId: 2, ttlSeconds: MAX_TOKEN_TTL_SECONDS + 1 }),
      /ttlSeconds must be 60 to 3600/,
    );
    assert.throws(() => mintRegistrationToken(SECRET, { businessUnitId: 1e21 }), /businessUnitId must be a positive integer/);
    assert.throws(() => mintRegistrationToken("short", { businessUnitId: 2 }), /at least 32 bytes/);
  });

  it("a token expiring more than an hour (and the clock skew) after now is refused, whoever minted it", () => {
    // Minted with the secret by a clock `ahead` seconds in front of the broker's.
    const at = (ahead: number) => mintRegistrationToken(SECRET, { businessUnitId: 2, now: NOW + ahead * 1000 });
    assert.equal(
      verifyRegistrationToken(SECRET, at(CLOCK_SKEW_SECONDS), NOW).expiresAt,
      NOW / 1000 + MAX_TOKEN_TTL_SECONDS + CLOCK_SKEW_SECONDS,
    );
    for (const ahead of [CLOCK_SKEW_SECONDS + 1, 24 * 3600, 10 * 365 * 24 * 3600])
      assert.equal(
        refusal(() => verifyRegistrationToken(SECRET, at(ahead), NOW)),
        "lifetime",
        String(ahead),
      );
  });

  it("any change to a token, or another secret, is refused", () => {
    const token = mintRegistrationToken(SECRET, { businessUnitId: 2, now: NOW });
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.";
    fc.assert(
      fc.property(fc.nat({ max: token.length - 1 }), fc.constantFrom(...alphabet), (at, c) => {
        fc.pre(token[at] !== c);
        const changed = token.slice(0, at) + c + token.slice(at + 1);
        assert.ok(["malformed", "signature"].includes(refusal(() => verifyRegistrationToken(SECRET, changed, NOW)) ?? "accepted"), changed);
      }),
      { numRuns: 500 },
    );
    assert.equal(
      refusal(() => verifyRegistrationToken(`${SECRET}!`, token, NOW)),
      "signature",
    );
    // Every other spelling of the MAC's last character (its spare bits decode the same) is refused too.
    for (const c of alphabet
      .slice(0, 64)
      .split("")
      .filter((x) => x !== token[token.length - 1]))
      assert.equal(
        refusal(() => verifyRegistrationToken(SECRET, token.slice(0, -1) + c, NOW)),
        "signature",
        c,
      );
    for (const bad of ["", "rt1", "rt1..", `rt2${token.slice(3)}`, `${token}.x`, token.split(".").slice(0, 2).join(".")])
      assert.ok(
        refusal(() => verifyRegistrationToken(SECRET, bad, NOW)),
        JSON.stringify(bad),
      );
  });

  it("the ledger: the first instance claims a token; it may present it again until complete; nobody else ever", () => {
    const ledger = new TokenLedger();
    const claims = verifyRegistrationToken(SECRET, mintRegistrationToken(SECRET, { businessUnitId: 2, now: NOW }), NOW);
    ledger.claim(claims, "uuid-a", NOW);
    ledger.claim(claims, "uuid-a", NOW);
    assert.equal(
      refusal(() => ledger.claim(claims, "uuid-b", NOW)),
      "replayed",
    );
    ledger.complete(claims);
    assert.equal(
      refusal(() => ledger.claim(claims, "uuid-a", NOW)),
      "replayed",
    );
    // Forgotten once the token has expired (it is refused as expired from then on): the ledger stays bounded.
    ledger.claim(verifyRegistrationToken(SECRET, mintRegistrationToken(SECRET, { businessUnitId: 3, now: NOW }), NOW), "uuid-c", NOW);
    assert.equal(ledger.size, 2);
    ledger.claim({ ...claims, nonce: "n".repeat(22), expiresAt: NOW / 1000 + 7200 }, "uuid-d", NOW + 3600_000);
    assert.equal(ledger.size, 1);
  });
});
