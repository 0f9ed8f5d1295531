import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { startEmulator } from "../../emulator";
import { writeAtomically } from "../../emulator/store";
import { api, login } from "./helpers";

describe("emulator: persistence with a data file", () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "portal-emulator-"));
  });
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
  it("writes atomically: each change replaces the file whole (rename), never rewrites it in place", async () => {
    const file = path.join(dir, "state.json");
    const em = await startEmulator({ quiet: true, dataFile: file });
    // Holding the first file open pins its inode: a write in place would change what this descriptor reads.
    const held = fs.openSync(file, "r");
    try {
      const text = fs.readFileSync(held, "utf8");
      await api(em, await login(em)).put("/v1/bunits/2", { note: "replaced whole" });
      await em.close(); // every change is on disk once the emulator has stopped
      assert.equal(fs.fstatSync(held).nlink, 0, "the old file was unlinked by a rename, not rewritten");
      assert.equal(JSON.parse(text).schemaVersion, 1);
      assert.match(fs.readFileSync(file, "utf8"), /replaced whole/);
      assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    } finally {
      fs.closeSync(held);
      await em.close();
    }
  });

  it("a write that fails half-way leaves the old file intact and no temp file behind", () => {
    const file = path.join(dir, "state.json");
    writeAtomically(file, JSON.stringify({ generation: 1 }));
    // The module object itself (the namespace import above only has getters): the store reads through it.
    const nodeFs = require("node:fs") as { writeSync: typeof fs.writeSync };
    const realWrite = nodeFs.writeSync;
    // The disk fills up after a few bytes: a write in place would leave a truncated file.
    (nodeFs as { writeSync: unknown }).writeSync = (fd: number, data: string) => {
      realWrite(fd, data.slice(0, 5));
      throw Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
    };
    try {
      assert.throws(() => writeAtomically(file, JSON.stringify({ generation: 2, padding: "x".repeat(1000) })), /ENOSPC/);
    } finally {
      nodeFs.writeSync = realWrite;
    }
    assert.deepEqual(JSON.parse(fs.readFileSync(file, "utf8")), { generation: 1 });
    assert.deepEqual(fs.readdirSync(dir), ["state.json"], "the temp file is removed");
  });
});
