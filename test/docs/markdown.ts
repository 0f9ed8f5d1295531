// Reading the repository's Markdown as the docs tests need it: which files, their headings and the anchors GitHub
// gives them, their links, and the text outside code.
import { existsSync, readdirSync, readFileSync } from "fs";
import { join } from "path";

export const ROOT = join(__dirname, "..", "..");

/** README.md and every .md under docs/ and examples/, relative to the repository. */
export function markdownFiles(): string[] {
  const found = ["README.md"];
  const walk = (dir: string) => {
    if (!existsSync(join(ROOT, dir))) return;
    for (const e of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
      const rel = join(dir, e.name);
      if (e.isDirectory() && e.name !== "node_modules") walk(rel);
      else if (e.name.endsWith(".md")) found.push(rel);
    }
  };
  walk("docs");
  walk("examples");
  return found;
}

export const read = (file: string): string => readFileSync(join(ROOT, file), "utf8");

/** A fence line: ``` or ~~~, indented (a block inside a list item) or not. */
const FENCE = /^\s*(```|~~~)/;

/** The lines of a Markdown text with a flag for those inside a fenced code block (the fences included). */
export function linesWithCode(markdown: string): Array<{ text: string; line: number; code: boolean; lang?: string }> {
  const out: Array<{ text: string; line: number; code: boolean; lang?: string }> = [];
  let inCode = false;
  let lang: string | undefined;
  markdown.split("\n").forEach((text, i) => {
    if (FENCE.test(text)) {
      if (!inCode) lang = text.replace(FENCE, "").trim();
      out.push({ text, line: i + 1, code: true, lang });
      inCode = !inCode;
      return;
    }
    out.push({ text, line: i + 1, code: inCode, lang: inCode ? lang : undefined });
  });
  return out;
}

/** The text outside fenced code blocks and inline code spans (code blanked, lines kept). */
export function prose(markdown: string): string {
  return linesWithCode(markdown)
    .map((l) => (l.code ? "" : l.text.replace(/`[^`\n]*`/g, (m) => " ".repeat(m.length))))
    .join("\n");
}

/** A heading's text as shown: links as their text, inline markup dropped. */
export function headingText(raw: string): string {
  return raw
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/<[^>]+>/g, "")
    .replace(/[`*]/g, "")
    .trim();
}

/** The anchor GitHub gives a heading (github-slugger): lower case, punctuation dropped, spaces as dashes. */
export function slug(text: string): string {
  return headingText(text)
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "")
    .replace(/ /g, "-");
}

/** The headings of a Markdown text (outside code), in order. */
export function headings(markdown: string): string[] {
  return linesWithCode(markdown)
    .filter((l) => !l.code && /^#{1,6}\s/.test(l.text))
    .map((l) => l.text.replace(/^#{1,6}\s+/, "").replace(/\s+#+\s*$/, ""));
}

/** Every anchor a link may name in a Markdown text: its headings' slugs (a repeated one numbered) and `<a id>`s. */
export function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const h of headings(markdown)) {
    const base = slug(h);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  for (const m of prose(markdown).matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) out.add(m[1]);
  return out;
}

/** The links of a Markdown text outside code: `[text](target)`, with the line each is on. */
export function links(markdown: string): Array<{ target: string; line: number }> {
  const text = prose(markdown);
  const out: Array<{ target: string; line: number }> = [];
  for (const m of text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
    out.push({ target: m[1], line: text.slice(0, m.index).split("\n").length });
  }
  return out;
}
