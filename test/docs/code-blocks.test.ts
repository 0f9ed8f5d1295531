// The docs are code a user copies: every TypeScript block of the README, docs/ and examples/ is type-checked
// against this package as a user imports it (`backup-portal-pulumi` and its subpaths, or the plugin's SDK
// `@backup-portal/backupportal`; never a path into the repository), and every relative link of that Markdown resolves to a file of the repository.
import { strict as assert } from "assert";
import { existsSync, readFileSync } from "fs";
import { dirname, join, relative } from "path";
import * as ts from "typescript";
import { markdownFiles } from "./markdown";

const root = join(__dirname, "..", "..");
/** Modules a block may import that this package does not depend on: declared as `any` for the check. */
const OTHER_PACKAGES = ["@pulumi/openstack", "@pulumi/aws", "@pulumi/azure-native", "@pulumi/gcp"];

interface Block {
  file: string;
  line: number;
  code: string;
}

/** The ```ts / ```typescript blocks of a Markdown text, with the line each starts on. */
export function typescriptBlocks(file: string, text: string): Block[] {
  const blocks: Block[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    if (!/^```(ts|typescript)\s*$/.test(lines[i])) continue;
    const start = i + 1;
    let end = start;
    while (end < lines.length && !/^```\s*$/.test(lines[end])) end++;
    blocks.push({ file, line: start + 1, code: lines.slice(start, end).join("\n") });
    i = end;
  }
  return blocks;
}

function typeCheck(blocks: Block[]): string[] {
  const names = blocks.map((b, i) => join(root, ".docs-check", `block${i}.ts`));
  // A program's entry that exports its function (`export = tenantsFromConfig();`) is a module already, and may not
  // export anything else.
  const entry = (code: string) => /^export = /m.test(code);
  const sources = new Map(names.map((n, i) => [n, entry(blocks[i].code) ? `${blocks[i].code}\n` : `${blocks[i].code}\nexport {};\n`]));
  const ambient = join(root, ".docs-check", "other-packages.d.ts");
  sources.set(ambient, OTHER_PACKAGES.map((m) => `declare module "${m}";`).join("\n"));
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ES2022,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    esModuleInterop: true,
    resolveJsonModule: true,
    types: ["node"],
    typeRoots: [join(root, "node_modules", "@types")],
    baseUrl: root,
    paths: {
      "backup-portal-pulumi": ["provider/index.ts"],
      "backup-portal-pulumi/*": ["provider/*/index.ts"],
      // The plugin's generated SDK, as a user installs it (docs/plugin.md).
      "@backup-portal/backupportal": ["sdk/nodejs/index.ts"],
    },
  };
  const host = ts.createCompilerHost(options);
  const read = host.readFile.bind(host);
  host.readFile = (f) => sources.get(f) ?? read(f);
  const exists = host.fileExists.bind(host);
  host.fileExists = (f) => sources.has(f) || exists(f);
  const program = ts.createProgram([...names, ambient], options, host);
  const problems: string[] = [];
  for (const [i, name] of names.entries()) {
    const sf = program.getSourceFile(name)!;
    for (const d of [...program.getSyntacticDiagnostics(sf), ...program.getSemanticDiagnostics(sf)]) {
      // 1203, `export =` under ES modules: a Pulumi TypeScript program is CommonJS (the templates' tsconfig.json).
      if (d.code === 1203 && entry(blocks[i].code)) continue;
      const { line } = d.start === undefined ? { line: 0 } : sf.getLineAndCharacterOfPosition(d.start);
      problems.push(`${blocks[i].file}:${blocks[i].line + line}: ${ts.flattenDiagnosticMessageText(d.messageText, " ")}`);
    }
    for (const m of blocks[i].code.matchAll(/from\s+"(\.[^"]*)"/g)) {
      problems.push(`${blocks[i].file}:${blocks[i].line}: imports "${m[1]}": a user imports backup-portal-pulumi or one of its subpaths`);
    }
  }
  return problems;
}

/** The relative link targets of a Markdown text (outside code), without their #anchor. */
export function relativeLinks(markdown: string): string[] {
  const withoutCode = markdown.replace(/^```[\s\S]*?^```/gm, "").replace(/`[^`\n]*`/g, "");
  return [...withoutCode.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)]
    .map((m) => m[1])
    .filter((t) => !/^[a-z][a-z0-9+.-]*:/i.test(t) && !t.startsWith("#"))
    .map((t) => t.replace(/#.*$/, ""));
}

/**
 * Citations a user cannot follow: the project's internal specs (`spec 000`/`spec 001`), its own issue numbers
 * ("issue 17"; `owner/repo#3550` links to other projects are fine), the `../shared/` notes and "the development
 * workspace", none of which ship. Returns `file:line: text` for each line that has one.
 */
export function unshippedCitations(file: string, markdown: string): string[] {
  const cite = /\bspec 00[01]\b|\.\.\/shared\/|\bissue \d+\b|development workspace/i;
  return markdown.split("\n").flatMap((text, i) => (cite.test(text) ? [`${file}:${i + 1}: ${text.trim()}`] : []));
}

describe("docs: the code a user copies", function () {
  this.timeout(120000);
  const files = markdownFiles();

  it("every TypeScript block type-checks against the package as a user imports it", () => {
    const blocks = files.flatMap((f) => typescriptBlocks(f, readFileSync(join(root, f), "utf8")));
    assert.ok(blocks.length >= 5, `found only ${blocks.length} blocks: the reader is blind`);
    assert.deepEqual(typeCheck(blocks), []);
  });

  it("the check fails on a wrong block (it is not blind)", () => {
    const wrong = [
      { file: "x.md", line: 1, code: 'import { BusinessUnit } from "backup-portal-pulumi";\nnew BusinessUnit("a", { nope: 1 });' },
      { file: "y.md", line: 5, code: 'import { readInstanceMetadata } from "./provider/metadata";' },
    ];
    const problems = typeCheck(wrong);
    assert.ok(
      problems.some((p) => p.startsWith("x.md:2: ") && /nope/.test(p)),
      problems.join("\n"),
    );
    assert.ok(
      problems.some((p) => p.startsWith('y.md:5: imports "./provider/metadata"')),
      problems.join("\n"),
    );
  });

  it("every relative link resolves to a file of the repository", () => {
    const dead: string[] = [];
    for (const f of files) {
      for (const link of relativeLinks(readFileSync(join(root, f), "utf8"))) {
        const target = join(root, dirname(f), decodeURI(link));
        if (!existsSync(target) || relative(root, target).startsWith("..")) dead.push(`${f}: ${link}`);
      }
    }
    assert.deepEqual(dead, []);
  });

  it("cites nothing a user does not have (internal specs, issue numbers, ../shared notes)", () => {
    const found = files.flatMap((f) => unshippedCitations(f, readFileSync(join(root, f), "utf8")));
    assert.deepEqual(found, []);
  });

  it("the citation check finds a citation and lets a link to another project's issue pass", () => {
    const text = "ok\nas spec 000 says\nsee pulumi/pulumi#3550 and [the issue](https://github.com/x/y/issues/3)\nissue 18";
    assert.deepEqual(unshippedCitations("z.md", text), ["z.md:2: as spec 000 says", "z.md:4: issue 18"]);
  });
});
