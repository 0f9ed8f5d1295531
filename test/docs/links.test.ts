// Where the docs send a reader exists: every link's #anchor is a heading of its page (GitHub's anchors), no page
// links to itself, and every reference to a section by its title ('docs/gitops.md, "The plan guard"', the
// README's, a command's --help, a comment in the code) names a heading that page has.
import { strict as assert } from "assert";
import { existsSync, readdirSync, readFileSync, statSync } from "fs";
import { dirname, join, relative } from "path";
import { COMMAND_NAMES, commandSpec } from "../../provider/cli/main";
import { formatHelp } from "../../provider/cli/args";
import { anchors, headings, headingText, links, markdownFiles, read, ROOT, slug } from "./markdown";

/** The problems of the links of one Markdown file: an anchor its target lacks, a link to the page itself. */
export function linkProblems(file: string, markdown: string, readTarget: (rel: string) => string | undefined): string[] {
  const problems: string[] = [];
  for (const { target, line } of links(markdown)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // another site
    const [path, anchor] = target.split("#", 2) as [string, string | undefined];
    const rel = path === "" ? file : relative(ROOT, join(ROOT, dirname(file), decodeURI(path)));
    if (path !== "" && rel === file && anchor === undefined) {
      problems.push(`${file}:${line}: ${target} links to the page itself`);
      continue;
    }
    if (anchor === undefined || !rel.endsWith(".md")) continue;
    const text = rel === file ? markdown : readTarget(rel);
    if (text === undefined) continue; // a missing file is code-blocks.test.ts' finding
    if (!anchors(text).has(decodeURIComponent(anchor))) problems.push(`${file}:${line}: ${target}: ${rel} has no heading #${anchor}`);
  }
  return problems;
}

/** A title as compared: markup dropped, white space collapsed, case ignored. */
const norm = (s: string) => headingText(s).replace(/\s+/g, " ").trim().toLowerCase();

/** Whether a page has a heading with this title (or one that starts with it, up to a comma or parenthesis). */
function hasSection(markdown: string, title: string): boolean {
  const t = norm(title);
  return headings(markdown)
    .map(norm)
    .some((h) => h === t || (h.startsWith(t) && /^[,(:]| [(—-]/.test(h.slice(t.length))));
}

/**
 * References to a section by its title: `docs/gitops.md, "The plan guard"`, `README, "First run"`, `stack-config.md
 * "Removing a tenant on purpose"` (the file: from the repository, else beside the text), and `"How it is tested",
 * above` (the same page). Returns `where: problem` for each that names no heading of its page.
 */
export function sectionProblems(
  where: string,
  dir: string,
  text: string,
  self: string | undefined,
  readPage: (rel: string) => string | undefined,
): string[] {
  const problems: string[] = [];
  // A title starts with a letter or a backtick; the file and the title are apart by a comma, colon or space.
  const quoted = `["“]([A-Za-z\`][^"”\\n]*(?:\\n[^"”\\n]+)?)["”]`;
  const toFile = new RegExp(`((?:[\\w.-]+/)*[\\w.-]+\\.md|\\bREADME)\\b(?:,\\s*|:\\s*|\\s+)${quoted}`, "g");
  for (const m of text.matchAll(toFile)) {
    const name = m[1] === "README" ? "README.md" : m[1];
    const rel = [name, join(dir, name), join("docs", name)].find((r) => readPage(r) !== undefined);
    if (rel === undefined) {
      problems.push(`${where}: ${m[0].replace(/\s+/g, " ")}: no page ${name}`);
      continue;
    }
    if (!hasSection(readPage(rel)!, m[2])) problems.push(`${where}: ${m[0].replace(/\s+/g, " ")}: ${rel} has no such section`);
  }
  if (self !== undefined) {
    for (const m of text.matchAll(new RegExp(`${quoted},?\\s+\\(?(above|below)\\b`, "g"))) {
      if (!hasSection(self, m[1])) problems.push(`${where}: ${m[0].replace(/\s+/g, " ")}: this page has no such section`);
    }
  }
  return problems;
}

const pageCache = new Map<string, string | undefined>();
function readPage(rel: string): string | undefined {
  if (!pageCache.has(rel)) {
    const p = join(ROOT, rel);
    pageCache.set(rel, rel.endsWith(".md") && existsSync(p) && statSync(p).isFile() ? readFileSync(p, "utf8") : undefined);
  }
  return pageCache.get(rel);
}

/** The product's own files that may send a reader to a section: the code, the scripts, the stack files, the workflows. */
function sourceFiles(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    if (!existsSync(join(ROOT, dir))) return;
    for (const e of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
      const rel = join(dir, e.name);
      if (e.isDirectory() && e.name !== "node_modules" && e.name !== "data") walk(rel);
      else if (/\.(ts|js|ya?ml|sh)$/.test(e.name) && !e.name.endsWith(".d.ts")) out.push(rel);
    }
  };
  for (const d of ["provider", "emulator", "scripts", "stacks", "bin", ".github"]) walk(d);
  return out;
}

describe("docs: where they send a reader exists", function () {
  this.timeout(60_000);
  const files = markdownFiles();

  it("every link's #anchor is a heading of its page, and no page links to itself", () => {
    assert.deepEqual(
      files.flatMap((f) => linkProblems(f, read(f), readPage)),
      [],
    );
  });

  it("every reference to a section by its title, in the docs, names a heading of that page", () => {
    assert.deepEqual(
      files.flatMap((f) => sectionProblems(f, dirname(f), read(f), read(f), readPage)),
      [],
    );
  });

  it("every command's --help and every comment or message of the code that names a section names one that exists", () => {
    const help = COMMAND_NAMES.flatMap((name) =>
      sectionProblems(`backup-portal ${name} --help`, ".", formatHelp(commandSpec(name)), undefined, readPage),
    );
    const code = sourceFiles().flatMap((f) => sectionProblems(f, dirname(f), readFileSync(join(ROOT, f), "utf8"), undefined, readPage));
    assert.deepEqual([...help, ...code], []);
  });

  it("the anchors are GitHub's, and the checks find what is wrong (they are not blind)", () => {
    assert.equal(slug("CI was killed during `pulumi up`"), "ci-was-killed-during-pulumi-up");
    assert.equal(slug("Bringing an existing portal under code (adoption)"), "bringing-an-existing-portal-under-code-adoption");
    assert.equal(slug("Fault drills (`test/drills/`)"), "fault-drills-testdrills");
    assert.equal(slug("By hand: `adoptId`"), "by-hand-adoptid");
    assert.equal(slug("1. Export"), "1-export");
    const page =
      "# T\n\n## Same\n\n## Same\n\n```sh\n# not a heading\n```\n[a](#same-1) [b](#not-a-heading) [c](t.md) [d](other.md#x) [e](#same)\n";
    assert.deepEqual(
      linkProblems("docs/t.md", page, (rel) => (rel === "docs/other.md" ? "# Other\n\n## Y\n" : undefined)),
      [
        "docs/t.md:10: #not-a-heading: docs/t.md has no heading #not-a-heading",
        "docs/t.md:10: t.md links to the page itself",
        "docs/t.md:10: other.md#x: docs/other.md has no heading #x",
      ],
    );
    const pages: Record<string, string> = {
      "README.md": "# R\n## From nothing\n",
      "docs/cli.md": "# C\n## First run against your portal\n",
    };
    const text =
      'see README, "First run against your portal"; docs/cli.md, "First run\nagainst your portal"; ("Gone", above); "From nothing" (above)';
    assert.deepEqual(
      sectionProblems("x", "docs", text, "# X\n## From nothing\n", (r) => pages[r]),
      ['x: README, "First run against your portal": README.md has no such section', 'x: "Gone", above: this page has no such section'],
    );
  });
});
