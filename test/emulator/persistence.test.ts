import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { startEmulator } from "../../emulator";
import { api, login } from "./helpers";

describe("emulator: persistence with a data file", () => {
  let dir: string;
  beforeEach(() => { dir = fs.mkdtempSync(path.join(os.tmpdir(), "portal-emulator-")); });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("keeps the state across a restart, and ids keep counting", async () => {
    const file = path.join(dir, "sub", "state.json");
    const em1 = await startEmulator({ quiet: true, dataFile: file });
    let token: string;
    let id: number;
    try {
      assert.ok(fs.existsSync(file), "written at start");
      token = await login(em1);
      id = (await api(em1, token).post("/v1/bunits/2/consumers", { name: "persisted" })).body.id;
      await api(em1, token).put("/v1/bunits/2", { note: "kept" });
    } finally {
      await em1.close();
    }
    assert.deepEqual(fs.readdirSync(path.dirname(file)), ["state.json"], "no temp files left");
    const text = fs.readFileSync(file, "utf8");
    assert.ok(!text.includes(token), "tokens are stored hashed");

    const em2 = await startEmulator({ quiet: true, dataFile: file });
    try {
      const a = api(em2, token);
      assert.equal((await a.get(`/v1/bunits/2/consumers/${id}`)).body.name, "persisted", "the old token still works");
      assert.equal((await a.get("/v1/bunits/2")).body.note, "kept");
      const next = (await a.post("/v1/bunits/2/consumers", { name: "second" })).body.id;
      assert.ok(next > id);
      assert.ok(em2.state().auditLogs.some((e) => e.consumerId === id && e.type === 100));
    } finally {
      await em2.close();
    }
  });

  it("a write that happened before a dropped answer is on disk too", async () => {
    const file = path.join(dir, "state.json");
    const em = await startEmulator({ quiet: true, dataFile: file });
    try {
      const a = api(em, await login(em));
      em.setFaults({ dropAfterRate: 1, match: { method: "POST", pathPrefix: "/v1/bunits/2/consumers" } });
      await assert.rejects(a.post("/v1/bunits/2/consumers", { name: "on-disk" }));
      const saved = JSON.parse(fs.readFileSync(file, "utf8")) as { consumers: Array<{ name: string }> };
      assert.ok(saved.consumers.some((c) => c.name === "on-disk"));
    } finally {
      await em.close();
    }
  });

  it("refuses to start on a file that is not an emulator state", async () => {
    const file = path.join(dir, "bad.json");
    fs.writeFileSync(file, "{ not json");
    await assert.rejects(startEmulator({ quiet: true, dataFile: file }), /not valid JSON/);
    fs.writeFileSync(file, "{}");
    await assert.rejects(startEmulator({ quiet: true, dataFile: file }), /schemaVersion/);
    assert.equal(fs.readFileSync(file, "utf8"), "{}", "left untouched");
  });
});
