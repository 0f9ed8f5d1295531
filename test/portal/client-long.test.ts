// A run of several seconds on 2-second tokens: no call fails while tokens are renewed underneath. Kept out of
// the mutation run (it lasts 7 s whatever the mutant; token-renewal.test.ts checks the renewal on a moved clock).
import assert from "node:assert/strict";
import { clientFor, Emulator, RUN_READINGS, startEmulator } from "../support/portal";

describe("portal client over time", function () {
  this.timeout(30_000);
  let emu: Emulator;
  before(async () => {
    emu = await startEmulator({ port: 0, quiet: true, tokenTtlSeconds: 2 });
  });
  after(async () => {
    await emu?.close();
  });

  it("keeps working through a long sequence with 2-second tokens", async () => {
    const client = clientFor(emu);
    const started = Date.now();
    let calls = 0;
    // Bounded: 7 seconds or 2000 calls, whichever comes first.
    while (Date.now() - started < 7000 && calls < 2000) {
      await client.reference.nodeTypes();
      calls++;
      await new Promise((r) => setTimeout(r, 20));
    }
    // Where the portal refuses refresh tokens (a reading of this run), each renewal's refused refresh is a 400
    // the client answers with the password grant: only the caller's calls must all succeed.
    const refusedRefresh = (r: { path: string; status: number }) =>
      RUN_READINGS.refresh === "refused" && r.path === "/v1/oauth" && r.status === 400;
    const failed = emu.requests().filter((r) => r.status >= 400 && !refusedRefresh(r));
    assert.deepEqual(failed, [], "no call failed");
    assert.ok(client.stats.tokenRequests >= 3, `tokens were renewed (${client.stats.tokenRequests})`);
    const refreshes = emu.requests().filter((r) => r.path === "/v1/oauth").length;
    assert.equal(refreshes, client.stats.tokenRequests);
    client.close();
  });
});
