// The examples a user copies (examples/*) run: each program under the SDK's mocks, with
// `backup-portal-pulumi` resolved to this repository's provider/ (as a user's node_modules would hold
// it), and what it registers is checked; the tenants-as-data stack file passes the product's validation.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { parse as parseYaml } from "yaml";
import { validateTenants } from "../../provider/tenants/validate";
import { readStackConfig } from "../../provider/stack-config/read";
import { isSecretValue, unwrap } from "../support/mocks";

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

const byName = (seen: Registered[], name: string) => {
  const r = seen.find((x) => x.name === name);
  assert.ok(r, `${name} registered (got ${seen.map((x) => x.name).join(", ")})`);
  return r;
};

describe("examples/: the projects a user copies", function () {
  this.timeout(60_000);

  for (const dir of ["typescript-resources", "tenants-as-data", "registry"]) {
    it(`${dir}: a complete project (Pulumi.yaml, package.json depending on backup-portal-pulumi, index.ts, README)`, () => {
      for (const f of ["Pulumi.yaml", "package.json", "index.ts", "README.md"]) assert.ok(fs.existsSync(path.join(EXAMPLES, dir, f)), f);
      const pkg = JSON.parse(fs.readFileSync(path.join(EXAMPLES, dir, "package.json"), "utf8"));
      assert.ok(pkg.dependencies["backup-portal-pulumi"], "depends on the package");
      const main = (parseYaml(fs.readFileSync(path.join(EXAMPLES, dir, "Pulumi.yaml"), "utf8")) as { main: string }).main;
      assert.equal(main, "index.ts");
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

  it("tenants-as-data: the stack file passes the product's validation, and index.ts is this repository's stack program", () => {
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
    const index = fs.readFileSync(path.join(EXAMPLES, "tenants-as-data", "index.ts"), "utf8");
    assert.match(index, /require\("\.\.\/\.\.\/stacks\/index"\)/);
    assert.ok(fs.existsSync(path.join(EXAMPLES, "tenants-as-data", "../../stacks/index.ts")));
  });
});
