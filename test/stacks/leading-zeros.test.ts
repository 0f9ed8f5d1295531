// Issue 36 item 2: a number written with a leading zero at a key that takes numbers is refused, in a stack file's
// text (what the merge and any reader of the file checks) and in a value handed to the program. The Pulumi CLI's
// yaml.v3 reads `adoptId: 0123` as 83, YAML 1.2 readers as 123.
import assert from "node:assert/strict";
import { parseDocument, Scalar, YAMLMap } from "yaml";
import { takesNumber } from "../../provider/rules/fields";
import { STACK_CONFIG_KEYS } from "../../provider/rules/stack-config";
import { formatConfigProblems } from "../../provider/stack-config/problems";
import { readStackConfig } from "../../provider/stack-config/read";
import { leadingZeroProblems } from "../../provider/stack-config/source";
import { STACK_BUSINESS_UNIT_FIELDS, STACK_CONSUMER_FIELDS, STACK_NODE_FIELDS } from "../../provider/tenants/fields";

const lines = (text: string) => formatConfigProblems("Pulumi.prod.yaml", leadingZeroProblems(parseDocument(text)));

describe("stack file: numbers with a leading zero", () => {
  it("each one at a key that takes numbers is a line naming the key, what each reader reads and the fix", () => {
    const text = [
      "config:",
      "  aws:region: 0123",
      "  backup-portal:rootBusinessUnitId: 01000",
      "  backup-portal:maxAnswerBytes: 1000",
      "  backup-portal:billingReceiver:",
      "    port: 08080",
      "  backup-portal:tenants:",
      "    acme:",
      "      adoptId: 0123",
      "      registrationNumber: 0123",
      '      note: "0123"',
      "      invoiceDay: 010",
      "      storageLimit: 1.05",
      "      transferLimit: 0x1F",
      "      domainFilter: [STANDARD, 012]",
      "      consumers:",
      "        web:",
      "          adoptId: 7",
      "          node:",
      "            cpuCount: 04",
      "            domain: 0",
      "      businessUnits:",
      "        kid:",
      "          nodeLimit: -07",
      "",
    ].join("\n");
    assert.deepEqual(lines(text), [
      "Pulumi.prod.yaml: backup-portal:billingReceiver.port: 08080 has a leading zero: YAML readers do not all read it as 8080; write 8080",
      "Pulumi.prod.yaml: backup-portal:rootBusinessUnitId: 01000 has a leading zero: the Pulumi CLI (yaml.v3) and YAML 1.1 read it as octal 512, YAML 1.2 as 1000; write 1000",
      "Pulumi.prod.yaml: backup-portal:tenants.acme.adoptId: 0123 has a leading zero: the Pulumi CLI (yaml.v3) and YAML 1.1 read it as octal 83, YAML 1.2 as 123; write 123",
      "Pulumi.prod.yaml: backup-portal:tenants.acme.businessUnits.kid.nodeLimit: -07 has a leading zero: the Pulumi CLI (yaml.v3) and YAML 1.1 read it as octal -7, YAML 1.2 as -7; write -7",
      "Pulumi.prod.yaml: backup-portal:tenants.acme.consumers.web.node.cpuCount: 04 has a leading zero: the Pulumi CLI (yaml.v3) and YAML 1.1 read it as octal 4, YAML 1.2 as 4; write 4",
      "Pulumi.prod.yaml: backup-portal:tenants.acme.domainFilter[1]: 012 has a leading zero: the Pulumi CLI (yaml.v3) and YAML 1.1 read it as octal 10, YAML 1.2 as 12; write 12",
      "Pulumi.prod.yaml: backup-portal:tenants.acme.invoiceDay: 010 has a leading zero: the Pulumi CLI (yaml.v3) and YAML 1.1 read it as octal 8, YAML 1.2 as 10; write 10",
    ]);
  });

  it("every key the tables give a number (integer, number, reference) is checked, at every level of the tenants", () => {
    const numeric = (table: Record<string, { kind: string }>) => Object.keys(table).filter((k) => takesNumber(table[k]));
    const at: Array<[string[], string]> = [
      ...numeric(STACK_CONFIG_KEYS).map((k): [string[], string] => [[`backup-portal:${k}`], k]),
      ...numeric(STACK_BUSINESS_UNIT_FIELDS).map((k): [string[], string] => [
        ["backup-portal:tenants", "a", "businessUnits", "b", k],
        `tenants.a.businessUnits.b.${k}`,
      ]),
      ...numeric(STACK_CONSUMER_FIELDS).map((k): [string[], string] => [
        ["backup-portal:tenants", "a", "consumers", "c", k],
        `tenants.a.consumers.c.${k}`,
      ]),
      ...numeric(STACK_NODE_FIELDS).map((k): [string[], string] => [
        ["backup-portal:tenants", "a", "consumers", "c", "node", k],
        `tenants.a.consumers.c.node.${k}`,
      ]),
    ];
    for (const block of ["billingReceiver", "registry"] as const) {
      const rule = STACK_CONFIG_KEYS[block];
      if (rule.kind === "block") for (const k of numeric(rule.keys)) at.push([[`backup-portal:${block}`, k], `${block}.${k}`]);
    }
    assert.ok(at.length > 15, "the tables give numbers to many keys");
    for (const [keys, path] of at) {
      const text = ["config:", ...keys.map((k, i) => `${"  ".repeat(i + 1)}${k}:`)].join("\n") + " 010\n";
      assert.deepEqual(
        leadingZeroProblems(parseDocument(text)).map((p) => p.path),
        [path],
        text,
      );
    }
  });

  it("a document nested 20,000 business units deep is walked without running out of stack", () => {
    // Deeper than the yaml package parses (it stops at a few hundred levels): built as nodes.
    const doc = parseDocument("config:\n  backup-portal:tenants: {}\n");
    let units = doc.getIn(["config", "backup-portal:tenants"]) as YAMLMap;
    for (let i = 0; i < 20_000; i++) {
      const id = new Scalar(1);
      Object.assign(id, { type: Scalar.PLAIN, source: "01" });
      const unit = new YAMLMap();
      const children = new YAMLMap();
      unit.set("adoptId", id);
      unit.set("businessUnits", children);
      units.set(`u${i}`, unit);
      units = children;
    }
    assert.equal(leadingZeroProblems(doc).length, 20_000);
  });

  it("a value handed to the program as text with a leading zero is refused too", () => {
    const r = readStackConfig({
      config: { "backup-portal:tenants": "{}", "backup-portal:rootBusinessUnitId": "0123", "backup-portal:maxAnswerBytes": "1000" },
      isSecret: () => false,
    });
    assert.deepEqual(formatConfigProblems("Pulumi.prod.yaml", r.problems), [
      "Pulumi.prod.yaml: backup-portal:rootBusinessUnitId: 0123 has a leading zero: the Pulumi CLI (yaml.v3) and YAML 1.1 read it as octal 83, YAML 1.2 as 123; write 123",
    ]);
  });
});
