// How `backup-portal export --force` and `--merge` write a stack file (issue 44, "also to look at"): the temp file
// has a name nobody can plant a symlink at and is created only where nothing is, and it is synced before the rename;
// a merge whose file changed while the portal was read writes nothing and keeps the change; one CRLF line among LF
// lines does not make the whole file CRLF.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { startEmulator, Emulator } from "../../emulator";
import { exportCli } from "../export/support";
import { waitFor } from "../support/wait";

const STACK = "encryptionsalt: v1:abc\nconfig:\n  backup-portal:tenants: {}\n";

describe("backup-portal export: writing the stack file", function () {
  this.timeout(60_000);
  let emu: Emulator;
  let dir: string;
  before(async () => {
    emu = await startEmulator({ quiet: true });
  });
  after(async () => emu?.close());
  beforeEach(() => {
    emu.reset();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "bp-export-write-"));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("a symlink planted at the old temp name (.<file>.<pid>.tmp) is not written through; the write is synced", async () => {
    const file = path.join(dir, "Pulumi.prod.yaml");
    fs.writeFileSync(file, STACK);
    const victim = path.join(dir, "victim");
    fs.writeFileSync(victim, "mine\n");
    fs.symlinkSync(victim, path.join(dir, `.Pulumi.prod.yaml.${process.pid}.tmp`));
    // The module object itself (an import's namespace only has getters onto it): export.ts calls through it.
    const fsModule = require("node:fs") as { fsyncSync: typeof fs.fsyncSync };
    const synced: number[] = [];
    const fsync = fsModule.fsyncSync;
    fsModule.fsyncSync = (fd) => {
      synced.push(fd);
      return fsync(fd);
    };
    let r;
    try {
      r = await exportCli(emu, ["--out", file, "--force"]);
    } finally {
      fsModule.fsyncSync = fsync;
    }
    assert.equal(r.code, 0, r.err);
    assert.equal(fs.readFileSync(victim, "utf8"), "mine\n");
    assert.match(fs.readFileSync(file, "utf8"), /tenant-a:/);
    assert.ok(synced.length >= 1, "the temp file is synced before the rename");
    assert.deepEqual(
      fs.readdirSync(dir).filter((n) => n.endsWith(".tmp") && !n.includes(String(process.pid))),
      [],
      "no temp file left",
    );
  });

  it("--merge: a file changed while the portal was read is not written; the change stays", async () => {
    const file = path.join(dir, "Pulumi.prod.yaml");
    fs.writeFileSync(file, STACK);
    emu.setFaults({ latencyMs: 150, match: { pathPrefix: "/v1/bunits" } });
    try {
      const run = exportCli(emu, ["--merge", file]);
      await waitFor(() => emu.requests().some((q) => q.path.startsWith("/v1/bunits")), "the walk to start", 30_000);
      const edited = `${STACK}# an edit made during the walk\n`;
      fs.writeFileSync(file, edited);
      const r = await run;
      assert.equal(r.code, 1, r.err);
      assert.match(r.err, /changed while the portal was read; nothing was written \(the change is kept\): merge again\n/);
      assert.equal(fs.readFileSync(file, "utf8"), edited);
    } finally {
      emu.clearFaults();
    }
  });

  it("--merge into a file with one CRLF line among LF lines: the other lines stay LF", async () => {
    const file = path.join(dir, "Pulumi.prod.yaml");
    const text = "encryptionsalt: v1:abc\r\nconfig:\n  backup-portal:tenants: {}\n";
    fs.writeFileSync(file, text);
    const r = await exportCli(emu, ["--merge", file]);
    assert.equal(r.code, 0, r.err);
    const merged = fs.readFileSync(file, "utf8");
    assert.match(merged, /tenant-a:/);
    assert.equal(merged.split("\r\n").length - 1, 1, JSON.stringify(merged));
    const crlf = "encryptionsalt: v1:abc\r\nconfig:\r\n  backup-portal:tenants: {}\r\n";
    fs.writeFileSync(file, crlf);
    assert.equal((await exportCli(emu, ["--merge", file])).code, 0);
    const all = fs.readFileSync(file, "utf8");
    assert.equal(all.split("\r\n").length - 1, all.split("\n").length - 1, "a CRLF file stays CRLF");
  });
});
