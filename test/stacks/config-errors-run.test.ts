// Stack-config mistakes where they happen: the program run through the real runtime entry
// (`@pulumi/pulumi/cmd/run`, started as the Node.js language host starts it, ts-node type checking on; see
// cli.ts), the stack config of stacks/Pulumi.local.yaml with one mistake or five, the portal emulator behind
// it. A mistake fails the run with one line per problem naming the stack file and the key, no stack trace,
// nothing registered but the SDK's own Stack, and not one request to the portal.
import assert from "node:assert/strict";
import * as path from "node:path";
import { Emulator, startEmulator } from "../../emulator";
import { pwdMain, readProject, runPreview, startFakeEngine } from "./cli";
import { localStackConfig } from "./support";

const ROOT = path.join(__dirname, "..", "..");
const FILE = "Pulumi.local.yaml";

interface Run {
  code: number | null;
  /** The program's error lines, as the engine logged them. */
  errors: string[];
  /** Everything the run printed and logged, for messages and the stack-trace check. */
  report: string;
  registered: string[];
  requests: number;
}

/** Runs the local stack's program (a preview) with `change` applied to its config. */
async function run(emu: Emulator, change: (c: Record<string, unknown>) => void): Promise<Run> {
  const project = readProject(ROOT);
  const engine = await startFakeEngine(project.name, "local");
  const before = emu.requests().length;
  try {
    const config: Record<string, unknown> = { ...localStackConfig(), "backup-portal:url": emu.url };
    change(config);
    const result = await runPreview({
      root: ROOT,
      location: pwdMain(ROOT, project.main),
      project,
      stack: "local",
      engine,
      config,
      env: { BACKUP_PORTAL_PASSWORD: "admin" },
      timeoutMs: 400_000,
    });
    return {
      code: result.code,
      errors: engine.logs.filter((l) => l.startsWith("ERROR: ")).flatMap((l) => l.slice("ERROR: ".length).split("\n")),
      report: `exit ${result.code ?? result.signal}\n${result.output}\n${engine.logs.join("\n")}`,
      registered: engine.registrations.map((r) => r.type),
      requests: emu.requests().length - before,
    };
  } finally {
    await engine.close();
  }
}

/** The run failed on its config alone: these lines, no trace, nothing but the Stack registered, no portal request. */
function assertRefused(r: Run, lines: string[]): void {
  assert.notEqual(r.code, 0, r.report);
  const problems = r.errors.filter((l) => l.startsWith(`${FILE}: `));
  assert.deepEqual(problems, lines, r.report);
  assert.match(r.errors[0], new RegExp(`^the stack config has ${lines.length} problems?; nothing was changed:$`), r.report);
  assert.equal(r.errors.length, lines.length + 1, `nothing else is printed as an error\n${r.report}`);
  // A stack frame (`    at f (file.ts:1:2)`) or the SDK's wrapper of an unhandled exception.
  assert.doesNotMatch(r.report, /^\s+at .+[:(]|unhandled exception|ConfigError|Warning/m, `no stack trace, no warning\n${r.report}`);
  assert.deepEqual(
    r.registered.filter((t) => t !== "pulumi:pulumi:Stack"),
    [],
    `nothing but the SDK's own Stack is registered\n${r.report}`,
  );
  assert.equal(r.requests, 0, "not one request to the portal");
}

describe("stack config mistakes under the CLI's runtime (cmd/run)", function () {
  // Each run type-checks the program with ts-node, as the language host does, on a shared 2-core machine.
  this.timeout(600_000);
  let emu: Emulator;
  before(async () => {
    emu = await startEmulator({ port: 0, quiet: true });
  });
  after(async () => emu?.close());

  it("a misspelt backup-portal:tenants is refused instead of declaring no tenant", async () => {
    const r = await run(emu, (c) => {
      c["backup-portal:tennants"] = c["backup-portal:tenants"];
      delete c["backup-portal:tenants"];
    });
    assertRefused(r, [
      `${FILE}: backup-portal:tenants: is not set; declare the stack's tenants under backup-portal:tenants, or write ` +
        "`backup-portal:tenants: {}` to declare none on purpose (an absent key would plan to delete every tenant the stack manages)",
      `${FILE}: backup-portal:tennants: unknown key; did you mean backup-portal:tenants?`,
    ]);
  });

  it("a misspelt tenant field is refused with the key it meant", async () => {
    const r = await run(emu, (c) => {
      const t = c["backup-portal:tenants"] as Record<string, Record<string, unknown>>;
      t.globex.invoiceDya = 1;
    });
    assertRefused(r, [`${FILE}: backup-portal:tenants.globex.invoiceDya: unknown key; did you mean "invoiceDay"?`]);
  });

  it("an absent backup-portal:tenants is refused, saying how to declare none", async () => {
    const r = await run(emu, (c) => delete c["backup-portal:tenants"]);
    assertRefused(r, [
      `${FILE}: backup-portal:tenants: is not set; declare the stack's tenants under backup-portal:tenants, or write ` +
        "`backup-portal:tenants: {}` to declare none on purpose (an absent key would plan to delete every tenant the stack manages)",
    ]);
  });

  it("`tenants: {}` runs: no tenant, exit 0", async () => {
    const r = await run(emu, (c) => (c["backup-portal:tenants"] = {}));
    assert.equal(r.code, 0, r.report);
    assert.deepEqual(r.errors, [], r.report);
    assert.deepEqual(r.registered, ["pulumi:pulumi:Stack"], r.report);
  });

  it("five problems: all five reported in one run, sorted by key path, nothing registered, no request", async () => {
    const r = await run(emu, (c) => {
      const t = c["backup-portal:tenants"] as Record<string, any>;
      t.acme.consumers.web01.node.cpuCount = 0;
      t.globex.registrationNumber = "   ";
      c["backup-portal:protectBusinessUnit"] = true;
      c["backup-portal:rootBusinessUnitId"] = "first";
      c["backup-portal:registry"] = { enabled: false, storgeSize: "10Gi" };
    });
    assertRefused(r, [
      `${FILE}: backup-portal:protectBusinessUnit: unknown key; did you mean backup-portal:protectBusinessUnits?`,
      `${FILE}: backup-portal:registry.storgeSize: unknown key; did you mean "storageSize"?`,
      `${FILE}: backup-portal:rootBusinessUnitId: must be an integer ≥ 1, got "first"`,
      `${FILE}: backup-portal:tenants.acme.consumers.web01.node.cpuCount: must be an integer from 1 to 4096, got 0`,
      `${FILE}: backup-portal:tenants.globex.registrationNumber: must be a non-empty string, got "   " (only whitespace)`,
    ]);
  });
});
