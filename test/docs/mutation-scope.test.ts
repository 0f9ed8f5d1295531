// The mutation run's scope is written down twice: stryker.config.json's `mutate` and the "Scope" paragraph of
// docs/testing.md. They name the same files and folders, the checker's program (tsconfig.stryker.json) holds each
// of them, and every spec file the run loads exists (a missing one fails only after minutes of instrumenting).
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";

const ROOT = path.join(__dirname, "..", "..");
const read = (file: string): string => fs.readFileSync(path.join(ROOT, file), "utf8");

interface StrykerConfig {
  mutate: string[];
  mochaOptions: { spec: string[] };
}

/** A `mutate` entry as the docs name it: a folder's glob by the folder (`provider/doctor/`), a file by its path. */
export function docName(entry: string): string {
  return entry.replace(/\*\*\/\*\.ts$/, "");
}

/** The paths in backquotes of the "Scope" item of docs/testing.md's "Mutation testing" section. */
export function scopePaths(markdown: string): string[] {
  const section = markdown.split(/^## /m).find((s) => s.startsWith("Mutation testing"));
  assert.ok(section, 'docs/testing.md has no "## Mutation testing" section');
  const item = /^- \*\*Scope\*\*[\s\S]*?(?=^- \*\*|^#|(?![\s\S]))/m.exec(section);
  assert.ok(item, 'the "Mutation testing" section has no "- **Scope**" item');
  return [...item[0].matchAll(/`(provider\/[^`]*)`/g)].map((m) => m[1]);
}

describe("docs: the mutation run's scope", () => {
  const config = JSON.parse(read("stryker.config.json")) as StrykerConfig;

  it("docs/testing.md's Scope names exactly what stryker.config.json mutates", () => {
    const documented = new Set(scopePaths(read("docs/testing.md")));
    const configured = new Set(config.mutate.map(docName));
    assert.deepEqual([...configured].filter((p) => !documented.has(p)).sort(), [], "in `mutate`, not in the docs' Scope");
    assert.deepEqual([...documented].filter((p) => !configured.has(p)).sort(), [], "in the docs' Scope, not in `mutate`");
  });

  it("the checker's program (tsconfig.stryker.json) includes every mutated file", () => {
    const include = (JSON.parse(read("tsconfig.stryker.json")) as { include: string[] }).include;
    assert.deepEqual(
      config.mutate.filter((m) => !include.includes(m)),
      [],
    );
  });

  it("every spec file of the run exists, once", () => {
    assert.deepEqual(
      config.mochaOptions.spec.filter((s) => !fs.existsSync(path.join(ROOT, s))),
      [],
    );
    assert.equal(new Set(config.mochaOptions.spec).size, config.mochaOptions.spec.length);
  });

  it("scopePaths reads only the Scope item, up to the next item", () => {
    const md =
      "## Mutation testing\n\n- **Scope**: `provider/a/` and\n  `provider/b.ts`.\n- **Spec files**: `provider/c.ts`\n## Next\n`provider/d.ts`";
    assert.deepEqual(scopePaths(md), ["provider/a/", "provider/b.ts"]);
    assert.deepEqual(scopePaths("## Mutation testing\n- **Scope**: `provider/x/`"), ["provider/x/"]);
    assert.equal(docName("provider/cli/**/*.ts"), "provider/cli/");
    assert.equal(docName("provider/registry/plan.ts"), "provider/registry/plan.ts");
  });
});
