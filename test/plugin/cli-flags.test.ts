// `pulumi-resource-backupportal --help` and `--version` answer and exit, as a user trying the binary expects,
// instead of starting the provider server and waiting for an engine that never comes.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as path from "node:path";

const ROOT = path.join(__dirname, "..", "..");
const PLUGIN = path.join(ROOT, "bin", "pulumi-resource-backupportal");
const run = (...args: string[]) => spawnSync(process.execPath, [PLUGIN, ...args], { encoding: "utf8", timeout: 20_000 });

describe("pulumi-resource-backupportal's own flags", () => {
  for (const flag of ["--help", "-h"]) {
    it(`${flag} prints the usage and exits 0 without serving`, () => {
      const r = run(flag);
      assert.equal(r.status, 0, r.stderr);
      assert.match(r.stdout, /^usage: pulumi-resource-backupportal \[--schema \| --version \| --help\]/);
      assert.doesNotMatch(r.stdout, /^\d+\n$/m, "no port printed");
    });
  }

  it("--version prints the package's version and exits 0", () => {
    const r = run("--version");
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, `${require(path.join(ROOT, "package.json")).version}\n`);
  });
});
