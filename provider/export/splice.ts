// Additions to a stack file's text that leave every other byte as it was: new map entries written as text and
// inserted where their map's block ends, instead of the whole document re-rendered (which moves comments, changes
// spacing and respells values). What is inserted is rendered like export's own output (render.ts, stack-yaml.ts:
// quoted and escaped where a reader could read otherwise), then indented to its column.
import { Document, isMap, isScalar, Node as YamlNode, Pair, Scalar, YAMLMap } from "yaml";
import { OutValue } from "./out";
import { yamlNode } from "./render";
import { stackYamlText } from "./stack-yaml";

/** The file's own layout, for the lines added: its indentation, and whether sequences sit deeper than their key. */
export interface Layout {
  indent: number;
  indentSeq: boolean;
}

/** Pairs to write: a key and export's value for it. */
export type NewPairs = Array<[string, OutValue]>;

interface Edit {
  from: number;
  to: number;
  text: string;
  /** The column of the lines inserted: at one place, deeper lines close the inner block, so they come first. */
  col: number;
  order: number;
}

/** A map the additions cannot be written into as text (a flow map with entries, a scalar): named by the caller. */
export class SpliceRefused extends Error {}

const lineStart = (text: string, at: number) => text.lastIndexOf("\n", at - 1) + 1;

/**
 * Whether a file's lines end in CRLF: every one of them does. One CRLF among LF lines (a line pasted from elsewhere)
 * makes no CRLF file, and what is added to it, or written over it, keeps LF.
 */
export function usesCrlf(text: string): boolean {
  const lf = text.split("\n").length - 1;
  return lf > 0 && text.split("\r\n").length - 1 === lf;
}

export class Splicer {
  private readonly edits: Edit[] = [];
  private readonly eol: string;

  constructor(
    private readonly text: string,
    private readonly layout: Layout,
  ) {
    this.eol = usesCrlf(text) ? "\r\n" : "\n";
  }

  private column(at: number): number {
    return at - lineStart(this.text, at);
  }

  /**
   * Where lines appended to a block starting at `from` (its first key), whose lines sit at column `col` or deeper,
   * go: after its last line of content and after the comments at that column or deeper that follow it (a comment
   * closing the last entry stays with it); before blank lines and before comments that belong to what comes next.
   */
  private blockEnd(from: number, col: number): number {
    const text = this.text;
    let at = text.indexOf("\n", from);
    if (at < 0) return text.length;
    let end = at + 1;
    while (at + 1 < text.length) {
      const start = at + 1;
      const next = text.indexOf("\n", start);
      const stop = next < 0 ? text.length : next + 1;
      const line = text.slice(start, next < 0 ? text.length : next).replace(/\r$/, "");
      const body = line.trimStart();
      const indent = line.length - body.length;
      at = next < 0 ? text.length : next;
      if (body === "") continue;
      if (indent === 0 && /^(---|\.\.\.)(\s|$)/.test(line)) break;
      if (body.startsWith("#")) {
        if (indent >= col) end = stop;
        continue;
      }
      if (indent < col) break;
      end = stop;
    }
    return end;
  }

  /** `pairs` as lines at column `col`, each ended by the file's line end. */
  private render(pairs: NewPairs, col: number): string {
    const doc = new Document();
    const map = new YAMLMap();
    for (const [k, v] of pairs) map.items.push(doc.createPair(new Scalar(k), yamlNode(doc, v)));
    doc.contents = map;
    const lines = stackYamlText(doc, this.layout).replace(/\n$/, "").split("\n");
    return lines.map((l) => (l === "" ? l : `${" ".repeat(col)}${l}`)).join(this.eol) + this.eol;
  }

  private insert(at: number, text: string, col: number): void {
    // The last line without a line end: one first (once), so the additions start a line of their own.
    if (at === this.text.length && at > 0 && !this.text.endsWith("\n") && !this.edits.some((e) => e.col === Infinity)) {
      this.edits.push({ from: at, to: at, text: this.eol, col: Infinity, order: this.edits.length });
    }
    this.edits.push({ from: at, to: at, text, col, order: this.edits.length });
  }

  /** Appends `pairs` to the block map `map`, at its own column. */
  append(map: YAMLMap, pairs: NewPairs): void {
    if (!pairs.length) return;
    if (map.flow || !map.range) throw new SpliceRefused("is written as a flow map ({…}); write it as a block, one key a line");
    const col = this.column(map.range[0]);
    let at = this.blockEnd(map.range[0], col);
    // Whole blank lines the map's own range holds past that point are a last `|+` block scalar's: its value keeps them.
    const end = map.range[1];
    if (end > at && /^\s*$/.test(this.text.slice(at, end)) && (end === this.text.length || this.text[end - 1] === "\n")) at = end;
    this.insert(at, this.render(pairs, col), col);
  }

  /** Appends `pairs` to an empty document (nothing, or comments only). */
  appendToDocument(pairs: NewPairs): void {
    this.insert(this.text.length, this.render(pairs, 0), 0);
  }

  /** Whether `pair`'s value is one `fill` can replace: none (`key:`, `key: null`, `key: ~`) or an empty `{}`. */
  static fillable(pair: Pair): boolean {
    const v = pair.value;
    return v === null || v === undefined || (isScalar(v) && v.value === null) || (isMap(v) && v.items.length === 0);
  }

  /** The value of `pair` (see fillable) replaced by a block map of `pairs`, one indentation deeper than its key. */
  fill(pair: Pair, pairs: NewPairs): void {
    const key = pair.key as YamlNode;
    if (!key?.range) throw new SpliceRefused("has a key the merge cannot place");
    const col = this.column(key.range[0]);
    const v = pair.value as YamlNode | null;
    // `key: null`, `key: ~` or `key: {}`: the value's text goes, from just after the colon, so the key's line
    // keeps its comment and no trailing space.
    if (v?.range && v.range[1] > v.range[0]) {
      let from = v.range[0];
      while (from > 0 && (this.text[from - 1] === " " || this.text[from - 1] === "\t")) from--;
      if (this.text[from - 1] !== ":") from = v.range[0];
      this.edits.push({ from, to: v.range[1], text: "", col, order: this.edits.length });
    }
    const inner = col + this.layout.indent;
    this.insert(this.blockEnd(key.range[0], col + 1), this.render(pairs, inner), inner);
  }

  /**
   * The text with every addition. Edits are applied from the end, so that earlier offsets still hold; at one
   * place the one applied last ends up first: the deepest, and of one depth the first made.
   */
  result(): string {
    const edits = [...this.edits].sort((a, b) => b.from - a.from || a.col - b.col || b.order - a.order);
    // The pieces from the end back, joined once: a new text per edit would copy the whole file for each of them
    // (a merge that adds a business unit under each of 150 tenants makes 150 edits).
    const pieces: string[] = [];
    let end = this.text.length;
    for (const e of edits) {
      // An edit reaching past what a later one (applied earlier) already replaced sees that one's text, as
      // slicing the edited text did; edits here never overlap, but keep the same text if they did.
      if (e.to > end) return this.sequential(edits);
      pieces.push(this.text.slice(e.to, end), e.text);
      end = e.from;
    }
    pieces.push(this.text.slice(0, end));
    return pieces.reverse().join("");
  }

  /** The edits applied one after another, each to the text the ones before it made. */
  private sequential(edits: Edit[]): string {
    let text = this.text;
    for (const e of edits) text = text.slice(0, e.from) + e.text + text.slice(e.to);
    return text;
  }

  get changed(): boolean {
    return this.edits.length > 0;
  }
}
