// A stack file's YAML text that every reader reads as the `yaml` package does (see provider/rules/yaml-scalars.ts):
// the strings export writes are plain only when that is safe, else double-quoted with escapes; comments are
// escaped; what a merged file already holds keeps its source text.
import { Document, isScalar, Scalar, ScalarTag, ToStringOptions, visit } from "yaml";
import { escapeYamlText, isPlainSafe, needsEscape } from "../rules/yaml-scalars";

/** Options for every YAML text export writes: no line folding (a long note stays one line), two-space indent. */
export const YAML_OPTIONS = { lineWidth: 0, indent: 2, doubleQuotedMinMultiLineLength: Number.MAX_SAFE_INTEGER } as const;

const SOURCE = "SOURCE";
const kinds: Array<[string, (v: unknown) => boolean]> = [
  ["int", (v) => typeof v === "number"],
  ["float", (v) => typeof v === "number"],
  ["bool", (v) => typeof v === "boolean"],
  ["null", (v) => v === null],
];
/**
 * Tags that write a parsed scalar back as its source text (`0123`, `True`, `1e3`, `~`), so that the merge never
 * changes what another reader reads (the `yaml` package would write 123, true, 1e+3, null). Never used to parse.
 */
export const SOURCE_TAGS: ScalarTag[] = kinds.map(([name, identify]) => ({
  tag: `tag:yaml.org,2002:${name}`,
  format: SOURCE,
  default: true,
  test: /(?!)/,
  identify,
  resolve: (s: string) => s,
  stringify: (node) => String((node as Scalar).source),
}));

const parsed = (node: Scalar) => node.range !== undefined && node.range !== null;

/** The style a scalar is written in: one the file had stays, unless it holds a character that must be escaped. */
function settle(node: Scalar): void {
  if (typeof node.value === "string") {
    if (parsed(node) && !needsEscape(node.value)) return;
    node.type = isPlainSafe(node.value) ? Scalar.PLAIN : Scalar.QUOTE_DOUBLE;
  } else if (parsed(node) && node.type === Scalar.PLAIN && typeof node.source === "string") {
    node.format = SOURCE;
  }
}

const escapeComments = (n: { commentBefore?: string | null; comment?: string | null }) => {
  if (n.commentBefore) n.commentBefore = escapeYamlText(n.commentBefore);
  if (n.comment) n.comment = escapeYamlText(n.comment);
};

/**
 * The document's text. After `settle`, a character escapeYamlText changes can only be in a double-quoted scalar or
 * a comment, so escaping the whole text is escaping those (the `yaml` package writes them raw).
 */
export function stackYamlText(doc: Document, options: ToStringOptions = {}): string {
  escapeComments(doc);
  visit(doc, {
    Node(_key, node) {
      escapeComments(node);
      if (isScalar(node)) settle(node);
    },
  });
  return escapeYamlText(doc.toString({ ...YAML_OPTIONS, ...options }));
}
