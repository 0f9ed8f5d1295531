// The examples a user copies (examples/*) run: each program under the SDK's mocks, with
// `backup-portal-pulumi` resolved to this repository's provider/ (as a user's node_modules would hold
// it), and what it registers is checked; the tenants-as-data stack file passes the product's validation, and
// its one-line program (index.js, nothing to compile) reads it. The examples installed from the packed tarball:
// scripts/pack-smoke.sh (the TypeScript ones compiled with their own tsconfig.json, declarations checked,
// typescript-resources by its `npm run build`) and test/real-engine/tenants-example.test.ts.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { parse as parseYaml } from "yaml";
import { validateTenants } from "../../provider/tenants/validate";
import { namesOf } from "../../provider/tenants/names";
import { readStackConfig } from "../../provider/stack-config/read";
import { isSecretValue, unwrap, valueOf } from "../support/mocks";
import { startEmulator, stackConfigFor } from "../support/portal";

const ROOT = path.join(__dirname, "..", "..");
const EXAMPLES = path.join(ROOT, "examples");
const Module = require("node:module") as { _resolveFilename(request: string, ...rest: unknown[]): string };

/** `backup-portal-pulumi` and its subpaths → provider/ (the package's exports map them to dist/provider/ alike). */
function withPackageResolved<T>(run: () => T): T {
  const original = Module._resolveFilename;
  Module._resolveFilename = function (request: string, ...rest: unknown[]) {
    const m = /^backup-portal-pulumi(?:\/(\w+))?$/.exec(request);
    if (m) return path.join(ROOT, "provider", m[1] ? `${m[1]}/index.ts` : "index.ts");
    return original.call(this, request, ...rest);
  };
  try {
    return run();
  } finally {
    Module._resolveFilename = original;
  }
}

interface Registered {
  type: string;
  name: string;
  inputs: Record<string, any>;
}

/** Runs examples/<dir>/index.ts under mocks with `config` (project keys) and returns what it registered. */
async function runExample(dir: string, config: Record<string, string>, expected: number): Promise<Registered[]> {
  const project = (parseYaml(fs.readFileSync(path.join(EXAMPLES, dir, "Pulumi.yaml"), "utf8")) as { name: string }).name;
  const seen: Registered[] = [];
  await pulumi.runtime.setMocks(
    {
      newResource: (args) => {
        seen.push({ type: args.type, name: args.name, inputs: args.inputs });
        // Outputs a real create would add: the ids the example passes on.
        const ids = { businessUnitId: 1001, consumerId: 2000 + seen.length };
        return { id: `${args.name}-id`, state: { ...ids, ...args.inputs } };
      },
      call: (args) => args.inputs,
    },
    project,
    "dev",
    false,
  );
  for (const [k, v] of Object.entries(config)) pulumi.runtime.setConfig(`${project}:${k}`, v);
  const file = path.join(EXAMPLES, dir, "index.ts");
  delete require.cache[require.resolve(file)];
  withPackageResolved(() => require(file));
  const deadline = Date.now() + 15_000;
  while (seen.length < expected && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  return seen;
}

/** The example's stack file as the CLI hands it to the program (values as text, objects as JSON), its two secrets set. */
function tenantsExampleConfig(): Record<string, string> {
  const stack = parseYaml(fs.readFileSync(path.join(EXAMPLES, "tenants-as-data", "Pulumi.dev.yaml"), "utf8")) as {
    config: Record<string, unknown>;
  };
  const asText = (v: unknown) => (typeof v === "string" ? v : JSON.stringify(v));
  return {
    ...Object.fromEntries(Object.entries(stack.config).map(([k, v]) => [k, asText(v)])),
    "backup-portal:password": "portal-Password-1",
    "backup-portal:web01Password": "node-Password-1",
  };
}

/**
 * Runs examples/tenants-as-data/index.js as the runtime does (it exports a function; the runtime calls it and awaits
 * the stack's outputs) under mocks, with the whole stack config `config`, its passwords secret.
 */
async function runTenantsExample(
  config: Record<string, string>,
  expected: number,
): Promise<{ seen: Registered[]; outputs?: Record<string, pulumi.Output<any>>; error?: Error }> {
  const seen: Registered[] = [];
  await pulumi.runtime.setMocks(
    {
      newResource: (args) => {
        seen.push({ type: args.type, name: args.name, inputs: args.inputs });
        return { id: `${args.name}-id`, state: { businessUnitId: 1001, consumerId: 2000 + seen.length, ...args.inputs } };
      },
      call: (args) => args.inputs,
    },
    "backup-portal-tenants",
    "dev",
    false,
  );
  pulumi.runtime.setAllConfig(config, ["backup-portal:password", "backup-portal:web01Password"]);
  try {
    const file = path.join(EXAMPLES, "tenants-as-data", "index.js");
    delete require.cache[require.resolve(file)];
    const program = withPackageResolved(() => require(file)) as () => Promise<Record<string, pulumi.Output<any>>>;
    const outcome = await program().then(
      (outputs) => ({ outputs }),
      (error: Error) => ({ error }),
    );
    const deadline = Date.now() + 15_000;
    while (seen.length < expected && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    return { seen, ...outcome };
  } finally {
    pulumi.runtime.setAllConfig({});
  }
}

const byName = (seen: Registered[], name: string) => {
  const r = seen.find((x) => x.name === name);
  assert.ok(r, `${name} registered (got ${seen.map((x) => x.name).join(", ")})`);
  return r;
};

describe("examples/: the projects a user copies", function () {
  this.timeout(60_000);

  /** Each example's project: its files, and the program Pulumi.yaml runs (`main`) and whether ts-node compiles it. */
  const PROJECTS = {
    // Compiled ahead (`npm run build`, tsc into bin/): the runtime runs the output as it is.
    "typescript-resources": { files: ["index.ts", "tsconfig.json"], main: "bin/index.js", typescript: false },
    // Plain JavaScript, one line: nothing to compile, no tsconfig.json, no typescript.
    "tenants-as-data": { files: ["index.js"], main: "index.js", typescript: false },
    registry: { files: ["index.ts", "tsconfig.json"], main: "index.ts", typescript: true },
  } as const;

  for (const [dir, project] of Object.entries(PROJECTS)) {
    it(`${dir}: a complete project (Pulumi.yaml, package.json depending on backup-portal-pulumi, ${project.files.join(", ")}, README)`, () => {
      for (const f of ["Pulumi.yaml", "package.json", "README.md", ...project.files]) {
        assert.ok(fs.existsSync(path.join(EXAMPLES, dir, f)), f);
      }
      const pkg = JSON.parse(fs.readFileSync(path.join(EXAMPLES, dir, "package.json"), "utf8"));
      assert.ok(pkg.dependencies["backup-portal-pulumi"], "depends on the package");
      const yaml = parseYaml(fs.readFileSync(path.join(EXAMPLES, dir, "Pulumi.yaml"), "utf8")) as {
        main: string;
        runtime: { options: { typescript: boolean } };
      };
      assert.deepEqual([yaml.main, yaml.runtime.options.typescript], [project.main, project.typescript]);
      // package.json names the same entry (Pulumi.yaml's main wins; a user who drops it still runs the program).
      assert.equal(pkg.main, project.main);
      if (!fs.existsSync(path.join(EXAMPLES, dir, "tsconfig.json"))) {
        assert.equal(pkg.devDependencies?.typescript, undefined, "no typescript to install for a JavaScript program");
        return;
      }
      // Strict, as a project from the Pulumi TypeScript template, and the package's declarations checked too.
      const options = JSON.parse(fs.readFileSync(path.join(EXAMPLES, dir, "tsconfig.json"), "utf8")).compilerOptions;
      assert.equal(options.strict, true);
      assert.equal(options.skipLibCheck, undefined);
      if (project.main.startsWith("bin/")) {
        // Compiled ahead: `npm run build` (which the GitOps workflows run before Pulumi) writes what main names.
        assert.equal(pkg.scripts?.build, "tsc");
        assert.equal(options.outDir, "bin");
      }
    });
  }

  it("type-check against the package's types (examples/tsconfig.json maps backup-portal-pulumi to provider/)", function () {
    this.timeout(180_000);
    const tsc = path.join(ROOT, "node_modules", "typescript", "bin", "tsc");
    const r = require("node:child_process").spawnSync(process.execPath, [tsc, "-p", path.join(EXAMPLES, "tsconfig.json")], {
      encoding: "utf8",
      timeout: 170_000,
    });
    assert.equal(r.status, 0, `tsc -p examples: ${r.stdout}${r.stderr}`);
  });

  it("typescript-resources: a business unit, two consumers with their nodes and a proxy, the passwords secret", async () => {
    const seen = await runExample(
      "typescript-resources",
      { parentBusinessUnitId: "1000", web01Password: "pw-web", proxy01Password: "pw-proxy" },
      6,
    );
    assert.deepEqual(seen.map((r) => `${r.type.replace("pulumi-nodejs:dynamic/", "")}:${r.name}`).sort(), [
      "backup-portal:BusinessUnit:acme",
      "backup-portal:Consumer:proxy01",
      "backup-portal:Consumer:web01",
      "backup-portal:Node:proxy01",
      "backup-portal:Node:web01",
      "backup-portal:NodeProxy:proxy01-for-web01",
    ]);
    const bu = byName(seen, "acme").inputs;
    assert.deepEqual([bu.parentId, bu.name, bu.timeZone, bu.invoiceDay], [1000, "Acme AB", "W. Europe Standard Time", 1]);
    const web = seen.find((r) => r.name === "web01" && r.type.endsWith("Node"))!.inputs;
    assert.deepEqual([web.businessUnitId, web.tsmName, web.cpuCount, web.domain], [1001, "ACME-WEB01", 4, "STANDARD"]);
    assert.ok(isSecretValue(web.tsmPassword), "the node password reaches the engine as a secret");
    assert.equal(unwrap(web.tsmPassword), "pw-web");
    const consumer = seen.find((r) => r.name === "web01" && r.type.endsWith("Consumer"))!.inputs;
    assert.deepEqual([consumer.nodeName, consumer.name], ["ACME-WEB01", "web01.acme.example"]);
    const proxy = byName(seen, "proxy01-for-web01").inputs;
    assert.notEqual(proxy.agentConsumerId, proxy.targetConsumerId);
  });

  it("registry: the namespace, config.json, the htpasswd Secret and the chart with the example's values", async () => {
    const seen = await runExample("registry", { ciPassword: "ci-password-1", readerPassword: "reader-password-1" }, 4);
    const ns = seen.find((r) => r.type === "kubernetes:core/v1:Namespace")!;
    assert.equal(ns.inputs.metadata.name, "registry");
    const cm = seen.find((r) => r.type === "kubernetes:core/v1:ConfigMap")!;
    const zot = JSON.parse(cm.inputs.data["config.json"]);
    assert.equal(zot.storage.gcDelay, "2h");
    assert.equal(zot.extensions?.search?.cve, undefined, "CVE scanning off");
    const secret = seen.find((r) => r.type === "kubernetes:core/v1:Secret")!;
    assert.ok(isSecretValue(secret.inputs.stringData), "the htpasswd is a secret");
    const htpasswd: string = unwrap(unwrap(secret.inputs.stringData).htpasswd);
    assert.deepEqual(
      htpasswd
        .trim()
        .split("\n")
        .map((l) => l.split(":")[0]),
      ["ci", "reader"],
    );
    assert.ok(!htpasswd.includes("ci-password-1"), "only hashes");
    const release = seen.find((r) => r.type === "kubernetes:helm.sh/v3:Release")!;
    assert.equal(release.inputs.values.pvc.storage, "200Gi");
    assert.equal(release.inputs.values.pvc.storageClassName, "fast");
    assert.deepEqual(release.inputs.values.resources.requests, { cpu: "250m", memory: "512Mi" });
  });

  it("tenants-as-data: the stack file passes the product's validation", () => {
    const stack = parseYaml(fs.readFileSync(path.join(EXAMPLES, "tenants-as-data", "Pulumi.dev.yaml"), "utf8")) as {
      config: Record<string, unknown>;
    };
    const tenants = stack.config["backup-portal:tenants"];
    assert.ok(tenants, "backup-portal:tenants is there (the stack-config reader requires it)");
    // The secrets the file names are set with `pulumi config set --secret`, as its comments say.
    const secrets = new Set(["web01Password"]);
    assert.deepEqual(validateTenants(tenants, { hasSecret: (k) => secrets.has(k) }), []);
    assert.ok(validateTenants(tenants, { hasSecret: () => false }).length > 0, "a missing password secret is a problem");
    // protectBusinessUnits defaults to true in the stack-config reader: the example relies on that.
    assert.equal(stack.config["backup-portal:protectBusinessUnits"], undefined);
    // Only the keys the stack program reads (the stack-config reader refuses others).
    const known = ["url", "origin", "clientId", "username", "password", "rootBusinessUnitId", "tenants"];
    for (const k of Object.keys(stack.config)) assert.ok(known.includes(k.replace(/^backup-portal:/, "")), k);
    // The program's own reader takes the file whole, with the two secrets its comments set.
    const asText = (v: unknown) => (typeof v === "string" ? v : JSON.stringify(v));
    const config: Record<string, string> = {
      ...Object.fromEntries(Object.entries(stack.config).map(([k, v]) => [k, asText(v)])),
      "backup-portal:password": "portal-Password-1",
      "backup-portal:web01Password": "node-Password-1",
    };
    const secret = (k: string) => k === "backup-portal:password" || k.endsWith(":web01Password");
    assert.deepEqual(readStackConfig({ config, isSecret: secret }).problems, []);
    const typo = { ...config, "backup-portal:tennants": config["backup-portal:tenants"] };
    delete (typo as Record<string, string>)["backup-portal:tenants"];
    assert.ok(readStackConfig({ config: typo, isSecret: secret }).problems.length > 0, "the reader is not blind");
  });

  it("tenants-as-data: index.js is the package's program in one line, README step 1's, nothing taken from this checkout", () => {
    const index = fs.readFileSync(path.join(EXAMPLES, "tenants-as-data", "index.js"), "utf8");
    const code = index.replace(/^\/\/.*\n/gm, "").trim();
    assert.equal(code, 'module.exports = require("backup-portal-pulumi").tenantsFromConfig();');
    const readme = fs.readFileSync(path.join(ROOT, "README.md"), "utf8");
    const step = readme.slice(readme.indexOf("1. **Install.**"), readme.indexOf("2. **Connect.**"));
    assert.equal(/```js\n([\s\S]*?)```/.exec(step)?.[1].trim(), code);
  });

  it("tenants-as-data: declares the stack file's tenants after the check of their names, and outputs their ids", async () => {
    const emu = await startEmulator({ port: 0, quiet: true });
    try {
      const config = { ...tenantsExampleConfig(), ...stackConfigFor(emu.url), "backup-portal:rootBusinessUnitId": "1" };
      const run = await runTenantsExample(config, 6);
      assert.equal(run.error, undefined);
      assert.deepEqual(run.seen.map((r) => `${r.type.replace("pulumi-nodejs:dynamic/", "")}:${r.name}`).sort(), [
        "backup-portal:BusinessUnit:acme",
        "backup-portal:BusinessUnit:acme/acme-labs",
        "backup-portal:Consumer:acme/files",
        "backup-portal:Consumer:acme/web01",
        "backup-portal:NameCheck:tenants",
        "backup-portal:Node:acme/web01",
      ]);
      // The names go to the name check (its Check reads them against the portal in the provider host), first.
      assert.equal(run.seen[0].name, "tenants");
      const check = run.seen[0].inputs;
      assert.deepEqual(
        { file: check.file, rootBusinessUnitId: check.rootBusinessUnitId, tenants: check.tenants },
        { file: "Pulumi.dev.yaml", rootBusinessUnitId: 1, tenants: namesOf(JSON.parse(tenantsExampleConfig()["backup-portal:tenants"])) },
      );
      const node = byName(
        run.seen.filter((r) => r.type.endsWith(":Node")),
        "acme/web01",
      ).inputs;
      assert.ok(isSecretValue(node.tsmPassword), "the node password (passwordSecret) reaches the engine as a secret");
      assert.equal(unwrap(node.tsmPassword), "node-Password-1");
      const outputs = run.outputs!;
      assert.deepEqual(await valueOf(outputs.businessUnitIds), { acme: 1001, "acme/acme-labs": 1001 });
      assert.deepEqual(Object.keys(await valueOf(outputs.consumerIds)).sort(), ["acme/files", "acme/web01"]);
      assert.deepEqual(emu.requests(), [], "the program itself asks the portal nothing");
    } finally {
      await emu.close();
    }
  });

  it("tenants-as-data: a misspelt key fails before anything is declared, one line naming Pulumi.dev.yaml, the key and the fix", async () => {
    const config = tenantsExampleConfig();
    config["backup-portal:tenants"] = config["backup-portal:tenants"].replace('"timeZone"', '"timezone"');
    config["backup-portal:rootBusinesUnitId"] = config["backup-portal:rootBusinessUnitId"];
    delete config["backup-portal:rootBusinessUnitId"];
    const run = await runTenantsExample(config, 0);
    assert.deepEqual(run.seen, []);
    const lines = run.error!.message.split("\n");
    assert.equal(lines[0], "the stack config has 3 problems; nothing was changed:");
    assert.match(lines[1], /^Pulumi\.dev\.yaml: backup-portal:rootBusinesUnitId: unknown key; did you mean .*rootBusinessUnitId/);
    assert.equal(lines[2], "Pulumi.dev.yaml: backup-portal:tenants.acme.timeZone: is required; name the time zone (or give its id)");
    assert.match(lines[3], /^Pulumi\.dev\.yaml: backup-portal:tenants\.acme\.timezone: .*timeZone/);
    assert.equal(lines.length, 4, run.error!.message);
    assert.doesNotMatch(run.error!.message, /\n\s+at /, "no stack trace");
  });
});
