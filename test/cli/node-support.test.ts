// The supported Node.js versions come from one place, package.json `engines`: the README promises 22 and 24, and
// .nvmrc / .node-version pick one of them. On another version the CLI says so in one warning line on stderr and
// goes on (stdout stays the data). The real binary on this Node, on a reported other version, and on every other
// node this machine has on PATH.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { describeRange, nodeRange, nodeSupportWarning, supportedNodeRange } from "../../provider/node-support";
import { envFor, Emulator, startEmulator } from "../support/portal";
import { backupPortal, ROOT } from "./process";

const PKG = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { version: string; engines: { node: string } };
/** What the README promises. */
const SUPPORTED_MAJORS = [22, 24];
const FAKE = ["--require", path.join(__dirname, "fake-node-version.js")];
const WARNING =
  /^backup-portal: warning: Node\.js (\S+) is not supported: backup-portal-pulumi supports Node\.js 22 or 24 \(package\.json engines "[^"]+"\); it may run, but is not tested there: switch, e\.g\. `nvm install 22`$/;

describe("supported Node.js: package.json engines, and one warning line on another version", function () {
  this.timeout(120_000);

  it("engines allows 22 and 24, nothing else (what the README and CI say)", () => {
    assert.equal(supportedNodeRange(), PKG.engines.node);
    for (const v of ["22.0.0", "22.23.3", "24.0.0", "24.11.1"]) assert.equal(nodeSupportWarning(v), undefined, v);
    for (const v of ["18.20.0", "20.20.2", "21.7.3", "23.11.0", "25.0.0", "26.1.0", "v20.0.0"]) {
      const w = nodeSupportWarning(v);
      assert.ok(w !== undefined, v);
      assert.match(`backup-portal: warning: ${w}`, WARNING, v);
      assert.ok(!w.includes("\n"), "one line");
    }
  });

  it("reads the range shapes npm writes, as npm does; one that is no range gives no warning", () => {
    const cases: Array<[string, string[], string[]]> = [
      [">=22", ["22.0.0", "23.1.0", "30.0.0"], ["21.9.9", "20.0.0"]],
      ["^22.4.1 || ^24", ["22.4.1", "22.99.0", "24.0.0"], ["22.4.0", "23.0.0", "25.0.0"]],
      ["22 - 24", ["22.0.0", "24.9.9"], ["21.9.9", "25.0.0"]],
    ];
    for (const [range, inside, outside] of cases) {
      const allows = nodeRange(range);
      assert.ok(allows, range);
      for (const v of inside) assert.equal(allows(v), true, `${range} allows ${v}`);
      for (const v of outside) assert.equal(allows(v), false, `${range} refuses ${v}`);
    }
    for (const unknown of ["lts/*", "", "latest"]) {
      assert.equal(nodeRange(unknown), undefined, JSON.stringify(unknown));
      assert.equal(nodeSupportWarning("20.0.0", unknown), undefined, JSON.stringify(unknown));
    }
    assert.equal(describeRange("^22 || ^24"), "Node.js 22 or 24");
    assert.equal(describeRange("^22 || ^24 || ^26"), "Node.js 22, 24 or 26");
    assert.equal(describeRange(">=22"), "Node.js >=22");
  });

  it(".nvmrc and .node-version name a version engines allows", () => {
    const allows = nodeRange(PKG.engines.node)!;
    for (const file of [".nvmrc", ".node-version"]) {
      const major = fs.readFileSync(path.join(ROOT, file), "utf8").trim();
      assert.match(major, /^\d+$/, file);
      assert.ok(SUPPORTED_MAJORS.includes(Number(major)), `${file}: ${major}`);
      assert.ok(allows(`${major}.0.0`), `${file}: ${major}`);
    }
  });

  describe("the real binary", () => {
    let emu: Emulator;
    before(async () => {
      emu = await startEmulator({ quiet: true });
    });
    after(async () => {
      await emu?.close();
    });

    it("on this Node (22 or 24): no warning", async () => {
      assert.ok(SUPPORTED_MAJORS.includes(Number(process.versions.node.split(".")[0])), `the tests run on ${process.version}`);
      const r = await backupPortal(["--version"]);
      assert.deepEqual([r.code, r.out, r.err], [0, `${PKG.version}\n`, ""]);
    });

    it("on another version: one warning line on stderr first, and the command runs; stdout stays the data", async () => {
      const env = { FAKE_NODE_VERSION: "20.20.2" };
      const version = await backupPortal(["--version"], { nodeArgs: FAKE, env });
      assert.equal(version.code, 0, version.err);
      assert.equal(version.out, `${PKG.version}\n`);
      assert.deepEqual(
        version.err
          .trimEnd()
          .split("\n")
          .map((l) => WARNING.exec(l)?.[1]),
        ["20.20.2"],
      );
      // A data command: its JSON on stdout parses, the warning is the first line of stderr.
      const data = await backupPortal(["consumers", "--bunit", "2", "--json"], { nodeArgs: FAKE, env: { ...env, ...envFor(emu) } });
      assert.equal(data.code, 0, data.err);
      assert.ok(Array.isArray(JSON.parse(data.out)));
      assert.match(data.err.split("\n")[0], WARNING);
      // A usage error: the warning, then the error's three lines.
      const bad = await backupPortal(["jobs", "--nope"], { nodeArgs: FAKE, env });
      assert.equal(bad.code, 2);
      assert.equal(bad.err.trimEnd().split("\n").length, 4, bad.err);
      for (const v of ["26.0.0", "23.4.0"]) {
        const other = await backupPortal(["--version"], { nodeArgs: FAKE, env: { FAKE_NODE_VERSION: v } });
        assert.equal(WARNING.exec(other.err.trimEnd())?.[1], v, other.err);
      }
    });

    it("every node on this machine's PATH from 20 on: a warning exactly when its major is not 22 or 24", async () => {
      let found: string[] = [];
      try {
        found = execFileSync("which", ["-a", "node"], { encoding: "utf8" }).split("\n").filter(Boolean);
      } catch {
        found = []; // which finds none
      }
      const nodes = [...new Set([process.execPath, ...found.map((n) => fs.realpathSync(n))])];
      assert.ok(nodes.length >= 1);
      for (const node of nodes) {
        const v = execFileSync(node, ["-p", "process.versions.node"], { encoding: "utf8" }).trim();
        // Below 20 the CLI is not expected to run at all (util.parseArgs with tokens is 20's).
        if (Number(v.split(".")[0]) < 20) continue;
        const r = await backupPortal(["--version"], { node });
        assert.equal(r.code, 0, `${node}: ${r.err}`);
        assert.equal(r.out, `${PKG.version}\n`, node);
        const supported = SUPPORTED_MAJORS.includes(Number(v.split(".")[0]));
        assert.equal(WARNING.exec(r.err.trimEnd())?.[1], supported ? undefined : v, `${node} (${v}): ${r.err}`);
      }
    });
  });
});
