// `backup-portal export` as a command, in the mocha process (the end-to-end export tests deploy the result through
// the provider host, which loads dist/ and so cannot run in the mutation run's sandbox): which flags it refuses
// before any request and with which words, where the text goes (stdout, --out, --merge), what stderr says (the
// summary, the review lines of JSON, the merge's report, the progress) and the exit codes.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { startEmulator, Emulator } from "../../emulator";
import { formatHelp, usageErrorText } from "../../provider/cli/args";
import { COMMAND, run, schemaPath } from "../../provider/cli/export";
import { envFor } from "../support/portal";
import { startPortalProxy } from "../registration/helpers";
import { VARIED } from "../export/fixtures";
import { exportCli, plant, readsSince } from "../export/support";

/** An export's text as written into `dir`: its first line names the schema from there. */
const writtenIn = (text: string, dir: string) =>
  text.replace(/^# yaml-language-server: \$schema=\S+\n/, `# yaml-language-server: $schema=${schemaPath(dir)}\n`);

const SUMMARY =
  /^exported \d+ business units?, \d+ consumers?, \d+ nodes?( \(and \d+ nodes? left out as a comment until (its|their) values are fixed\))?; \d+ values? needs? review \(see comments\)$/;

describe("backup-portal export: the command", function () {
  this.timeout(60_000);
  let emu: Emulator;
  let dir: string;
  let planted: number[];
  before(async () => {
    emu = await startEmulator({ quiet: true });
    planted = plant(emu, VARIED).businessUnits;
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "bp-export-cli-"));
  });
  after(async () => {
    fs.rmSync(dir, { recursive: true, force: true });
    await emu?.close();
  });

  /** The stack file a merge starts from: one tenant the portal does not have. */
  function stackFile(name: string): string {
    const file = path.join(dir, name);
    fs.writeFileSync(file, "# kept\nconfig:\n  backup-portal:tenants: {}\n");
    return file;
  }

  it("refuses a bad --format, --merge with JSON, a missing --merge file and an --out directory, before any request", async () => {
    const cases: Array<[string[], string]> = [
      [["--format", "xml"], '--format needs yaml, json or pulumi-import, got "xml"'],
      [["--merge", stackFile("m.yaml"), "--format", "json"], "--merge writes the stack file's YAML; it takes no --format json"],
      [["--merge", path.join(dir, "none.yaml")], `--merge ${JSON.stringify(path.join(dir, "none.yaml"))}: no such file or directory`],
      [["--out", dir], `--out ${JSON.stringify(dir)} is a directory, not a file`],
      [["--bunit", "0"], '--bunit needs an id: a positive integer up to 9007199254740991, got "0"'],
    ];
    for (const [argv, message] of cases) {
      const mark = emu.requests().length;
      const r = await exportCli(emu, argv);
      assert.equal(r.code, 2, argv.join(" "));
      assert.equal(r.out, "", argv.join(" "));
      assert.equal(r.err, usageErrorText(COMMAND, message), argv.join(" "));
      assert.deepEqual(readsSince(emu, mark), [], `${argv.join(" ")}: no request`);
    }
  });

  it("--help wins over a flag that would be refused; --format yaml is the default's spelling", async () => {
    const help = await exportCli(emu, ["--help", "--format", "xml"]);
    assert.deepEqual(help, { code: 0, out: `${formatHelp(COMMAND)}\n`, err: "" });
    const yaml = await exportCli(emu, ["--format", "yaml", "--bunit", String(planted[0])]);
    const plain = await exportCli(emu, ["--bunit", String(planted[0])]);
    assert.equal(yaml.code, 0, yaml.err);
    assert.equal(yaml.out, plain.out);
  });

  it("the account's own business unit by default: the YAML on stdout, the summary as stderr's last line", async () => {
    const r = await exportCli(emu);
    assert.equal(r.code, 0, r.err);
    // After the line that names the schema (run in this checkout, whose stack files sit beside it).
    assert.match(
      r.out,
      /^# yaml-language-server: \$schema=\.\/tenants\.schema\.json\n# Exported by `backup-portal export`: everything below business unit 1,/,
    );
    const lines = r.err.trimEnd().split("\n");
    assert.match(lines[lines.length - 1], SUMMARY);
    assert.match(lines[lines.length - 1], /; 3 values need review/);
    assert.doesNotMatch(r.err, /^review /m, "YAML carries the reviews as comments, not on stderr");
    const below = await exportCli(emu, ["--bunit", String(planted[0])]);
    assert.match(
      below.out,
      new RegExp(`^# yaml-language-server: .*\n# Exported by \`backup-portal export\`: everything below business unit ${planted[0]},`),
    );
  });

  it("--format json: JSON on stdout, one `review <path>: <message>` line per value to review on stderr", async () => {
    const r = await exportCli(emu, ["--format", "json"]);
    assert.equal(r.code, 0, r.err);
    const doc = JSON.parse(r.out) as { config: Record<string, unknown> };
    assert.ok(doc.config["backup-portal:tenants"]);
    const reviews = r.err.split("\n").filter((l) => l.startsWith("review "));
    assert.equal(reviews.length, 3, r.err);
    for (const l of reviews) assert.match(l, /^review \S+: \S/);
    assert.ok(
      reviews.some((l) => /invoiceDay must be an integer from 1 to 28, got 30/.test(l)),
      r.err,
    );
    assert.match(r.err.trimEnd().split("\n").pop()!, SUMMARY);
  });

  it("--out writes the file whole (mode 0644, nothing left beside it) and nothing to stdout", async () => {
    const sub = path.join(dir, "out", "deeper");
    const file = path.join(sub, "stack.yaml");
    fs.mkdirSync(sub, { recursive: true });
    const stdout = await exportCli(emu);
    // The mode is the command's own, whatever the umask lets through.
    const umask = process.umask(0);
    let r;
    try {
      r = await exportCli(emu, ["--out", file]);
    } finally {
      process.umask(umask);
    }
    assert.equal(r.code, 0, r.err);
    assert.equal(r.out, "");
    assert.equal(fs.readFileSync(file, "utf8"), writtenIn(stdout.out, sub));
    assert.equal(fs.statSync(file).mode & 0o777, 0o644);
    assert.deepEqual(fs.readdirSync(sub), ["stack.yaml"]);
    assert.match(r.err.trimEnd().split("\n").pop()!, SUMMARY);
  });

  it("--merge adds the business units the file lacks, in place or to --out, and says so on stderr", async () => {
    const file = stackFile("merge.yaml");
    const before = fs.readFileSync(file, "utf8");
    const other = path.join(dir, "merged.yaml");
    const r = await exportCli(emu, ["--merge", file, "--out", other]);
    assert.equal(r.code, 0, r.err);
    assert.equal(r.out, "");
    assert.equal(fs.readFileSync(file, "utf8"), before, "the --merge file stays as it was when --out names another");
    const merged = fs.readFileSync(other, "utf8");
    assert.match(merged, /^# kept\n/);
    const added = r.err.split("\n").filter((l) => l.startsWith("added "));
    assert.ok(added.length >= 1, r.err);
    assert.match(
      r.err,
      new RegExp(
        `^merged into ${other.replace(/[.]/g, "\\.")}: ${added.length} business units added, 0 entries differ from the portal, 0 gone from it, 0 not added \\(all left as the file has them\\)$`,
        "m",
      ),
    );
    // The closing line counts what the merged file declares (issue 45 item 4).
    assert.match(
      r.err.trimEnd().split("\n").pop()!,
      /: the file declares \d+ business units?, \d+ consumers?, \d+ nodes?, as backup-portal validate counts them$/,
    );

    const inPlace = await exportCli(emu, ["--merge", file]);
    assert.equal(inPlace.code, 0, inPlace.err);
    assert.equal(fs.readFileSync(file, "utf8"), merged, "without --out the --merge file is the one written");
    assert.match(inPlace.err, new RegExp(`^merged into ${file.replace(/[.]/g, "\\.")}: `, "m"));
  });

  it("a stack file that differs from the portal: one `differs <path>: <message>` line per entry, the file's value kept", async () => {
    const file = stackFile("differs.yaml");
    assert.equal((await exportCli(emu, ["--merge", file])).code, 0);
    const text = fs.readFileSync(file, "utf8");
    // Quoted: plain, yaml.v3 and YAML 1.1 readers could take a leading-digit text for a number or a date.
    const changed = text.replace('registrationNumber: "556000-0001"', 'registrationNumber: "556000-9999"');
    assert.notEqual(changed, text, "the fixture's registration number is in the file");
    fs.writeFileSync(file, changed);
    const r = await exportCli(emu, ["--merge", file]);
    assert.equal(r.code, 0, r.err);
    const differs = r.err.split("\n").filter((l) => l.startsWith("differs "));
    assert.equal(differs.length, 1, r.err);
    assert.match(differs[0], /^differs \S*registrationNumber: \S/);
    assert.match(r.err, /: 0 business units added, 1 entry differs from the portal/);
    assert.match(fs.readFileSync(file, "utf8"), /registrationNumber: "556000-9999"/);
  });

  it("a --merge file that is no stack file, or cannot be read: exit 1, one line, the file unchanged", async () => {
    const bad = path.join(dir, "bad.yaml");
    fs.writeFileSync(bad, "- a list\n- not a map\n");
    const r = await exportCli(emu, ["--merge", bad]);
    assert.equal(r.code, 1);
    assert.equal(r.out, "");
    assert.equal(r.err, `backup-portal export: ${bad}: the file must be a map with a config: key\n`);
    assert.equal(fs.readFileSync(bad, "utf8"), "- a list\n- not a map\n");

    const unreadable = path.join(dir, "a-directory");
    fs.mkdirSync(unreadable);
    const d = await exportCli(emu, ["--merge", unreadable]);
    assert.equal(d.code, 1);
    assert.equal(d.err, `backup-portal export: ${unreadable}: cannot be read (EISDIR)\n`);
  });

  it("--progress off a terminal: a line a second at most, `N so far` until the total is known, done = total once at the end", async () => {
    // Slow reads: a walk of a few seconds, whose every read would otherwise be two lines.
    const slow = await startPortalProxy(emu.url, { before: () => new Promise((resolve) => setTimeout(resolve, 100)) });
    let r;
    const started = Date.now();
    try {
      let out = "";
      let err = "";
      const code = await run(["--progress", "--bunit", "1"], {
        out: (t) => (out += t),
        err: (t) => (err += t),
        env: { ...envFor(emu), BACKUP_PORTAL_URL: slow.url },
      });
      r = { code, out, err };
    } finally {
      await slow.close();
    }
    const seconds = (Date.now() - started) / 1000;
    assert.equal(r.code, 0, r.err);
    const lines = r.err.split("\n").filter((l) => l.startsWith("export: portal reads: "));
    const reads = Number(/(\d+)\/\d+ entries/.exec(lines[lines.length - 1])?.[1]);
    assert.ok(reads > 20, `a walk of many reads: ${reads}`);
    assert.ok(lines.length >= 2 && lines.length <= Math.ceil(seconds) + 2, `${lines.length} lines in ${seconds} s:\n${lines.join("\n")}`);
    assert.match(lines[0], /^export: portal reads: \d+ so far$/);
    for (const l of lines.slice(1, -1)) assert.match(l, /^export: portal reads: (\d+ so far|\d+\/\d+ entries \(\d{1,2}%\))$/);
    assert.equal(lines[lines.length - 1], `export: portal reads: ${reads}/${reads} entries (100%)`);
    assert.equal(r.err.split("(100%)").length, 2, "100 % once");
    // On a terminal the line is rewritten in place and cleared before the summary.
    const tty = await exportCli(emu, ["--progress", "--bunit", String(planted[0])], { errIsTTY: true });
    assert.equal(tty.code, 0, tty.err);
    assert.match(tty.err, /^\r\x1b\[Kexport: portal reads: /);
    // (Between the two: the line saying this business unit's own consumers are not in the file.)
    assert.match(tty.err, /\(100%\)\r\x1b\[K(backup-portal export: [^\n]*\n)?exported /);
    const quiet = await exportCli(emu, ["--bunit", String(planted[0])]);
    assert.doesNotMatch(quiet.err, /portal reads/);
  });

  it("a portal that does not say the account's business unit: give --bunit (exit 2)", async () => {
    const proxy = await startPortalProxy(emu.url, {
      rewrite: (req, body) => {
        if (req.path.split("?")[0] !== "/v1/me") return body;
        const { businessUnit: _bu, ...rest } = body as Record<string, unknown>;
        return rest;
      },
    });
    try {
      let out = "";
      let err = "";
      const { run } = await import("../../provider/cli/export");
      const code = await run([], {
        out: (t) => (out += t),
        err: (t) => (err += t),
        env: { ...envFor(emu), BACKUP_PORTAL_URL: proxy.url },
      });
      assert.equal(code, 2);
      assert.equal(out, "");
      assert.match(err, /^backup-portal export: the portal does not say which business unit the account belongs to; give --bunit\nusage:/);
    } finally {
      await proxy.close();
    }
  });
});
