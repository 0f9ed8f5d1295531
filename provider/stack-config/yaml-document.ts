// A YAML document as the `yaml` package parses it, in time that grows with the text. The package checks each key
// of a map against every key before it (its mapIncludes), and a stack file's `config:` holds a key for every node's
// password: for 1,500 tenants that is millions of comparisons before anything is read. Here the text is parsed
// without that check, the keys of each map are checked in one pass with a Set, and only a text that does repeat a
// key is parsed again with the package's own check, so its errors (which, in which order) are the package's.
import { Document, isMap, isScalar, parseDocument, visit } from "yaml";

type Options = NonNullable<Parameters<typeof parseDocument>[1]>;

/** Whether some map of `doc` may hold a key twice (as the package compares keys: the same node, or equal scalar values). */
function mayRepeatKey(doc: Document.Parsed): boolean {
  let repeated = false;
  const NONE = Symbol("no key");
  visit(doc, {
    Map(_key, map) {
      if (!isMap(map)) return undefined;
      const seen = new Set<unknown>();
      const nodes = new Set<unknown>();
      for (const pair of map.items) {
        const k = pair.key;
        const value = k === null || k === undefined ? NONE : isScalar(k) ? k.value : undefined;
        // A Set finds NaN and -0 equal where the package does not: then it is only parsed again, never misread.
        if (value !== undefined ? seen.has(value) : nodes.has(k)) {
          repeated = true;
          return visit.BREAK;
        }
        if (value !== undefined) seen.add(value);
        else nodes.add(k);
      }
      return undefined;
    },
  });
  return repeated;
}

/** `parseDocument(text, options)`, the same document and errors, without the package's per-key search of each map. */
export function parseYamlDocument(text: string, options: Options = {}): Document.Parsed {
  if (options.uniqueKeys !== undefined) return parseDocument(text, options);
  const doc = parseDocument(text, { ...options, uniqueKeys: false });
  if (mayRepeatKey(doc)) return parseDocument(text, options);
  // As the package's parse leaves it, for whatever reads the options later.
  doc.options.uniqueKeys = true;
  return doc;
}
