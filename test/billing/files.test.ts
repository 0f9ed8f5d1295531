import assert from "node:assert/strict";
import { spawn } from "child_process";
import * as fs from "fs";
import * as path from "path";
import { listPeriods, periodOf, readPeriod, removeStaleTemps, serialize, writeFileAtomic, writePeriod } from "../../provider/billing";
import { filesUnder, tempDir } from "./helpers";

const ROOT = path.resolve(__dirname, "..", "..");

describe("billing: period files on disk", function () {
  this.timeout(30000);
  let out: string;
  beforeEach(() => {
    out = tempDir("billing-files-");
  });
  afterEach(() => fs.rmSync(out, { recursive: true, force: true }));

  const data = (total: number) => ({ period: "2025-01-01", businessUnitId: 1, generatedDate: "2025-01-01T01:00:00Z", lines: [], total });

  it("periodOf accepts YYYY-MM-DD (and a timestamp's day), nothing else", () => {
    assert.equal(periodOf({ period: "2025-01-01" }), "2025-01-01");
    assert.equal(periodOf({ period: "2025-01-01T00:00:00Z" }), "2025-01-01");
    for (const bad of ["2025-02-30", "../2025-01-01", "2025-1-1", "", undefined, "2025-01-01/../../x"]) {
      assert.equal(periodOf({ period: bad as string }), undefined, String(bad));
    }
    // Without a period field, the date that ends the entry's href (how the portal addresses one period).
    assert.equal(periodOf({ href: "https://portal/v1/bunits/1/billing/2025-04-01" }), "2025-04-01");
    assert.equal(periodOf({ href: "https://portal/v1/bunits/1/billing/2025-02-30" }), undefined);
    assert.equal(periodOf({ period: "2025-05-01", href: ".../billing/2025-04-01" }), "2025-05-01", "the field wins");
  });

  it("creates, leaves alone and updates: one file per period, no temporary files left", async () => {
    assert.deepEqual(await writePeriod(out, 1, data(1)), {
      period: "2025-01-01",
      file: path.join("1", "2025-01-01.json"),
      change: "created",
    });
    const ino = fs.statSync(path.join(out, "1", "2025-01-01.json")).ino;
    assert.equal((await writePeriod(out, 1, data(1))).change, "unchanged");
    assert.equal(fs.statSync(path.join(out, "1", "2025-01-01.json")).ino, ino);
    assert.equal((await writePeriod(out, 1, data(2))).change, "updated");
    assert.deepEqual(await readPeriod(out, 1, "2025-01-01"), data(2));
    assert.equal(fs.readFileSync(path.join(out, "1", "2025-01-01.json"), "utf8"), serialize(data(2)));
    assert.deepEqual(filesUnder(out), [path.join("1", "2025-01-01.json")]);
    assert.deepEqual(await listPeriods(out, 1), ["2025-01-01"]);
    assert.deepEqual(await listPeriods(out, 9), []);
    await assert.rejects(writePeriod(out, 1, { period: "../../evil" }), /YYYY-MM-DD/);
  });

  it("a failed write leaves the old file whole and no temporary file", async () => {
    const target = path.join(out, "t.json");
    fs.writeFileSync(target, "old");
    const dirTarget = path.join(out, "d.json");
    fs.mkdirSync(dirTarget);
    fs.writeFileSync(path.join(dirTarget, "x"), "keeps the directory non-empty");
    await assert.rejects(writeFileAtomic(dirTarget, "new"));
    assert.equal(fs.readFileSync(target, "utf8"), "old");
    assert.deepEqual(
      filesUnder(out).filter((f) => f.endsWith(".tmp")),
      [],
    );
  });

  it("a process killed while writing leaves either the old or the new file, never half of one", async function () {
    // A child rewrites one period with two large alternating contents until it is killed.
    const script = `
      const { writePeriod } = require(${JSON.stringify(path.join(ROOT, "provider/billing/files.ts"))});
      const lines = (n) => Array.from({ length: 20000 }, (_, i) => ({ consumerId: i, consumerName: "c" + i, storageBytes: n, transferBytes: n, amount: n }));
      const a = { period: "2025-01-01", businessUnitId: 1, lines: lines(1), total: 1 };
      const b = { period: "2025-01-01", businessUnitId: 1, lines: lines(2), total: 2 };
      (async () => { for (let i = 0; i < 100000; i++) { await writePeriod(${JSON.stringify(out)}, 1, i % 2 ? a : b); if (i === 1) process.stdout.write("writing\\n"); } })();
    `;
    const child = spawn(process.execPath, ["-r", "ts-node/register/transpile-only", "-e", script], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "inherit"],
    });
    await new Promise<void>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error("child did not start writing")), 20000);
      child.stdout!.on("data", () => {
        clearTimeout(t);
        resolve();
      });
    });
    await new Promise((r) => setTimeout(r, 150 + Math.floor(Math.random() * 100)));
    child.kill("SIGKILL");
    await new Promise((r) => child.once("exit", r));
    const written = JSON.parse(fs.readFileSync(path.join(out, "1", "2025-01-01.json"), "utf8"));
    assert.ok(written.total === 1 || written.total === 2);
    assert.equal(written.lines.length, 20000);
    assert.ok(
      written.lines.every((l: any) => l.amount === written.total),
      "one version, whole",
    );
    // The next start removes what the crash left behind.
    await removeStaleTemps(out, 1, 0);
    assert.deepEqual(filesUnder(out), [path.join("1", "2025-01-01.json")]);
  });
});
