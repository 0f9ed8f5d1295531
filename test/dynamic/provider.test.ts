// The provider object the host runs, the `__provider` text that names it (provider/dynamic/provider.ts) and the
// specifier it loads our code by (specifier.ts), in process (the real host: serialized-provider.test.ts). Not in the mutation run's spec: both run when a resource module loads, so Stryker
// reloads every test file for each of their mutants, which costs more than the 30-minute budget allows.
// The host configures the provider with its own Config class over the stack config; here the same class is used
// and the specifier is an absolute path to the TypeScript source (the host loads dist/ by a relative one).
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { resetConnection } from "../../provider/dynamic/connection";
import type * as pulumi from "@pulumi/pulumi";
import { serializedProvider } from "../../provider/dynamic/provider";
import { businessUnitProvider } from "../../provider/resources/business-unit";
import { moduleSpecifier, packageRoot, programDirectory } from "../../provider/dynamic/specifier";
import { clientSuite, stackConfigFor } from "../support/portal";

const requireFromString = require("require-from-string") as (code: string) => { handler(): unknown };
const { Config } = require("@pulumi/pulumi/cmd/dynamic-provider/config") as {
  Config: new (raw: Record<string, string>, project: string) => { get(key: string): string | undefined };
};

const ROOT = path.resolve(__dirname, "..", "..");

describe("the serialized provider", function () {
  this.timeout(20_000);
  const s = clientSuite();
  afterEach(() => resetConnection());

  it("the provider object the host runs: configure hands the stack config to the portal connection; each method is the lifecycle's", async () => {
    resetConnection();
    // The text evaluated as the host evaluates it (require-from-string, then handler()), here with an absolute
    // specifier of the TypeScript source: it yields the module's own provider object, not a copy.
    const text = serializedProvider(path.join(ROOT, "provider", "resources", "business-unit"), "businessUnitProvider");
    const provider = requireFromString(text).handler() as pulumi.dynamic.ResourceProvider;
    assert.equal(provider, businessUnitProvider);
    const config = new Config(stackConfigFor(s.emu.url), "backup-portal");
    await provider.configure!({ config } as never);
    const inputs = { parentId: 1, name: "Acme", registrationNumber: "556-1", timeZone: "UTC" };
    const checked = await provider.check!({}, inputs);
    assert.deepEqual(checked.failures, []);
    const made = await provider.create(checked.inputs);
    assert.equal(s.emu.state().businessUnits.find((b) => b.id === Number(made.id))?.name, "Acme");
    const read = await provider.read!(made.id, made.outs);
    assert.equal(read.props!.businessUnitId, Number(made.id));
    assert.deepEqual(await provider.diff!(made.id, made.outs, { ...inputs, parentId: 2 }), {
      changes: true,
      replaces: ["parentId"],
      deleteBeforeReplace: false,
    });
    const updated = await provider.update!(made.id, made.outs, { ...inputs, note: "second" });
    assert.equal(updated.outs.note, "second");
    await provider.delete!(made.id, updated.outs);
    assert.equal(
      s.emu.state().businessUnits.some((b) => b.id === Number(made.id)),
      false,
    );
  });

  it("its text is one line naming the module and the export, and refuses an export name that is no identifier", () => {
    assert.equal(
      serializedProvider("../dist/provider/resources/node", "nodeProvider"),
      'exports.handler=()=>require("../dist/provider/resources/node").nodeProvider',
    );
    assert.equal(
      serializedProvider('a"b\\c', "x"),
      'exports.handler=()=>require("a\\"b\\\\c").x',
      "the specifier is a JSON string: quotes and backslashes escaped",
    );
    assert.throws(() => serializedProvider("x", "a;process.exit()"), /not an export name: a;process.exit\(\)/);
  });

  describe("its module specifier", () => {
    let dir: string;
    beforeEach(() => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), "specifier-"));
    });
    afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

    it("is relative to the program directory, starting with ./ when the code lies below it", () => {
      const source = path.join(ROOT, "provider", "resources", "node.ts");
      assert.equal(moduleSpecifier(source, ROOT), "./dist/provider/resources/node");
      assert.equal(moduleSpecifier(path.join(ROOT, "dist", "provider", "resources", "node.js"), ROOT), "./dist/provider/resources/node");
      assert.equal(moduleSpecifier(source, path.join(ROOT, "stacks")), "../dist/provider/resources/node");
      assert.equal(packageRoot(source), ROOT);
    });

    it("outside any Pulumi project the program directory is the working directory", () => {
      const deep = path.join(dir, "a", "b");
      fs.mkdirSync(deep, { recursive: true });
      assert.equal(programDirectory(deep), deep);
      fs.writeFileSync(path.join(dir, "Pulumi.yaml"), "name: x\nruntime: nodejs\nmain: 'a/'\n");
      assert.equal(programDirectory(deep), path.join(dir, "a"), "found two folders up; main quoted, naming a folder");
    });

    it("main: quoted or not, spaces and a comment around it, naming a folder or a file; none: the project's folder", () => {
      fs.mkdirSync(path.join(dir, "src"));
      fs.writeFileSync(path.join(dir, "src", "index.ts"), "");
      const cases: Array<[string, string]> = [
        ["main:   src/index.ts   # the program", path.join(dir, "src")],
        ['main: "src/"', path.join(dir, "src")],
        ["main:\tsrc # where it is", path.join(dir, "src")],
        ["description: no main", dir],
      ];
      for (const [line, expected] of cases) {
        fs.writeFileSync(path.join(dir, "Pulumi.yaml"), `name: x\nruntime: nodejs\n${line}\n`);
        assert.equal(programDirectory(path.join(dir, "src")), expected, line);
      }
    });

    it("is the package name and its path when the package is installed", () => {
      const pkg = path.join(dir, "node_modules", "backup-portal-pulumi");
      fs.mkdirSync(path.join(pkg, "dist", "provider", "resources"), { recursive: true });
      fs.writeFileSync(path.join(pkg, "package.json"), JSON.stringify({ name: "backup-portal-pulumi" }));
      const file = path.join(pkg, "dist", "provider", "resources", "node.js");
      assert.equal(moduleSpecifier(file, dir), "backup-portal-pulumi/dist/provider/resources/node");
    });

    it("a file outside this package is refused with a message that names it", () => {
      fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "someone-else" }));
      const file = path.join(dir, "index.js");
      assert.throws(() => packageRoot(file), { message: `${file} is not inside the backup-portal-pulumi package` });
      assert.throws(() => moduleSpecifier(file, dir), /is not inside the backup-portal-pulumi package/);
    });
  });
});
