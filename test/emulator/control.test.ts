import assert from "node:assert/strict";
import { api, call, control, login, useEmulator, type Api } from "./helpers";

describe("emulator: control API and faults", () => {
  const ctx = useEmulator();
  let a: Api;
  beforeEach(async () => {
    ctx.em.reset();
    a = api(ctx.em, await login(ctx.em));
    ctx.em.clearRequests();
  });
  afterEach(() => ctx.em.clearFaults());

  it("logs every /v1 request in order with its query string, and no control request", async () => {
    await a.get("/v1/bunits/1?x=1");
    await a.get("/v1/bunits/999");
    await control(ctx.em, "GET", "/state");
    await a.post("/v1/bunits/2/consumers", { name: "logged" });
    const r = await control(ctx.em, "GET", "/requests");
    assert.deepEqual(r.body, [
      { method: "GET", path: "/v1/bunits/1?x=1", status: 200 },
      { method: "GET", path: "/v1/bunits/999", status: 404 },
      { method: "POST", path: "/v1/bunits/2/consumers", status: 200 },
    ]);
    assert.deepEqual(ctx.em.requests(), r.body);
  });

  it("reset brings back the seed and clears the log and faults", async () => {
    const id = (await a.post("/v1/bunits/2/consumers", { name: "temp" })).body.id;
    await control(ctx.em, "POST", "/faults", { latencyMs: 1 });
    assert.equal((await control(ctx.em, "POST", "/reset")).status, 204);
    assert.equal(
      ctx.em.state().consumers.some((c) => c.id === id),
      false,
    );
    assert.deepEqual(ctx.em.requests(), []);
    assert.deepEqual((await control(ctx.em, "GET", "/faults")).body, {});
    const state = await control(ctx.em, "GET", "/state");
    assert.deepEqual(
      state.body.consumers.map((c: { id: number }) => c.id),
      [1, 2, 3],
    );
    assert.ok(!JSON.stringify(state.body).includes('"password"'), "no clear-text passwords in the state");
  });

  it("429 with Retry-After, in the error shape", async () => {
    const set = await control(ctx.em, "POST", "/faults", { errorRate: 1, statuses: [429], retryAfterSeconds: 7 });
    assert.equal(set.status, 200);
    const r = await a.get("/v1/nodetypes");
    assert.equal(r.status, 429);
    assert.equal(r.headers.get("retry-after"), "7");
    assert.deepEqual(r.body, { status: 429, code: "TooManyRequests", message: r.body.message, developerMessage: r.body.developerMessage });
    assert.equal((await control(ctx.em, "DELETE", "/faults")).status, 204);
    assert.equal((await a.get("/v1/nodetypes")).status, 200);
  });

  it("a share of 503/429 answers, reproducible with a seed", async () => {
    const run = async (): Promise<number[]> => {
      ctx.em.setFaults({ errorRate: 0.5, statuses: [503, 429], seed: 42 });
      const out: number[] = [];
      for (let i = 0; i < 40; i++) out.push((await a.get("/v1/nodetypes")).status);
      return out;
    };
    const first = await run();
    const failures = first.filter((s) => s !== 200).length;
    assert.ok(failures >= 10 && failures <= 30, `about half failed (${failures})`);
    assert.ok(first.includes(503) && first.includes(429));
    assert.deepEqual(await run(), first, "same seed, same sequence");
  });

  it("faults limited by method, path prefix and count", async () => {
    ctx.em.setFaults({ errorRate: 1, statuses: [500], match: { method: "post", pathPrefix: "/v1/bunits/2/consumers" }, count: 2 });
    assert.equal((await a.get("/v1/bunits/2/consumers")).status, 200, "GET not matched");
    assert.equal((await a.post("/v1/bunits/1/consumers", { name: "elsewhere" })).status, 200, "other path not matched");
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await a.post("/v1/bunits/2/consumers", { name: `c${i}` })).status);
    assert.deepEqual(statuses, [500, 500, 200]);
    assert.equal(ctx.em.state().consumers.filter((c) => c.name.startsWith("c")).length, 1, "faulted creates changed nothing");
  });

  it("adds latency", async () => {
    ctx.em.setFaults({ latencyMs: 250 });
    const t = Date.now();
    assert.equal((await a.get("/v1/nodetypes")).status, 200);
    assert.ok(Date.now() - t >= 240);
  });

  it("drop before processing: the connection closes and nothing is created", async () => {
    ctx.em.setFaults({ dropBeforeRate: 1, match: { method: "POST" } });
    await assert.rejects(a.post("/v1/bunits/2/consumers", { name: "dropped-before" }));
    ctx.em.clearFaults();
    assert.equal(
      ctx.em.state().consumers.some((c) => c.name === "dropped-before"),
      false,
    );
    assert.deepEqual(ctx.em.requests(), [{ method: "POST", path: "/v1/bunits/2/consumers", status: 0 }]);
  });

  it("drop after processing: the connection closes but the object WAS created", async () => {
    ctx.em.setFaults({ dropAfterRate: 1, match: { method: "POST" } });
    await assert.rejects(a.post("/v1/bunits/2/consumers", { name: "dropped-after" }));
    ctx.em.clearFaults();
    assert.equal(ctx.em.state().consumers.filter((c) => c.name === "dropped-after").length, 1);
    assert.deepEqual(ctx.em.requests(), [{ method: "POST", path: "/v1/bunits/2/consumers", status: 0 }]);
    const list = await a.get("/v1/bunits/2/consumers");
    assert.ok(list.body.items.some((c: { name: string }) => c.name === "dropped-after"));
  });

  it("refuses bad fault settings", async () => {
    for (const bad of [{ errorRate: 2 }, { statuses: [404] }, { nonsense: 1 }, { match: { verb: "GET" } }, { latencyMs: -1 }]) {
      const r = await control(ctx.em, "POST", "/faults", bad);
      assert.equal(r.status, 400, JSON.stringify(bad));
      assert.equal(r.body.code, "ValidationFailed");
    }
    assert.throws(() => ctx.em.setFaults({ dropAfterRate: -0.5 }));
  });

  it("control endpoints need no token; unknown ones are 404", async () => {
    assert.equal((await call(ctx.em, "GET", "/_emulator/state", { origin: null })).status, 200);
    assert.equal((await control(ctx.em, "GET", "/nope")).status, 404);
    assert.equal((await call(ctx.em, "GET", "/elsewhere", { origin: null })).status, 404);
  });
});
