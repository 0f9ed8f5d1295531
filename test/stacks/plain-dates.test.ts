// A plain scalar the Pulumi CLI (yaml.v3) reads as a date or a number where YAML 1.2 reads text: `name: 2024-01-01`
// reaches the program as "2024-01-01 00:00:00 +0000 UTC", so the first up would rename the business unit, and
// `tags: [1_000]` as "1000". In a stack file's text (what validate, export --merge and the fleet read) each is a
// problem at its key; in the text the program gets from the CLI, Go's timestamp text is.
import assert from "node:assert/strict";
import { parseDocument } from "yaml";
import { formatConfigProblems } from "../../provider/stack-config/problems";
import { readStackConfig } from "../../provider/stack-config/read";
import { cliReadingProblems } from "../../provider/stack-config/source";
import { readWithYamlV3 } from "../support/yaml-v3";

const FILE = [
  "config:",
  "  aws:tag: 2024-01-01",
  "  backup-portal:deletionComment: 2024-01-01",
  "  backup-portal:tenants:",
  "    acme:",
  "      name: 2024-01-01",
  '      note: "2024-01-01"',
  "      registrationNumber: 1_000",
  "      invoiceDay: 010",
  "      tags: [ok, 2024-1-2, '1_000', 0b101]",
  "",
].join("\n");

describe("stack file: plain dates and numbers the Pulumi CLI reads otherwise", function () {
  this.timeout(120_000);

  it("each is one line at its key, saying what the CLI reads and how to quote it; quoted ones and other namespaces pass", () => {
    const lines = formatConfigProblems("Pulumi.prod.yaml", cliReadingProblems(parseDocument(FILE)));
    assert.deepEqual(lines, [
      'Pulumi.prod.yaml: backup-portal:deletionComment: is read by the Pulumi CLI (yaml.v3) as a date (as "2024-01-01 00:00:00 +0000 UTC"), not as this text; quote it: "2024-01-01"',
      "Pulumi.prod.yaml: backup-portal:tenants.acme.invoiceDay: 010 has a leading zero: the Pulumi CLI (yaml.v3) and YAML 1.1 read it as octal 8, YAML 1.2 as 10; write 10",
      'Pulumi.prod.yaml: backup-portal:tenants.acme.name: is read by the Pulumi CLI (yaml.v3) as a date (as "2024-01-01 00:00:00 +0000 UTC"), not as this text; quote it: "2024-01-01"',
      'Pulumi.prod.yaml: backup-portal:tenants.acme.registrationNumber: is read by the Pulumi CLI (yaml.v3) as a number, not as this text; quote it: "1_000"',
      'Pulumi.prod.yaml: backup-portal:tenants.acme.tags[1]: is read by the Pulumi CLI (yaml.v3) as a date (as "2024-01-02 00:00:00 +0000 UTC"), not as this text; quote it: "2024-1-2"',
      'Pulumi.prod.yaml: backup-portal:tenants.acme.tags[3]: is read by the Pulumi CLI (yaml.v3) as a number, not as this text; quote it: "0b101"',
    ]);
  });

  it("the program refuses the text the CLI really hands it for a plain date, at its key, and nothing else", () => {
    // What the CLI's reader makes of the file: Go's %v text of each scalar, as the runtime gets it.
    const go = readWithYamlV3(FILE).values as { config: Record<string, unknown> };
    const config: Record<string, string> = {};
    for (const [k, v] of Object.entries(go.config)) config[k] = typeof v === "string" ? v : JSON.stringify(v);
    config["backup-portal:tenants"] = JSON.stringify({ acme: { name: (go.config["backup-portal:tenants"] as any).acme.name } });
    const r = readStackConfig({ config, isSecret: () => false });
    assert.deepEqual(
      formatConfigProblems("Pulumi.prod.yaml", r.problems).filter((l) => /as a timestamp/.test(l)),
      [
        'Pulumi.prod.yaml: backup-portal:deletionComment: arrived as "2024-01-01 00:00:00 +0000 UTC": the Pulumi CLI reads a plain date in the stack file as a timestamp; quote the value in the stack file (e.g. "2024-01-01")',
        'Pulumi.prod.yaml: backup-portal:tenants.acme.name: arrived as "2024-01-01 00:00:00 +0000 UTC": the Pulumi CLI reads a plain date in the stack file as a timestamp; quote the value in the stack file (e.g. "2024-01-01")',
      ],
    );
    const quoted = readStackConfig({
      config: { "backup-portal:tenants": JSON.stringify({ acme: { name: "2024-01-01" } }) },
      isSecret: () => false,
    });
    assert.deepEqual(
      quoted.problems.filter((p) => /timestamp/.test(p.message)),
      [],
    );
  });
});
