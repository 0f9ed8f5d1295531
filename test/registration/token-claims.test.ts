// One-time registration tokens at their edges (provider/broker/token.ts): a token whose MAC is right is still
// refused when its form or its claims are out of range. The tokens here are signed by the test itself, from the
// format the module documents, so a claim the minting side would never write can be tried.
import assert from "node:assert/strict";
import { createHmac } from "crypto";
import fc from "fast-check";
import { MAX_TOKEN_TTL_SECONDS, mintRegistrationToken, TokenLedger, TokenRefused, verifyRegistrationToken } from "../../provider/broker";

const SECRET = "a-broker-secret-of-at-least-32-bytes";
const NOW = Date.parse("2026-01-01T00:00:00Z");
const E = NOW / 1000 + 600;
const NONCE = "n".repeat(22);

/** `<prefix>.<payload>.<mac>` with the MAC over the first two parts, as the broker computes it. */
function signed(claims: unknown, prefix = "rt1", payload = Buffer.from(JSON.stringify(claims)).toString("base64url")): string {
  const head = `${prefix}.${payload}`;
  return `${head}.${createHmac("sha256", SECRET).update(head).digest("base64url")}`;
}

function refusal(token: string): string | undefined {
  try {
    verifyRegistrationToken(SECRET, token, NOW);
    return undefined;
  } catch (err) {
    assert.ok(err instanceof TokenRefused, String(err));
    return err.reason;
  }
}

describe("registration tokens: edges of the form and the claims", () => {
  it("the test's own signing matches the broker's: a well-formed token it signs is accepted", () => {
    assert.deepEqual(verifyRegistrationToken(SECRET, signed({ b: 7, e: E, n: NONCE }), NOW), {
      businessUnitId: 7,
      expiresAt: E,
      nonce: NONCE,
    });
    assert.equal(
      refusal(signed({ b: 1, e: E, n: "x".repeat(16) })),
      undefined,
      "business unit 1 and a 16-character nonce are the lowest accepted",
    );
  });

  it("a signed token with a claim out of range is malformed", () => {
    const bad: Array<[string, unknown]> = [
      ["business unit 0", { b: 0, e: E, n: NONCE }],
      ["negative business unit", { b: -1, e: E, n: NONCE }],
      ["fractional business unit", { b: 1.5, e: E, n: NONCE }],
      ["business unit as text", { b: "7", e: E, n: NONCE }],
      ["unsafe business unit", { b: 2 ** 53, e: E, n: NONCE }],
      ["fractional expiry", { b: 7, e: E + 0.5, n: NONCE }],
      ["expiry as text", { b: 7, e: String(E), n: NONCE }],
      ["nonce of 15 characters", { b: 7, e: E, n: "x".repeat(15) }],
      ["nonce not text", { b: 7, e: E, n: 1234567890123456 }],
      ["no claims", {}],
      ["a list", [7, E, NONCE]],
      ["null", null],
    ];
    for (const [what, claims] of bad) assert.equal(refusal(signed(claims)), "malformed", what);
    assert.equal(refusal(signed(undefined, "rt1", Buffer.from("{not json").toString("base64url"))), "malformed", "payload not JSON");
  });

  it("only the rt1 form: another prefix, a padded or short MAC, spaces or extra parts are malformed even when signed", () => {
    const good = signed({ b: 7, e: E, n: NONCE });
    assert.equal(refusal(signed({ b: 7, e: E, n: NONCE }, "rt2")), "malformed", "another version's prefix, signed");
    assert.equal(refusal(signed({ b: 7, e: E, n: NONCE }, "")), "malformed", "no prefix, signed");
    assert.equal(refusal(`${good}=`), "malformed", "a padded MAC");
    assert.equal(refusal(good.slice(0, -1)), "malformed", "a MAC one character short");
    assert.equal(refusal(`${good}A`), "malformed", "a MAC one character long");
    const [p, payload, m] = good.split(".");
    assert.equal(refusal(`${p}.${payload}+.${m}`), "malformed", "a payload outside base64url");
    assert.equal(refusal(`  ${good}\n`), undefined, "surrounding white space is trimmed");
  });

  it("minting refuses what verifying would refuse: business unit below 1, a lifetime outside 60 s to an hour", () => {
    for (const businessUnitId of [0, -1, 1.5]) assert.throws(() => mintRegistrationToken(SECRET, { businessUnitId }), /positive integer/);
    for (const ttlSeconds of [59, 0, 60.5, MAX_TOKEN_TTL_SECONDS + 1])
      assert.throws(
        () => mintRegistrationToken(SECRET, { businessUnitId: 1, ttlSeconds }),
        /ttlSeconds must be 60 to 3600/,
        String(ttlSeconds),
      );
    for (const ttlSeconds of [60, MAX_TOKEN_TTL_SECONDS]) {
      const claims = verifyRegistrationToken(SECRET, mintRegistrationToken(SECRET, { businessUnitId: 1, ttlSeconds, now: NOW }), NOW);
      assert.equal(claims.expiresAt, NOW / 1000 + ttlSeconds);
    }
    assert.throws(() => mintRegistrationToken("x".repeat(31), { businessUnitId: 1 }), /at least 32 bytes/);
    assert.doesNotThrow(() => mintRegistrationToken("x".repeat(32), { businessUnitId: 1 }));
    // A fresh nonce each time: two tokens minted in the same second differ.
    const a = verifyRegistrationToken(SECRET, mintRegistrationToken(SECRET, { businessUnitId: 1, now: NOW }), NOW);
    const b = verifyRegistrationToken(SECRET, mintRegistrationToken(SECRET, { businessUnitId: 1, now: NOW }), NOW);
    assert.notEqual(a.nonce, b.nonce);
    assert.ok(a.nonce.length >= 16);
  });

  it("the ledger: full means full, and an entry is forgotten exactly when its token expires", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 20 }), (max) => {
        const ledger = new TokenLedger(max);
        for (let i = 0; i < max; i++) ledger.claim({ businessUnitId: 1, expiresAt: E, nonce: `nonce-${i}`.padEnd(16, "x") }, "uuid", NOW);
        assert.throws(
          () => ledger.claim({ businessUnitId: 1, expiresAt: E, nonce: "one-too-many".padEnd(16, "x") }, "uuid", NOW),
          /too many/,
        );
        // The same token again is no new entry.
        ledger.claim({ businessUnitId: 1, expiresAt: E, nonce: "nonce-0".padEnd(16, "x") }, "uuid", NOW);
      }),
      { numRuns: 20 },
    );
    const ledger = new TokenLedger();
    ledger.claim({ businessUnitId: 1, expiresAt: E, nonce: NONCE }, "uuid-a", NOW);
    ledger.claim({ businessUnitId: 1, expiresAt: E + 1, nonce: "m".repeat(22) }, "uuid-a", (E - 1) * 1000);
    assert.equal(ledger.size, 2, "a second before its expiry it is kept");
    ledger.claim({ businessUnitId: 1, expiresAt: E + 1, nonce: "m".repeat(22) }, "uuid-a", E * 1000);
    assert.equal(ledger.size, 1, "at its expiry it is forgotten");
  });
});
