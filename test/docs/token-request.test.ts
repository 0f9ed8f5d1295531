// How to get a token by hand (`POST /v1/oauth`: its form body and the Origin header), as docs/emulator.md and
// docs/portal-contract.md show it: each file's ```sh block that names /v1/oauth is run here by bash, as written,
// against the emulator; only the connection (the BACKUP_PORTAL_* lines the emulator prints) comes from the test.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { read } from "./markdown";
import { envFor, startEmulator, type Emulator } from "../support/portal";

/** The ```sh block of `file` that names /v1/oauth. */
function tokenBlock(file: string): string {
  const blocks = [...read(file).matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]).filter((b) => b.includes("/v1/oauth"));
  assert.equal(blocks.length, 1, `${file}: one sh block with the token request`);
  return blocks[0];
}

/**
 * Runs `block` with bash (errexit, pipefail), with the connection of `env`, in an empty HOME (bash on a socket for
 * stdin reads ~/.bashrc); never throws.
 */
function bash(block: string, env: Record<string, string>): Promise<{ status: number; stdout: string; stderr: string }> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "token-docs-"));
  return new Promise((resolve) => {
    execFile(
      "bash",
      ["-e", "-o", "pipefail", "-c", block],
      { cwd: home, env: { PATH: process.env.PATH ?? "", HOME: home, ...env }, timeout: 30_000 },
      (err, stdout, stderr) => {
        fs.rmSync(home, { recursive: true, force: true });
        resolve({ status: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
      },
    );
  });
}

describe("docs: the token request by hand, run as written", function () {
  this.timeout(60_000);
  let emu: Emulator;
  before(async () => {
    emu = await startEmulator({ port: 0, quiet: true });
  });
  after(() => emu?.close());

  for (const file of ["docs/emulator.md", "docs/portal-contract.md"]) {
    it(`${file}: the token, then a call with it`, async () => {
      const block = tokenBlock(file);
      assert.doesNotMatch(block, /BACKUP_PORTAL_\w+=/, "the connection is not in the block");
      const r = await bash(block, envFor(emu, "tenant"));
      assert.equal(r.status, 0, r.stderr);
      assert.equal(JSON.parse(r.stdout).username, "tenant", r.stdout);
      assert.equal(r.stderr, "");
    });

    it(`${file}: a refused login says why, and the block stops there`, async () => {
      const r = await bash(tokenBlock(file), { ...envFor(emu, "tenant"), BACKUP_PORTAL_PASSWORD: "wrong" });
      assert.notEqual(r.status, 0);
      assert.match(r.stderr, /^\{"error":"invalid_grant",.*\}\n$/, "the portal's answer, one line");
      assert.equal(r.stdout, "");
    });
  }
});
