// A stack file's YAML text that every reader reads as the `yaml` package does (see provider/rules/yaml-scalars.ts):
// the strings export writes are plain only when that is safe, else double-quoted with escapes; comments are
// escaped. Only for documents export builds: a merge inserts such text and never re-renders the file it merges into.
import { Document, isScalar, Scalar, ToStringOptions, visit } from "yaml";
import { escapeYamlText, isPlainSafe } from "../rules/yaml-scalars";

/** Options for every YAML text export writes: no line folding (a long note stays one line), two-space indent. */
export const YAML_OPTIONS = { lineWidth: 0, indent: 2, doubleQuotedMinMultiLineLength: Number.MAX_SAFE_INTEGER } as const;

/** The style a string is written in: plain when every reader reads it back the same, else double-quoted. */
function settle(node: Scalar): void {
  if (typeof node.value === "string") node.type = isPlainSafe(node.value) ? Scalar.PLAIN : Scalar.QUOTE_DOUBLE;
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
