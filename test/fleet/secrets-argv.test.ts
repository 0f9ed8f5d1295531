// Issue 28 item 3: the fleet set each group's portal and node passwords with `pulumi config set-all --secret
// key=value`, in the process's arguments, which every user of a CI runner reads with `ps` or /proc/*/cmdline.
// Here a fake `pulumi` first on PATH records every invocation's arguments and what it got on stdin; the
// default stack factory (the one `backup-portal-fleet` uses) sets a group's config through it. No argument of
// any invocation may hold a secret; each secret arrives on the stdin of its own `config set --secret <key>`.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { findPulumiCli, localStackFactory, setSecretConfig } from "../../stacks/fleet/run";

const PORTAL_PASSWORD = "Portal-Pa55word-in-argv?";
const NODE_PASSWORD = "Node-Pa55word with spaces\nand a line";

interface Invocation {
  argv: string[];
  stdin: string;
}

/** A fake `pulumi` (a Node script) in a fresh directory: logs each invocation as one JSON line; `version` answers. */
function fakePulumi(dir: string, log: string, failOn?: string): void {
  const script = `#!${process.execPath}
const fs = require("fs");
const argv = process.argv.slice(2);
let stdin = "";
if (argv[0] === "config" && argv[1] === "set") stdin = fs.readFileSync(0, "utf8");
fs.appendFileSync(${JSON.stringify(log)}, JSON.stringify({ argv, stdin }) + "\\n");
if (argv[0] === "version") process.stdout.write("v3.265.0\\n");
if (${JSON.stringify(failOn ?? null)} !== null && argv.includes(${JSON.stringify(failOn ?? "")})) {
  process.stderr.write("error: cannot encrypt " + stdin + "\\n");
  process.exit(1);
}
`;
  fs.writeFileSync(path.join(dir, "pulumi"), script, { mode: 0o755 });
}

const invocations = (log: string): Invocation[] =>
  fs
    .readFileSync(log, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Invocation);

describe("fleet: secrets never in a process's arguments (issue 28 item 3)", function () {
  this.timeout(60_000);
  let dir: string;
  let log: string;
  const savedPath = process.env.PATH;

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "fake-pulumi-"));
    log = path.join(dir, "invocations.jsonl");
    process.env.PATH = `${dir}${path.delimiter}${savedPath}`;
  });
  afterEach(() => {
    process.env.PATH = savedPath;
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("the default factory sets plain values as arguments and each secret on stdin", async () => {
    fakePulumi(dir, log);
    const project = fs.mkdtempSync(path.join(dir, "project-"));
    const createStack = localStackFactory(await findPulumiCli());
    const stack = await createStack("acme/prod-g00", project);
    await stack.setAllConfig({
      "backup-portal:url": { value: "https://portal.example.com" },
      "backup-portal:password": { value: PORTAL_PASSWORD, secret: true },
      "backup-portal:web01-password": { value: NODE_PASSWORD, secret: true },
    });

    const all = invocations(log);
    for (const inv of all) {
      const argv = inv.argv.join("\0");
      assert.ok(!argv.includes(PORTAL_PASSWORD) && !argv.includes("Node-Pa55word"), `a secret in the arguments: ${inv.argv.join(" ")}`);
    }
    const setAll = all.filter((i) => i.argv[0] === "config" && i.argv[1] === "set-all");
    assert.equal(setAll.length, 1);
    assert.ok(setAll[0].argv.includes("backup-portal:url=https://portal.example.com"), setAll[0].argv.join(" "));
    assert.ok(!setAll[0].argv.includes("--secret"), "set-all gets no secret at all");

    const secretSets = all.filter((i) => i.argv[0] === "config" && i.argv[1] === "set");
    assert.deepEqual(
      secretSets.map((i) => [i.argv.slice(2), i.stdin]),
      [
        [["--stack", "acme/prod-g00", "--secret", "--non-interactive", "--", "backup-portal:password"], `${PORTAL_PASSWORD}\n`],
        [["--stack", "acme/prod-g00", "--secret", "--non-interactive", "--", "backup-portal:web01-password"], `${NODE_PASSWORD}\n`],
      ],
      "the value on stdin with one final newline, which `pulumi config set` drops",
    );
  });

  it("a failing `config set --secret` names the key and the stack, never the value", async () => {
    fakePulumi(dir, log, "backup-portal:password");
    const cli = await findPulumiCli();
    await assert.rejects(setSecretConfig(cli.command, "acme/prod-g01", dir, "backup-portal:password", PORTAL_PASSWORD), (err: Error) => {
      assert.match(
        err.message,
        /^pulumi config set backup-portal:password --secret failed on stack acme\/prod-g01: error: cannot encrypt \*\*\*$/,
      );
      assert.ok(!err.message.includes(PORTAL_PASSWORD));
      return true;
    });
  });
});
