// Property: parseYamlDocument (provider/stack-config/yaml-document.ts) is the `yaml` package's parseDocument with
// its per-key search for repeated keys done in one pass: for any text, repeated keys (plain, quoted, null, merge
// keys, in block and flow maps, nested), anchors and aliases, broken lines, the same errors (code, message,
// position, in order), the same warnings, the same values and the same text written back.
import assert from "node:assert/strict";
import fc from "fast-check";
import { Document, parseDocument } from "yaml";
import { parseYamlDocument } from "../../provider/stack-config/yaml-document";

/** Everything a reader of the document sees. */
function seen(doc: Document.Parsed) {
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: 100, mapAsMap: true });
  } catch (err) {
    value = `throws: ${(err as Error).message}`;
  }
  let text: string;
  try {
    text = doc.toString();
  } catch (err) {
    text = `throws: ${(err as Error).message}`;
  }
  const problem = (e: { code: string; message: string; pos: [number, number] }) => ({ code: e.code, message: e.message, pos: e.pos });
  return { errors: doc.errors.map(problem), warnings: doc.warnings.map(problem), value, text, options: doc.options };
}

// Few keys, so that they repeat; spellings the package reads as the same key or as another.
const key = fc.constantFrom("a", "b", "'a'", '"a"', "~", "null", "1", "01", "<<", "? a", "a b", ".nan", "-0", "0");
const scalar = fc.constantFrom("1", "x", "*x", "&x y", "[1, 2]", "{a: 1, a: 2}", "{a: 1, b: 2}", "", "'q'", '"unclosed', "- item");

const line = fc.tuple(fc.integer({ min: 0, max: 3 }), key, scalar).map(([indent, k, v]) => `${"  ".repeat(indent)}${k}: ${v}`);
const text = fc
  .array(fc.oneof({ weight: 8, arbitrary: line }, { weight: 1, arbitrary: fc.constantFrom("# c", "---", "- x", "  - y", "a:", "  ") }), {
    maxLength: 14,
  })
  .map((lines) => `${lines.join("\n")}\n`);

describe("parseYamlDocument: the yaml package's parse without its per-key search (property)", () => {
  it("reads any text as parseDocument does, with and without merge keys", () => {
    fc.assert(
      fc.property(text, fc.boolean(), (t, merge) => {
        const options = merge ? { merge: true } : {};
        assert.deepEqual(seen(parseYamlDocument(t, options)), seen(parseDocument(t, options)), t);
      }),
      { numRuns: 3000 },
    );
  });

  it("a caller's own uniqueKeys is the package's to apply", () => {
    const t = "a: 1\na: 2\n";
    assert.deepEqual(seen(parseYamlDocument(t, { uniqueKeys: false })), seen(parseDocument(t, { uniqueKeys: false })));
    assert.equal(parseYamlDocument(t).errors[0]?.code, "DUPLICATE_KEY");
  });

  it("a config: of 20,000 keys, none repeated, reads in one pass; a repeated one gets the package's own error", () => {
    const keys = (n: number) => Array.from({ length: n }, (_, i) => `  backup-portal:node${i}Password:\n    secure: v1:abc${i}`);
    const started = Date.now();
    const doc = parseYamlDocument(`config:\n${keys(20_000).join("\n")}\n`);
    assert.equal(doc.errors.length, 0);
    assert.ok(Date.now() - started < 10_000, `parsed in ${Date.now() - started} ms`);
    // A file that repeats a key is read again with the package's check (its errors are the package's): the error path.
    const text = `config:\n${keys(500).join("\n")}\n  backup-portal:node0Password: x\n`;
    assert.deepEqual(seen(parseYamlDocument(text)), seen(parseDocument(text)));
    assert.deepEqual(
      parseYamlDocument(text).errors.map((e) => e.code),
      ["DUPLICATE_KEY"],
    );
  });
});
