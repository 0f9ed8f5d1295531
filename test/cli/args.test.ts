// The declaration layer of the command line: one CommandSpec gives both what util.parseArgs reads
// (with the typed values, negation and refusals the commands document) and the help text.
import assert from "node:assert/strict";
import { CommandSpec, formatHelp, parseCommandArgs, processIo, runCommand, UsageError } from "../../provider/cli/args";
import { captured } from "../support/captured";

const SPEC: CommandSpec = {
  label: "backup-portal example",
  usage: ["backup-portal example --bunit <id> [options]"],
  about: "An example.",
  options: {
    bunit: { kind: "id", required: true, description: "business unit" },
    port: { kind: "int", min: 0, max: 65535, value: "port", description: "port" },
    url: { kind: "url", value: "base", description: "base URL", default: "http://169.254.169.254" },
    from: { kind: "string", value: "date", description: "first moment" },
    type: { kind: "list", value: "t", description: "only these types" },
    progress: { kind: "flag", description: "show progress", negation: "never show progress" },
    "option-file": { kind: "string", value: "path", description: "option file", negation: "write no option file" },
    quiet: { kind: "flag", short: "q", description: "no progress lines" },
    attempts: { kind: "int", min: 1, description: "attempts per request", group: "reader" },
  },
  epilog: "exit codes: 0 done, 1 error, 2 bad arguments",
};

const parse = (argv: string[]) => parseCommandArgs(SPEC, argv);

describe("cli: options declared once, read with util.parseArgs", () => {
  it("reads --flag value, --flag=value, short flags, typed values and repeated lists", () => {
    assert.deepEqual(
      parse(["--bunit", "2", "--port=0", "--url", "https://x.example/", "-q", "--type", "a,b", "--type=c", "--attempts", "3"]),
      { bunit: 2, port: 0, url: "https://x.example/", quiet: true, type: ["a", "b", "c"], attempts: 3 },
    );
    // A value may start with one dash; the last of a repeated option wins.
    assert.deepEqual(parse(["--bunit", "1", "--from", "-7d", "--bunit", "5"]), { bunit: 5, from: "-7d" });
  });

  it("--no-<name> only where declared, the last of --x / --no-x wins, and a string option's negation is false", () => {
    assert.equal(parse(["--bunit", "1", "--progress", "--no-progress"]).progress, false);
    assert.equal(parse(["--bunit", "1", "--no-progress", "--progress"]).progress, true);
    assert.equal(parse(["--bunit", "1", "--no-option-file"])["option-file"], false);
    assert.equal(parse(["--bunit", "1", "--option-file", "/x"])["option-file"], "/x");
    assert.throws(() => parse(["--bunit", "1", "--no-quiet"]), /unknown option "--no-quiet"/);
    assert.throws(() => parse(["--bunit", "1", "--no-progress=1"]), /--no-progress takes no value/);
  });

  it("refuses each bad argument with a UsageError that names it", () => {
    const cases: Array<[string[], RegExp]> = [
      [["--bunit"], /--bunit needs a value/],
      [["--bunit="], /--bunit needs a value/],
      [["--bunit", ""], /--bunit needs a value/],
      [["--bunit", "--quiet"], /--bunit needs a value/],
      [["--bunit", "--"], /--bunit needs a value/],
      [["--bunit", "x"], /--bunit needs an id: a positive integer up to 9007199254740991, got "x"/],
      [["--bunit", "0"], /--bunit needs an id: a positive integer up to 9007199254740991, got "0"/],
      [["--bunit", "9".repeat(20)], /--bunit needs an id: a positive integer up to 9007199254740991, got "9{20}"/],
      [["--bunit", "1", "--port", "65536"], /--port needs an integer from 0 to 65535/],
      [["--bunit", "1", "--url", "ftp://x"], /--url needs an http\(s\) URL/],
      [["--bunit", "1", "--quiet=yes"], /--quiet takes no value/],
      [["--bunit", "1", "--nope"], /unknown option "--nope"/],
      [["--bunit", "1", "--constructor"], /unknown option "--constructor"/],
      [["--bunit", "1", "--no-toString"], /unknown option "--no-toString"/],
      [["--bunit", "1", "-x"], /unknown option "-x"/],
      [["--bunit", "1", "stray"], /unexpected argument "stray"/],
      [["--bunit", "1", "--", "after"], /unexpected argument "after"/],
      [[], /^missing --bunit <id>$/],
    ];
    for (const [argv, message] of cases)
      assert.throws(
        () => parse(argv),
        (e: unknown) => e instanceof UsageError && message.test(e.message),
        argv.join(" "),
      );
  });

  it("--help needs no required option; anything bad beside it is still refused", () => {
    assert.deepEqual(parse(["--help"]), { help: true });
    assert.deepEqual(parse(["-h"]), { help: true });
    assert.throws(() => parse(["--help", "--nope"]), UsageError);
  });

  it("the help text comes from the same declaration: value names, defaults, required, negations, groups, wrapping", () => {
    const help = formatHelp({ ...SPEC, options: { ...SPEC.options, long: { kind: "flag", description: "word ".repeat(30).trim() } } });
    assert.equal(help.split("\n").slice(0, 4).join("\n"), "usage: backup-portal example --bunit <id> [options]\n\nAn example.\n");
    assert.match(help, /^ {2}--bunit <id> {7,}business unit \(required\)$/m);
    assert.match(help, /^ {2}--url <base> {7,}base URL \(default http:\/\/169\.254\.169\.254\)$/m);
    assert.match(help, /^ {2}--type <t> {2,}only these types; repeatable, or comma-separated$/m);
    assert.match(help, /^ {2}--progress {2,}show progress\n {2}--no-progress {2,}never show progress$/m);
    assert.match(help, /^ {2}-q, --quiet {2,}no progress lines$/m);
    assert.match(help, /^ {2}-h, --help {2,}show this help\n\nreader:\n {2}--attempts <n> {2,}attempts per request\n\nexit codes/m);
    for (const line of help.split("\n")) assert.ok(line.length <= 80, `at most 80 columns: ${line}`);
    assert.match(help, /^ {2}--long {2,}word( word){5,}\n {20,}word/m);
  });

  it("runCommand: --help prints the help (0); bad arguments print the message and the help on stderr (2)", async () => {
    const o = { out: "", err: "" };
    const io = {
      out: (t: string) => {
        o.out += t;
      },
      err: (t: string) => {
        o.err += t;
      },
    };
    let ran = 0;
    const body = async () => {
      ran++;
      return 0;
    };
    assert.equal(await runCommand(SPEC, ["--help"], io, (v) => v, body), 0);
    assert.equal(o.out, `${formatHelp(SPEC)}\n`);
    assert.equal(await runCommand(SPEC, ["--nope"], io, (v) => v, body), 2);
    assert.equal(
      o.err,
      'backup-portal example: unknown option "--nope"\nusage: backup-portal example --bunit <id> [options]\nsee backup-portal example --help\n',
    );
    assert.equal(
      await runCommand(
        SPEC,
        ["--bunit", "1"],
        io,
        () => {
          throw new UsageError("checked across options");
        },
        body,
      ),
      2,
    );
    assert.match(o.err, /backup-portal example: checked across options\n/);
    assert.equal(ran, 0);
    assert.equal(await runCommand(SPEC, ["--bunit", "1"], io, (v) => v, body), 0);
    assert.equal(ran, 1);
  });

  it("an unknown option is never read as a negation, and only declared negations are suggested", () => {
    const refused = (argv: string[]) => {
      try {
        parse(["--bunit", "1", ...argv]);
      } catch (e) {
        assert.ok(e instanceof UsageError);
        return e.message;
      }
      assert.fail(`${argv.join(" ")} was accepted`);
    };
    // Ends with a declared name that has a negation, without the `no-`.
    assert.equal(refused(["--abcprogress"]), 'unknown option "--abcprogress"; did you mean --progress?');
    // Near `--no-quiet`, which is not declared (quiet has no negation).
    assert.equal(refused(["--no-quiett"]), 'unknown option "--no-quiett"');
    assert.equal(refused(["--no-progres"]), 'unknown option "--no-progres"; did you mean --no-progress?');
  });

  it("every missing required option is named", () => {
    const spec: CommandSpec = {
      label: "x",
      usage: [],
      options: { bunit: { kind: "int", value: "id", required: true }, consumer: { kind: "int", required: true } },
    };
    assert.throws(
      () => parseCommandArgs(spec, []),
      (e: Error) => e instanceof UsageError && e.message === "missing --bunit <id>, --consumer <n>",
    );
  });

  it("help: the kind as the value's name when none is given, no text for no description, every note, whitespace as one space", () => {
    const help = formatHelp({
      label: "x",
      usage: ["x [options]"],
      options: {
        base: { kind: "url" },
        port: { kind: "int", description: "the  port\tto\nuse", required: true, default: 5 },
      },
    });
    assert.equal(
      help,
      [
        "usage: x [options]",
        "",
        "options:",
        "  --base <url>",
        "  --port <n>    the port to use (required; default 5)",
        "  -h, --help    show this help",
      ].join("\n"),
    );
  });

  it("help: a description fills the line to the last column exactly, and wraps one character later; no trailing blanks", () => {
    // `-h, --help` is the widest option (10 columns): descriptions start at column 14 and have 66 columns.
    const lines = (description: string) =>
      formatHelp({ label: "x", usage: ["x"], options: { x: { kind: "flag", description } } })
        .split("\n")
        .slice(3, -1);
    const a = "a".repeat(32);
    assert.deepEqual(lines(`${a} ${"b".repeat(33)}`), [`  --x         ${a} ${"b".repeat(33)}`]);
    assert.deepEqual(lines(`${a} ${"b".repeat(34)}`), [`  --x         ${a}`, `              ${"b".repeat(34)}`]);
    assert.deepEqual(lines(`${"word  ".repeat(14)}\n`), [`  --x         ${"word ".repeat(12)}word`, `              word`]);
  });

  it("runCommand: a late usage error is exit 2 with the usage, any other failure exit 1 in one line; a bug in prepare is thrown", async () => {
    const late = await captured((io) =>
      runCommand(
        SPEC,
        ["--bunit", "1"],
        io,
        (v) => v,
        async () => {
          throw new UsageError("found late");
        },
      ),
    );
    assert.deepEqual(
      [late.code, late.err],
      [2, "backup-portal example: found late\nusage: backup-portal example --bunit <id> [options]\nsee backup-portal example --help\n"],
    );
    const failed = await captured((io) =>
      runCommand(
        SPEC,
        ["--bunit", "1"],
        io,
        (v) => v,
        async () => {
          throw new Error("it failed");
        },
      ),
    );
    assert.deepEqual([failed.code, failed.err], [1, "backup-portal example: it failed\n"]);
    await assert.rejects(
      captured((io) =>
        runCommand(
          SPEC,
          ["--bunit", "1"],
          io,
          () => {
            throw new TypeError("a bug");
          },
          async () => 0,
        ),
      ),
      TypeError,
    );
  });

  it("processIo writes to the process's stdout and stderr", () => {
    const written: string[] = [];
    const out = process.stdout.write;
    const err = process.stderr.write;
    process.stdout.write = ((chunk: string) => written.push(`out:${chunk}`) > 0) as typeof process.stdout.write;
    process.stderr.write = ((chunk: string) => written.push(`err:${chunk}`) > 0) as typeof process.stderr.write;
    try {
      processIo.out("a");
      processIo.err("b");
    } finally {
      process.stdout.write = out;
      process.stderr.write = err;
    }
    assert.deepEqual(written, ["out:a", "err:b"]);
  });
});
