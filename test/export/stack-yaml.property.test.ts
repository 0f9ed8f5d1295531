// Property: any tenant text, as a value or as a key, in the YAML that export writes, reads back as the same string
// in the Pulumi CLI's reader (gopkg.in/yaml.v3, built from test/support/yaml-v3), in YAML 1.1 and in YAML 1.2;
// and the plain scalars isPlainSafe allows are read as those strings by all three.
import assert from "node:assert/strict";
import fc from "fast-check";
import { Document, parse, Scalar, YAMLMap } from "yaml";
import { isPlainSafe, unwritableProblem } from "../../provider/rules/yaml-scalars";
import { stackYamlText } from "../../provider/export/stack-yaml";
import { readWithYamlV3, yamlV3Binary } from "../support/yaml-v3";
import { READ_AS_OTHER, tenantText, wordAnyCase } from "./tenant-text";

/** The three readers' answers for `text`: each must be `expected`, every scalar a string. */
function assertReadsAs(text: string, expected: Record<string, unknown>): void {
  assert.deepEqual(parse(text), expected, `YAML 1.2 (yaml package) of:\n${text}`);
  assert.deepEqual(parse(text, { version: "1.1" }), expected, `YAML 1.1 (yaml package) of:\n${text}`);
  const go = readWithYamlV3(text);
  assert.deepEqual(go.values, expected, `yaml.v3 of:\n${text}`);
  assert.deepEqual(
    leaves(go.types),
    leaves(expected).map(() => "string"),
    `yaml.v3 read a scalar as other than a string in:\n${text}`,
  );
}

const leaves = (v: unknown): unknown[] => (v && typeof v === "object" ? Object.values(v).flatMap(leaves) : [v]);

describe("stack YAML text read by yaml.v3, YAML 1.1 and YAML 1.2 (property)", function () {
  this.timeout(300_000);
  before(() => yamlV3Binary());

  it("a string isPlainSafe allows, written plain as a value and as a key, reads back as itself", () => {
    const plainOnes = fc.uniqueArray(
      fc.oneof(tenantText, fc.string({ minLength: 1, maxLength: 12, unit: "grapheme" })).filter(isPlainSafe),
      { minLength: 1, maxLength: 60 },
    );
    fc.assert(
      fc.property(plainOnes, (list) => {
        const values = Object.fromEntries(list.map((s, i) => [`k${i}`, s]));
        const keys = Object.fromEntries(list.map((s) => [s, "v"]));
        const text = `values:\n${list.map((s, i) => `  k${i}: ${s}\n`).join("")}keys:\n${list.map((s) => `  ${s}: v\n`).join("")}`;
        assertReadsAs(text, { values, keys });
      }),
      { numRuns: 60, seed: 36 },
    );
  });

  it("any tenant text, written by stackYamlText as a value and as a key, reads back as itself", () => {
    fc.assert(
      // An unpaired surrogate has no UTF-8 form: export leaves such a value out (unwritableProblem), never writes it.
      fc.property(
        fc.uniqueArray(
          tenantText.filter((s) => !unwritableProblem(s)),
          { minLength: 1, maxLength: 60 },
        ),
        (list) => {
          const doc = new Document();
          const values = new YAMLMap();
          const keys = new YAMLMap();
          list.forEach((s, i) => {
            values.items.push(doc.createPair(new Scalar(`k${i}`), new Scalar(s)));
            keys.items.push(doc.createPair(new Scalar(s), new Scalar("v")));
          });
          const top = new YAMLMap();
          top.items.push(doc.createPair("values", values), doc.createPair("keys", keys));
          doc.contents = top;
          assertReadsAs(stackYamlText(doc), {
            values: Object.fromEntries(list.map((s, i) => [`k${i}`, s])),
            keys: Object.fromEntries(list.map((s) => [s, "v"])),
          });
        },
      ),
      { numRuns: 60, seed: 36 },
    );
  });

  it("the reader refuses a key that yaml.v3 decodes to other than a string, as the Pulumi CLI does", () => {
    assert.throws(
      () => readWithYamlV3("config:\n  tenants:\n    2024-01-01:\n      name: x\n"),
      (e: Error) => /^expected only string keys, got 2024-01-01 00:00:00 \+0000 UTC \(time\.Time\) at "config\.tenants"$/.test(e.message),
    );
    assert.deepEqual(readWithYamlV3('a: 2024-01-01\nb: "2024-01-01"\n'), {
      values: { a: "2024-01-01 00:00:00 +0000 UTC", b: "2024-01-01" },
      types: { a: "time.Time", b: "string" },
    });
  });

  it("never plain: what a reader reads as a date, number, boolean or null, or what holds a YAML 1.1 line break", () => {
    for (const s of [
      ...READ_AS_OTHER,
      "Yes",
      "yEs",
      "ON",
      "Off",
      "Y",
      "N",
      "True",
      "x\u2028y",
      "x\u0085y",
      "x\u2029y",
      " a",
      "a ",
      "a: b",
      "a #b",
    ]) {
      assert.equal(isPlainSafe(s), false, JSON.stringify(s));
    }
    fc.assert(
      fc.property(wordAnyCase, (w) => !isPlainSafe(w)),
      { numRuns: 200, seed: 36 },
    );
  });
});
