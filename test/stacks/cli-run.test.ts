// The stack program run as `pulumi preview`/`pulumi up` runs it: the engine's pwd and entry point from
// Pulumi.yaml, `@pulumi/pulumi/cmd/run` started as the Node.js language host starts it (the compiled program,
// `typescript: false`), the stack config of stacks/Pulumi.local.yaml, the portal emulator (which the program itself
// does not ask: its name check's Check does, in the provider host).
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { startEmulator } from "../../emulator";
import { pwdMain, readProject, runPreview, startFakeEngine, configEnv, typescriptEnabled } from "./cli";
import { localStackConfig, localTenants } from "./support";
import { TenantsConfig } from "../../provider/tenants/model";

const ROOT = path.join(__dirname, "..", "..");

describe("where the engine runs the program (getPwdMain)", () => {
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "pwd-main-"));
    fs.mkdirSync(path.join(dir, "stacks"));
    fs.writeFileSync(path.join(dir, "stacks", "index.ts"), "");
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("runs `.` in the project root without a main", () => {
    assert.deepEqual(pwdMain(dir, undefined), { pwd: dir, entry: "." });
    assert.deepEqual(pwdMain(dir, ""), { pwd: dir, entry: "." });
  });

  it("runs `.` in a main folder, with or without the trailing slash", () => {
    assert.deepEqual(pwdMain(dir, "stacks/"), { pwd: path.join(dir, "stacks"), entry: "." });
    assert.deepEqual(pwdMain(dir, "stacks"), { pwd: path.join(dir, "stacks"), entry: "." });
  });

  it("runs a main file by its name from its folder, relative or absolute", () => {
    assert.deepEqual(pwdMain(dir, "stacks/index.ts"), { pwd: path.join(dir, "stacks"), entry: "index.ts" });
    assert.deepEqual(pwdMain(dir, "./stacks/../stacks/index.ts"), { pwd: path.join(dir, "stacks"), entry: "index.ts" });
    assert.deepEqual(pwdMain("/elsewhere", path.join(dir, "stacks", "index.ts")), { pwd: path.join(dir, "stacks"), entry: "index.ts" });
  });

  it("refuses a main that does not exist", () => {
    assert.throws(() => pwdMain(dir, "stack/"), /project 'main' could not be read/);
  });
});

describe("PULUMI_CONFIG as the language host builds it", () => {
  it("namespaces keys as <ns>:config:<name> and hands every value over as text", () => {
    const env = configEnv({
      "backup-portal:rootBusinessUnitId": 1,
      "backup-portal:protect": false,
      "backup-portal:t": { a: [1] },
      "backup-portal:url": "http://x",
    });
    assert.deepEqual(JSON.parse(env.PULUMI_CONFIG), {
      "backup-portal:config:rootBusinessUnitId": "1",
      "backup-portal:config:protect": "false",
      "backup-portal:config:t": '{"a":[1]}',
      "backup-portal:config:url": "http://x",
    });
    assert.equal(env.PULUMI_CONFIG_SECRET_KEYS, "[]");
  });
});

describe("what the runtime runs: the program on the compiled package, nothing to compile", () => {
  const location = () => pwdMain(ROOT, readProject(ROOT).main);

  it("Pulumi.yaml runs stacks/index.js with typescript off, and that file loads the build in dist/", () => {
    // ts-node compiled the program and the package's sources it imported on every run, and mapped every resource's
    // stack trace through their source maps: most of a no-op preview (docs/benchmark.md).
    const project = readProject(ROOT);
    assert.equal(typescriptEnabled(project), false);
    assert.deepEqual(location(), { pwd: path.join(ROOT, "stacks"), entry: "index.js" });
    const required = [
      ...fs
        .readFileSync(path.join(ROOT, "stacks", "index.js"), "utf8")
        .replace(/^\s*\/\/.*$/gm, "")
        .matchAll(/require\("([^"]+)"\)/g),
    ].map((m) => m[1]);
    assert.deepEqual(required, ["../dist/provider/program"]);
    assert.equal(typeof require(path.join(ROOT, "stacks", required[0])).tenantsFromConfig, "function", "npm run build wrote it");
  });

  it("a change to the program's entry point previews every stack", () => {
    const { changedStacks } = require(path.join(ROOT, ".github/scripts/changed-stacks.js"));
    const file = path.join(location().pwd, location().entry);
    assert.deepEqual(changedStacks([path.relative(ROOT, file)], ["dev", "prod"]), ["dev", "prod"], file);
  });
});

/** Every business unit, consumer and node the local stack declares, by logical name. */
function expectedTenants(tenants: TenantsConfig) {
  const out = {
    businessUnits: [] as string[],
    consumers: [] as string[],
    nodes: [] as string[],
    proxies: 0,
    tsmNames: {} as Record<string, unknown>,
  };
  const walk = (units: TenantsConfig, prefix: string) => {
    for (const [key, unit] of Object.entries(units)) {
      const name = prefix + key;
      out.businessUnits.push(name);
      for (const [c, consumer] of Object.entries(unit.consumers ?? {})) {
        out.consumers.push(`${name}/${c}`);
        if (consumer.node) {
          out.nodes.push(`${name}/${c}`);
          out.tsmNames[`${name}/${c}`] = consumer.node.tsmName;
        }
      }
      out.proxies += unit.proxies?.length ?? 0;
      walk(unit.businessUnits ?? {}, `${name}/`);
    }
  };
  walk(tenants, "");
  return out;
}

describe("the stack program under the CLI's runtime (cmd/run, as the language host starts it)", function () {
  // ts-node type-checks the program and everything it imports on a shared 2-core machine.
  this.timeout(240_000);

  it("declares every tenant of the local stack, and every provider it serializes loads from the program's folder", async () => {
    const project = readProject(ROOT);
    const location = pwdMain(ROOT, project.main);
    for (const m of ["business-unit", "consumer", "node", "node-proxy"]) {
      assert.ok(
        fs.existsSync(path.join(ROOT, "dist", "provider", "resources", `${m}.js`)),
        "npm run build first: the providers load from dist/",
      );
    }
    const emu = await startEmulator({ port: 0, quiet: true });
    const engine = await startFakeEngine(project.name, "local");
    try {
      const config = { ...localStackConfig(), "backup-portal:url": emu.url };
      const result = await runPreview({
        root: ROOT,
        location,
        project,
        stack: "local",
        engine,
        config,
        env: { BACKUP_PORTAL_PASSWORD: "admin" },
        timeoutMs: 200_000,
      });
      const report = `exit ${result.code ?? result.signal}\n${result.output}\n${engine.logs.join("\n")}`;
      assert.equal(result.code, 0, report);
      assert.ok(!engine.logs.some((l) => l.startsWith("ERROR")), report);

      const regs = engine.registrations;
      assert.equal(regs[0]?.type, "pulumi:pulumi:Stack", report);
      const dynamic = regs.filter((r) => r.type.startsWith("pulumi-nodejs:dynamic/"));
      const named = (suffix: string) =>
        dynamic
          .filter((r) => r.type.endsWith(`:${suffix}`))
          .map((r) => r.name)
          .sort();
      const want = expectedTenants(localTenants());
      assert.ok(want.businessUnits.length >= 3 && want.nodes.length >= 5, "the local stack has tenants to declare");
      assert.deepEqual(named("BusinessUnit"), [...want.businessUnits].sort(), `business units\n${report}`);
      assert.deepEqual(named("Consumer"), [...want.consumers].sort(), "consumers");
      assert.deepEqual(named("Node"), [...want.nodes].sort(), "nodes");
      assert.equal(named("NodeProxy").length, want.proxies, "node proxies");
      const nodeInputs = Object.fromEntries(dynamic.filter((r) => r.type.endsWith(":Node")).map((r) => [r.name, r.inputs.tsmName]));
      assert.deepEqual(nodeInputs, want.tsmNames, "each node declared from its own config (PULUMI_CONFIG as the CLI passes it)");

      for (const r of dynamic) {
        const specifiers = providerSpecifiers(r.inputs.__provider);
        assert.ok(specifiers.length > 0, `${r.urn}: the serialized provider names the module it loads`);
        for (const s of specifiers) {
          assert.ok(!path.isAbsolute(s), `${r.urn}: ${s} is no absolute path`);
          // The host loads the text with no file name: its requires resolve from its working directory,
          // which is the program's folder.
          assert.doesNotThrow(() => require.resolve(s, { paths: [location.pwd] }), `${r.urn}: ${s} must resolve from ${location.pwd}`);
        }
      }
      assert.ok(engine.stackOutputs && "businessUnitIds" in engine.stackOutputs, "the stack's outputs were registered");
      // The names are the name check's, registered before every tenant (its Check reads them in the provider host,
      // which this fake engine does not run): the program itself asks the portal nothing.
      assert.equal(dynamic[0]?.type, "pulumi-nodejs:dynamic/backup-portal:NameCheck", report);
      assert.equal(dynamic[0].name, "tenants");
      assert.deepEqual(emu.requests(), [], "the program asks the portal nothing");
    } finally {
      await engine.close();
      await emu.close();
    }
  });
});

/**
 * The module specifiers a serialized provider `require`s, found by running its text as the host does
 * (`exports.handler()` is the provider) with a `require` that records what it is asked for.
 */
function providerSpecifiers(text: unknown): string[] {
  assert.equal(typeof text, "string", "__provider is serialized JavaScript");
  const asked: string[] = [];
  const recorder = (id: string) => {
    asked.push(id);
    const lifecycle = { check: async () => ({}), diff: async () => ({}) };
    return new Proxy({}, { get: (_t, key) => (key === "configurePortal" ? () => undefined : lifecycle) });
  };
  const module = { exports: {} as any };
  new Function("exports", "require", "module", text as string)(module.exports, recorder, module);
  const provider = module.exports.handler();
  void provider.check({}, {});
  return asked.filter((id) => id.startsWith(".") || id.includes("/"));
}
