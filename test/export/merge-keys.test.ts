// YAML merge keys (`<<: *base`), which the Pulumi CLI's reader (yaml.v3) merges: `validate` reads the entry the CLI
// reads (no "`<<` unknown key", no missing registrationNumber), and `export --merge` compares it with its merged
// keys; a merge key where the merge would have to add or find entries is refused, as an alias there is.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { stackFileSource } from "../../provider/stack-config/file";
import { clientSuite } from "../support/portal";
import { validateOffline } from "../support/validate";
import { readWithYamlV3, yamlV3Binary } from "../support/yaml-v3";
import { exportCli } from "./support";

/** The emulator's business units 2 and 3; beta takes its time zone and registration number from alpha's anchor. */
const STACK = [
  "config:",
  "  backup-portal:rootBusinessUnitId: 1",
  "  backup-portal:tenants:",
  "    alpha: &base",
  "      adoptId: 2",
  "      name: Tenant A",
  "      registrationNumber: TA-0001",
  "      timeZone: W. Europe Standard Time",
  "    beta:",
  "      <<: *base",
  "      adoptId: 3",
  "      name: Tenant B",
  "",
].join("\n");

describe("YAML merge keys (<<), read as the Pulumi CLI reads them", function () {
  this.timeout(120_000);
  const p = clientSuite();
  let dir: string;
  before(() => yamlV3Binary());
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "merge-keys-"));
    fs.writeFileSync(path.join(dir, "Pulumi.yaml"), "name: backup-portal\nruntime: nodejs\n");
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("validate reads the merged entry: valid, and the tenants are what yaml.v3 reads", async () => {
    const file = path.join(dir, "Pulumi.prod.yaml");
    fs.writeFileSync(file, STACK);
    const { code, out, err } = await validateOffline(dir, file);
    assert.equal(code, 0, out + err);
    assert.match(out, /valid: 2 business units/);
    const ours = JSON.parse(stackFileSource(STACK, file).source.config["backup-portal:tenants"]) as Record<string, Record<string, unknown>>;
    const cli = (readWithYamlV3(STACK).values as { config: Record<string, Record<string, Record<string, string>>> }).config[
      "backup-portal:tenants"
    ];
    // yaml.v3 hands each scalar on as text; the reader's values, as text, are the same.
    const asText = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, String(v)]));
    assert.deepEqual({ alpha: asText(ours.alpha), beta: asText(ours.beta) }, cli);
    assert.equal(ours.beta.timeZone, "W. Europe Standard Time");
  });

  it("export --merge compares the entry with its merged keys: nothing differs but what does", async () => {
    const file = path.join(dir, "Pulumi.prod.yaml");
    fs.writeFileSync(file, STACK);
    const r = await exportCli(p.emu, ["--merge", file]);
    assert.equal(r.code, 0, r.err);
    assert.doesNotMatch(r.err, /differs tenants\.beta\.registrationNumber: the portal has "TB-0001", the file none/, r.err);
    assert.match(r.err, /differs tenants\.beta\.registrationNumber: the portal has "TB-0001", the file "TA-0001"/, r.err);
    assert.doesNotMatch(r.err, /differs tenants\.beta\.timeZone: .* the file none/, r.err);
    assert.equal(fs.readFileSync(file, "utf8"), STACK, "nothing added");
  });

  it("a merge key that brings consumers, or stands where entries are, is refused by the merge, the file left as it was", async () => {
    const file = path.join(dir, "Pulumi.prod.yaml");
    const cases: Array<[string, RegExp]> = [
      [
        STACK.replace(
          "      timeZone: W. Europe Standard Time\n",
          "      timeZone: W. Europe Standard Time\n      consumers:\n        web:\n          name: web\n",
        ),
        /tenants\.beta\.consumers comes from a YAML merge key \(<<\)/,
      ],
      [STACK.replace("    alpha: &base", "    <<: {}\n    alpha: &base"), /tenants\.<< comes from a YAML merge key \(<<\)/],
    ];
    for (const [text, why] of cases) {
      fs.writeFileSync(file, text);
      const r = await exportCli(p.emu, ["--merge", file]);
      assert.equal(r.code, 1, r.err);
      assert.match(r.err, why);
      assert.match(r.err, /nothing was merged\n$/);
      assert.equal(fs.readFileSync(file, "utf8"), text);
    }
  });
});
