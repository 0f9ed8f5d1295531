// The spent-token ledger in its file (provider/broker/ledger.ts): what a restarted broker reads back, what it
// drops (expired tokens), what it refuses to start with, and that writes land in order, atomically, mode 0600.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { fileLedger, LedgerFileError } from "../../provider/broker/ledger";
import { TokenRefused } from "../../provider/broker/token";
import { removeTempDirs, tempDir } from "./helpers";

const NOW = Date.parse("2026-01-01T00:00:00Z");
const S = NOW / 1000;
const claims = (n: number, expiresAt = S + 3600) => ({ businessUnitId: 2, expiresAt, nonce: `nonce-${n}`.padEnd(22, "x") });

describe("registration broker: the ledger file", () => {
  after(() => removeTempDirs());

  it("a restart reads back who claimed and who spent each token; expired ones are dropped", async () => {
    const file = path.join(tempDir(), "state", "spent-tokens.json");
    const first = await fileLedger(file, NOW);
    first.ledger.claim(claims(1), "uuid-a", NOW);
    first.ledger.complete(claims(1));
    first.ledger.claim(claims(2), "uuid-b", NOW);
    first.ledger.claim(claims(3, S + 60), "uuid-c", NOW);
    await first.save();
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);

    const later = NOW + 120_000; // token 3 has expired by then
    const again = await fileLedger(file, later);
    assert.equal(again.ledger.size, 2);
    const reason = (f: () => void) => {
      try {
        f();
        return "accepted";
      } catch (err) {
        return err instanceof TokenRefused ? err.reason : String(err);
      }
    };
    assert.equal(
      reason(() => again.ledger.claim(claims(1), "uuid-a", later)),
      "replayed",
      "spent stays spent",
    );
    assert.equal(
      reason(() => again.ledger.claim(claims(2), "uuid-x", later)),
      "replayed",
      "claimed stays claimed",
    );
    assert.equal(
      reason(() => again.ledger.claim(claims(2), "uuid-b", later)),
      "accepted",
      "its claimant may retry",
    );
    await again.save();
    assert.deepEqual(
      (JSON.parse(fs.readFileSync(file, "utf8")) as { tokens: Array<{ nonce: string }> }).tokens.map((t) => t.nonce),
      [claims(1).nonce, claims(2).nonce],
      "the expired entry is gone from the file too",
    );
  });

  it("writes land in order, each of the whole ledger, with no temp file left", async () => {
    // Unordered writes lose the race only now and then: a few rounds of many.
    for (let round = 0; round < 5; round++) {
      const dir = tempDir();
      const file = path.join(dir, "spent-tokens.json");
      const store = await fileLedger(file, NOW);
      const saves: Array<Promise<void>> = [];
      for (let i = 0; i < 30; i++) {
        store.ledger.claim(claims(i), `uuid-${i}`, NOW);
        saves.push(store.save());
      }
      await Promise.all(saves);
      const back = await fileLedger(file, NOW);
      assert.equal(back.ledger.size, 30, `round ${round}`);
      assert.deepEqual(fs.readdirSync(dir), ["spent-tokens.json"]);
    }
  });

  it("refuses to start from a file it did not write, naming the file, never its content", async () => {
    const dir = tempDir();
    const cases: Array<[string, RegExp]> = [
      ["{ not json", /is not JSON/],
      ["[]", /is not a ledger of this broker/],
      [JSON.stringify({ format: 2, tokens: [] }), /is not a ledger of this broker/],
      [JSON.stringify({ format: 1, tokens: [{ nonce: "n", uuid: "u", complete: "yes", expiresAt: S }] }), /is not a ledger of this broker/],
    ];
    for (const [i, [text, why]] of cases.entries()) {
      const file = path.join(dir, `ledger-${i}.json`);
      fs.writeFileSync(file, text);
      await assert.rejects(fileLedger(file, NOW), (err: Error) => {
        assert.ok(err instanceof LedgerFileError, String(err));
        assert.match(err.message, why);
        assert.ok(err.message.startsWith(`the spent-token ledger ${file} `));
        assert.ok(!err.message.includes(text), "the content is not quoted");
        return true;
      });
    }
    await assert.rejects(fileLedger(dir, NOW), /the spent-token ledger .* cannot be read \(EISDIR\)/);
  });
});
