// Property: a key of `backup-portal:` written in several of the CLI's spellings is named with the line of each
// spelling (repeatedKeyProblems, provider/stack-config/source.ts), the lines counted once for the file instead of
// once per key: the same problems, in the same order, with the same lines as counting the line breaks before each
// key did (kept below as the reference), in LF and CRLF files, with comments and blank lines between the keys.
import assert from "node:assert/strict";
import fc from "fast-check";
import { Document, parseDocument } from "yaml";
import { repeatedKeyProblem, Spelling } from "../../provider/rules/config-keys";
import { configEntries, repeatedKeyProblems } from "../../provider/stack-config/source";

/** What repeatedKeyProblems gave before: the line breaks before each key's offset counted for that key. */
function reference(doc: Document, project: string, text: string) {
  const byName = new Map<string, Spelling[]>();
  for (const e of configEntries(doc, project)) {
    if (!e.key?.startsWith("backup-portal:")) continue;
    const name = e.key.slice("backup-portal:".length);
    const line = e.offset === undefined ? undefined : text.slice(0, e.offset).split("\n").length;
    byName.set(name, [...(byName.get(name) ?? []), { written: e.written, line }]);
  }
  return [...byName].flatMap(([path, spellings]) => (spellings.length > 1 ? [{ path, message: repeatedKeyProblem(spellings) }] : []));
}

const name = fc.constantFrom("tenants", "url", "web01Password", "rootBusinessUnitId");
const spelling = fc.tuple(fc.constantFrom("", "backup-portal:", "backup-portal:config:", "other:"), name).map(([p, n]) => `${p}${n}`);
const filler = fc.constantFrom("", "# a comment", "  # indented comment", "   ");

describe("stack file: the lines of a key written twice (property)", () => {
  it("are the lines counting the line breaks before each key gives", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(spelling, fc.array(filler, { maxLength: 3 })), { maxLength: 12 }), fc.boolean(), (keys, crlf) => {
        const lines = ["# header", "config:"];
        keys.forEach(([k, fill], i) => lines.push(...fill, `  ${JSON.stringify(k)}: v${i}`));
        const text = `${lines.join(crlf ? "\r\n" : "\n")}\n`;
        // The spellings repeat by design: read without the package's own refusal of a key written twice.
        const doc = parseDocument(text, { uniqueKeys: false }) as unknown as Document;
        assert.deepEqual(repeatedKeyProblems(doc, "backup-portal", text), reference(doc, "backup-portal", text));
        assert.deepEqual(repeatedKeyProblems(doc, "backup-portal"), reference(doc, "backup-portal", "").map(withoutLines));
      }),
      { numRuns: 1000 },
    );
  });

  it("in a file of 8,000 keys, the two spellings of the last one are named with their lines", () => {
    const keys = Array.from({ length: 8000 }, (_, i) => `  backup-portal:n${i}Password: x`);
    const text = `config:\n${keys.join("\n")}\n  n7999Password: y\n`;
    const doc = parseDocument(text, { uniqueKeys: false }) as unknown as Document;
    const problems = repeatedKeyProblems(doc, "backup-portal", text);
    assert.equal(problems.length, 1);
    assert.match(problems[0].message, /`backup-portal:n7999Password` \(line 8001\) and `n7999Password` \(line 8002\)/);
  });
});

/** Without a text there are no lines: the messages name the spellings only. */
function withoutLines(p: { path: string; message: string }) {
  return { path: p.path, message: p.message.replace(/ \(line \d+\)/g, "") };
}
