// Property: cliReadsPlainAs says "a date" or "a number" exactly where the Pulumi CLI's reader (gopkg.in/yaml.v3,
// built from test/support/yaml-v3) reads a plain scalar as a timestamp or number while YAML 1.2 (the `yaml`
// package, this package's readers) reads it as a string. Scalars are drawn from the characters dates and numbers
// are made of, so that most land near the edges (month 13, day 31 of a 30-day month, 1_000, 0b2, +0x1F, 1e_3).
import assert from "node:assert/strict";
import fc from "fast-check";
import { parse } from "yaml";
import { cliReadsPlainAs, cliTimestampProblem, plainTextProblem } from "../../provider/rules/yaml-scalars";
import { readWithYamlV3, yamlV3Binary } from "../support/yaml-v3";

const KNOWN: Array<[string, "a date" | "a number" | undefined]> = [
  ["2024-01-01", "a date"],
  ["2024-1-2", "a date"],
  ["2024-02-30", undefined],
  ["2024-02-29", "a date"],
  ["2023-02-29", undefined],
  ["2001-12-14t21:59:43.10-05:00", "a date"],
  ["2001-12-14 21:59:43.10", "a date"],
  ["1_000", "a number"],
  ["+0x1F", "a number"],
  ["0b101", "a number"],
  ["12-34", undefined],
  ["R-2024", undefined],
  // Out of Go's range: a float64 overflow and an integer past 64 bits stay text; a long decimal becomes a float.
  ["9e91_0", undefined],
  ["0x1_0000_0000_0000_0000", undefined],
  ["1_000_000_000_000_000_000_000", "a number"],
  ["0_89", "a number"],
  ["0b-00", "a number"],
  ["0o+7", "a number"],
  ["0o-8", undefined],
];

/** Text of the characters dates and numbers are made of, as a plain scalar that YAML 1.2 reads as a string. */
const nearNumbers = fc
  .array(fc.constantFrom(..."0123456789-_:.+xXobBeETtZ ".split(""), "2024-", "-0", "0x", "1_0", "12:3", "-02-29", "-1-3"), {
    minLength: 1,
    maxLength: 10,
  })
  .map((parts) => parts.join("").trim())
  .filter((s) => s !== "" && !/[:#] |[:]$|^[-?:] |^-$| {2}/.test(s))
  .filter((s) => {
    try {
      return typeof parse(`k: ${s}\n`)?.k === "string";
    } catch {
      return false;
    }
  });

describe("what the Pulumi CLI reads a plain scalar as (property, against yaml.v3)", function () {
  this.timeout(300_000);
  before(() => yamlV3Binary());

  /** yaml.v3's Go type of each scalar, one reader run for all. */
  function goTypes(list: string[]): string[] {
    const text = list.map((s, i) => `k${i}: ${s}\n`).join("");
    const types = readWithYamlV3(text).types as Record<string, string>;
    return list.map((_, i) => types[`k${i}`]);
  }

  it("the known cases", () => {
    const types = goTypes(KNOWN.map(([s]) => s));
    KNOWN.forEach(([s, as], i) => {
      assert.equal(cliReadsPlainAs(s), as, s);
      assert.equal(types[i] !== "string", as !== undefined, `yaml.v3 reads ${s} as ${types[i]}`);
    });
  });

  it("says a date or a number exactly where yaml.v3 reads no string", () => {
    fc.assert(
      fc.property(fc.uniqueArray(nearNumbers, { minLength: 1, maxLength: 80 }), (list) => {
        const types = goTypes(list);
        list.forEach((s, i) => {
          const expected = types[i] === "time.Time" ? "a date" : types[i] === "string" ? undefined : "a number";
          assert.equal(cliReadsPlainAs(s), expected, `${JSON.stringify(s)}: yaml.v3 reads ${types[i]}`);
        });
      }),
      { numRuns: 300 },
    );
  });

  it("the problem names the text, what the CLI reads, and the quoting", () => {
    assert.equal(
      plainTextProblem("2024-01-01"),
      'is read by the Pulumi CLI (yaml.v3) as a date (as "2024-01-01 00:00:00 +0000 UTC"), not as this text; quote it: "2024-01-01"',
    );
    assert.equal(plainTextProblem("acme"), undefined);
    assert.match(cliTimestampProblem("2024-01-01 00:00:00 +0000 UTC")!, /quote the value in the stack file \(e\.g\. "2024-01-01"\)/);
    assert.equal(cliTimestampProblem("2024-01-01"), undefined);
    // What the CLI really hands on for a plain date: the text cliTimestampProblem recognises.
    const go = readWithYamlV3("k: 2024-01-01\n").values as Record<string, string>;
    assert.ok(cliTimestampProblem(go.k), go.k);
  });
});
