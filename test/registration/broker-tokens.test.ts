// What one token holder can ask of the registration broker (issue 37, items 4 and 5), over loopback against the
// emulator: a token that would live longer than an hour is refused, one token has one request in the broker at
// a time (429 with Retry-After, so it cannot fill the queue of everyone else), and a backup_bunit beyond the
// safe-integer range is refused as such, not read as another id.
import assert from "node:assert/strict";
import { PortalClient } from "../../provider/portal/client";
import { BrokerHandle, CLOCK_SKEW_SECONDS, mintRegistrationToken } from "../../provider/broker";
import { MAX_PENDING, REGISTER_PATH } from "../../provider/broker/server";
import { Emulator, writes } from "../support/portal";
import { startBrokerOnEmulator, stopBrokerOnEmulator } from "./helpers";

const SECRET = "broker-tokens-secret-0123456789-abcdefghij";
const BUNIT = 2;
const uuidOf = (i: number) => `4c1d2e3f-4a5b-4c6d-8e7f-${String(i).padStart(12, "0")}`;
const YEAR_MS = 365 * 24 * 3600_000;

describe("registration broker: what one token can ask", function () {
  this.timeout(60_000);
  let emu: Emulator;
  let client: PortalClient;
  let broker: BrokerHandle;

  before(async () => ({ emu, client, broker } = await startBrokerOnEmulator(SECRET)));
  afterEach(() => emu.clearFaults());
  after(() => stopBrokerOnEmulator({ emu, client, broker }));

  const mint = (o: { now?: number } = {}) => mintRegistrationToken(SECRET, { businessUnitId: BUNIT, ...o });
  async function post(token: string, o: { uuid?: string; bunit?: string; dryRun?: boolean } = {}) {
    const res = await fetch(`${broker.url}${REGISTER_PATH}`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
      body: JSON.stringify({
        instance: { uuid: o.uuid ?? uuidOf(0), name: "web01", hostname: "web01", meta: { backup_bunit: o.bunit ?? String(BUNIT) } },
        cpuCount: 2,
        dryRun: o.dryRun ?? true,
      }),
      signal: AbortSignal.timeout(30_000),
    });
    const answer = (await res.json()) as { error?: string; kind?: string; problems?: string[]; result?: { status: string } };
    return { status: res.status, retryAfter: res.headers.get("retry-after"), answer };
  }

  it("refuses a token that would live longer than an hour (minted ten years ahead), before any portal request", async () => {
    const before = emu.requests().length;
    const far = await post(mint({ now: Date.now() + 10 * YEAR_MS }));
    assert.deepEqual([far.status, far.answer.kind], [401, "token"]);
    assert.match(far.answer.error!, /would live longer than an hour/);
    assert.equal(emu.requests().length, before, "nothing reached the portal");
    // A stack whose clock runs a little ahead of the broker's is still served.
    const ahead = await post(mint({ now: Date.now() + (CLOCK_SKEW_SECONDS - 30) * 1000 }), { uuid: uuidOf(1) });
    assert.equal(ahead.status, 200, ahead.answer.error);
  });

  it("one request per token at a time: 30 at once get one answer and 29 × 429 with Retry-After; the queue stays open to others", async () => {
    emu.setFaults({ latencyMs: 400 });
    const token = mint();
    const answers = await Promise.all(Array.from({ length: 30 }, () => post(token)));
    const served = answers.filter((a) => a.status === 200);
    const busy = answers.filter((a) => a.status === 429);
    assert.equal(served.length, 1, JSON.stringify(answers.map((a) => a.status)));
    assert.equal(busy.length, 29);
    assert.ok(
      busy.every((a) => a.retryAfter === "5" && a.answer.kind === "busy" && /running already/.test(a.answer.error!)),
      JSON.stringify(busy[0]),
    );
    // Meanwhile others (one token each) still find room: the queue holds MAX_PENDING of them.
    const others = await Promise.all(
      Array.from({ length: 3 }, (_, i) => Promise.all([post(mint(), { uuid: uuidOf(10 + i) }), post(token)])),
    );
    assert.ok(
      others.every(([other]) => other.status === 200),
      JSON.stringify(others.map(([o]) => o.status)),
    );
    assert.ok(MAX_PENDING >= 3);
    // Once its request has finished, the token is served again (a dry run does not spend it).
    emu.clearFaults();
    assert.equal((await post(token)).status, 200);
  });

  it("a backup_bunit beyond 2^53 - 1 is refused naming the bound (422), not read as another id; the token stays good", async () => {
    const token = mint();
    const mark = writes(emu).length;
    for (const bunit of ["9007199254740993", "99999999999999999999"]) {
      const { status, answer } = await post(token, { bunit, dryRun: false });
      assert.deepEqual([status, answer.kind], [422, "configuration"], answer.error);
      assert.match(
        answer.error!,
        new RegExp(`^backup_bunit must be a business unit id \\(a positive integer up to 9007199254740991\\), got "${bunit}"`),
      );
      assert.deepEqual(answer.problems, [answer.error]);
    }
    assert.deepEqual(writes(emu).slice(mark), []);
    const other = await post(token, { uuid: uuidOf(20), dryRun: false });
    assert.equal(other.status, 200, other.answer.error);
  });
});
