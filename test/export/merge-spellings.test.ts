// One config key in the spellings the Pulumi CLI reads as one (`tenants:`, `backup-portal:tenants:`,
// `backup-portal:config:tenants:` in project backup-portal): `export --merge` finds the block in any of them, and a
// file that writes one key twice is refused by the merge and by `validate`, with each spelling's line (the CLI
// reads such a file's keys into a Go map and keeps one of them at random on each run).
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { cliConfigKey } from "../../provider/rules/config-keys";
import { clientSuite } from "../support/portal";
import { validateOffline } from "../support/validate";
import { exportCli } from "./support";

/** A stack file adopting the emulator's business units 2 and 3 under the tenants key `key`. */
const adopting = (key: string, root = "backup-portal:rootBusinessUnitId") =>
  [
    "config:",
    `  ${root}: 1`,
    `  ${key}:`,
    "    alpha:",
    "      adoptId: 2",
    "      name: Tenant A",
    "      registrationNumber: TA-0001",
    "      timeZone: W. Europe Standard Time",
    "    beta:",
    "      adoptId: 3",
    "      name: Tenant B",
    "      registrationNumber: TB-0001",
    "      timeZone: UTC",
    "",
  ].join("\n");

describe("one config key in every spelling the Pulumi CLI reads as one", function () {
  this.timeout(60_000);
  const p = clientSuite();
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "merge-spellings-"));
    fs.writeFileSync(path.join(dir, "Pulumi.yaml"), "name: backup-portal\nruntime: nodejs\n");
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  for (const [key, root] of [
    ["tenants", "rootBusinessUnitId"],
    ["backup-portal:config:tenants", "backup-portal:config:rootBusinessUnitId"],
  ]) {
    it(`export --merge reads a tenants block written \`${key}:\`: the units it adopts are not added again`, async () => {
      const file = path.join(dir, "Pulumi.prod.yaml");
      const text = adopting(key, root);
      fs.writeFileSync(file, text);
      assert.equal((await validateOffline(dir, file)).code, 0);
      const r = await exportCli(p.emu, ["--merge", file]);
      assert.equal(r.code, 0, r.err);
      assert.match(r.err, /: 0 business units added,/);
      assert.equal(fs.readFileSync(file, "utf8"), text, "a second block adopting 2 and 3 again would be written");
      assert.equal(
        (await validateOffline(dir, file)).out,
        "Pulumi.prod.yaml: valid: 2 business units, 0 consumers, 0 nodes; not checked against a portal (--offline)\n",
      );
    });
  }

  it("a file writing one key twice is refused by the merge and by validate, each spelling with its line; nothing is written", async () => {
    const file = path.join(dir, "Pulumi.prod.yaml");
    const text = adopting("tenants") + "  backup-portal:tenants:\n    gamma:\n      adoptId: 4\n";
    fs.writeFileSync(file, text);
    const problem =
      "backup-portal:tenants: is written twice, as `tenants` (line 3) and `backup-portal:tenants` (line 14), " +
      "which the Pulumi CLI reads as one key, taking one of the values at random on each run; keep one of them";
    const r = await exportCli(p.emu, ["--merge", file]);
    assert.equal(r.code, 1);
    assert.equal(r.err, `backup-portal export: the stack config has 1 problem; nothing was merged:\n${file}: ${problem}\n`);
    assert.equal(fs.readFileSync(file, "utf8"), text);
    const v = await validateOffline(dir, file);
    assert.equal(v.code, 1);
    assert.ok(v.out.split("\n").includes(`Pulumi.prod.yaml: ${problem}`), v.out);
  });

  it("every pair of spellings of a key is refused, three as one line; a bare key of another project is not ours", async () => {
    const spellings = (name: string) => [name, `backup-portal:${name}`, `backup-portal:config:${name}`];
    const file = path.join(dir, "Pulumi.prod.yaml");
    for (const name of ["tenants", "rootBusinessUnitId", "webPassword"]) {
      const [bare, full, old] = spellings(name);
      for (const pair of [
        [bare, full],
        [bare, old],
        [full, old],
        [bare, full, old],
      ]) {
        const tenants = name === "tenants" ? "" : "  backup-portal:tenants: {}\n";
        const text = `config:\n${tenants}${pair.map((k, i) => `  ${k}: ${name === "tenants" ? "{}" : i + 1}\n`).join("")}`;
        fs.writeFileSync(file, text);
        const named = pair.filter((k) => cliConfigKey(k, "backup-portal") === `backup-portal:${name}`);
        assert.equal(named.length, pair.length);
        const v = await validateOffline(dir, file);
        assert.equal(v.code, 1, `${text}\n${v.out}`);
        const lines = v.out.split("\n").filter((l) => l.startsWith(`Pulumi.prod.yaml: backup-portal:${name}: is written`));
        assert.equal(lines.length, 1, `${text}\n${v.out}`);
        for (const k of named) assert.match(lines[0], new RegExp(`\`${k}\` \\(line \\d+\\)`), lines[0]);
      }
    }
    fs.writeFileSync(path.join(dir, "Pulumi.yaml"), "name: other\nruntime: nodejs\n");
    fs.writeFileSync(file, "config:\n  tenants: 1\n  backup-portal:tenants: {}\n");
    assert.equal((await validateOffline(dir, file)).code, 0, "tenants: is other:tenants in project other");
  });
});
