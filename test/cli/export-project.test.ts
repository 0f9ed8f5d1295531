// `backup-portal export` in a Pulumi project, as a user runs it there (the real binary in the project's folder, the
// emulator on loopback): a bare --out Pulumi.<stack>.yaml lands where Pulumi.yaml's stackConfigDir says (Pulumi
// reads it nowhere else) or is refused in one line; the file's first line names the stack files' JSON Schema where
// an editor finds it, and the Pulumi CLI's YAML reader reads the file as before; a start business unit with
// consumers of its own says in one line that they are left out, and why; --json is --format json.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { backupPortal as binaryIn } from "./process";
import { startEmulator, Emulator } from "../../emulator";
import { usageErrorText } from "../../provider/cli/args";
import { COMMAND, run, schemaPath } from "../../provider/cli/export";
import { envFor } from "../support/portal";
import { readWithYamlV3 } from "../support/yaml-v3";
import { VARIED } from "../export/fixtures";
import { exportCli, plant, readsSince } from "../export/support";

const ROOT = path.join(__dirname, "..", "..");
const BIN = path.join(ROOT, "bin", "backup-portal.js");
const SCHEMA_LINE = /^# yaml-language-server: \$schema=(\S+)\n/;

interface Ran {
  code: number | null;
  out: string;
  err: string;
}

/** `export <argv>` in this process, run in the folder `cwd`, with the emulator's BACKUP_PORTAL_*. */
async function exportIn(emu: Emulator, argv: string[], cwd: string): Promise<Ran> {
  let out = "";
  let err = "";
  const code = await run(argv, { out: (t) => (out += t), err: (t) => (err += t), env: envFor(emu), cwd });
  return { code, out, err };
}

/** The real binary in `cwd` (asynchronous: the emulator answers from this process). */
function backupPortal(args: string[], cwd: string, env: Record<string, string>, timeoutMs = 90_000): Promise<Ran> {
  return binaryIn(args, { cwd, env, timeoutMs });
}

describe("backup-portal export in a Pulumi project", function () {
  this.timeout(180_000);
  let emu: Emulator;
  const dirs: string[] = [];
  before(async () => {
    emu = await startEmulator({ quiet: true });
  });
  after(async () => {
    dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true }));
    await emu?.close();
  });
  /** A project folder with Pulumi.yaml (`stackConfigDir` when given, and that folder made unless `make` is false). */
  const projectDir = (stackConfigDir?: string, make = true) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bp-export-project-"));
    dirs.push(dir);
    fs.writeFileSync(
      path.join(dir, "Pulumi.yaml"),
      `name: backup-portal\nruntime: nodejs\n${stackConfigDir ? `stackConfigDir: ${stackConfigDir}\n` : ""}`,
    );
    if (stackConfigDir && make) fs.mkdirSync(path.join(dir, stackConfigDir), { recursive: true });
    return dir;
  };

  it("--out Pulumi.prod.yaml goes into stackConfigDir, says so, names the schema, and validate reads it; --merge finds it there", async () => {
    const dir = projectDir("stacks");
    const r = await backupPortal(["export", "--out", "Pulumi.prod.yaml"], dir, envFor(emu));
    assert.equal(r.code, 0, r.err);
    assert.equal(fs.existsSync(path.join(dir, "Pulumi.prod.yaml")), false, "nothing beside Pulumi.yaml, where Pulumi never reads it");
    const file = path.join(dir, "stacks", "Pulumi.prod.yaml");
    const text = fs.readFileSync(file, "utf8");
    assert.equal(
      r.err.split("\n")[0],
      "backup-portal export: --out Pulumi.prod.yaml: stacks/Pulumi.prod.yaml, where Pulumi.yaml keeps the stack files (stackConfigDir)",
    );
    // Not installed in this project yet: the path the package will have once it is.
    assert.equal(SCHEMA_LINE.exec(text)?.[1], "../node_modules/backup-portal-pulumi/stacks/tenants.schema.json");
    const checked = await backupPortal(["validate", "--offline"], dir, {});
    assert.equal(checked.code, 0, checked.out + checked.err);
    assert.match(checked.out, /^stacks\/Pulumi\.prod\.yaml: valid: 2 business units/);
    const merged = await backupPortal(["export", "--merge", "Pulumi.prod.yaml"], dir, envFor(emu));
    assert.equal(merged.code, 0, merged.err);
    assert.match(merged.err, /merged into stacks\/Pulumi\.prod\.yaml: 0 business units added/);
    assert.equal(fs.readFileSync(file, "utf8"), text, "an unchanged portal leaves the file as it was");
  });

  it("the adoption docs' commands, as written, in a project like this repository's (stackConfigDir: stacks)", async () => {
    for (const [file, heading] of [
      ["README.md", "## Bringing an existing portal under code (adoption)"],
      ["docs/adoption.md", "## 1. Export"],
    ] as const) {
      const text = fs.readFileSync(path.join(ROOT, file), "utf8");
      const block = /```sh\n([\s\S]*?)```/.exec(text.slice(text.indexOf(heading)))?.[1];
      assert.ok(block && /^npx backup-portal export --out Pulumi\.prod\.yaml$/m.test(block), `${file}: ${block}`);
      const dir = projectDir("stacks");
      fs.mkdirSync(path.join(dir, "node_modules", ".bin"), { recursive: true });
      fs.symlinkSync(BIN, path.join(dir, "node_modules", ".bin", "backup-portal"));
      const r = await new Promise<Ran>((resolve) => {
        const child = spawn("bash", ["-e", "-o", "pipefail", "-c", block], {
          cwd: dir,
          env: { PATH: process.env.PATH ?? "", HOME: dir, npm_config_update_notifier: "false", ...envFor(emu) },
          stdio: ["ignore", "pipe", "pipe"],
        });
        let out = "";
        let err = "";
        child.stdout.on("data", (c: Buffer) => (out += c.toString()));
        child.stderr.on("data", (c: Buffer) => (err += c.toString()));
        const timer = setTimeout(() => child.kill("SIGKILL"), 150_000);
        child.on("close", (code) => {
          clearTimeout(timer);
          resolve({ code, out, err });
        });
      });
      assert.equal(r.code, 0, `${file}:\n${r.out}\n${r.err}`);
      assert.ok(fs.existsSync(path.join(dir, "stacks", "Pulumi.prod.yaml")), `${file}: the stack file is where Pulumi reads it`);
      assert.equal(fs.existsSync(path.join(dir, "Pulumi.prod.yaml")), false, file);
      assert.match(r.err, /merged into stacks\/Pulumi\.prod\.yaml: 0 business units added/, file);
    }
  });

  it("a stackConfigDir that does not exist: refused in one line saying where to write, before any request", async () => {
    const dir = projectDir("config/stacks", false);
    const mark = emu.requests().length;
    const r = await exportIn(emu, ["--out", "Pulumi.prod.yaml"], dir);
    assert.equal(r.code, 2);
    assert.equal(
      r.err,
      "backup-portal export: --out Pulumi.prod.yaml: Pulumi.yaml keeps the stack files in config/stacks (stackConfigDir), " +
        "which does not exist; create it, or give --out config/stacks/Pulumi.prod.yaml\n",
    );
    assert.deepEqual(readsSince(emu, mark), []);
    // A path with a folder, another name, or a project without stackConfigDir: written where given.
    const flat = projectDir();
    const beside = await exportIn(emu, ["--out", "Pulumi.prod.yaml"], flat);
    assert.equal(beside.code, 0, beside.err);
    assert.ok(fs.existsSync(path.join(flat, "Pulumi.prod.yaml")));
    fs.rmSync(path.join(flat, "Pulumi.prod.yaml"));
  });

  it("the schema line: the package as the project installed it, this checkout's own file, or where it will be", () => {
    const dir = projectDir("stacks");
    const installed = path.join(dir, "node_modules", "backup-portal-pulumi", "stacks");
    fs.mkdirSync(installed, { recursive: true });
    fs.writeFileSync(path.join(installed, "tenants.schema.json"), "{}");
    const deep = path.join(dir, "stacks", "eu", "north");
    fs.mkdirSync(deep, { recursive: true });
    for (const [at, want] of [
      [path.join(dir, "stacks"), "../node_modules/backup-portal-pulumi/stacks/tenants.schema.json"],
      [deep, "../../../node_modules/backup-portal-pulumi/stacks/tenants.schema.json"],
      [path.join(ROOT, "stacks"), "./tenants.schema.json"],
      [path.join(ROOT, "examples", "yaml"), "../../stacks/tenants.schema.json"],
    ] as const) {
      const p = schemaPath(at);
      assert.equal(p, want, at);
      assert.ok(fs.existsSync(path.resolve(at, p)), `${at}: ${p} is there`);
    }
    const none = fs.mkdtempSync(path.join(os.tmpdir(), "bp-export-none-"));
    dirs.push(none);
    assert.equal(schemaPath(none), "node_modules/backup-portal-pulumi/stacks/tenants.schema.json");
  });

  it("the schema line is the first line, and yaml.v3 (the Pulumi CLI's reader) reads the file the same with it", async () => {
    plant(emu, VARIED);
    const r = await exportCli(emu);
    assert.equal(r.code, 0, r.err);
    // From this checkout's folder (stackConfigDir stacks): the schema beside the stack files.
    assert.equal(r.out.split("\n")[0], "# yaml-language-server: $schema=./tenants.schema.json");
    const without = r.out.replace(SCHEMA_LINE, "");
    assert.notEqual(without, r.out);
    assert.deepEqual(readWithYamlV3(r.out), readWithYamlV3(without));
    assert.deepEqual(Object.keys((readWithYamlV3(r.out).values as { config: Record<string, unknown> }).config).sort(), [
      "backup-portal:clientId",
      "backup-portal:origin",
      "backup-portal:rootBusinessUnitId",
      "backup-portal:tenants",
      "backup-portal:url",
      "backup-portal:username",
    ]);
    const json = await exportCli(emu, ["--format", "json"]);
    assert.doesNotMatch(json.out, /yaml-language-server/, "JSON has no comments, and a key would be config");
  });

  it("--json is --format json; with --format yaml it is a usage error", async () => {
    const json = await exportCli(emu, ["--json"]);
    const format = await exportCli(emu, ["--format", "json"]);
    assert.equal(json.code, 0, json.err);
    assert.equal(json.out, format.out);
    assert.deepEqual(Object.keys(JSON.parse(json.out).config), [
      "backup-portal:url",
      "backup-portal:origin",
      "backup-portal:clientId",
      "backup-portal:username",
      "backup-portal:rootBusinessUnitId",
      "backup-portal:tenants",
    ]);
    const mark = emu.requests().length;
    const both = await exportCli(emu, ["--json", "--format", "yaml"]);
    assert.equal(both.code, 2);
    assert.equal(both.err, usageErrorText(COMMAND, "--json is --format json; it cannot go with --format yaml"));
    assert.deepEqual(readsSince(emu, mark), []);
  });

  it("the tenant account (its business unit's own consumers only): one line saying why they are left out and what to do, exit 1, nothing written", async () => {
    const dir = projectDir("stacks");
    const r = await backupPortal(["export", "--out", "Pulumi.prod.yaml"], dir, envFor(emu, "tenant"));
    assert.equal(r.code, 1, r.err);
    assert.equal(r.out, "");
    const lines = r.err.trimEnd().split("\n");
    assert.equal(
      lines[lines.length - 1],
      `backup-portal export: business unit 2's own 2 consumers ("web-01", "db-01") are not exported: a stack file declares the business ` +
        "units below backup-portal:rootBusinessUnitId, not that unit's own consumers; to manage them as code, export from its parent " +
        "(--bunit 1), which adopts business unit 2 with them; nothing was written",
    );
    assert.equal(fs.existsSync(path.join(dir, "stacks", "Pulumi.prod.yaml")), false);
    // The reseller's account with --bunit 2: the same line; from its parent, business unit 2 comes with both.
    const admin = await exportCli(emu, ["--bunit", "2"]);
    assert.equal(admin.code, 1);
    assert.match(admin.err, /business unit 2's own 2 consumers \("web-01", "db-01"\) are not exported: .* \(--bunit 1\)/);
    const parent = await exportCli(emu, ["--bunit", "1"]);
    assert.equal(parent.code, 0, parent.err);
    assert.match(parent.out, /\n {6}consumers:\n {8}db-01:\n/);
  });

  it("a root with consumers of its own and business units below: the file is written, and the line says what it lacks", async () => {
    const [root] = plant(emu, [
      {
        name: "Holding",
        registrationNumber: "H-1",
        timeZoneId: 1,
        consumers: [{ name: "\u001b[2Jhq-files" }],
        children: [{ name: "Child", registrationNumber: "C-1", timeZoneId: 1 }],
      },
    ]).businessUnits;
    const r = await exportCli(emu, ["--bunit", String(root)]);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /\n {4}child:\n/);
    const note = r.err.split("\n").find((l) => l.includes("not exported"));
    assert.equal(
      note,
      `backup-portal export: business unit ${root}'s own consumer ("\\u001b[2Jhq-files") is not exported: a stack file declares the ` +
        "business units below backup-portal:rootBusinessUnitId, not that unit's own consumers; to manage it as code, export from " +
        `its parent (--bunit 1), which adopts business unit ${root} with it`,
    );
    assert.doesNotMatch(r.err, /\u001b/, "a consumer's name cannot steer the terminal");
  });
});
