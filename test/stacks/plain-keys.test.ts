// A tenant's or consumer's key written plain where the Pulumi CLI (yaml.v3) reads another key than validate does:
// `0123:` is 83 there and 123 here, `1_000:` 1000, `2024-01-01:` a timestamp. The key names the resource, so its
// name and URN would differ from what validate shows: such a key is refused, as export quotes it. Property: every
// plain key validate takes is named alike by yaml.v3 (as the CLI hands it on, Go's %v) and by validate's reader.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import fc from "fast-check";
import { parseDocument } from "yaml";
import { cliKeyProblem } from "../../provider/rules/yaml-scalars";
import { readStackConfig } from "../../provider/stack-config/read";
import { validateOffline } from "../support/validate";
import { readWithYamlV3, yamlV3Binary } from "../support/yaml-v3";

const unit = (key: string) => [`    ${key}:`, "      registrationNumber: R-1", "      timeZone: UTC"];
const file = (keys: string[]) => ["config:", "  backup-portal:tenants:", ...keys.flatMap(unit), ""].join("\n");

describe("stack file: plain keys the Pulumi CLI reads as other keys", function () {
  this.timeout(300_000);
  let dir: string;
  before(() => yamlV3Binary());
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "plain-keys-"));
    fs.writeFileSync(path.join(dir, "Pulumi.yaml"), "name: backup-portal\nruntime: nodejs\n");
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  async function validateText(text: string): Promise<{ code: number; out: string }> {
    fs.writeFileSync(path.join(dir, "Pulumi.prod.yaml"), text);
    return validateOffline(dir, "Pulumi.prod.yaml");
  }

  it("validate refuses 0123:, 1_000: and 2024-01-01: as tenant keys, one line each; quoted, they pass", async () => {
    const r = await validateText(file(["0123", "1_000", "2024-01-01", "acme"]));
    assert.equal(r.code, 1, r.out);
    assert.deepEqual(r.out.trimEnd().split("\n"), [
      "Pulumi.prod.yaml: backup-portal:tenants.0123: the key 0123 has a leading zero: the Pulumi CLI (yaml.v3) and YAML 1.1 read it as octal 83, YAML 1.2 as 123; write 123",
      'Pulumi.prod.yaml: backup-portal:tenants.1_000: the key 1_000 is read by the Pulumi CLI (yaml.v3) as a number, not as this text; quote it: "1_000"',
      'Pulumi.prod.yaml: backup-portal:tenants.2024-01-01: the key 2024-01-01 is read by the Pulumi CLI (yaml.v3) as a date (as "2024-01-01 00:00:00 +0000 UTC"), not as this text; quote it: "2024-01-01"',
    ]);
    const quoted = await validateText(file(['"0123"', '"1_000"', "'2024-01-01'", "acme", "123"]));
    assert.equal(quoted.code, 0, quoted.out);
  });

  it("the program's reader refuses a key that arrives as Go's time text (the CLI read a plain date)", () => {
    const key = "2024-01-01 00:00:00 +0000 UTC";
    const tenants = { [key]: { registrationNumber: "R-1", timeZone: "UTC" } };
    const read = readStackConfig({ config: { "backup-portal:tenants": JSON.stringify(tenants) }, isSecret: () => false });
    assert.ok(
      read.problems.some((p) => p.path === `tenants.${key}` && p.message.startsWith(`the key arrived as "${key}"`)),
      JSON.stringify(read.problems),
    );
  });

  it("every plain key it takes is the same key to yaml.v3 and to validate's reader (property)", () => {
    const nearNumbers = fc
      .array(fc.constantFrom(..."0123456789-_.+xXobeE".split(""), "2024-", "0x", "1_0", "-02-29", "-1-3", "true", "null", "~", ".inf"), {
        minLength: 1,
        maxLength: 8,
      })
      .map((parts) => parts.join(""))
      .filter((s) => !/^[-?:.]$|^- |^\? /.test(s) && parseDocument(`${s}: 1\n`).errors.length === 0);
    fc.assert(
      fc.property(fc.uniqueArray(nearNumbers, { minLength: 1, maxLength: 20 }), (keys) => {
        // The key's text to each reader: as a value, yaml.v3 resolves a scalar as it does a key (Go's %v of it);
        // validate's reader names it as the `yaml` package's toJS does.
        const go = readWithYamlV3(keys.map((k, i) => `k${i}: ${k}\n`).join("")).values as Record<string, string | null>;
        keys.forEach((k, i) => {
          const doc = parseDocument(`${k}: 1\n`);
          const node = (doc.contents as { items: Array<{ key: { value: unknown } }> }).items[0].key;
          const js = Object.keys(doc.toJS() as object)[0];
          if (cliKeyProblem(k, node.value) === undefined) assert.equal(js, go[`k${i}`] ?? "<nil>", `the key ${k}`);
        });
      }),
      { numRuns: 200, seed: 44 },
    );
  });
});
