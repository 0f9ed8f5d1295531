// `backup-portal validate` and a stack file whose config is too large for the Node.js runtime: the host hands the
// program the whole config in one environment variable (PULUMI_CONFIG), which Linux caps at 131072 bytes
// (provider/rules/config-env.ts). The file is then a problem like any other of its problems: one line, all at once,
// before the portal or the Pulumi CLI is asked anything.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { run } from "../../provider/cli/validate";
import { ENV_STRING_MAX_BYTES, tenantsFit } from "../../provider/rules/config-env";
import { stackFileConfigSize } from "../../provider/stack-config/config-size";
import { tenantLines } from "../support/tenant-lines";

const PROJECT = "name: backup-portal\nruntime: nodejs\nstackConfigDir: stacks\n";

/** `n` tenants of a business unit and two consumers with nodes each, every node with a password secret. */
function stackFile(n: number, more: string[] = []): string {
  const lines = [
    "config:",
    "  backup-portal:rootBusinessUnitId: 1",
    "  backup-portal:password:",
    "    secure: v1:AAAAAAAAAAAAAAAA:BBBB",
    ...more,
  ];
  lines.push("  backup-portal:tenants:", ...tenantLines(n, { passwordSecrets: true }));
  for (let i = 0; i < n; i++) {
    for (const c of ["web", "db"]) lines.push(`  backup-portal:pw${c}${i}:`, `    secure: v1:AAAAAAAAAAAAAAAA:${"C".repeat(32)}`);
  }
  return `${lines.join("\n")}\n`;
}

describe("backup-portal validate: a config too large for the one environment variable the Node.js runtime gets", function () {
  this.timeout(120_000);
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "bp-validate-size-"));
    fs.writeFileSync(path.join(dir, "Pulumi.yaml"), PROJECT);
    fs.mkdirSync(path.join(dir, "stacks"));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  async function validate(text: string, args: string[] = ["stacks/Pulumi.prod.yaml"]) {
    fs.writeFileSync(path.join(dir, "stacks", "Pulumi.prod.yaml"), text);
    let out = "";
    let err = "";
    // No BACKUP_PORTAL_*: a portal would only be asked after the file's own problems are gone.
    const code = await run(args, { out: (t) => (out += t), err: (t) => (err += t), env: {}, cwd: dir, errIsTTY: false });
    return { code, out, err };
  }

  /** The most tenants of this shape under the limit, from the rule's own measure of a file past it. */
  const fitting = (): number => tenantsFit(stackFileConfigSize(stackFile(400), "x"))!.maxTenants;

  it("over the limit: exit 1, one line naming the file, its size, the limit and the fix, with the file's other problems", async () => {
    const text = stackFile(400, ["  backup-portal:protectBusinessUnit: true"]);
    const size = stackFileConfigSize(text, "stacks/Pulumi.prod.yaml");
    assert.ok(size.bytes > ENV_STRING_MAX_BYTES, `${size.bytes}`);
    const r = await validate(text);
    assert.equal(r.code, 1, r.out + r.err);
    const lines = r.out.trimEnd().split("\n");
    assert.equal(lines.length, 2, r.out);
    assert.match(lines[0], /^stacks\/Pulumi\.prod\.yaml: backup-portal:protectBusinessUnit: unknown key; did you mean/);
    const fit = tenantsFit(size)!;
    const line = lines[1];
    assert.ok(
      line.startsWith("stacks/Pulumi.prod.yaml: backup-portal:tenants: the config the Pulumi CLI hands a Node.js program is "),
      line,
    );
    assert.ok(line.includes(`${size.bytes.toLocaleString("en-US")} bytes (PULUMI_CONFIG: 400 tenants at about`), line);
    assert.ok(line.includes("secure: values counted at their ciphertext's length"), line);
    assert.ok(
      line.includes(`over Linux's 131,072 for one environment variable: pulumi preview and up fail with "argument list too long"`),
      line,
    );
    assert.ok(line.includes(`or keep this file to ${fit.maxTenants} tenants or fewer; `), line);
    assert.ok(line.endsWith(`: npx ts-node stacks/fleet/main.ts --config stacks/Pulumi.prod.yaml --groups ${fit.groups} groups`), line);
    assert.equal(r.err, "stacks/Pulumi.prod.yaml: 2 problems; the portal was not asked (fix these first)\n");
  });

  it("a file of as many tenants as the line says is valid (the count is from the average, so on the safe side); --stack alike", async () => {
    const n = fitting();
    const under = await validate(stackFile(n), ["stacks/Pulumi.prod.yaml", "--offline"]);
    assert.equal(under.code, 0, under.out + under.err);
    assert.match(under.out, new RegExp(`^stacks/Pulumi\\.prod\\.yaml: valid: ${n} business units`));
    const over = await validate(stackFile(400), ["--offline"]);
    assert.equal(over.code, 1, over.out + over.err);
    assert.match(over.out, /^stacks\/Pulumi\.prod\.yaml: backup-portal:tenants: the config the Pulumi CLI hands a Node\.js program is /);
    const byStack = await validate(stackFile(400), ["--stack", "prod", "--offline"]);
    assert.equal(byStack.code, 1, byStack.out + byStack.err);
    assert.equal(byStack.out, over.out);
  });
});
