import { strict as assert } from "assert";
import { spawnSync } from "child_process";
import * as fs from "fs";
import * as path from "path";
import { ConfigMap } from "../../stacks/fleet/config";
import { main, parseArgs } from "../../stacks/fleet/main";
import { CreateStack, StackLike } from "../../stacks/fleet/run";
import { ROOT, tmpDir } from "./helpers";
import { tenantLines } from "../support/tenant-lines";

interface Extra {
  createStack?: CreateStack;
  readBaseSecrets?: (s: string, w: string, k: string[]) => Promise<Record<string, string>>;
  listStacks?: (workDir: string) => Promise<string[]>;
}

async function run(argv: string[], extra: Extra = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, { out: (l) => out.push(l), err: (l) => err.push(l), ...extra });
  return { code, out: out.join("\n"), err: err.join("\n") };
}

const PROD = path.join(ROOT, "stacks/Pulumi.prod.yaml");
const LOCAL = path.join(ROOT, "stacks/Pulumi.local.yaml");

/** Fake stacks; `existing` are the stacks `pulumi stack ls` lists. */
function fakeStacks(fail: string[] = [], existing: string[] = []) {
  const configs = new Map<string, ConfigMap>();
  const workDirs = new Set<string>();
  const listStacks = async (workDir: string) => {
    workDirs.add(workDir);
    return existing;
  };
  const createStack: CreateStack = async (name, workDir) => {
    workDirs.add(workDir);
    const stack: StackLike = {
      setAllConfig: async (c) => void configs.set(name, c),
      preview: async (o) => {
        o?.onOutput?.(`Previewing ${name}\n`);
        if (fail.includes(name)) throw new Error("error: boom");
        return { changeSummary: { create: 1 } };
      },
      up: async () => ({ summary: { resourceChanges: { update: 1 } } }),
      destroy: async () => ({ summary: { resourceChanges: { delete: 1 } } }),
      refresh: async () => ({ summary: { resourceChanges: { same: 1 } } }),
    };
    return stack;
  };
  return { configs, workDirs, createStack, listStacks };
}

/** A project in a temporary directory: Pulumi.yaml and stacks/ with the given files. */
function project(files: Record<string, string[]>): string {
  const dir = tmpDir();
  fs.mkdirSync(path.join(dir, "stacks"));
  fs.writeFileSync(path.join(dir, "Pulumi.yaml"), "name: backup-portal\nruntime: nodejs\nmain: stacks/\nstackConfigDir: stacks\n");
  for (const [name, lines] of Object.entries(files)) fs.writeFileSync(path.join(dir, "stacks", name), lines.join("\n"));
  return dir;
}

const TENANT = (key: string) => [`    ${key}:`, '      registrationNumber: "1"', "      timeZone: UTC"];

const tenantsOfStack = (c: ConfigMap) => Object.keys(JSON.parse(c["backup-portal:tenants"].value));

describe("fleet: the command line (stacks/fleet/main.ts)", () => {
  it("prints the grouping without the Pulumi CLI", async () => {
    const r = await run(["--config", LOCAL, "--groups", "4", "groups"]);
    assert.equal(r.code, 0, r.err);
    const lines = r.out.split("\n");
    assert.deepEqual(
      lines.map((l) => l.split("\t")[0]),
      ["local-g00", "local-g01", "local-g02", "local-g03"],
    );
    assert.equal(lines.filter((l) => /acme/.test(l)).length, 1);
    assert.equal(lines.filter((l) => /globex/.test(l)).length, 1);
    const prefixed = await run(["--config", LOCAL, "--by-prefix", "--org", "acme", "groups"]);
    assert.match(prefixed.out, /^acme\/local-acme\t1 tenant: acme$/m);
  });

  it("runs a preview on every group with its config, and exits 1 when one fails", async () => {
    const fake = fakeStacks(["acme/local-g01"]);
    const r = await run(["--config", LOCAL, "--groups", "3", "--org", "acme", "--no-base-secrets", "preview"], {
      createStack: fake.createStack,
      listStacks: fake.listStacks,
    });
    assert.equal(r.code, 1);
    assert.deepEqual([...fake.configs.keys()].sort(), ["acme/local-g00", "acme/local-g01", "acme/local-g02"]);
    assert.deepEqual([...fake.workDirs], [ROOT], "the project directory is found from the stack file");
    const all = [...fake.configs.values()].flatMap((c) => Object.keys(JSON.parse(c["backup-portal:tenants"].value)));
    assert.deepEqual(all.sort(), ["acme", "globex"]);
    assert.match(r.out, /^\[g00\] Previewing acme\/local-g00$/m);
    assert.match(r.out, /^acme\/local-g01\s+FAILED\s+error: boom$/m);
    assert.match(r.out, /preview: 2 of 3 stacks ok; changes planned: \+2 ~0 -0 \+-0 =0; failed: g01$/);
  });

  it("copies the base stack's secrets into the groups that need them", async () => {
    const dir = project({
      "Pulumi.prod.yaml": ["config:", "  backup-portal:url: https://portal.example.com", "  backup-portal:tenants: {}"],
      "fleet.yaml": [
        "config:",
        "  backup-portal:url: https://portal.example.com",
        "  backup-portal:password:",
        "    secure: v1:pw",
        "  nodePw:",
        "    secure: v1:node",
        "  backup-portal:tenants:",
        "    acme:",
        '      registrationNumber: "1"',
        "      timeZone: UTC",
        "      consumers:",
        "        web:",
        "          node:",
        "            operatingSystem: Linux",
        "            type: File server",
        "            domain: STANDARD",
        "            cpuCount: 1",
        "            passwordSecret: nodePw",
      ],
    });
    const fake = fakeStacks();
    let asked: { stack: string; keys: string[] } | undefined;
    const r = await run(
      ["--config", path.join(dir, "stacks", "fleet.yaml"), "--stack-prefix", "prod", "--groups", "1", "--quiet", "up", "--yes"],
      {
        createStack: fake.createStack,
        listStacks: fake.listStacks,
        readBaseSecrets: async (stack, workDir, keys) => {
          assert.equal(workDir, dir);
          asked = { stack, keys };
          return { "backup-portal:password": "pw", "backup-portal:nodePw": "n" };
        },
      },
    );
    assert.equal(r.code, 0, r.err);
    assert.deepEqual(asked, { stack: "prod", keys: ["backup-portal:nodePw", "backup-portal:password"] });
    const cfg = fake.configs.get("prod-g00")!;
    assert.deepEqual(cfg["backup-portal:password"], { value: "pw", secret: true });
    assert.deepEqual(cfg["backup-portal:nodePw"], { value: "n", secret: true });
    assert.ok(!r.out.includes("[g00]"), "--quiet leaves out the engine output");
    assert.equal(r.err, "[g00] done +0 ~1 -0 +-0 =0");
    assert.match(r.out, /up: 1 of 1 stacks ok; changes made: \+0 ~1 -0 \+-0 =0$/);
  });

  it("refuses up while the base stack still declares tenants, whether or not --config is its file", async () => {
    const dir = project({
      "Pulumi.prod.yaml": ["config:", "  backup-portal:url: https://portal.example.com", "  backup-portal:tenants:", ...TENANT("acme")],
      "fleet.yaml": [
        "config:",
        "  backup-portal:url: https://portal.example.com",
        "  backup-portal:tenants:",
        ...TENANT("acme"),
        ...TENANT("globex"),
      ],
    });
    const fleetFile = path.join(dir, "stacks", "fleet.yaml");
    for (const argv of [
      ["--config", fleetFile, "--stack-prefix", "acme/prod", "--groups", "2", "up", "--yes"],
      ["--config", path.join(dir, "stacks", "Pulumi.prod.yaml"), "--org", "acme", "--groups", "2", "up", "--yes"],
      ["--config", fleetFile, "--stack-prefix", "acme/fleet", "--base-stack", "acme/prod", "--groups", "2", "up", "--yes"],
    ]) {
      const fake = fakeStacks();
      const r = await run(argv, { createStack: fake.createStack, listStacks: fake.listStacks, readBaseSecrets: async () => ({}) });
      assert.equal(r.code, 1, argv.join(" "));
      assert.match(
        r.err,
        /^up refused, no stack was touched: stack acme\/prod still declares 1 tenant \(.*Pulumi\.prod\.yaml\); .*must declare none \(tenants: \{\}\)/,
      );
      assert.equal(fake.configs.size, 0, "no stack was touched");
    }
    const fake = fakeStacks();
    const preview = await run(["--config", fleetFile, "--stack-prefix", "acme/prod", "--groups", "2", "--quiet", "preview"], {
      createStack: fake.createStack,
      listStacks: fake.listStacks,
    });
    assert.equal(preview.code, 0, preview.err);
    assert.match(preview.err, /^note: stack acme\/prod still declares 1 tenant .*; up refuses until then$/m);
    assert.equal(fake.configs.size, 2);
  });

  it("finds the stacks of groups that disappeared: preview lists them and fails, up refuses, --prune runs them with no tenants", async () => {
    const dir = project({
      "Pulumi.prod.yaml": ["config:", "  backup-portal:url: https://portal.example.com", "  backup-portal:tenants: {}"],
      "fleet.yaml": [
        "config:",
        "  backup-portal:url: https://portal.example.com",
        "  backup-portal:tenants:",
        ...TENANT("r1-acme"),
        ...TENANT("r1-globex"),
      ],
    });
    const argv = ["--config", path.join(dir, "stacks", "fleet.yaml"), "--stack-prefix", "acme/prod", "--by-prefix", "--quiet"];
    // r2's last tenant was removed; prod is the base stack, other/prod-r3 another organization's.
    const existing = ["acme/prod", "acme/prod-r1", "acme/prod-r2", "other/prod-r3"];

    let fake = fakeStacks([], existing);
    const preview = await run([...argv, "preview"], { createStack: fake.createStack, listStacks: fake.listStacks });
    assert.equal(preview.code, 1);
    assert.deepEqual([...fake.configs.keys()], ["acme/prod-r1"], "the groups still run; the stale stack is not touched");
    assert.deepEqual([...fake.workDirs], [dir]);
    assert.match(
      preview.out,
      /^1 existing stack of the fleet is not in this grouping: acme\/prod-r2\. No run of the fleet manages its tenants any more/m,
    );
    assert.match(preview.out, /with --prune .*then `pulumi stack rm` it/);
    assert.match(preview.err, /^preview: 1 stack of the fleet not in the grouping \(see the report\); up refuses until then$/m);

    fake = fakeStacks([], existing);
    const up = await run([...argv, "up", "--yes"], { createStack: fake.createStack, listStacks: fake.listStacks });
    assert.equal(up.code, 1);
    assert.match(up.err, /^up refused, no stack was touched: 1 existing stack of the fleet is not in this grouping: acme\/prod-r2\./);
    assert.equal(fake.configs.size, 0);

    for (const command of [["preview"], ["up", "--yes"]]) {
      fake = fakeStacks([], existing);
      const pruned = await run([...argv, "--prune", ...command], { createStack: fake.createStack, listStacks: fake.listStacks });
      assert.equal(pruned.code, 0, pruned.err);
      assert.deepEqual([...fake.configs.keys()].sort(), ["acme/prod-r1", "acme/prod-r2"]);
      assert.deepEqual(tenantsOfStack(fake.configs.get("acme/prod-r2")!), [], "the stale stack runs with no tenants");
      assert.deepEqual(fake.configs.get("acme/prod-r2")!["backup-portal:url"], { value: "https://portal.example.com" });
      assert.match(pruned.out, /^not in the grouping, run with no tenants \(--prune\): acme\/prod-r2; /m);
    }

    // Fewer hash buckets: g02 is left over. Unqualified names from `pulumi stack ls` count too.
    fake = fakeStacks([], ["prod-g00", "prod-g01", "prod-g02"]);
    const shrunk = await run(
      ["--config", path.join(dir, "stacks", "fleet.yaml"), "--stack-prefix", "acme/prod", "--groups", "2", "up", "--yes"],
      { createStack: fake.createStack, listStacks: fake.listStacks },
    );
    assert.equal(shrunk.code, 1);
    assert.match(shrunk.err, /not in this grouping: acme\/prod-g02\./);
  });

  it("asks for --yes before up or destroy, and explains usage mistakes", async () => {
    const up = await run(["--config", PROD, "--groups", "8", "up"]);
    assert.equal(up.code, 2);
    assert.match(up.err, /^up changes 8 stacks; run preview first, then add --yes/);
    assert.match((await run(["--config", PROD, "preview"])).err, /exactly one of --groups <N>, --by-prefix, --assign <file>/);
    assert.match((await run(["--groups", "2", "preview"])).err, /--config <stack file> is required/);
    assert.match((await run(["--config", PROD, "--groups", "2", "deploy"])).err, /unknown command "deploy"/);
    assert.match((await run(["--config", PROD, "--groups", "zero", "groups"])).err, /--groups must be a whole number/);
    assert.match((await run(["--help"])).out, /^usage: ts-node stacks\/fleet\/main.ts/);
    assert.throws(() => parseArgs(["--bogus"]), /unknown option --bogus/);
    assert.deepEqual(parseArgs(["--config=x.yaml", "--groups", "3", "preview"]).flags.get("config"), "x.yaml");
  });

  it("reports tenant problems and grouping problems before touching any stack", async () => {
    const dir = tmpDir();
    const bad = path.join(dir, "Pulumi.bad.yaml");
    fs.writeFileSync(bad, "config:\n  backup-portal:tenants:\n    acme:\n      timeZone: UTC\n");
    const r = await run(["--config", bad, "--groups", "2", "preview"], { createStack: fakeStacks().createStack });
    assert.equal(r.code, 1);
    assert.match(
      r.err,
      /^.*Pulumi\.bad\.yaml: the stack config has 1 problem; no stack was touched:\nPulumi\.bad\.yaml: backup-portal:tenants\.acme\.registrationNumber: is required/,
    );
    // The base file's own keys as the program checks them: a misspelt tenants key would give every group no tenant.
    fs.writeFileSync(bad, "config:\n  backup-portal:tennants:\n    acme: {}\n  aws:region: eu-north-1\n  nodePw:\n    secure: v1:x\n");
    const typo = await run(["--config", bad, "--groups", "2", "preview"], { createStack: fakeStacks().createStack });
    assert.equal(typo.code, 1);
    assert.deepEqual(typo.err.split("\n").slice(1), [
      "Pulumi.bad.yaml: backup-portal:nodePw: unknown key: a secret that no passwordSecret, passwordSecretKey or billingReceiver.secretKey " +
        "names; name it there, or remove it: `pulumi config rm backup-portal:nodePw`",
      "Pulumi.bad.yaml: backup-portal:tenants: is not set; declare the stack's tenants under backup-portal:tenants, or write " +
        "`backup-portal:tenants: {}` to declare none on purpose (an absent key would plan to delete every tenant the stack manages)",
      "Pulumi.bad.yaml: backup-portal:tennants: unknown key; did you mean backup-portal:tenants?",
    ]);
    const assign = path.join(dir, "groups.yaml");
    fs.writeFileSync(assign, "a: [acme, globex]\nb: [acme]\n");
    const g = await run(["--config", LOCAL, "--assign", assign, "groups"]);
    assert.equal(g.code, 1);
    assert.match(g.err, /tenant "acme" is in groups "a" and "b"/);
  });

  it("prints operator Stack manifests", async () => {
    const r = await run([
      "--config",
      PROD,
      "--groups",
      "2",
      "--org",
      "acme",
      "operator",
      "--repo",
      "https://github.com/acme/bp",
      "--namespace",
      "ops",
    ]);
    assert.equal(r.code, 0, r.err);
    const docs: any[] = [];
    (require("js-yaml") as { loadAll(s: string, cb: (d: unknown) => void): void }).loadAll(r.out, (d) => docs.push(d));
    assert.deepEqual(
      docs.map((d) => d.spec.stack),
      ["acme/prod-g00", "acme/prod-g01"],
    );
    assert.ok(
      docs.every((d) => d.kind === "Stack" && d.metadata.namespace === "ops" && d.spec.config["backup-portal:registry"] === undefined),
    );
  });

  it("says in one line that the Pulumi CLI is missing", function () {
    this.timeout(60000);
    const res = spawnSync(
      process.execPath,
      [
        require.resolve("ts-node/dist/bin.js"),
        "--transpile-only",
        "--project",
        path.join(ROOT, "tsconfig.json"),
        path.join(ROOT, "stacks/fleet/main.ts"),
        "--config",
        PROD,
        "--groups",
        "8",
        "preview",
      ],
      { cwd: ROOT, env: { ...process.env, PATH: tmpDir() }, encoding: "utf8" },
    );
    assert.equal(res.status, 1, res.stderr);
    const lines = res.stderr.split("\n").filter((l) => l.trim());
    assert.equal(lines.length, 1, res.stderr);
    assert.match(
      lines[0],
      /^the fleet needs the Pulumi CLI, which is not installed here or could not be downloaded: install it \(curl -fsSL https:\/\/get\.pulumi\.com \| sh, or brew install pulumi\)/,
    );
    assert.equal(res.stdout, "");
  });
});

describe("fleet: group stacks too large for the Node.js runtime's one config variable", function () {
  this.timeout(60_000);

  /** A base stack file of `n` tenants, each a business unit with two consumers and nodes. */
  const baseFile = (n: number): string[] => [
    "config:",
    "  backup-portal:url: https://portal.example.com",
    "  backup-portal:rootBusinessUnitId: 1",
    "  backup-portal:tenants:",
    ...tenantLines(n),
  ];

  it("preview, up and operator refuse before touching a stack, a line per group naming the stack, its size and the --groups that fits", async () => {
    const dir = project({ "Pulumi.prod.yaml": ["config:", "  backup-portal:tenants: {}"], "fleet.yaml": baseFile(800) });
    const file = path.join(dir, "stacks", "fleet.yaml");
    const fake = fakeStacks();
    const io = { createStack: fake.createStack, listStacks: fake.listStacks };
    const preview = await run(["--config", file, "--stack-prefix", "prod", "--groups", "2", "--no-base-secrets", "preview"], io);
    assert.equal(preview.code, 1, preview.out + preview.err);
    const lines = preview.err.split("\n");
    assert.equal(lines.length, 3, preview.err);
    for (const [i, stack] of ["prod-g00", "prod-g01"].entries()) {
      assert.match(
        lines[i],
        new RegExp(
          `^stack ${stack}: the config the Pulumi CLI hands a Node\\.js program would be [\\d,]+ bytes \\(PULUMI_CONFIG: \\d+ tenants at about [\\d,]+ bytes each\\), over Linux's 131,072`,
        ),
      );
      assert.match(
        lines[i],
        /a group holds at most \d+ tenants of this size: use more groups \(--groups \d+ leaves each about half full\)/,
      );
    }
    assert.equal(lines[2], "preview refused, no stack was touched: 2 group stacks too large to run");
    assert.equal(fake.configs.size, 0, "no stack was given config");

    const up = await run(["--config", file, "--stack-prefix", "prod", "--groups", "2", "--no-base-secrets", "up", "--yes"], io);
    assert.equal(up.code, 1);
    assert.match(up.err, /^up refused, no stack was touched: 2 group stacks too large to run$/m);
    assert.equal(fake.configs.size, 0);

    const operator = await run([
      "--config",
      file,
      "--stack-prefix",
      "prod",
      "--groups",
      "2",
      "--repo",
      "https://git.example.com/p.git",
      "operator",
    ]);
    assert.equal(operator.code, 1);
    assert.equal(operator.out, "", "no manifest written");

    // The number of groups the message gives runs: every group fits.
    const groups = /--groups (\d+) leaves/.exec(lines[0])![1];
    const fits = await run(["--config", file, "--stack-prefix", "prod", "--groups", groups, "--no-base-secrets", "--quiet", "preview"], io);
    assert.equal(fits.code, 0, fits.err);
    assert.equal(fake.configs.size, Number(groups));
  });
});
