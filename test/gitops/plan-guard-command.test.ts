// `backup-portal plan-guard` (issue 45 item 1): the plan guard as a command of the package, for a project of its own,
// run as a user runs it (bin/backup-portal.js, a real process): the same exits, table and lines as this repository's
// `npm run plan-guard` (scripts/plan-guard.js) on every recorded preview; and its --markdown report, which the
// preview workflow posts on the pull request, from the same JSON the guard judged.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

const ROOT = path.join(__dirname, "..", "..");
const FIXTURES = path.join(__dirname, "fixtures");
const fixture = (name: string) => path.join(FIXTURES, `${name}.json`);

function run(file: string, args: string[]) {
  // The Node.js warning of an unsupported version is the only line the command adds; it is not the guard's.
  const r = spawnSync(process.execPath, [file, ...args], { cwd: ROOT, encoding: "utf8", timeout: 20_000 });
  return { status: r.status, out: r.stdout, err: r.stderr.replace(/^backup-portal: warning: Node\.js .*\n/m, "") };
}
const command = (...args: string[]) => run(path.join(ROOT, "bin", "backup-portal.js"), ["plan-guard", ...args]);
const script = (...args: string[]) => run(path.join(ROOT, "scripts", "plan-guard.js"), args);

describe("backup-portal plan-guard (the installed package's plan guard)", function () {
  this.timeout(120_000);
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), "plan-guard-command-"))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("gives the same exit, table and lines as npm run plan-guard on every recorded preview, with and without the label", () => {
    const names = fs.readdirSync(FIXTURES).filter((f) => f.endsWith(".json"));
    assert.ok(names.length >= 10, names.join(", "));
    const exits = new Set<number | null>();
    for (const name of names) {
      for (const args of [[], ["--allow"], ["--max-deletes", "3"]]) {
        const a = command(path.join(FIXTURES, name), ...args);
        const b = script(path.join(FIXTURES, name), ...args);
        const what = `${name} ${args.join(" ")}`;
        assert.equal(a.status, b.status, what);
        assert.equal(a.out, b.out, what);
        assert.equal(a.err, b.err, what);
        exits.add(a.status);
      }
    }
    assert.deepEqual([...exits].sort(), [0, 1, 2], "the recordings pass, are refused and fail closed");
    // A refusal names its rows in the table.
    const refused = command(fixture("one-delete"));
    assert.equal(refused.status, 1);
    assert.match(refused.out, /^Consumer\s+acme\/archive\s+urn:pulumi:\S+\s+delete$/m);
    assert.match(refused.err, /plan-guard: refused: .* at most 0 may go without the label/);
  });

  it("a bad argument is exit 2 with the command's usage line; --help shows the options; help lists it", () => {
    for (const args of [["--max-deletes", "x", fixture("no-change")], [fixture("no-change"), fixture("one-delete")], []]) {
      const r = command(...args);
      assert.equal(r.status, 2, args.join(" "));
      assert.equal(r.out, "");
      assert.match(r.err, /\nusage: backup-portal plan-guard <preview\.json> \[--max-deletes N\] \[--allow\] \[--markdown <file>\]\n/);
    }
    assert.match(command("--max-deletes", "x", fixture("no-change")).err, /--max-deletes/);
    const help = command("--help");
    assert.equal(help.status, 0);
    for (const option of ["--max-deletes", "--allow", "--markdown"]) assert.ok(help.out.includes(option), option);
    const list = run(path.join(ROOT, "bin", "backup-portal.js"), ["help"]);
    assert.match(list.out, /^ {2}plan-guard {2,}/m);
    assert.match(list.out, /^ {2}init-workflows {2,}/m);
  });

  it("--markdown appends the plan the guard judged: every change, the preview's errors and the verdict", () => {
    const md = path.join(dir, "plan.md");
    fs.writeFileSync(md, "### pulumi preview prod\n\n");
    const r = command(fixture("protected-delete"), "--markdown", md);
    assert.equal(r.status, 1);
    const text = fs.readFileSync(md, "utf8");
    assert.ok(text.startsWith("### pulumi preview prod\n\n**Plan:** "), text);
    const digest = JSON.parse(fs.readFileSync(fixture("protected-delete"), "utf8"));
    for (const step of digest.steps.filter((s: { op: string }) => s.op === "delete")) {
      const name = step.urn.split("::").slice(3).join("::");
      assert.match(text, new RegExp(`^- \\w+ ${name.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}$`, "m"), name);
    }
    const error = digest.diagnostics.find((d: { severity: string }) => d.severity === "error");
    assert.ok(text.includes("**The preview failed:**") && text.includes(error.message.trim().split("\n")[0]), "the preview's error");
    for (const line of `${r.out}${r.err}`.trim().split("\n")) assert.ok(text.includes(line), `the guard's line: ${line}`);
  });

  it("--markdown shows changed inputs old and new, never an input named like a secret, and a name cannot close its fence", () => {
    const urn = (name: string) => `urn:pulumi:dev::p::pulumi-nodejs:dynamic/backup-portal:Consumer::${name}`;
    const digest = {
      steps: [
        {
          op: "update",
          urn: urn("acme/web01"),
          diffs: ["name", "tsmPassword"],
          oldState: { type: "pulumi-nodejs:dynamic/backup-portal:Consumer", inputs: { name: "web01", tsmPassword: "Old-pw-1" } },
          newState: { type: "pulumi-nodejs:dynamic/backup-portal:Consumer", inputs: { name: "web02", tsmPassword: "New-pw-2" } },
        },
        { op: "create", urn: urn("acme/````\n# injected") },
      ],
      changeSummary: { update: 1, create: 1, same: 4 },
    };
    const file = path.join(dir, "preview.json");
    fs.writeFileSync(file, JSON.stringify(digest));
    const md = path.join(dir, "plan.md");
    assert.equal(command(file, "--markdown", md).status, 0);
    const text = fs.readFileSync(md, "utf8");
    assert.match(text, /^\*\*Plan:\*\* 1 to update, 1 to create, 4 unchanged$/m);
    assert.match(text, /^~ Consumer acme\/web01 \[diff: ~name,tsmPassword\]$/m);
    assert.match(text, /^ {4}name: "web01" => "web02"$/m);
    assert.match(text, /^ {4}tsmPassword: \[secret\] => \[secret\]$/m);
    assert.ok(!/Old-pw-1|New-pw-2/.test(text), "no secret's value");
    assert.ok(!/^# injected/m.test(text), "the name's line break is escaped");
    const fence = /^(`{5,})diff$/m.exec(text);
    assert.ok(fence, `a fence longer than the name's backticks:\n${text}`);
  });

  it("--markdown to a file it cannot write is exit 2 (no check passes without the report it was asked for)", () => {
    const r = command(fixture("no-change"), "--markdown", path.join(dir, "missing", "plan.md"));
    assert.equal(r.status, 2);
    assert.match(r.err, /plan-guard: --markdown .*plan\.md: cannot write it \(ENOENT\)/);
  });
});
