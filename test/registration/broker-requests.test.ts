// What the registration broker accepts from an instance (provider/broker/server.ts): every field of the request
// body at its edges, over loopback against the emulator. A refused body is answered 400 with its one-line reason,
// before any portal request and without spending the token; the edge values that are allowed go through (as dry
// runs, which change nothing). Token refusals carry their own statuses.
import assert from "node:assert/strict";
import { PortalClient } from "../../provider/portal/client";
import { BrokerHandle, mintRegistrationToken, startRegistrationBroker } from "../../provider/broker";
import { REGISTER_PATH } from "../../provider/broker/server";
import { NODE_PASSWORD_ALPHABET } from "../../provider/registration/password";
import { Emulator, writes } from "../support/portal";
import { startBrokerOnEmulator, stopBrokerOnEmulator } from "./helpers";

const SECRET = "broker-secret-0123456789-abcdefghijklmnop";
const BUNIT = 2;
const UUID = "0c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f";

describe("registration broker: the request body at its edges", function () {
  this.timeout(60_000);
  let emu: Emulator;
  let client: PortalClient;
  let broker: BrokerHandle;

  before(async () => ({ emu, client, broker } = await startBrokerOnEmulator(SECRET)));
  after(() => stopBrokerOnEmulator({ emu, client, broker }));

  const body = (o: Record<string, unknown> = {}, instance: Record<string, unknown> = {}) => ({
    instance: { uuid: UUID, name: "web01", hostname: "web01", meta: { backup_bunit: String(BUNIT) }, ...instance },
    cpuCount: 2,
    dryRun: true,
    ...o,
  });
  async function post(doc: unknown, token = mintRegistrationToken(SECRET, { businessUnitId: BUNIT })) {
    const res = await fetch(`${broker.url}${REGISTER_PATH}`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
      body: JSON.stringify(doc),
    });
    return { status: res.status, answer: (await res.json()) as { error?: string; kind?: string; result?: { status: string } } };
  }

  it("refuses each malformed field with its reason, before any portal request", async () => {
    const token = mintRegistrationToken(SECRET, { businessUnitId: BUNIT });
    const cases: Array<[string, unknown, string]> = [
      ["uuid not hex", body({}, { uuid: "not-a-uuid-but-long-enough-to-count-xx" }), "instance.uuid must be the instance's uuid"],
      ["uuid of 31 characters", body({}, { uuid: "a".repeat(31) }), "instance.uuid must be the instance's uuid"],
      ["uuid of 37 characters", body({}, { uuid: "a".repeat(37) }), "instance.uuid must be the instance's uuid"],
      ["no uuid", body({}, { uuid: undefined }), "instance.uuid must be the instance's uuid"],
      ["name of 256 characters", body({}, { name: "n".repeat(256) }), "instance.name must be a string"],
      ["name a number", body({}, { name: 7 }), "instance.name must be a string"],
      ["meta value a number", body({}, { meta: { backup_bunit: BUNIT } }), "instance.meta must be an object of strings"],
      ["meta a list", body({}, { meta: ["backup_bunit"] }), "instance.meta must be an object of strings"],
      ["no meta", body({}, { meta: undefined }), "instance.meta must be an object of strings"],
      ["no instance", { cpuCount: 2 }, "instance {uuid, name, meta} is required"],
      ["a list", [body()], "instance {uuid, name, meta} is required"],
      [
        "password of 15 characters",
        body({ nodePassword: "a".repeat(15) }),
        `nodePassword must be 16 to 64 characters of ${NODE_PASSWORD_ALPHABET}`,
      ],
      [
        "password of 65 characters",
        body({ nodePassword: "a".repeat(65) }),
        `nodePassword must be 16 to 64 characters of ${NODE_PASSWORD_ALPHABET}`,
      ],
      [
        "password with a space",
        body({ nodePassword: "a".repeat(15) + " " }),
        `nodePassword must be 16 to 64 characters of ${NODE_PASSWORD_ALPHABET}`,
      ],
      [
        "password a number",
        body({ nodePassword: 1234567890123456 }),
        `nodePassword must be 16 to 64 characters of ${NODE_PASSWORD_ALPHABET}`,
      ],
      ["cpuCount 0", body({ cpuCount: 0 }), "cpuCount must be an integer from 1 to 4096"],
      ["cpuCount 4097", body({ cpuCount: 4097 }), "cpuCount must be an integer from 1 to 4096"],
      ["cpuCount 1.5", body({ cpuCount: 1.5 }), "cpuCount must be an integer from 1 to 4096"],
      ["cpuCount as text", body({ cpuCount: "2" }), "cpuCount must be an integer from 1 to 4096"],
      ["rotatePassword as text", body({ rotatePassword: "true" }), "rotatePassword must be a boolean"],
      ["dryRun as a number", body({ dryRun: 1 }), "dryRun must be a boolean"],
    ];
    const before = emu.requests().length;
    for (const [what, doc, reason] of cases) {
      const { status, answer } = await post(doc, token);
      assert.deepEqual([status, answer.error], [400, reason], what);
    }
    assert.equal(emu.requests().length, before, "no request reached the portal");
    assert.equal((await post(body(), token)).status, 200, "and the token was not spent by the refused bodies");
  });

  it("lets the edge values through: a 32- or 36-character uuid, a 255-character name, 16 and 64 character passwords, 1 and 4096 CPUs", async () => {
    const mark = writes(emu).length;
    const allowed: Array<[string, unknown]> = [
      ["uuid of 32 hex digits", body({}, { uuid: "0c1d2e3f4a5b4c6d8e7f9a0b1c2d3e4f" })],
      ["name of 255 characters", body({}, { name: "n".repeat(255) })],
      ["password of 16 characters", body({ nodePassword: NODE_PASSWORD_ALPHABET.slice(0, 16) })],
      ["password of 64 characters", body({ nodePassword: NODE_PASSWORD_ALPHABET.repeat(2).slice(-64) })],
      ["1 CPU", body({ cpuCount: 1 })],
      ["4096 CPUs", body({ cpuCount: 4096 })],
      // Without rotatePassword no new password is asked for (a rotation without one to keep would be refused).
      ["no rotatePassword, no password", body({ rotatePassword: undefined })],
      ["no hostname", body({}, { hostname: undefined })],
    ];
    for (const [what, doc] of allowed) {
      const { status, answer } = await post(doc);
      assert.deepEqual([status, answer.result?.status], [200, "planned"], `${what}: ${answer.error ?? ""}`);
    }
    assert.deepEqual(writes(emu).slice(mark), [], "dry runs change nothing");
  });

  it("a token for another business unit is 403, a token another instance claimed is 409, no token 401", async () => {
    const other = await post(body(), mintRegistrationToken(SECRET, { businessUnitId: BUNIT + 1 }));
    assert.deepEqual([other.status, other.answer.kind], [403, "token"]);
    const token = mintRegistrationToken(SECRET, { businessUnitId: BUNIT });
    assert.equal((await post(body(), token)).status, 200);
    const replayed = await post(body({}, { uuid: "1c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f" }), token);
    assert.deepEqual([replayed.status, replayed.answer.kind], [409, "token"]);
    const res = await fetch(`${broker.url}${REGISTER_PATH}`, { method: "POST", body: JSON.stringify(body()) });
    assert.equal(res.status, 401);
  });

  it("a dry run leaves the token usable; the real registration spends it, for its own instance too", async () => {
    const token = mintRegistrationToken(SECRET, { businessUnitId: BUNIT });
    const uuid = "2c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f";
    assert.equal((await post(body({}, { uuid, name: "dry01" }), token)).answer.result?.status, "planned");
    const real = await post(body({ dryRun: false }, { uuid, name: "dry01" }), token);
    assert.deepEqual([real.status, real.answer.result?.status], [200, "registered"], real.answer.error);
    const again = await post(body({ dryRun: false }, { uuid, name: "dry01" }), token);
    assert.deepEqual([again.status, again.answer.kind], [409, "token"], "complete: spent");
  });

  it("a registration the instance asked wrongly is 422 with its kind (usage), not a portal failure", async () => {
    const { status, answer } = await post(body({ rotatePassword: true }));
    assert.deepEqual([status, answer.kind], [422, "usage"]);
    assert.match(answer.error ?? "", /rotatePassword needs passwordFile/);
  });

  it("one registration runs at a time, `maxPending` wait, the rest are told to come back (503, Retry-After)", async () => {
    for (const maxPending of [0, 1]) {
      const queued = await startRegistrationBroker({ secret: SECRET, client, maxPending });
      emu.setFaults({ latencyMs: 300 });
      try {
        const answers = await Promise.all(
          [0, 1, 2].map(async (i) => {
            const res = await fetch(`${queued.url}${REGISTER_PATH}`, {
              method: "POST",
              headers: { Authorization: `Bearer ${mintRegistrationToken(SECRET, { businessUnitId: BUNIT })}` },
              body: JSON.stringify(body({}, { uuid: `3c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4${i}` })),
            });
            return { status: res.status, retryAfter: res.headers.get("retry-after"), kind: ((await res.json()) as { kind?: string }).kind };
          }),
        );
        const busy = answers.filter((a) => a.status === 503);
        assert.equal(busy.length, 2 - maxPending, JSON.stringify(answers));
        assert.ok(
          busy.every((a) => a.retryAfter === "5" && a.kind === "busy"),
          JSON.stringify(busy),
        );
        assert.equal(answers.filter((a) => a.status === 200).length, 1 + maxPending);
        assert.equal(queued.stats.busy, 2 - maxPending);
      } finally {
        emu.clearFaults();
        await queued.close();
      }
    }
  });

  it("health checks answer GET and HEAD, and nothing else", async () => {
    assert.equal((await fetch(`${broker.url}/healthz`)).status, 200);
    assert.equal((await fetch(`${broker.url}/healthz`, { method: "HEAD" })).status, 200);
    const post = await fetch(`${broker.url}/healthz`, { method: "POST" });
    assert.deepEqual([post.status, post.headers.get("allow")], [405, "GET, HEAD"]);
  });
});
