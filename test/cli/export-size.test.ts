// `backup-portal export` and a stack file too large for the Node.js runtime (provider/rules/config-env.ts: the host
// hands the program the whole config in PULUMI_CONFIG, one environment variable, which Linux caps at 131072 bytes).
// Export writes the file all the same (its reads are the adoption's work), then says so in one line and exits 1, so
// that neither a user nor CI takes the file for one that runs. And the measure docs/stack-config.md gives: the bytes
// of a typical tenant in a real export of the emulator, and how many such tenants one stack file holds.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { parse } from "yaml";
import { startEmulator, Emulator } from "../../emulator";
import { run } from "../../provider/cli/export";
import {
  cliConfigText,
  configSizeProblem,
  configVariableBytes,
  ENV_STRING_MAX_BYTES,
  grouped,
  tenantsFit,
} from "../../provider/rules/config-env";
import { stackFileConfigSize } from "../../provider/stack-config/config-size";
import { envFor } from "../support/portal";
import { BuSpec, plant } from "../export/support";

const ROOT = path.join(__dirname, "..", "..");
const PROJECT = "name: backup-portal\nruntime: nodejs\nstackConfigDir: stacks\n";
/** Consumers per typical tenant: with its business unit and the nodes, 9 resources, as in the benchmark. */
const CONSUMERS = ["web01", "db01", "files", "mail"];
/** The length of a node password the docs count with (a generated one). */
const PASSWORD_LENGTH = 24;

/** A typical tenant: a business unit with its settings, four consumers with a Linux node each. */
function tenant(i: number): BuSpec {
  const slug = `customer${i}`;
  return {
    name: `Customer ${i} AB`,
    registrationNumber: `556${String(i).padStart(3, "0")}-${String(1000 + i).slice(-4)}`,
    timeZoneId: 4,
    settings: { invoiceDay: 1, tags: ["managed"] },
    consumers: CONSUMERS.map((c) => ({
      name: `${c}.${slug}.example`,
      node: { os: 3, type: 1, domain: 2, cos: 2, cpuCount: 2, contact: `ops@${slug}.example`, tsmName: `C${i}-${c}` },
    })),
  };
}

describe("backup-portal export: a stack file over what the Node.js runtime can take", function () {
  this.timeout(180_000);
  let emu: Emulator;
  let dir: string;
  /** Business units holding 8 and 150 typical tenants. */
  let small: number;
  let large: number;
  before(async () => {
    emu = await startEmulator({ quiet: true });
    [small, large] = plant(emu, [
      { name: "Small reseller", registrationNumber: "R-1", timeZoneId: 1 },
      { name: "Large reseller", registrationNumber: "R-2", timeZoneId: 1 },
    ]).businessUnits;
    plant(
      emu,
      Array.from({ length: 8 }, (_, i) => tenant(i)),
      small,
    );
    plant(
      emu,
      Array.from({ length: 150 }, (_, i) => tenant(100 + i)),
      large,
    );
  });
  after(async () => emu?.close());
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "bp-export-size-"));
    fs.writeFileSync(path.join(dir, "Pulumi.yaml"), PROJECT);
    fs.mkdirSync(path.join(dir, "stacks"));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  async function exportIn(argv: string[]) {
    let out = "";
    let err = "";
    const code = await run([...argv, "--no-progress"], { out: (t) => (out += t), err: (t) => (err += t), env: envFor(emu), cwd: dir });
    return { code, out, err };
  }

  it("--out past the limit: the file is written whole, then one line with the size, the limit and the fix, and exit 1", async () => {
    const r = await exportIn(["--bunit", String(large), "--out", "Pulumi.prod.yaml"]);
    assert.equal(r.code, 1, r.err);
    const file = path.join(dir, "stacks", "Pulumi.prod.yaml");
    const text = fs.readFileSync(file, "utf8");
    assert.equal(Object.keys(parse(text).config["backup-portal:tenants"]).length, 150, "every tenant written");
    const size = stackFileConfigSize(text, "stacks/Pulumi.prod.yaml");
    assert.ok(size.bytes > ENV_STRING_MAX_BYTES);
    const fit = tenantsFit(size)!;
    const lines = r.err.trimEnd().split("\n");
    assert.match(lines[lines.length - 2], /^exported 150 business units, 600 consumers, 600 nodes; /, "the summary still comes");
    assert.equal(
      lines[lines.length - 1],
      "backup-portal export: written all the same (the reads are kept); split it before its first preview: " +
        `stacks/Pulumi.prod.yaml: backup-portal:tenants: the config the Pulumi CLI hands a Node.js program is ` +
        `${grouped(size.bytes)} bytes (PULUMI_CONFIG: 150 tenants at about ${grouped(fit.perTenant)} bytes each), over Linux's 131,072 ` +
        `for one environment variable: pulumi preview and up fail with "argument list too long"; split the tenants into group stacks ` +
        `with the fleet, or keep this file to ${fit.maxTenants} tenants or fewer; the fleet's grouping (docs/gitops.md, "The fleet: ` +
        `one stack per tenant group"): npx ts-node stacks/fleet/main.ts --config stacks/Pulumi.prod.yaml --groups ${fit.groups} groups`,
    );
  });

  it("--merge into a file, and stdout: the same line and exit 1; a file under the limit: exit 0 and no line", async () => {
    const file = path.join(dir, "stacks", "Pulumi.prod.yaml");
    fs.writeFileSync(file, "encryptionsalt: v1:abc\nconfig:\n  backup-portal:tenants: {}\n");
    const merged = await exportIn(["--bunit", String(large), "--merge", "Pulumi.prod.yaml"]);
    assert.equal(merged.code, 1, merged.err);
    assert.equal(Object.keys(parse(fs.readFileSync(file, "utf8")).config["backup-portal:tenants"]).length, 150);
    assert.match(
      merged.err,
      /\nbackup-portal export: written all the same \(the reads are kept\); split it before its first preview: stacks\/Pulumi\.prod\.yaml: backup-portal:tenants: the config .* over Linux's 131,072 .* --config stacks\/Pulumi\.prod\.yaml --groups \d+ groups\n$/,
    );
    const stdout = await exportIn(["--bunit", String(large)]);
    assert.equal(stdout.code, 1, stdout.err);
    assert.match(stdout.out, /^# yaml-language-server/);
    assert.match(
      stdout.err,
      /\nbackup-portal export: on stdout all the same \(the reads are kept\); split it before its first preview: Pulumi\.<stack>\.yaml: backup-portal:tenants: .*\n$/,
    );
    const fits = await exportIn(["--bunit", String(small), "--out", "Pulumi.small.yaml"]);
    assert.equal(fits.code, 0, fits.err);
    assert.doesNotMatch(fits.err, /PULUMI_CONFIG/);
  });

  it("the measure in docs/stack-config.md: a typical tenant's bytes as exported, with a password per node, and how many fit", async () => {
    const r = await exportIn(["--bunit", String(large)]);
    const size = stackFileConfigSize(r.out, "Pulumi.prod.yaml");
    const fit = tenantsFit(size)!;
    // With a password per node: each node names its secret, and the CLI hands the program each secret's plaintext.
    const config = parse(r.out).config as Record<string, unknown>;
    const tenants = config["backup-portal:tenants"] as Record<string, { consumers: Record<string, { node: Record<string, unknown> }> }>;
    const texts: Record<string, string> = {};
    for (const [key, t] of Object.entries(tenants)) {
      for (const [c, consumer] of Object.entries(t.consumers)) {
        const secret = `${key}-${c}-password`;
        consumer.node.passwordSecret = secret;
        texts[`backup-portal:${secret}`] = "p".repeat(PASSWORD_LENGTH);
      }
    }
    for (const [k, v] of Object.entries(config)) texts[k] = cliConfigText(v);
    const withPasswords = configVariableBytes(texts);
    const perTenantWithPasswords = (withPasswords - size.withoutTenants) / size.tenants;
    const fitWithPasswords = Math.floor((ENV_STRING_MAX_BYTES - size.withoutTenants) / perTenantWithPasswords);
    const measured = [
      `about ${grouped(fit.perTenant)} bytes`,
      `about ${grouped(perTenantWithPasswords)} bytes`,
      `${grouped(fit.maxTenants)} tenants`,
      `${grouped(fitWithPasswords)} tenants`,
    ];
    const docs = fs.readFileSync(path.join(ROOT, "docs/stack-config.md"), "utf8");
    const at = docs.indexOf("## How many tenants one stack file holds");
    assert.ok(at >= 0, "docs/stack-config.md has the section");
    const end = docs.indexOf("\n## ", at + 1);
    const section = docs.slice(at, end < 0 ? undefined : end);
    for (const m of measured) assert.ok(section.includes(m), `the section says "${m}" (measured: ${measured.join("; ")})`);
    // Its example is the line of this export, written to stacks/Pulumi.prod.yaml.
    const line = `stacks/Pulumi.prod.yaml: backup-portal:tenants: ${configSizeProblem(size, "stacks/Pulumi.prod.yaml")}`;
    assert.ok(section.includes(`\n${line}\n`), `the section shows the line:\n${line}`);
    // And docs/adoption.md, the line as export ends with it.
    const exported = `backup-portal export: written all the same (the reads are kept); split it before its first preview: ${line}`;
    assert.ok(
      fs.readFileSync(path.join(ROOT, "docs/adoption.md"), "utf8").includes(`\n${exported}\n`),
      `docs/adoption.md shows:\n${exported}`,
    );
  });
});
