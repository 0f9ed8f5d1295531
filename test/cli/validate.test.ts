// `backup-portal validate`: a stack file checked without the Pulumi CLI, by the stack program's own reader and name
// checks, one line per problem, exit codes for CI (0 valid, 1 problems, 2 bad arguments). Real files in a temp
// project; the real binary where a user runs it (its folder, its environment); the emulator on loopback for the
// portal's side, which must see reads only.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { backupPortal as binaryIn } from "./process";
import { References } from "../../provider/dynamic/references";
import { run, splitFile } from "../../provider/cli/validate";
import { formatConfigProblems } from "../../provider/stack-config/problems";
import { readStackConfig } from "../../provider/stack-config/read";
import { stackFileSource } from "../../provider/stack-config/file";
import { TenantsConfig } from "../../provider/tenants/model";
import { validateNames } from "../../provider/tenants/names";
import { clientFor, envFor, startEmulator, writes, type Emulator } from "../support/portal";

/** A line of a stack trace. */
const TRACE = /\n\s+at .*:\d+:\d+\)?$/m;

const PROJECT = "name: backup-portal\nruntime: nodejs\nstackConfigDir: stacks\n";

/** A stack file: the tenants block (YAML lines under it) and more config lines. */
const stackFile = (tenants: string[], more: string[] = []) =>
  [
    "# yaml-language-server: $schema=../node_modules/backup-portal-pulumi/stacks/tenants.schema.json",
    "encryptionsalt: v1:c2FsdA==:v1:AAAA",
    "config:",
    "  backup-portal:rootBusinessUnitId: 1",
    "  backup-portal:password:",
    "    secure: v1:AAAAAAAAAAAAAAAA:BBBB",
    "  backup-portal:tenants:",
    ...tenants.map((l) => `    ${l}`),
    ...more.map((l) => `  ${l}`),
    "",
  ].join("\n");

/** One tenant with a consumer and a node whose password is the secret `webPassword`. */
const ACME = (tz = "UTC", domain = "STANDARD", extra: string[] = []) => [
  "acme:",
  '  registrationNumber: "556000-0001"',
  `  timeZone: ${tz}`,
  ...extra.map((l) => `  ${l}`),
  "  consumers:",
  "    web:",
  "      node:",
  "        operatingSystem: Linux",
  "        type: File server",
  `        domain: ${domain}`,
  "        cpuCount: 1",
  "        passwordSecret: webPassword",
];
const WEB_SECRET = ["backup-portal:webPassword:", "  secure: v1:AAAAAAAAAAAAAAAA:CCCC"];
const VALID = stackFile(ACME(), WEB_SECRET);

interface Outcome {
  code: number | null;
  out: string;
  err: string;
}

/** A project folder: Pulumi.yaml and the stack files by name (in stacks/). */
function project(files: Record<string, string>, pulumiYaml = PROJECT): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bp-validate-"));
  fs.writeFileSync(path.join(dir, "Pulumi.yaml"), pulumiYaml);
  fs.mkdirSync(path.join(dir, "stacks"));
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, "stacks", name), text);
  return dir;
}

/**
 * The real binary in `cwd`, with no portal in its environment unless `env` gives one. Asynchronous: the emulator in
 * this process must be free to answer it.
 */
function binary(args: string[], cwd: string, env: Record<string, string> = {}, timeoutMs = 90_000): Promise<Outcome> {
  return binaryIn(["validate", ...args], { cwd, env, timeoutMs });
}

/** `validate` in this process, in `cwd`, with `env` as its whole environment. */
async function inProcess(args: string[], cwd: string, env: Record<string, string> = {}): Promise<Outcome> {
  let out = "";
  let err = "";
  const code = await run(args, { out: (t) => (out += t), err: (t) => (err += t), env, cwd, errIsTTY: false });
  return { code, out, err };
}

/** What the stack program's reader says of the file: its lines, as the program prints them for `shown`. */
function programLines(text: string, shown: string): string[] {
  const read = stackFileSource(text, shown);
  return formatConfigProblems(shown, [...read.problems, ...readStackConfig(read.source).problems]);
}

describe("backup-portal validate: the stack file alone", function () {
  this.timeout(120_000);
  const dirs: string[] = [];
  after(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));
  const made = (files: Record<string, string>, pulumiYaml?: string) => {
    const d = project(files, pulumiYaml);
    dirs.push(d);
    return d;
  };

  it("a valid file, as the binary runs in the project folder: exit 0, one line counting what it declares", async () => {
    const dir = made({ "Pulumi.prod.yaml": VALID });
    const r = await binary(["stacks/Pulumi.prod.yaml"], dir);
    assert.equal(r.code, 0, r.err);
    assert.equal(
      r.out,
      "stacks/Pulumi.prod.yaml: valid: 1 business unit, 1 consumer, 1 node; not checked against a portal " +
        "(BACKUP_PORTAL_URL, BACKUP_PORTAL_ORIGIN, BACKUP_PORTAL_CLIENT_ID, BACKUP_PORTAL_USERNAME, BACKUP_PORTAL_PASSWORD are not set)\n",
    );
    assert.equal(r.err, "");
  });

  it("a misspelt key: exit 1, the program's own lines (did you mean, tenants not set), one each, no trace", async () => {
    const text = VALID.replace("backup-portal:tenants:", "backup-portal:tennants:");
    const dir = made({ "Pulumi.prod.yaml": text });
    const r = await binary([], dir);
    assert.equal(r.code, 1, r.err);
    const lines = r.out.trimEnd().split("\n");
    assert.deepEqual(lines, programLines(text, "stacks/Pulumi.prod.yaml"));
    assert.ok(lines.includes("stacks/Pulumi.prod.yaml: backup-portal:tennants: unknown key; did you mean backup-portal:tenants?"), r.out);
    assert.ok(
      lines.some((l) => l.startsWith("stacks/Pulumi.prod.yaml: backup-portal:tenants: is not set;")),
      r.out,
    );
    assert.equal(r.err, `stacks/Pulumi.prod.yaml: ${lines.length} problems; the portal was not asked (fix these first)\n`);
    assert.doesNotMatch(r.err + r.out, TRACE);
  });

  it("secure: values count as set secrets; a node password naming no secret, and a plain-text password, are problems", async () => {
    const dir = made({ "Pulumi.prod.yaml": VALID });
    const ok = await inProcess(["stacks/Pulumi.prod.yaml", "--offline"], dir);
    assert.equal(ok.code, 0, ok.out + ok.err);
    assert.equal(ok.out, "stacks/Pulumi.prod.yaml: valid: 1 business unit, 1 consumer, 1 node; not checked against a portal (--offline)\n");
    const noSecret = stackFile(ACME());
    fs.writeFileSync(path.join(dir, "stacks", "Pulumi.prod.yaml"), noSecret);
    const missing = await inProcess([], dir);
    assert.equal(missing.code, 1);
    assert.deepEqual(missing.out.trimEnd().split("\n"), programLines(noSecret, "stacks/Pulumi.prod.yaml"));
    assert.match(
      missing.out,
      /^stacks\/Pulumi\.prod\.yaml: backup-portal:tenants\.acme\.consumers\.web\.node\.passwordSecret: .*webPassword/m,
    );
    const plain = VALID.replace("  backup-portal:password:\n    secure: v1:AAAAAAAAAAAAAAAA:BBBB\n", "  backup-portal:password: hunter2\n");
    fs.writeFileSync(path.join(dir, "stacks", "Pulumi.prod.yaml"), plain);
    const shown = await inProcess([], dir);
    assert.equal(shown.code, 1);
    assert.match(shown.out, /^stacks\/Pulumi\.prod\.yaml: backup-portal:password: is stored in plain text/m);
    assert.doesNotMatch(shown.out + shown.err, /hunter2/, "a secret's value is never shown");
  });

  it("a number the Pulumi CLI reads as octal is refused as export --merge refuses it", async () => {
    const text = stackFile(ACME("UTC", "STANDARD", ["adoptId: 0123", "invoiceDay: 010"]), WEB_SECRET);
    const dir = made({ "Pulumi.prod.yaml": text });
    const r = await inProcess([], dir);
    assert.equal(r.code, 1);
    assert.deepEqual(r.out.trimEnd().split("\n"), [
      "stacks/Pulumi.prod.yaml: backup-portal:tenants.acme.adoptId: 0123 has a leading zero: the Pulumi CLI (yaml.v3) and YAML 1.1 read it as octal 83, YAML 1.2 as 123; write 123",
      "stacks/Pulumi.prod.yaml: backup-portal:tenants.acme.invoiceDay: 010 has a leading zero: the Pulumi CLI (yaml.v3) and YAML 1.1 read it as octal 8, YAML 1.2 as 10; write 10",
    ]);
  });

  it("a file that is no YAML, or no stack file: exit 1, one line with the place; a missing file: exit 2 (a bad argument)", async () => {
    const dir = made({ "Pulumi.prod.yaml": "config:\n  backup-portal:tenants: {\n  x: [\n", "Pulumi.dev.yaml": "- a list\n" });
    const broken = await inProcess(["stacks/Pulumi.prod.yaml"], dir);
    assert.equal(broken.code, 1);
    assert.equal(broken.out, "");
    assert.match(broken.err, /^backup-portal validate: stacks\/Pulumi\.prod\.yaml: not YAML the Pulumi CLI can read \(line \d+\): .+\n$/);
    const list = await inProcess(["stacks/Pulumi.dev.yaml"], dir);
    assert.equal(list.code, 1);
    assert.equal(list.err, "backup-portal validate: stacks/Pulumi.dev.yaml: a stack file is a YAML map with a config: key\n");
    const gone = await inProcess(["stacks/Pulumi.gone.yaml"], dir);
    assert.equal(gone.code, 2);
    assert.equal(gone.err.split("\n")[0], 'backup-portal validate: "stacks/Pulumi.gone.yaml": no such file or directory');
    const folder = await inProcess(["stacks"], dir);
    assert.equal(folder.code, 2);
    assert.equal(folder.err.split("\n")[0], 'backup-portal validate: "stacks" is a directory, not a stack file');
  });

  it("without a file: the project's only stack file; two, none, or no Pulumi.yaml is exit 2 saying what to give", async () => {
    const one = made({ "Pulumi.prod.yaml": VALID });
    const r = await inProcess(["--offline"], one);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /^stacks\/Pulumi\.prod\.yaml: valid:/);
    const two = made({ "Pulumi.prod.yaml": VALID, "Pulumi.dev.yaml": VALID });
    const both = await inProcess([], two);
    assert.equal(both.code, 2);
    assert.equal(
      both.err.split("\n")[0],
      "backup-portal validate: stacks holds 2 stack files (Pulumi.dev.yaml, Pulumi.prod.yaml): give one, or --stack <name>",
    );
    const none = made({});
    assert.equal(
      (await inProcess([], none)).err.split("\n")[0],
      "backup-portal validate: no Pulumi.<stack>.yaml in stacks: give the stack file",
    );
    const bare = fs.mkdtempSync(path.join(os.tmpdir(), "bp-validate-bare-"));
    dirs.push(bare);
    const noProject = await inProcess([], bare);
    assert.equal(noProject.code, 2);
    assert.equal(noProject.err.split("\n")[0], `backup-portal validate: give the stack file (no Pulumi.yaml in ${bare} to find it from)`);
    // Without stackConfigDir the stack files sit beside Pulumi.yaml.
    const flat = made({}, "name: backup-portal\nruntime: nodejs\n");
    fs.writeFileSync(path.join(flat, "Pulumi.prod.yaml"), VALID);
    const beside = await inProcess(["--offline"], flat);
    assert.equal(beside.code, 0, beside.err);
    assert.match(beside.out, /^Pulumi\.prod\.yaml: valid:/);
  });

  it("bad arguments: exit 2 (two files, a file and --stack, an unknown option); the file after an option's value is the file", async () => {
    const dir = made({ "Pulumi.prod.yaml": VALID });
    for (const args of [["a.yaml", "b.yaml"], ["a.yaml", "--stack", "prod"], ["--offlin"]]) {
      const r = await inProcess(args, dir);
      assert.equal(r.code, 2, `${args.join(" ")}: ${r.err}`);
      assert.match(r.err, /^backup-portal validate: /);
    }
    assert.deepEqual(splitFile(["--timeout", "5", "x.yaml", "--offline"]), { options: ["--timeout", "5", "--offline"], files: ["x.yaml"] });
    assert.deepEqual(splitFile(["--timeout=5", "--", "-odd.yaml"]), { options: ["--timeout=5"], files: ["-odd.yaml"] });
  });
});

describe("backup-portal validate: against the portal (reads only)", function () {
  this.timeout(120_000);
  let emu: Emulator;
  let dir: string;
  before(async () => {
    emu = await startEmulator({ quiet: true });
    dir = project({ "Pulumi.prod.yaml": VALID });
  });
  after(async () => {
    fs.rmSync(dir, { recursive: true, force: true });
    await emu?.close();
  });

  it("a file whose names the portal has: exit 0, checked against the portal, not one write", async () => {
    const r = await binary([], dir, envFor(emu));
    assert.equal(r.code, 0, r.err);
    assert.equal(
      r.out,
      `stacks/Pulumi.prod.yaml: valid: 1 business unit, 1 consumer, 1 node; names and ids checked against ${emu.url} (reads only)\n`,
    );
    assert.ok(
      emu.requests().some((q) => q.method === "GET" && q.path.startsWith("/v1/")),
      "it asked the portal",
    );
    assert.deepEqual(writes(emu), []);
  });

  it("names and ids the portal lacks: exit 1, the program's own lines at their key paths, no write", async () => {
    const text = stackFile(ACME("Mars/Olympus", "NODOMAIN", ["adoptId: 99"]), WEB_SECRET);
    fs.writeFileSync(path.join(dir, "stacks", "Pulumi.prod.yaml"), text);
    const mark = emu.requests().length;
    const r = await inProcess([], dir, envFor(emu));
    assert.equal(r.code, 1, r.err);
    const lines = r.out.trimEnd().split("\n");
    // The program's check (the stack program runs the same function before its first resource).
    const client = clientFor(emu);
    try {
      const tenants = readStackConfig(stackFileSource(text, "x").source).config!.tenants as TenantsConfig;
      assert.deepEqual(lines, formatConfigProblems("stacks/Pulumi.prod.yaml", await validateNames(tenants, new References(client), 1)));
    } finally {
      client.close();
    }
    const paths = lines.map((l) => l.split(": ")[1]);
    assert.deepEqual(paths, [
      "backup-portal:tenants.acme.adoptId",
      "backup-portal:tenants.acme.consumers.web.node.domain",
      "backup-portal:tenants.acme.timeZone",
    ]);
    assert.equal(r.err, `stacks/Pulumi.prod.yaml: 3 problems on the portal ${emu.url}\n`);
    assert.ok(emu.requests().length > mark);
    assert.deepEqual(writes(emu), []);
    fs.writeFileSync(path.join(dir, "stacks", "Pulumi.prod.yaml"), VALID);
  });

  it("a node type its operating system does not support (issue 45 item 6): exit 1, one line at type naming the fix", async () => {
    const text = VALID.replace("operatingSystem: Linux", "operatingSystem: Windows server").replace(
      "type: File server",
      "type: Workstation",
    );
    fs.writeFileSync(path.join(dir, "stacks", "Pulumi.prod.yaml"), text);
    try {
      const r = await binary([], dir, envFor(emu));
      assert.equal(r.code, 1, r.err);
      assert.equal(
        r.out,
        'stacks/Pulumi.prod.yaml: backup-portal:tenants.acme.consumers.web.node.type: node type "Workstation" is not one operating ' +
          'system "Windows server" supports; the portal lists for it: File server, Application server: set type to one of them, ' +
          "or choose another operatingSystem\n",
      );
      assert.equal(r.err, `stacks/Pulumi.prod.yaml: 1 problem on the portal ${emu.url}\n`);
      assert.deepEqual(writes(emu), []);
    } finally {
      fs.writeFileSync(path.join(dir, "stacks", "Pulumi.prod.yaml"), VALID);
    }
  });

  it("the file's own connection keys, the password from the environment: as the program resolves them", async () => {
    const text = VALID.replace(
      "  backup-portal:rootBusinessUnitId: 1\n",
      `  backup-portal:rootBusinessUnitId: 1\n  backup-portal:url: ${emu.url}\n  backup-portal:origin: http://localhost\n` +
        "  backup-portal:clientId: emulator\n  backup-portal:username: admin\n",
    );
    fs.writeFileSync(path.join(dir, "stacks", "Pulumi.prod.yaml"), text);
    try {
      const r = await inProcess([], dir, { BACKUP_PORTAL_PASSWORD: "admin" });
      assert.equal(r.code, 0, r.out + r.err);
      assert.match(r.out, new RegExp(`names and ids checked against ${emu.url.replace(/[.]/g, "\\.")} \\(reads only\\)\n$`));
    } finally {
      fs.writeFileSync(path.join(dir, "stacks", "Pulumi.prod.yaml"), VALID);
    }
  });

  it("--offline, or a connection not set: the portal is not asked", async () => {
    const mark = emu.requests().length;
    const off = await inProcess(["--offline"], dir, envFor(emu));
    assert.equal(off.code, 0, off.err);
    const { BACKUP_PORTAL_PASSWORD: _, ...noPassword } = envFor(emu);
    const unset = await inProcess([], dir, noPassword);
    assert.equal(unset.code, 0, unset.err);
    assert.match(unset.out, /not checked against a portal \(BACKUP_PORTAL_PASSWORD is not set\)\n$/);
    assert.equal(emu.requests().length, mark, "no request");
  });

  it("a portal that refuses the login: exit 1, one line, no trace", async () => {
    const r = await inProcess([], dir, { ...envFor(emu), BACKUP_PORTAL_PASSWORD: "wrong" });
    assert.equal(r.code, 1);
    assert.equal(r.err.trimEnd().split("\n").length, 1, r.err);
    assert.match(r.err, /^backup-portal validate: /);
    assert.doesNotMatch(r.err, TRACE);
    assert.doesNotMatch(r.err, /wrong/);
  });
});
