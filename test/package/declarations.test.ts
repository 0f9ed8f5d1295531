// The package's declarations as a TypeScript program that installed it sees them, in a program without
// @pulumi/kubernetes (an optional peer: a program that manages tenants only has none). The declarations npm would
// pack (`npm pack --dry-run --json`) are laid out as node_modules/backup-portal-pulumi in a temp folder, next to
// the package's own dependencies (linked to this checkout's) and nothing else; a file importing every entry point
// compiles strict, without skipLibCheck, under moduleResolution node (typesVersions) and node16 (exports). A
// declaration that names @pulumi/kubernetes (or a dev dependency's types) fails here with tsc's own line, as it
// fails a user's `tsc` and `pulumi up`. scripts/pack-smoke.sh checks the same on a real install of the tarball.
import { strict as assert } from "node:assert";
import { execFileSync, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

const root = path.join(__dirname, "..", "..");
const pkg = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as {
  name: string;
  exports: Record<string, unknown>;
  dependencies: Record<string, string>;
};

/** The entry points a program imports: `backup-portal-pulumi` and each `backup-portal-pulumi/<name>` of exports. */
export function entryPoints(exportsMap: Record<string, unknown>, name = pkg.name): string[] {
  return Object.keys(exportsMap)
    .filter((k) => /^\.(\/[a-z]+)?$/.test(k))
    .map((k) => name + k.slice(1));
}

function packedDeclarations(): string[] {
  // --ignore-scripts: `npm test` built dist/ already; prepack would build it again.
  const out = execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: root, encoding: "utf8" });
  return (JSON.parse(out) as { files: { path: string }[] }[])[0].files.map((f) => f.path).filter((f) => f.endsWith(".d.ts"));
}

/** A program's folder with the packed declarations installed and the package's dependencies, and nothing else. */
function programWithoutKubernetes(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "declarations-"));
  const installed = path.join(dir, "node_modules", pkg.name);
  for (const f of ["package.json", ...packedDeclarations()]) {
    fs.mkdirSync(path.dirname(path.join(installed, f)), { recursive: true });
    fs.copyFileSync(path.join(root, f), path.join(installed, f));
  }
  for (const dep of Object.keys(pkg.dependencies)) {
    const link = path.join(dir, "node_modules", dep);
    fs.mkdirSync(path.dirname(link), { recursive: true });
    fs.symlinkSync(path.join(root, "node_modules", dep), link, "dir");
  }
  const entries = entryPoints(pkg.exports);
  const lines = entries.map((e, i) => `import * as entry${i} from "${e}";\nexport const use${i} = entry${i};`);
  // The stack program of tenants as data: a project's whole index.ts.
  lines.push(`import { tenantsFromConfig } from "${pkg.name}";\nexport const program: () => Promise<object> = tenantsFromConfig();`);
  fs.writeFileSync(path.join(dir, "index.ts"), lines.join("\n") + "\n");
  return dir;
}

function tsc(dir: string, resolution: "node" | "node16") {
  const args = ["--noEmit", "--strict", "--types", "node", "--typeRoots", path.join(root, "node_modules", "@types")];
  // The target of Pulumi's TypeScript template (es2020): the declarations use private names (`#field`), ES2015+.
  args.push("--target", "es2020", "--module", resolution === "node" ? "commonjs" : "node16", "--moduleResolution", resolution, "index.ts");
  return spawnSync(process.execPath, [path.join(root, "node_modules", "typescript", "bin", "tsc"), ...args], {
    cwd: dir,
    encoding: "utf8",
    timeout: 170_000,
  });
}

describe("the package's declarations in a program without @pulumi/kubernetes", function () {
  this.timeout(360_000);
  let dir: string;
  before(() => {
    assert.ok(
      fs.existsSync(path.join(root, "dist", "provider", "index.d.ts")),
      "dist/ is missing: `npm test` builds it; alone, run `npm run build`",
    );
    dir = programWithoutKubernetes();
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("has no @pulumi/kubernetes and the entry points of package.json's exports", () => {
    assert.ok(!fs.existsSync(path.join(dir, "node_modules", "@pulumi", "kubernetes")));
    assert.deepEqual(entryPoints({ ".": 1, "./portal": 1, "./package.json": 1, "./dist/provider/*": 1 }, "p"), ["p", "p/portal"]);
    assert.ok(entryPoints(pkg.exports).length >= 7, entryPoints(pkg.exports).join(", "));
  });

  for (const resolution of ["node", "node16"] as const) {
    it(`every entry point compiles, strict, declarations checked (moduleResolution ${resolution})`, () => {
      const r = tsc(dir, resolution);
      assert.equal(r.status, 0, `tsc: ${r.stdout}${r.stderr}`);
    });
  }
});
