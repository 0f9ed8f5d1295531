// A stack file's YAML text that every reader reads as the `yaml` package does (see provider/rules/yaml-scalars.ts):
// the strings export writes are plain only when that is safe, else double-quoted with escapes; comments are
// escaped; the strings of a file that was parsed (the fleet rewrites a stack file) keep their style where safe. A
// merge writes nothing of the file it merges into: it inserts such text (splice.ts).
import { Document, isScalar, Scalar, ToStringOptions, visit } from "yaml";
import { escapeYamlText, isPlainSafe, needsEscape } from "../rules/yaml-scalars";

/** Options for every YAML text export writes: no line folding (a long note stays one line), two-space indent. */
export const YAML_OPTIONS = { lineWidth: 0, indent: 2, doubleQuotedMinMultiLineLength: Number.MAX_SAFE_INTEGER } as const;

const parsed = (node: Scalar) => node.range !== undefined && node.range !== null;

/** The style a string is written in: one a parsed file had stays, unless it holds a character that must be escaped. */
function settle(node: Scalar): void {
  if (typeof node.value !== "string" || (parsed(node) && !needsEscape(node.value))) return;
  node.type = isPlainSafe(node.value) ? Scalar.PLAIN : Scalar.QUOTE_DOUBLE;
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
