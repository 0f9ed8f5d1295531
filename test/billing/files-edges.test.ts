// The billing receiver's period files at their edges (provider/billing/files.ts): an href with a trailing slash,
// business unit 0 (the portal's root), periods listed in order whatever the directory's order, and only the
// receiver's own stale temporary files removed.
import assert from "node:assert/strict";
import * as fs from "fs";
import * as path from "path";
import { listPeriods, periodOf, removeStaleTemps } from "../../provider/billing";
import { bunitDir } from "../../provider/billing/files";
import { tempDir } from "./helpers";

describe("billing: period files at their edges", () => {
  let out: string;
  beforeEach(() => {
    out = tempDir("billing-edges-");
  });
  afterEach(() => fs.rmSync(out, { recursive: true, force: true }));

  it("a period from the href's last date, with or without a trailing slash", () => {
    assert.equal(periodOf({ href: "/v1/bunits/3/billing/2025-04-01" } as never), "2025-04-01");
    assert.equal(periodOf({ href: "/v1/bunits/3/billing/2025-04-01/" } as never), "2025-04-01");
    assert.equal(periodOf({ href: "/v1/bunits/3/billing/2025-04-01/x" } as never), undefined);
  });

  it("business unit 0 has a directory; below 0 or not whole is refused", () => {
    assert.equal(bunitDir(out, 0), path.join(out, "0"));
    for (const bad of [-1, 1.5, Number.NaN]) assert.throws(() => bunitDir(out, bad), /non-negative integer/, String(bad));
  });

  it("lists the periods in order, and only files named <YYYY-MM-DD>.json", async () => {
    const dir = bunitDir(out, 4);
    fs.mkdirSync(dir, { recursive: true });
    // Three years of months, written in a scrambled order (every 7th of 36). Node's readdir sorts names on Linux
    // (libuv's scandir); the function sorts too, for the systems where it does not.
    const months = Array.from({ length: 36 }, (_, i) => `${2023 + Math.floor(i / 12)}-${String((i % 12) + 1).padStart(2, "0")}-01`);
    for (let i = 0; i < 36; i++) fs.writeFileSync(path.join(dir, `${months[(i * 7) % 36]}.json`), "{}");
    for (const name of ["2025-04-01xjson", "2025-05-01.json.tmp", "notes.json"]) fs.writeFileSync(path.join(dir, name), "{}");
    assert.deepEqual(await listPeriods(out, 4), months);
  });

  it("removes only its own temporary files (dot-named .tmp), and only those older than the limit", async () => {
    const dir = bunitDir(out, 5);
    fs.mkdirSync(dir, { recursive: true });
    const old = new Date(Date.now() - 120_000);
    for (const name of [".2025-01-01.json.1.tmp", "user-notes.tmp", ".fresh.tmp"]) fs.writeFileSync(path.join(dir, name), "x");
    fs.utimesSync(path.join(dir, ".2025-01-01.json.1.tmp"), old, old);
    fs.utimesSync(path.join(dir, "user-notes.tmp"), old, old);
    assert.equal(await removeStaleTemps(out, 5), 1, "the default limit keeps a temporary file written a moment ago");
    assert.deepEqual(fs.readdirSync(dir).sort(), [".fresh.tmp", "user-notes.tmp"]);
  });
});
