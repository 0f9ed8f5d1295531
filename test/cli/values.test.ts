// The typed values of the command line and `backup-portal` itself, word for word: integers, seconds, dates, files to
// write or read, URLs, the did-you-mean of an unknown option, and the top level's help, version and refusals.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import {
  CommandSpec,
  dateText,
  existingPath,
  fileToWrite,
  formatHelp,
  httpUrl,
  integer,
  portalIdValue,
  parseCommandArgs,
  seconds,
  UsageError,
} from "../../provider/cli/args";
import { main, packageVersion } from "../../provider/cli/main";
import { captured } from "../support/captured";

const refused = (f: () => unknown, message: string) =>
  assert.throws(f, (e: unknown) => e instanceof UsageError && e.message === message, message);

const cli = (argv: string[]) => captured((io) => main(argv, io));

describe("cli values, exactly", () => {
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "bp-values-"));
  });
  after(() => {
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("integer: digits only, a safe integer, within the bounds; the range in the message", () => {
    assert.equal(integer("--n", "0", 0), 0);
    assert.equal(integer("--n", "5", 5, 5), 5);
    assert.equal(integer("--n", "007", 1), 7);
    assert.equal(integer("--n", String(Number.MAX_SAFE_INTEGER), 0), Number.MAX_SAFE_INTEGER);
    refused(() => integer("--n", "4", 5), '--n needs an integer >= 5, got "4"');
    refused(() => integer("--n", "6", 1, 5), '--n needs an integer from 1 to 5, got "6"');
    refused(() => integer("--n", "1e3", 0), '--n needs an integer >= 0, got "1e3"');
    refused(() => integer("--n", " 1", 0), '--n needs an integer >= 0, got " 1"');
    refused(() => integer("--n", "1 ", 0), '--n needs an integer >= 0, got "1 "');
    refused(() => integer("--n", "1.0", 0), '--n needs an integer >= 0, got "1.0"');
    refused(
      () => integer("--n", String(Number.MAX_SAFE_INTEGER + 1), 0),
      `--n needs an integer >= 0, got "${Number.MAX_SAFE_INTEGER + 1}"`,
    );
  });

  it("portalIdValue: a portal id in digits, up to 2^53 - 1; beyond it the digits would read as another id", () => {
    const max = String(Number.MAX_SAFE_INTEGER);
    assert.equal(portalIdValue("--bunit", "1"), 1);
    assert.equal(portalIdValue("--bunit", max), Number.MAX_SAFE_INTEGER);
    for (const t of ["0", "007", "-1", "+1", "1e3", "1.0", " 1", "1 ", "x", "9007199254740992", "9007199254740993", "9".repeat(20)])
      refused(() => portalIdValue("--bunit", t), `--bunit needs an id: a positive integer up to ${max}, got ${JSON.stringify(t)}`);
  });

  it("seconds: above 0 and at most a day, fractions allowed, read as whole milliseconds", () => {
    assert.equal(seconds("--t", "1"), 1000);
    assert.equal(seconds("--t", "0.5"), 500);
    assert.equal(seconds("--t", "1.0006"), 1001);
    assert.equal(seconds("--t", "86400"), 86_400_000);
    const m = (t: string) => `--t needs a number of seconds above 0 and at most 86400, got ${JSON.stringify(t)}`;
    for (const t of ["0", "0.0", "86400.5", "86401", "-1", ".5", "5.", "1e2", " 1", "1 ", "x1"]) refused(() => seconds("--t", t), m(t));
  });

  it("dates: checked as the data functions read them, the form named, too far back said so", () => {
    assert.equal(dateText("--from", "2025-01-02", "day"), "2025-01-02");
    assert.equal(dateText("--from", "7d", "date"), "7d");
    refused(() => dateText("--from", "7d", "day"), '--from needs a day YYYY-MM-DD, got "7d"');
    refused(
      () => dateText("--to", "2025-02-30", "date"),
      '--to needs a date: YYYY-MM-DD, ISO 8601, or a duration ago (7d, 24h), got "2025-02-30"',
    );
    refused(
      () => dateText("--from", "99999999999d", "date"),
      '--from needs a date: YYYY-MM-DD, ISO 8601, or a duration ago (7d, 24h), got "99999999999d" (too far back)',
    );
  });

  it("a file to write: not a directory or device, below a directory; missing directories are fine", () => {
    const file = path.join(dir, "f");
    fs.writeFileSync(file, "");
    assert.equal(fileToWrite("--out", file), file);
    assert.equal(fileToWrite("--out", path.join(dir, "new", "deeper", "x")), path.join(dir, "new", "deeper", "x"));
    refused(() => fileToWrite("--out", dir), `--out ${JSON.stringify(dir)} is a directory, not a file`);
    refused(() => fileToWrite("--out", "/dev/null"), '--out "/dev/null" is not a regular file');
    refused(() => fileToWrite("--out", path.join(file, "x")), `--out ${JSON.stringify(path.join(file, "x"))}: ${file} is not a directory`);
    refused(
      () => fileToWrite("--out", path.join(file, "a", "b")),
      `--out ${JSON.stringify(path.join(file, "a", "b"))}: ${file} is not a directory`,
    );
    const long = path.join(dir, "x".repeat(300));
    assert.throws(
      () => fileToWrite("--out", long),
      (e: unknown) => e instanceof UsageError && e.message.startsWith(`${path.resolve(long)}: ENAMETOOLONG`),
    );
  });

  it("an existing path, and an http(s) URL", () => {
    assert.equal(existingPath("--merge", dir), dir);
    refused(
      () => existingPath("--merge", path.join(dir, "none")),
      `--merge ${JSON.stringify(path.join(dir, "none"))}: no such file or directory`,
    );
    assert.equal(httpUrl("--url", "http://a"), "http://a");
    assert.equal(httpUrl("--url", "https://a/b"), "https://a/b");
    for (const u of ["ftp://a", "a.example", "", "file:///x"])
      refused(() => httpUrl("--url", u), `--url needs an http(s) URL, got ${JSON.stringify(u)}`);
  });

  it("an unknown long option suggests the nearest declared one (a --no- form included, a value ignored); a short one none", () => {
    const spec: CommandSpec = {
      label: "x",
      usage: ["x"],
      options: {
        progress: { kind: "flag", negation: "never" },
        bunit: { kind: "int", min: 1 },
      },
    };
    const m = (argv: string[], message: string) => refused(() => parseCommandArgs(spec, argv), message);
    m(["--progres"], 'unknown option "--progres"; did you mean --progress?');
    m(["--no-progres"], 'unknown option "--no-progres"; did you mean --no-progress?');
    m(["--bunti=3"], 'unknown option "--bunti"; did you mean --bunit?');
    m(["--zzzzzzzz"], 'unknown option "--zzzzzzzz"');
    m(["-p"], 'unknown option "-p"');
  });

  it("list values: blanks dropped, items trimmed, repeats added", () => {
    const spec: CommandSpec = { label: "x", usage: ["x"], options: { type: { kind: "list" } } };
    assert.deepEqual(parseCommandArgs(spec, ["--type", " a , ,b,", "--type", "c"]), { type: ["a", "b", "c"] });
  });

  it("the help: usage lines with `or:`, no empty paragraph, long option names on their own line", () => {
    const help = formatHelp({
      label: "x",
      usage: ["x one", "x two"],
      about: "",
      options: { "a-very-long-option-name-indeed": { kind: "string", value: "value", description: "what it is" } },
    });
    assert.equal(
      help,
      [
        "usage: x one",
        "   or: x two",
        "",
        "options:",
        "  --a-very-long-option-name-indeed <value>",
        "              what it is",
        "  -h, --help  show this help",
      ].join("\n"),
    );
  });

  it("backup-portal: help of one command takes one; -V; the version from package.json", async () => {
    const two = await cli(["help", "reports", "jobs"]);
    assert.equal(two.code, 2);
    assert.match(two.err, /^backup-portal: help takes one command, got 2\nusage: backup-portal <command>/);
    const typo = await cli(["regster"]);
    assert.match(typo.err, /^backup-portal: unknown command "regster"; did you mean register\?\n/);
    const helpTypo = await cli(["help", "doctr"]);
    assert.equal(helpTypo.code, 2);
    assert.match(helpTypo.err, /^backup-portal: unknown command "doctr"; did you mean doctor\?\n/);
    const far = await cli(["zzzzzzzzzz"]);
    assert.match(far.err, /^backup-portal: unknown command "zzzzzzzzzz"\nusage: /);
    const version = JSON.parse(fs.readFileSync(path.join(__dirname, "..", "..", "package.json"), "utf8")).version as string;
    assert.equal(packageVersion(), version);
    assert.deepEqual(await cli(["-V"]), { code: 0, out: `${version}\n`, err: "" });
  });
});
