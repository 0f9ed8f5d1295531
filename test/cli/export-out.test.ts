// `backup-portal export --out` and an existing file (issue 36 item 3): refused without --force, before any
// portal request and with the file untouched; with --force (and --merge's own write) the file keeps its mode,
// a symlink is written through, and CRLF line ends and a UTF-8 BOM stay. A missing --out directory is refused
// before the first request too (issue 38 item 3), not after the whole walk.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { startEmulator, Emulator } from "../../emulator";
import { VARIED } from "../export/fixtures";
import { exportCli, plant } from "../export/support";
import { schemaPath } from "../../provider/cli/export";

const STACK = "encryptionsalt: v1:abc\nconfig:\n  backup-portal:password:\n    secure: v1:xyz\n  backup-portal:tenants: {}\n";

describe("backup-portal export --out: an existing file", function () {
  this.timeout(60_000);
  let emu: Emulator;
  let dir: string;
  let plainOut: string;
  before(async () => {
    emu = await startEmulator({ quiet: true });
    plant(emu, VARIED);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "bp-export-out-"));
    const r = await exportCli(emu);
    assert.equal(r.code, 0, r.err);
    // As written into a folder of `dir` (no project, no package installed): the schema line names where it will be.
    plainOut = r.out.replace(/^# yaml-language-server: \$schema=\S+\n/, `# yaml-language-server: $schema=${schemaPath(dir)}\n`);
    assert.notEqual(plainOut, r.out, "stdout here (this checkout) names the schema beside the stack files");
  });
  after(async () => {
    fs.rmSync(dir, { recursive: true, force: true });
    await emu?.close();
  });

  /** A stack file with `text` and `mode`. */
  function existing(name: string, text: string | Buffer = STACK, mode = 0o600): string {
    const file = path.join(dir, name);
    fs.writeFileSync(file, text);
    fs.chmodSync(file, mode);
    return file;
  }

  it("is refused in one line naming --merge and --force, exit 2, no portal request, the file untouched", async () => {
    const file = existing("Pulumi.prod.yaml");
    const link = path.join(dir, "link.yaml");
    fs.symlinkSync(file, link);
    for (const out of [file, link]) {
      const mark = emu.requests().length;
      const r = await exportCli(emu, ["--out", out]);
      assert.equal(r.code, 2, r.err);
      assert.equal(r.out, "");
      assert.equal(
        r.err,
        `backup-portal export: --out ${JSON.stringify(out)} exists; --merge ${JSON.stringify(out)} updates it, --force replaces it\n`,
      );
      assert.equal(emu.requests().length, mark, "no portal request");
      assert.equal(fs.readFileSync(file, "utf8"), STACK);
      assert.equal(fs.statSync(file).mode & 0o777, 0o600);
      assert.ok(fs.lstatSync(link).isSymbolicLink());
    }
  });

  it("a missing or read-only --out directory is refused in one line naming the path, before any request", async () => {
    const missing = path.join(dir, "nonexistent", "dir", "x.yaml");
    const mark = emu.requests().length;
    const r = await exportCli(emu, ["--out", missing]);
    assert.equal(r.code, 2, r.err);
    assert.equal(r.err, `backup-portal export: --out ${JSON.stringify(missing)}: directory ${path.dirname(missing)} does not exist\n`);
    assert.equal(emu.requests().length, mark, "no portal request");
    assert.equal(fs.existsSync(path.join(dir, "nonexistent")), false);
    if (process.getuid?.() !== 0) {
      const ro = path.join(dir, "ro");
      fs.mkdirSync(ro, { mode: 0o500 });
      const inRo = path.join(ro, "x.yaml");
      const denied = await exportCli(emu, ["--out", inRo]);
      assert.equal(denied.code, 2, denied.err);
      assert.equal(denied.err, `backup-portal export: --out ${JSON.stringify(inRo)}: directory ${ro} is not writable\n`);
      assert.equal(emu.requests().length, mark, "no portal request");
    }
  });

  it("--force replaces it, keeping mode 600 and leaving nothing beside it", async () => {
    const sub = path.join(dir, "force");
    fs.mkdirSync(sub);
    const file = path.join(sub, "Pulumi.prod.yaml");
    fs.writeFileSync(file, STACK, { mode: 0o600 });
    fs.chmodSync(file, 0o600);
    const r = await exportCli(emu, ["--out", file, "--force"]);
    assert.equal(r.code, 0, r.err);
    assert.equal(fs.readFileSync(file, "utf8"), plainOut);
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    assert.deepEqual(fs.readdirSync(sub), ["Pulumi.prod.yaml"]);
  });

  it("--force writes through a symlink to its target, in the target's directory", async () => {
    const real = path.join(dir, "real");
    const links = path.join(dir, "links");
    fs.mkdirSync(real);
    fs.mkdirSync(links);
    const target = path.join(real, "Pulumi.prod.yaml");
    fs.writeFileSync(target, STACK);
    fs.chmodSync(target, 0o640);
    const link = path.join(links, "Pulumi.prod.yaml");
    fs.symlinkSync(path.relative(links, target), link);
    const r = await exportCli(emu, ["--out", link, "--force"]);
    assert.equal(r.code, 0, r.err);
    assert.ok(fs.lstatSync(link).isSymbolicLink(), "the symlink stays a symlink");
    assert.equal(fs.readlinkSync(link), path.relative(links, target));
    assert.equal(fs.readFileSync(target, "utf8"), plainOut);
    assert.equal(fs.statSync(target).mode & 0o777, 0o640);
    assert.deepEqual(fs.readdirSync(links), ["Pulumi.prod.yaml"]);
    assert.deepEqual(fs.readdirSync(real), ["Pulumi.prod.yaml"]);
  });

  it("--force keeps CRLF line ends and a UTF-8 BOM", async () => {
    const crlf = existing("crlf.yaml", STACK.replace(/\n/g, "\r\n"));
    const bom = existing("bom.yaml", `\uFEFF${STACK}`);
    const both = existing("both.yaml", `\uFEFF${STACK.replace(/\n/g, "\r\n")}`);
    for (const f of [crlf, bom, both]) assert.equal((await exportCli(emu, ["--out", f, "--force"])).code, 0, f);
    const asCrlf = plainOut.replace(/\n/g, "\r\n");
    assert.equal(fs.readFileSync(crlf, "utf8"), asCrlf);
    assert.equal(fs.readFileSync(bom, "utf8"), `\uFEFF${plainOut}`);
    assert.equal(fs.readFileSync(both, "utf8"), `\uFEFF${asCrlf}`);
    assert.doesNotMatch(fs.readFileSync(crlf, "utf8"), /(?<!\r)\n/, "every line end CRLF");
    for (const f of [crlf, bom, both]) assert.equal(fs.statSync(f).mode & 0o777, 0o600);
  });

  it("--merge writes its own file in place without --force, keeping mode, symlink, CRLF and BOM", async () => {
    const sub = path.join(dir, "merge");
    fs.mkdirSync(sub);
    const target = path.join(sub, "target.yaml");
    fs.writeFileSync(target, `\uFEFF# kept\r\nconfig:\r\n  backup-portal:tenants: {}\r\n`);
    fs.chmodSync(target, 0o600);
    const link = path.join(sub, "Pulumi.prod.yaml");
    fs.symlinkSync("target.yaml", link);
    const r = await exportCli(emu, ["--merge", link]);
    assert.equal(r.code, 0, r.err);
    assert.ok(fs.lstatSync(link).isSymbolicLink());
    const text = fs.readFileSync(target, "utf8");
    assert.match(text, /^\uFEFF# kept\r\n/);
    assert.doesNotMatch(text, /(?<!\r)\n/, "every line end CRLF");
    assert.match(text, /adoptId/);
    assert.equal(fs.statSync(target).mode & 0o777, 0o600);
    assert.deepEqual(fs.readdirSync(sub).sort(), ["Pulumi.prod.yaml", "target.yaml"]);

    // --merge into another existing file is an --out like any other: refused without --force.
    const other = existing("other.yaml");
    const mark = emu.requests().length;
    const refused = await exportCli(emu, ["--merge", link, "--out", other]);
    assert.equal(refused.code, 2, refused.err);
    assert.equal(emu.requests().length, mark);
    assert.equal(fs.readFileSync(other, "utf8"), STACK);
    // ... and --out naming the --merge file itself needs none.
    assert.equal((await exportCli(emu, ["--merge", link, "--out", link])).code, 0);
  });

  it("--force without --out is refused", async () => {
    const r = await exportCli(emu, ["--force"]);
    assert.equal(r.code, 2);
    assert.match(r.err, /^backup-portal export: --force replaces an existing --out file; give --out <file>\n/);
  });
});
