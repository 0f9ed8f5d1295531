// What `npm pack` ships, read from npm's own file list (`npm pack --dry-run --json`) of the built tree:
// what a user needs is there (README, LICENSE, CHANGELOG, compiled code with its declarations, the stack
// files' JSON Schema, the command), nothing else is (tests, sources, source maps), and every relative link in
// the shipped Markdown lands on a shipped file, so no link a user follows from node_modules is dead.
import { strict as assert } from "assert";
import { execFileSync } from "child_process";
import { readFileSync } from "fs";
import { join, posix } from "path";

const root = join(__dirname, "..", "..");

function packedFiles(): string[] {
  // --ignore-scripts: `npm test` built dist/ already; prepack would build it again.
  const out = execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: root, encoding: "utf8" });
  return (JSON.parse(out) as { files: { path: string }[] }[])[0].files.map((f) => f.path).sort();
}

/** The relative link targets of a Markdown text (inline links and images), without their #anchor. */
export function relativeLinks(markdown: string): string[] {
  const withoutCode = markdown.replace(/^```[\s\S]*?^```/gm, "").replace(/`[^`\n]*`/g, "");
  const targets = [...withoutCode.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1]);
  return targets.filter((t) => !/^[a-z][a-z0-9+.-]*:/i.test(t) && !t.startsWith("#")).map((t) => t.replace(/#.*$/, ""));
}

describe("the npm tarball", function () {
  this.timeout(60000);
  let files: string[];
  before(() => {
    files = packedFiles();
  });

  it("ships what a user needs", () => {
    for (const f of [
      "README.md",
      "LICENSE",
      "CHANGELOG.md",
      "package.json",
      "bin/backup-portal.js",
      "stacks/tenants.schema.json",
      "dist/provider/index.js",
      "dist/provider/index.d.ts",
      // The stack program of tenants as data (tenantsFromConfig), which a user's project runs from the package.
      "dist/provider/program/index.js",
      "dist/provider/program/deploy.js",
      "dist/provider/portal/index.d.ts",
      "dist/provider/registry/data/zot-v2.1.18.config-keys.json",
    ]) {
      assert.ok(files.includes(f), `${f} is not in the tarball`);
    }
    for (const entry of ["portal", "registry", "metadata", "data", "billing", "registration"]) {
      assert.ok(files.includes(`dist/provider/${entry}/index.d.ts`), `the types of ./${entry}`);
    }
  });

  it("ships no tests, sources, stack programs or source maps", () => {
    const unwanted = files.filter(
      (f) =>
        /^(test|bench|emulator|scripts|provider|sdk)\//.test(f) ||
        /^dist\/(?!provider\/)/.test(f) ||
        /\.map$/.test(f) ||
        (/^stacks\//.test(f) && f !== "stacks/tenants.schema.json"),
    );
    assert.deepEqual(unwanted, []);
    const mapped = files.filter((f) => f.endsWith(".js") && readFileSync(join(root, f), "utf8").includes("sourceMappingURL"));
    assert.deepEqual(mapped, [], "compiled files name source maps the tarball does not hold");
  });

  it("every relative link in the shipped Markdown resolves inside the tarball", () => {
    const dead: string[] = [];
    for (const doc of files.filter((f) => f.endsWith(".md"))) {
      for (const link of relativeLinks(readFileSync(join(root, doc), "utf8"))) {
        const target = posix.normalize(posix.join(posix.dirname(doc), decodeURI(link))).replace(/\/$/, "");
        if (!files.some((f) => f === target || f.startsWith(`${target}/`))) dead.push(`${doc}: ${link}`);
      }
    }
    assert.deepEqual(dead, []);
  });

  it("finds the links it checks (the reader is not blind)", () => {
    const text = 'see [a](docs/a.md#x), ![img](img/b.png "t"), [ext](https://x.y/z), [in](#top), `[no](code.md)`';
    assert.deepEqual(relativeLinks(text), ["docs/a.md", "img/b.png"]);
  });
});
