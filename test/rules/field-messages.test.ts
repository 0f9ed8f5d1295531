// The words a user reads when a field is wrong: each rule of provider/rules/ called directly, and checkFields
// as every resource's Check runs it. Each message names the field, what it must be and what was given.
import assert from "node:assert/strict";
import { checkFields, failed, referenceInputs } from "../../provider/rules/check";
import {
  BUSINESS_UNIT_FIELDS,
  CONSUMER_FIELDS,
  FieldRule,
  FieldTable,
  NODE_FIELDS,
  fieldProblem,
  requiredHint,
  show,
  textProblem,
} from "../../provider/rules/fields";
import { Failures, UNKNOWN, isUnknown } from "../../provider/dynamic/values";

const line = (maxLength: number, nonBlank = false): FieldRule => ({ kind: "string", text: "line", maxLength, nonBlank, doc: "" });

describe("field rules: the messages", () => {
  it("show: values as a user wrote them", () => {
    assert.equal(show(Infinity), "Infinity");
    assert.equal(show(-0.5), "-0.5");
    assert.equal(show([1]), "a list");
    assert.equal(show(null), "null");
    assert.equal(show({ a: 1 }), "a map");
    assert.equal(show('say "hi"'), '"say \\"hi\\""');
    assert.equal(show(true), "true");
    assert.equal(show(undefined), "undefined");
  });

  it("text: the first control character, by code point, and the fix for the kind of text", () => {
    assert.equal(textProblem("ok\tno", "line"), "contains the control character U+0009; use printable characters on one line");
    assert.equal(textProblem("a\u007f", "line"), "contains the control character U+007F; use printable characters on one line");
    assert.equal(textProblem("a\u009f", "line"), "contains the control character U+009F; use printable characters on one line");
    assert.equal(textProblem("a\u0080", "line"), "contains the control character U+0080; use printable characters on one line");
    assert.equal(textProblem("a\u001f", "line"), "contains the control character U+001F; use printable characters on one line");
    assert.equal(textProblem("a\u00a0é😀 ~", "line"), undefined);
    assert.equal(textProblem("two\nlines\r\n\tand a tab", "multiline"), undefined);
    assert.equal(textProblem("a\u000bb", "multiline"), "contains the control character U+000B; only newlines and tabs are allowed");
    assert.equal(textProblem("a\u000cb", "multiline"), "contains the control character U+000C; only newlines and tabs are allowed");
    assert.equal(textProblem("\u0008", "multiline"), "contains the control character U+0008; only newlines and tabs are allowed");
    assert.equal(textProblem("\u000e", "multiline"), "contains the control character U+000E; only newlines and tabs are allowed");
    assert.equal(textProblem("\u0000", "multiline"), "contains the control character U+0000; only newlines and tabs are allowed");
    assert.equal(textProblem("\u007f", "multiline"), "contains the control character U+007F; only newlines and tabs are allowed");
    assert.equal(textProblem("\u009f", "multiline"), "contains the control character U+009F; only newlines and tabs are allowed");
    assert.equal(textProblem("\u00a0", "multiline"), undefined);
    assert.equal(textProblem("WEB,1", "tsmName"), 'contains ","; allowed are letters, digits and _ . - + &');
  });

  it("strings: type, blank, length at the limit and past it", () => {
    assert.equal(fieldProblem(5, line(10, true)), "must be a non-empty string, got 5");
    assert.equal(fieldProblem(5, line(10)), "must be a string, got 5");
    assert.equal(fieldProblem(" \t", line(10, true)), 'must be a non-empty string, got " \\t" (only whitespace)');
    assert.equal(fieldProblem("  ", line(10)), undefined, "blank is fine where the portal takes it");
    assert.equal(fieldProblem("x".repeat(10), line(10)), undefined);
    assert.equal(fieldProblem("x".repeat(11), line(10)), "is 11 characters long; at most 10 are allowed");
    assert.equal(fieldProblem("a\u0007", line(10)), "contains the control character U+0007; use printable characters on one line");
    const tsm = NODE_FIELDS.tsmName;
    assert.equal(fieldProblem("x".repeat(65), tsm), "is 65 characters long; the backup server allows at most 64");
    assert.equal(fieldProblem("web 1", tsm), 'contains " "; allowed are letters, digits and _ . - + &');
    assert.equal(fieldProblem("A_b.c-d+e&9", tsm), undefined);
  });

  it("numbers: integers and numbers, each bound included, with the range in the message", () => {
    const invoiceDay = BUSINESS_UNIT_FIELDS.invoiceDay;
    assert.equal(fieldProblem(1, invoiceDay), undefined);
    assert.equal(fieldProblem(28, invoiceDay), undefined);
    assert.equal(fieldProblem(0, invoiceDay), "must be an integer from 1 to 28, got 0");
    assert.equal(fieldProblem(29, invoiceDay), "must be an integer from 1 to 28, got 29");
    assert.equal(fieldProblem(2.5, invoiceDay), "must be an integer from 1 to 28, got 2.5");
    assert.equal(fieldProblem("5", invoiceDay), 'must be an integer from 1 to 28, got "5"');
    const nodeLimit = BUSINESS_UNIT_FIELDS.nodeLimit;
    assert.equal(fieldProblem(0, nodeLimit), undefined);
    assert.equal(fieldProblem(-1, nodeLimit), "must be an integer ≥ 0, got -1");
    assert.equal(fieldProblem(NaN, nodeLimit), "must be an integer ≥ 0, got NaN");
    const storage = BUSINESS_UNIT_FIELDS.storageLimit;
    assert.equal(fieldProblem(0.5, storage), undefined, "a number may have decimals");
    assert.equal(fieldProblem(0, storage), undefined);
    assert.equal(fieldProblem(-0.5, storage), "must be a number ≥ 0, got -0.5");
    assert.equal(fieldProblem(Infinity, storage), "must be a number ≥ 0, got Infinity");
    const percent: FieldRule = { kind: "number", min: 0, max: 100, doc: "" };
    assert.equal(fieldProblem(100, percent), undefined);
    assert.equal(fieldProblem(100.5, percent), "must be a number ≥ 0 and ≤ 100, got 100.5");
    assert.equal(fieldProblem(4096, NODE_FIELDS.cpuCount), undefined);
    assert.equal(fieldProblem(4097, NODE_FIELDS.cpuCount), "must be an integer from 1 to 4096, got 4097");
  });

  it("booleans and references: what to give instead", () => {
    assert.equal(fieldProblem(false, CONSUMER_FIELDS.allowNoActivity), undefined);
    assert.equal(fieldProblem("yes", CONSUMER_FIELDS.allowNoActivity), 'must be true or false, got "yes"');
    const os = NODE_FIELDS.operatingSystem;
    assert.equal(fieldProblem(3, os), undefined);
    assert.equal(fieldProblem("Linux", os), undefined);
    assert.equal(fieldProblem(0, os), "must name the operating system or give its id (a positive integer up to 9007199254740991), got 0");
    assert.equal(
      fieldProblem(1.5, os),
      "must name the operating system or give its id (a positive integer up to 9007199254740991), got 1.5",
    );
    assert.equal(fieldProblem(" ", NODE_FIELDS.type), 'must name the node type or give its id, got " "');
    assert.equal(fieldProblem(true, BUSINESS_UNIT_FIELDS.timeZone), "must name the time zone or give its id, got true");
    assert.equal(fieldProblem("x".repeat(200), NODE_FIELDS.domain), undefined);
    assert.equal(fieldProblem("x".repeat(201), NODE_FIELDS.domain), "is 201 characters long; no policy domain has a name longer than 200");
    assert.equal(
      fieldProblem("A\u001b", NODE_FIELDS.clientOptionSet),
      "contains the control character U+001B; use printable characters on one line",
    );
  });

  it("lists: the item at fault, by index; unknown items pass", () => {
    const tags = CONSUMER_FIELDS.tags;
    assert.equal(fieldProblem(["a", "b"], tags), undefined);
    assert.equal(fieldProblem("a", tags), 'must be a list of strings, got "a"');
    assert.equal(fieldProblem(["a", 5], tags), "must be a list of strings; item 1 (5) is not a string");
    assert.equal(
      fieldProblem(["a\n"], tags),
      'must be a list of strings; item 0 ("a\\n") contains the control character U+000A; use printable characters on one line',
    );
    assert.equal(fieldProblem(["a", UNKNOWN, 5], tags, isUnknown), "must be a list of strings; item 2 (5) is not a string");
    assert.equal(fieldProblem([UNKNOWN], tags, isUnknown), undefined);
    assert.equal(fieldProblem(UNKNOWN, NODE_FIELDS.cpuCount, isUnknown), undefined);
    assert.equal(fieldProblem(UNKNOWN, NODE_FIELDS.cpuCount), 'must be an integer from 1 to 4096, got "' + UNKNOWN + '"');
    const aliases: FieldRule = { kind: "strings", text: "line", itemPattern: /^[a-z]+$/, itemDoc: "lower-case letters", doc: "" };
    assert.equal(fieldProblem(["ok", "Bad"], aliases), 'must be a list of strings; item 1 ("Bad") does not match: lower-case letters');
    const bare: FieldRule = { kind: "strings", text: "line", itemPattern: /^[a-z]+$/, doc: "" };
    assert.equal(fieldProblem(["Bad"], bare), 'must be a list of strings; item 0 ("Bad") does not match: ^[a-z]+$');
    assert.equal(fieldProblem(["ok", UNKNOWN], bare, isUnknown), undefined, "an unknown item is not held to the pattern");
    const domains = BUSINESS_UNIT_FIELDS.domainFilter;
    assert.equal(fieldProblem(["STANDARD", 2], domains), undefined);
    assert.equal(fieldProblem("STANDARD", domains), 'must be a list of policy domain names or ids, got "STANDARD"');
    assert.equal(
      fieldProblem(["STANDARD", -2], domains),
      "must be a list of policy domain names or ids; item 1 (-2) must name the policy domain or give its id (a positive integer up to 9007199254740991), got -2",
    );
    assert.equal(
      fieldProblem([""], BUSINESS_UNIT_FIELDS.clientOptionSetFilter),
      'must be a list of client option set names or ids; item 0 ("") must name the client option set or give its id, got ""',
    );
  });

  it("requiredHint: the fix for each kind of field", () => {
    const hints = (rules: FieldRule[]) => rules.map(requiredHint);
    assert.deepEqual(
      hints([
        line(5),
        { kind: "integer", min: 1, doc: "" },
        { kind: "number", min: 0.5, doc: "" },
        { kind: "boolean", doc: "" },
        { kind: "strings", text: "line", doc: "" },
        NODE_FIELDS.type,
        BUSINESS_UNIT_FIELDS.domainFilter,
      ]),
      [
        "add it as a string",
        "add an integer ≥ 1",
        "add a number ≥ 0.5",
        "add true or false",
        "add a list of strings",
        "name the node type (or give its id)",
        "list the policy domain names (or ids)",
      ],
    );
  });

  describe("checkFields and referenceInputs (every resource's Check)", () => {
    const table: FieldTable = {
      name: { ...line(10, true), required: true },
      note: line(10),
      os: { kind: "reference", ref: "operatingSystem", required: true, doc: "" },
      cpus: { kind: "integer", min: 1, required: true, doc: "" },
      flag: { kind: "boolean", doc: "" },
      filter: { kind: "references", ref: "domain", scope: "parentId", doc: "" },
    };
    const run = (inputs: Record<string, unknown>) => {
      const f = new Failures();
      checkFields(f, inputs, table);
      return f;
    };

    it("a missing or empty required field: named, with the fix", () => {
      const f = run({ name: "", os: null });
      assert.deepEqual(f.list, [
        { property: "name", reason: "name is required; add it as a string" },
        { property: "os", reason: "os is required; name the operating system (or give its id)" },
        { property: "cpus", reason: "cpus is required; add an integer ≥ 1" },
      ]);
    });

    it("an empty optional string is dropped from the inputs (not sent); other values stay; problems carry the key", () => {
      const inputs: Record<string, unknown> = { name: "n", note: "", os: "Linux", cpus: 1, flag: false, filter: [] };
      assert.deepEqual(run(inputs).list, []);
      assert.deepEqual(inputs, { name: "n", os: "Linux", cpus: 1, flag: false, filter: [] });
      const zero: Record<string, unknown> = { name: "n", os: 2, cpus: 0, flag: 0 };
      assert.deepEqual(run(zero).list, [
        { property: "cpus", reason: "cpus must be an integer ≥ 1, got 0" },
        { property: "flag", reason: "flag must be true or false, got 0" },
      ]);
      assert.equal(zero.flag, 0, "a wrong value is left for the failure, not dropped");
      assert.deepEqual(run({ name: "n", os: 2, cpus: UNKNOWN, note: UNKNOWN }).list, [], "unknown values pass");
    });

    it("an empty string: absent for text and names, a wrong value for the other kinds; null is left as written", async () => {
      assert.deepEqual(run({ name: "n", os: "", cpus: 1 }).list, [
        { property: "os", reason: "os is required; name the operating system (or give its id)" },
      ]);
      const optionalName: FieldTable = { domain: { kind: "reference", ref: "domain", doc: "" } };
      const inputs: Record<string, unknown> = { domain: "" };
      const f = new Failures();
      checkFields(f, inputs, optionalName);
      assert.deepEqual([f.list, "domain" in inputs], [[], false], "an empty optional name is dropped");
      assert.deepEqual(run({ name: "n", os: 2, cpus: "", flag: "" }).list, [
        { property: "cpus", reason: 'cpus must be an integer ≥ 1, got ""' },
        { property: "flag", reason: 'flag must be true or false, got ""' },
      ]);
      const withNull: Record<string, unknown> = { name: "n", os: 2, cpus: 1, note: null };
      assert.deepEqual(run(withNull).list, []);
      assert.ok("note" in withNull);
    });

    it("references still to resolve: only those Check did not refuse, with their scope and whether required", () => {
      const f = run({ name: "n", os: "", cpus: 1, filter: ["A"] });
      assert.equal(failed(f, "os"), true);
      assert.equal(failed(f, "filter"), false);
      assert.deepEqual(referenceInputs(f, table), [{ key: "filter", kind: "domain", required: false, scope: "parentId" }]);
      assert.deepEqual(referenceInputs(new Failures(), table), [
        { key: "os", kind: "operatingSystem", required: true, scope: undefined },
        { key: "filter", kind: "domain", required: false, scope: "parentId" },
      ]);
    });
  });
});
