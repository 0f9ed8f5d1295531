// Where the dynamic-provider host finds the providers' code: the specifier stored in `__provider` resolves from
// the folder the engine runs the program and the host in (Pulumi.yaml `main: stacks/`; pkg/engine/project.go,
// getPwdMain), whichever folder serialized it.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { moduleSpecifier, programDirectory } from "../../provider/dynamic/specifier";

const ROOT = path.resolve(__dirname, "..", "..");
const STACKS = path.join(ROOT, "stacks");

describe("the serialized provider's module specifier", () => {
  it("is relative to stacks/, whether serialized from the project root (tests) or from stacks/ (pulumi up)", () => {
    assert.equal(programDirectory(ROOT), STACKS);
    assert.equal(programDirectory(STACKS), STACKS);
    const source = path.join(ROOT, "provider", "resources", "node.ts");
    assert.equal(moduleSpecifier(source, programDirectory(ROOT)), "../dist/provider/resources/node");
    assert.equal(moduleSpecifier(source, programDirectory(STACKS)), "../dist/provider/resources/node");
    // What the host does: resolve it from its working directory (needs `npm run build`).
    assert.equal(
      require.resolve("../dist/provider/resources/node", { paths: [STACKS] }),
      path.join(ROOT, "dist", "provider", "resources", "node.js"),
    );
  });

  it("follows `main` naming a file, or no `main`; and is the package name when installed", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "specifier-"));
    try {
      fs.mkdirSync(path.join(dir, "app", "src"), { recursive: true });
      fs.writeFileSync(path.join(dir, "app", "Pulumi.yaml"), "name: x\nruntime: nodejs\nmain: src/index.ts # the program\n");
      fs.writeFileSync(path.join(dir, "app", "src", "index.ts"), "");
      assert.equal(programDirectory(path.join(dir, "app")), path.join(dir, "app", "src"));
      fs.writeFileSync(path.join(dir, "app", "Pulumi.yaml"), "name: x\nruntime: nodejs\n");
      assert.equal(programDirectory(path.join(dir, "app", "src")), path.join(dir, "app"));
      const pkg = path.join(dir, "app", "node_modules", "backup-portal-pulumi");
      fs.mkdirSync(path.join(pkg, "dist", "provider", "resources"), { recursive: true });
      fs.writeFileSync(path.join(pkg, "package.json"), JSON.stringify({ name: "backup-portal-pulumi" }));
      assert.equal(
        moduleSpecifier(path.join(pkg, "dist", "provider", "resources", "node.js"), path.join(dir, "app")),
        "backup-portal-pulumi/dist/provider/resources/node",
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("is the package name when the package is installed through a symlink (npm link, npm install <folder>)", () => {
    // issue 28 item 13: Node loads a linked package from the link's target, outside node_modules; a relative
    // path to it would only resolve on the machine that wrote the state.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "specifier-link-"));
    try {
      const checkout = path.join(dir, "checkout");
      fs.mkdirSync(path.join(checkout, "dist", "provider", "resources"), { recursive: true });
      fs.writeFileSync(path.join(checkout, "package.json"), JSON.stringify({ name: "backup-portal-pulumi" }));
      const app = path.join(dir, "app");
      fs.mkdirSync(path.join(app, "node_modules"), { recursive: true });
      fs.writeFileSync(path.join(app, "Pulumi.yaml"), "name: x\nruntime: nodejs\n");
      fs.symlinkSync(checkout, path.join(app, "node_modules", "backup-portal-pulumi"), "dir");
      const compiled = path.join(checkout, "dist", "provider", "resources", "node.js");
      assert.equal(moduleSpecifier(compiled, app), "backup-portal-pulumi/dist/provider/resources/node");
      // Reached from a folder below the program's, too (node_modules is found upwards, as Node finds it).
      fs.mkdirSync(path.join(app, "src"));
      assert.equal(moduleSpecifier(compiled, path.join(app, "src")), "backup-portal-pulumi/dist/provider/resources/node");
      // A link to another copy of the package is not this one: the relative path stays.
      fs.rmSync(path.join(app, "node_modules", "backup-portal-pulumi"));
      const other = path.join(dir, "other");
      fs.mkdirSync(other);
      fs.writeFileSync(path.join(other, "package.json"), JSON.stringify({ name: "backup-portal-pulumi" }));
      fs.symlinkSync(other, path.join(app, "node_modules", "backup-portal-pulumi"), "dir");
      assert.equal(moduleSpecifier(compiled, app), "../checkout/dist/provider/resources/node");
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
