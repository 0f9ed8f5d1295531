// The README's adoption section and docs/adoption.md start with export: their ```sh blocks are run here, command
// for command as written, against the emulator; only the connection (BACKUP_PORTAL_*) comes from the test.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { parse } from "yaml";
import { clientSuite, envFor } from "../support/portal";

const ROOT = path.join(__dirname, "..", "..");

/** The first ```sh block after `heading` (or in the whole file). */
function shBlock(file: string, heading?: string): string {
  let text = fs.readFileSync(path.join(ROOT, file), "utf8");
  if (heading) {
    const at = text.indexOf(heading);
    assert.ok(at >= 0, `${file} has no "${heading}"`);
    text = text.slice(at);
  }
  const m = /```sh\n([\s\S]*?)```/.exec(text);
  assert.ok(m, `${file}: no sh block`);
  return m[1];
}

describe("the adoption docs' commands, run as written", function () {
  this.timeout(120_000);
  const p = clientSuite();
  let dir: string;
  beforeEach(() => {
    // A project that installed the package: `npx backup-portal` finds its bin in node_modules/.bin.
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "adoption-docs-"));
    fs.mkdirSync(path.join(dir, "node_modules", ".bin"), { recursive: true });
    fs.symlinkSync(path.join(ROOT, "bin", "backup-portal.js"), path.join(dir, "node_modules", ".bin", "backup-portal"));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  for (const [file, heading] of [
    ["README.md", "## Bringing an existing portal under code (adoption)"],
    ["docs/adoption.md", undefined],
  ] as const) {
    it(`${file}: export, review, merge`, async () => {
      const block = shBlock(file, heading);
      assert.match(block, /^npx backup-portal export /, "the section starts with export");
      assert.doesNotMatch(block, /BACKUP_PORTAL_/, "the connection is not in the commands");
      // Not spawnSync: the emulator answers from this process.
      const run = await new Promise<{ status: number; stdout: string; stderr: string }>((resolve) => {
        execFile(
          "bash",
          ["-e", "-o", "pipefail", "-c", block],
          { cwd: dir, env: { PATH: process.env.PATH, HOME: dir, npm_config_update_notifier: "false", ...envFor(p.emu) }, timeout: 100_000 },
          (err, stdout, stderr) => resolve({ status: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
        );
      });
      assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
      const stack = parse(fs.readFileSync(path.join(dir, "Pulumi.prod.yaml"), "utf8")) as { config: Record<string, any> };
      assert.equal(stack.config["backup-portal:rootBusinessUnitId"], "1");
      assert.deepEqual(Object.keys(stack.config["backup-portal:tenants"]), ["tenant-a", "tenant-b"]);
      assert.match(run.stdout, /review: the stack needs a cpuCount/, "grep shows the review comment");
      // Only the review comments (one in a node left out as a comment, too): not the export's header, which names
      // `review:` as well (issue 45 item 10).
      const found = run.stdout.trimEnd().split("\n");
      assert.deepEqual(
        found.filter((l) => !/^\.\/Pulumi\.prod\.yaml:\d+:[\s#]*# review: /.test(l)),
        [],
      );
      assert.match(run.stderr, /merged into Pulumi\.prod\.yaml: 0 business units added, 0 entries differ/);
      assert.ok(
        p.emu.requests().every((r) => r.method === "GET" || r.path === "/v1/oauth"),
        "nothing written",
      );
    });
  }
});
