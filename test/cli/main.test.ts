// `backup-portal` itself: every command's help comes from its declaration and reads the same
// through `help <command>` and `<command> --help`; --version prints package.json's version (also
// through the real binary); unknown commands and options are bad arguments (exit 2, with the usage line).
import assert from "node:assert/strict";
import { spawnSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { formatHelp } from "../../provider/cli/args";
import { COMMAND_NAMES, commandSpec, main, packageVersion } from "../../provider/cli/main";
import { captured, type Captured } from "../support/captured";

const ROOT = path.join(__dirname, "..", "..");
const BIN = path.join(ROOT, "bin", "backup-portal.js");
const VERSION = (JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { version: string }).version;

type Outcome = Captured;

/** Runs `backup-portal <argv>` in this process with its output captured. */
const cli = (argv: string[]) => captured((io) => main(argv, io));

/** Runs the real binary, bounded in time, with no portal in its environment. */
function binary(argv: string[]): Outcome {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("BACKUP_PORTAL_")));
  const r = spawnSync(process.execPath, [BIN, ...argv], { cwd: ROOT, env, encoding: "utf8", timeout: 20000 });
  assert.equal(r.error, undefined, String(r.error));
  return { code: r.status ?? -1, out: r.stdout, err: r.stderr };
}

describe("cli: backup-portal help, --version, bad arguments", function () {
  this.timeout(60000);

  it("lists the commands", () => {
    assert.deepEqual([...COMMAND_NAMES].sort(), [
      "audit",
      "billing",
      "billing-receiver",
      "business-units",
      "consumers",
      "doctor",
      "export",
      "init-workflows",
      "invoices",
      "jobs",
      "metadata",
      "plan-guard",
      "register",
      "registration-broker",
      "reports",
      "validate",
    ]);
  });

  for (const name of COMMAND_NAMES) {
    it(`${name}: \`help ${name}\` and \`${name} --help\` print the same help, made from its declaration`, async () => {
      const viaHelp = await cli(["help", name]);
      const viaFlag = await cli([name, "--help"]);
      const viaShort = await cli([name, "-h"]);
      for (const o of [viaHelp, viaFlag, viaShort]) {
        assert.equal(o.code, 0, o.err);
        assert.equal(o.err, "");
      }
      assert.equal(viaFlag.out, viaHelp.out);
      assert.equal(viaShort.out, viaHelp.out);
      const spec = commandSpec(name);
      assert.equal(viaHelp.out, `${formatHelp(spec)}\n`);
      assert.match(viaHelp.out, /^usage: /);
      // Every declared option is in the help, and only declared options are accepted.
      for (const [option, s] of Object.entries(spec.options)) {
        assert.ok(viaHelp.out.includes(`--${option}`), `--${option} is in the help of ${name}`);
        if (s.negation !== undefined) assert.ok(viaHelp.out.includes(`--no-${option}`), `--no-${option} is in the help of ${name}`);
      }
    });

    it(`${name}: an unknown option or a stray argument is exit 2 with three lines on stderr: the message, the usage line, see --help`, async () => {
      const spec = commandSpec(name);
      for (const argv of [["--no-such-option"], ["stray"], ["-Z"]]) {
        const o = await cli([name, ...argv]);
        assert.equal(o.code, 2, `${name} ${argv.join(" ")}: ${o.err}`);
        assert.equal(o.out, "");
        // A command that takes a file: the argument is written right and names no file, one line (TargetError).
        if (argv[0] === "stray" && name === "validate") {
          assert.equal(o.err, `backup-portal validate: "stray": no such file or directory\n`);
          continue;
        }
        if (argv[0] === "stray" && name === "plan-guard") {
          assert.equal(o.err, "plan-guard: stray: cannot read it (ENOENT)\n");
          continue;
        }
        const lines = o.err.split("\n");
        assert.equal(lines.length, 4, o.err); // three lines and the final line end
        assert.match(lines[0], /^[a-z -]+: (unknown option "(--no-such-option|-Z)"|unexpected argument "stray")$/);
        // The usage line is one of the help's, the one that starts with backup-portal (billing-receiver's second).
        assert.ok(spec.usage.includes(lines[1].replace(/^usage: /, "")), lines[1]);
        assert.match(lines[1], new RegExp(`^usage: backup-portal ${name} `));
        assert.equal(lines[2], `see backup-portal ${name} --help`);
      }
    });
  }

  it("help without a command, --help and -h list the commands (exit 0); no arguments too, but exit 2", async () => {
    const help = await cli(["help"]);
    assert.equal(help.code, 0);
    for (const name of COMMAND_NAMES) assert.match(help.out, new RegExp(`^  ${name} `, "m"));
    assert.match(help.out, /-V, --version/);
    for (const argv of [["--help"], ["-h"], ["help", "--help"], ["help", "-h"]]) assert.deepEqual(await cli(argv), help);
    assert.deepEqual(await cli([]), { ...help, code: 2 });
  });

  it("an unknown command, `help` of one, or an unknown option before the command is exit 2 with the usage", async () => {
    for (const argv of [
      ["nope"],
      ["help", "nope"],
      ["help", "reports", "jobs"],
      ["--nope"],
      ["--version=1"],
      ["--version", "extra"],
      ["constructor"],
    ]) {
      const o = await cli(argv);
      assert.equal(o.code, 2, argv.join(" "));
      assert.equal(o.out, "");
      assert.match(o.err, /^backup-portal: .*\nusage: backup-portal <command> \[options\]\nsee backup-portal --help\n$/, argv.join(" "));
    }
    assert.match((await cli(["nope"])).err, /^backup-portal: unknown command "nope"/);
    assert.match((await cli(["--nope"])).err, /^backup-portal: unknown option "--nope"/);
  });

  it("--version and -V print package.json's version", async () => {
    for (const flag of ["--version", "-V"]) assert.deepEqual(await cli([flag]), { code: 0, out: `${VERSION}\n`, err: "" });
  });

  it("the version is read from the package the module lies in: dist/, or an installed package", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "backup-portal-version-"));
    try {
      const installed = path.join(dir, "node_modules", "backup-portal-pulumi");
      fs.mkdirSync(path.join(installed, "dist", "provider", "cli"), { recursive: true });
      fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "someones-program", version: "1.0.0" }));
      fs.writeFileSync(path.join(installed, "package.json"), JSON.stringify({ name: "backup-portal-pulumi", version: "9.8.7-test" }));
      assert.equal(packageVersion(path.join(installed, "dist", "provider", "cli", "main.js")), "9.8.7-test");
      assert.equal(packageVersion(path.join(ROOT, "dist", "provider", "cli", "main.js")), VERSION);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("the real binary: --version, the same help both ways, exit 2 for an unknown command or option", () => {
    assert.deepEqual(binary(["--version"]), { code: 0, out: `${VERSION}\n`, err: "" });
    const viaHelp = binary(["help", "audit"]);
    assert.equal(viaHelp.code, 0, viaHelp.err);
    assert.match(viaHelp.out, /^usage: backup-portal audit /);
    assert.match(viaHelp.out, /--no-progress/);
    assert.deepEqual(binary(["audit", "--help"]), viaHelp);
    const unknown = binary(["nope"]);
    assert.equal(unknown.code, 2);
    assert.match(unknown.err, /unknown command "nope"/);
    const badOption = binary(["jobs", "--bunit", "1", "--consumer", "1", "--nope"]);
    assert.equal(badOption.code, 2);
    assert.equal(
      badOption.err,
      'backup-portal jobs: unknown option "--nope"\nusage: backup-portal jobs --bunit <id> --consumer <id> [options]\nsee backup-portal jobs --help\n',
    );
  });
});
