// `backup-portal init-workflows` (issue 45 item 1): the workflows and their scripts from the package into a project of
// its own, as a user runs it (bin/backup-portal.js in a temp project); what it writes is this repository's own files.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { WORKFLOW_FILES } from "../../provider/gitops/workflows";

const ROOT = path.join(__dirname, "..", "..");

function init(cwd: string, ...args: string[]) {
  const r = spawnSync(process.execPath, [path.join(ROOT, "bin", "backup-portal.js"), "init-workflows", ...args], {
    cwd,
    encoding: "utf8",
    timeout: 20_000,
  });
  return { status: r.status, out: r.stdout, err: r.stderr.replace(/^backup-portal: warning: Node\.js .*\n/m, "") };
}

describe("backup-portal init-workflows", function () {
  this.timeout(60_000);
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "init-workflows-"));
    fs.writeFileSync(path.join(dir, "Pulumi.yaml"), "name: tenants\nruntime: nodejs\nmain: index.ts\n");
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));
  const same = (file: string) => fs.readFileSync(path.join(dir, file)).equals(fs.readFileSync(path.join(ROOT, file)));

  it("writes the preview, up and drift workflows and their scripts, as this repository has them; again: unchanged", () => {
    const r = init(dir);
    assert.equal(r.status, 0, r.err);
    for (const f of WORKFLOW_FILES) {
      assert.ok(same(f), f);
      assert.match(r.out, new RegExp(`^written ${f.replace(/\./g, "\\.")}$`, "m"));
    }
    assert.ok(fs.statSync(path.join(dir, ".github/scripts/changed-stacks.js")).mode & 0o100, "the scripts are executable");
    const again = init(dir);
    assert.equal(again.status, 0);
    assert.equal(again.out.split("\n").filter((l) => l.startsWith("unchanged ")).length, WORKFLOW_FILES.length);
  });

  it("a file there with other content: every one named in a line, nothing written, exit 1; --force replaces them", () => {
    const mine = "name: preview\n# my own\n";
    fs.mkdirSync(path.join(dir, ".github/workflows"), { recursive: true });
    fs.writeFileSync(path.join(dir, ".github/workflows/preview.yml"), mine);
    fs.writeFileSync(path.join(dir, ".github/workflows/up.yml"), mine);
    const r = init(dir);
    assert.equal(r.status, 1);
    assert.deepEqual(r.err.trim().split("\n"), [
      "backup-portal init-workflows: .github/workflows/preview.yml: there with other content; compare it, then run again with --force to replace it",
      "backup-portal init-workflows: .github/workflows/up.yml: there with other content; compare it, then run again with --force to replace it",
      "backup-portal init-workflows: nothing was written",
    ]);
    assert.equal(fs.readFileSync(path.join(dir, ".github/workflows/preview.yml"), "utf8"), mine);
    assert.ok(!fs.existsSync(path.join(dir, ".github/workflows/drift.yml")), "all or nothing");
    const forced = init(dir, "--force");
    assert.equal(forced.status, 0, forced.err);
    assert.match(forced.out, /^replaced \.github\/workflows\/preview\.yml$/m);
    for (const f of WORKFLOW_FILES) assert.ok(same(f), f);
  });

  it("outside a project's folder: exit 2 in one line, nothing written", () => {
    fs.rmSync(path.join(dir, "Pulumi.yaml"));
    const r = init(dir);
    assert.equal(r.status, 2);
    assert.equal(r.err.trim().split("\n").length, 1);
    assert.match(r.err, /no Pulumi\.yaml in .*: run it in the project's folder, at the repository's root/);
    assert.ok(!fs.existsSync(path.join(dir, ".github")));
  });
});
