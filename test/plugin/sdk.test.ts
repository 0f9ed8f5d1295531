// The TypeScript SDK of the plugin (sdk/nodejs/, written by scripts/gen-sdk.ts from the schema GetSchema
// answers): it is what the generator writes now, it compiles with the repository's TypeScript in strict mode,
// and a program written against it (examples/sdk-typescript) drives the real plugin process when run as the
// engine runs a program: `@pulumi/pulumi/cmd/run` (test/stacks/cli.ts) with the engine stand-in's resource
// monitor routing the package's registrations to the plugin (test/engine/plugin-monitor.ts), against the
// emulator. An up creates the tenant, an unchanged up writes nothing, the outputs come back (secrets as
// secrets), destroy deletes.
import assert from "node:assert/strict";
import * as pulumi from "@pulumi/pulumi";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { currentSdk, SDK_DIR } from "../../scripts/gen-sdk";
import { ORIGIN, startEmulator, clientFor, type Emulator } from "../support/portal";
import { writesSince } from "../resources/support";
import { destroy, PluginMonitorOptions, PluginState, Registration, startPluginDeployment, Step } from "../engine/plugin-monitor";
import { isSecret } from "../engine/values";
import { packageSchema } from "../../provider/plugin/schema";
import { readProject, runProgram } from "../stacks/cli";
import { Plugin, PLUGIN } from "./plugin";

const ROOT = path.join(__dirname, "..", "..");
const EXAMPLE = path.join(ROOT, "examples", "sdk-typescript");
const PACKAGE_NAME = "@backup-portal/backupportal";
const byType = (rs: Registration[], type: string) => rs.find((r) => r.type === type)!;

describe("the generated TypeScript SDK (sdk/nodejs)", function () {
  this.timeout(300_000);

  it("is byte for byte what scripts/gen-sdk.ts writes from the plugin's schema now (run `npm run gen-sdk`)", async () => {
    const expected = await currentSdk();
    const committed = fs.readdirSync(SDK_DIR).filter((f) => fs.statSync(path.join(SDK_DIR, f)).isFile());
    assert.deepEqual(committed.sort(), [...expected.keys()].sort(), "the same files");
    for (const [file, text] of expected) assert.equal(fs.readFileSync(path.join(SDK_DIR, file), "utf8"), text, `sdk/nodejs/${file}`);
    assert.equal(JSON.parse(expected.get("package.json")!).name, PACKAGE_NAME);
    assert.equal(
      JSON.parse(expected.get("package.json")!).version,
      JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")).version,
    );
  });

  it("the plugin prints the schema GetSchema answers with --schema (what the release hands `pulumi package gen-sdk`)", async () => {
    const printed = spawnSync(PLUGIN, ["--schema"], { encoding: "utf8", timeout: 60_000 });
    assert.equal(printed.status, 0, printed.stderr);
    const plugin = await Plugin.start();
    try {
      assert.deepEqual(JSON.parse(printed.stdout), await plugin.schema());
    } finally {
      await plugin.close();
    }
    assert.ok(Object.keys(JSON.parse(printed.stdout).resources).length > 0);
  });

  describe("built and used by a program", () => {
    let work: string;
    let compile: { status: number | null; output: string };
    before(() => {
      // Under the repository's tmp/ (git-ignored): the program and the SDK resolve @pulumi/pulumi from its node_modules.
      fs.mkdirSync(path.join(ROOT, "tmp"), { recursive: true });
      work = fs.mkdtempSync(path.join(ROOT, "tmp", "sdk-program-"));
      const installed = path.join(work, "node_modules", ...PACKAGE_NAME.split("/"));
      fs.mkdirSync(installed, { recursive: true });
      fs.copyFileSync(path.join(SDK_DIR, "package.json"), path.join(installed, "package.json"));
      // `npm run build` of the SDK package (tsc -p), with --strict stated, into the installed package's bin/.
      const tsc = path.join(ROOT, "node_modules", "typescript", "bin", "tsc");
      const r = spawnSync(process.execPath, [tsc, "-p", SDK_DIR, "--strict", "--outDir", path.join(installed, "bin")], {
        encoding: "utf8",
        timeout: 240_000,
      });
      compile = { status: r.status, output: `${r.stdout}${r.stderr}` };
      for (const f of ["Pulumi.yaml", "package.json", "index.ts"]) fs.copyFileSync(path.join(EXAMPLE, f), path.join(work, f));
    });
    after(() => {
      if (work) fs.rmSync(work, { recursive: true, force: true });
    });

    it("compiles with the repository's TypeScript in strict mode, declarations included", () => {
      assert.equal(compile.status, 0, `tsc -p sdk/nodejs --strict:\n${compile.output}`);
      const bin = path.join(work, "node_modules", ...PACKAGE_NAME.split("/"), "bin");
      for (const f of ["index.js", "index.d.ts", "businessUnit.d.ts", "provider.d.ts"]) assert.ok(fs.existsSync(path.join(bin, f)), f);
    });

    it("refuses a resource without a required input of the schema, naming it, before anything is registered", async () => {
      assert.equal(compile.status, 0, "the SDK compiled");
      const sdk = require(path.join(work, "node_modules", ...PACKAGE_NAME.split("/"), "bin"));
      const schema = await packageSchema("0.0.0");
      const registered: string[] = [];
      await pulumi.runtime.setMocks(
        { newResource: (a) => (registered.push(a.type), { id: "1", state: a.inputs }), call: (a) => a.inputs },
        "sdk",
        "test",
        false,
      );
      // The custom resources: the component (Tenants) has no inputs to require.
      const custom = Object.entries(schema.resources as Record<string, any>).filter(([, spec]) => !spec.isComponent);
      assert.equal(custom.length, 4);
      for (const [token, spec] of custom) {
        const Class = sdk[token.split(":").pop()!];
        assert.equal(Class.__pulumiType, token);
        const required: string[] = spec.requiredInputs;
        assert.ok(required.length > 0, `${token} has required inputs`);
        // Every required input but the last given: the last is named.
        const args = Object.fromEntries(required.slice(0, -1).map((k) => [k, 1]));
        assert.throws(
          () => new Class("x", args),
          new RegExp(`^Error: Missing required property '${required[required.length - 1]}'$`),
          token,
        );
      }
      assert.deepEqual(registered, []);
    });

    describe("drives the plugin as the engine runs the program", () => {
      let emu: Emulator;
      before(async () => {
        emu = await startEmulator();
      });
      after(async () => {
        await emu?.close();
      });

      it("up creates the tenant through an explicit provider, an unchanged up writes nothing, destroy deletes", async () => {
        assert.equal(compile.status, 0, "the SDK compiled");
        const project = readProject(work);
        const state: PluginState = new Map();
        const o: PluginMonitorOptions = { project: project.name, stack: "dev", pkg: "backupportal", launch: () => Plugin.start(), state };
        const config = {
          [`${project.name}:portalUrl`]: emu.url,
          [`${project.name}:portalOrigin`]: ORIGIN,
          [`${project.name}:portalClientId`]: "emulator",
          [`${project.name}:portalUsername`]: "admin",
          [`${project.name}:portalPassword`]: "admin",
          [`${project.name}:parentBusinessUnitId`]: "1",
          [`${project.name}:web01Password`]: "web01-node-pass",
        };
        const up = async () => {
          const deployment = await startPluginDeployment(o);
          const run = await runProgram({
            root: work,
            location: { pwd: work, entry: "." },
            project,
            stack: "dev",
            engine: deployment,
            config,
            timeoutMs: 240_000,
          });
          await deployment.finish();
          assert.equal(run.code, 0, `the program failed:\n${run.output}\n${deployment.logs.join("\n")}`);
          return deployment;
        };
        const ops = (steps: Step[]) => steps.map((s) => `${s.op} ${s.urn.split("::").slice(-2).join("::")}`).sort();

        // First up: the provider, then the tenant, through the plugin.
        const first = await up();
        assert.deepEqual(ops(first.steps), [
          "create backupportal:index:BusinessUnit::acme",
          "create backupportal:index:Consumer::web",
          "create backupportal:index:Node::web",
          "read backupportal:index:BusinessUnit::acme-as-seen",
        ]);
        const byUrn = (type: string, name: string) => state.get(`urn:pulumi:dev::${project.name}::${type}::${name}`)!;
        const provider = byUrn("pulumi:providers:backupportal", "portal");
        assert.ok(isSecret(provider.inputs.password), "the provider's password is a secret in state");
        assert.equal(
          provider.inputs.version,
          JSON.parse(fs.readFileSync(path.join(SDK_DIR, "package.json"), "utf8")).version,
          "the SDK asks for its plugin version",
        );
        const acme = byUrn("backupportal:index:BusinessUnit", "acme");
        assert.equal(acme.provider, `${provider.urn}::${provider.id}`, "registered with the explicit provider");
        const client = clientFor(emu);
        try {
          const bu = await client.businessUnits.get(Number(acme.id));
          assert.equal(bu.name, "Acme Ltd");
          const consumer = await client.consumers.get(bu.id, Number(byUrn("backupportal:index:Consumer", "web").id));
          assert.equal(consumer.name, "web01");
        } finally {
          client.close();
        }

        // The outputs the program exported came back through the SDK's Output properties; the node password a secret.
        const outputs = first.stackOutputs!;
        assert.equal(outputs.businessUnitId, Number(acme.id));
        assert.equal(outputs.consumerId, Number(byUrn("backupportal:index:Consumer", "web").id));
        assert.equal(outputs.nodeName, "WEB01");
        assert.equal(outputs.portalName, "Acme Ltd", "BusinessUnit.get read the object by id");
        assert.ok(isSecret(outputs.nodePassword), `the node password is exported as a secret: ${JSON.stringify(outputs.nodePassword)}`);
        assert.equal(outputs.nodePassword.value, "web01-node-pass");
        assert.ok(isSecret(byUrn("backupportal:index:Node", "web").outputs.tsmPassword), "and stored as one");

        // The options the generated classes set are the schema's: replaceOnChanges, secret outputs, the plugin version.
        const schema = await packageSchema(provider.inputs.version as string);
        for (const r of first.registrations.filter((x) => x.type.startsWith("backupportal:index:"))) {
          const spec = (schema.resources as Record<string, any>)[r.type];
          const marked = (props: Record<string, any>, flag: string) => Object.keys(props).filter((k) => props[k][flag]);
          assert.deepEqual(r.replaceOnChanges, marked(spec.inputProperties, "replaceOnChanges"), `${r.urn} replaceOnChanges`);
          assert.deepEqual(r.additionalSecretOutputs, marked(spec.properties, "secret"), `${r.urn} additionalSecretOutputs`);
          assert.equal(r.version, schema.version);
        }
        assert.deepEqual(byType(first.registrations, "backupportal:index:Node").replaceOnChanges, ["businessUnitId", "consumerId"]);
        assert.deepEqual(byType(first.registrations, "backupportal:index:Node").additionalSecretOutputs, [
          "tsmPassword",
          "generatedPassword",
        ]);

        // An unchanged up: Check and Diff only; not one request that writes.
        const mark = emu.requests().length;
        const second = await up();
        assert.deepEqual(ops(second.steps), [
          "read backupportal:index:BusinessUnit::acme-as-seen",
          "same backupportal:index:BusinessUnit::acme",
          "same backupportal:index:Consumer::web",
          "same backupportal:index:Node::web",
        ]);
        assert.deepEqual(writesSince(emu, mark), []);
        assert.equal(byUrn("pulumi:providers:backupportal", "portal").id, provider.id, "the provider kept its id");

        // Destroy: dependents first, with the provider configuration in state.
        const deleted = await destroy(o);
        assert.deepEqual(
          deleted.map((s) => `${s.op} ${s.urn.split("::").pop()}`),
          ["delete web", "delete web", "delete acme"],
        );
        assert.deepEqual([...state.keys()], []);
        const after = clientFor(emu);
        try {
          await assert.rejects(after.businessUnits.get(Number(acme.id)));
        } finally {
          after.close();
        }
      });
    });
  });
});
