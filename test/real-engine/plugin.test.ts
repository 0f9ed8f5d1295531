// The backupportal plugin (bin/pulumi-resource-backupportal) under the real Pulumi CLI and pulumi-language-yaml:
// examples/yaml as a user runs it, `pulumi import` of each resource with the code it prints put back into the
// program (the next preview is empty), and an explicit provider. Judged by the emulator's request log.
import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import YAML from "yaml";
import { ORIGIN } from "../support/portal";
import { REPO } from "./cli";
import { configurePlugin, portalWrites, yamlWorkspace, emulatorSuite } from "./project";

const EXAMPLE = fs.readFileSync(path.join(REPO, "examples", "yaml", "Pulumi.yaml"), "utf8");

describe("real engine: the backupportal plugin under the Pulumi CLI", function () {
  this.timeout(10 * 60_000);
  const suite = emulatorSuite();
  const open = async (stack: string, program: string, namespace?: string) => {
    const ws = yamlWorkspace(stack, program);
    suite.keep(ws);
    await ws.ok(["stack", "init"]);
    await configurePlugin(ws, suite.emu, namespace);
    return ws;
  };

  it("examples/yaml under pulumi-language-yaml: up, an unchanged preview and up with no writes, destroy", async () => {
    const ws = await open("example", EXAMPLE);
    const up = await ws.ok(["up", "--yes"]);
    assert.match(up.stdout, /\+ 4 created/);
    const unit = suite.emu.state().businessUnits.find((b) => b.name === "Acme Ltd");
    assert.ok(unit, "the business unit is on the portal");
    assert.ok(suite.emu.state().consumers.some((c) => c.name === "web01" && c.businessUnitId === unit.id));
    suite.emu.clearRequests();
    assert.match((await ws.ok(["preview", "--diff"])).stdout, /4 unchanged/);
    assert.match((await ws.ok(["up", "--yes"])).stdout, /4 unchanged/);
    assert.deepEqual(portalWrites(suite.emu), []);
    await ws.ok(["destroy", "--yes"]);
    assert.ok(!suite.emu.state().businessUnits.some((b) => b.name === "Acme Ltd"), "destroyed");
  });

  it("pulumi import of a BusinessUnit, a Consumer and a Node: no writes, and with the printed code the next preview is empty", async () => {
    const seed = suite.emu.state();
    const unit = seed.businessUnits.find((b) => b.id === 2)!;
    const consumer = seed.consumers.find((c) => c.businessUnitId === unit.id && seed.nodes.some((n) => n.consumerId === c.id))!;
    assert.ok(consumer, "the seed has a consumer with a node under business unit 2");
    const ws = await open("imports", "name: imports\nruntime: yaml\n");
    suite.emu.clearRequests();
    const imports: Array<[string, string, string]> = [
      ["backupportal:index:BusinessUnit", "unit", `${unit.id}`],
      ["backupportal:index:Consumer", "consumer", `${unit.id}/${consumer.id}`],
      ["backupportal:index:Node", "node", `${unit.id}/${consumer.id}`],
    ];
    const program: Record<string, unknown> = {};
    for (const [type, name, id] of imports) {
      const out = path.join(ws.dir, `${name}.yaml`);
      await ws.ok(["import", type, name, id, "--yes", "--out", out]);
      Object.assign(program, YAML.parse(fs.readFileSync(out, "utf8")).resources);
    }
    assert.deepEqual(portalWrites(suite.emu), [], "import only reads");
    assert.deepEqual(Object.keys(program).sort(), ["consumer", "node", "unit"]);
    fs.writeFileSync(path.join(ws.project, "Pulumi.yaml"), YAML.stringify({ name: "imports", runtime: "yaml", resources: program }));
    const preview = await ws.ok(["preview", "--diff"]);
    assert.match(preview.stdout, /4 unchanged/);
    assert.doesNotMatch(preview.stdout, /to (create|update|delete|replace)/);
    assert.deepEqual(portalWrites(suite.emu), []);
  });

  it("an explicit provider: the resources go to the portal its own inputs name", async () => {
    const program = YAML.parse(EXAMPLE);
    program.name = "explicit";
    program.config = { portalUrl: { type: "string" } };
    program.resources.portal = {
      type: "pulumi:providers:backupportal",
      properties: { url: "${portalUrl}", origin: ORIGIN, clientId: "emulator", username: "admin", password: { "fn::secret": "admin" } },
    };
    for (const name of ["acme", "web", "webNode"]) program.resources[name].options = { provider: "${portal}" };
    // No backupportal:* config at all: only the explicit provider knows the portal.
    const ws = yamlWorkspace("explicit", YAML.stringify(program));
    suite.keep(ws);
    await ws.ok(["stack", "init"]);
    await ws.ok(["config", "set", "portalUrl", suite.emu.url]);
    await ws.ok(["up", "--yes"]);
    assert.ok(suite.emu.state().businessUnits.some((b) => b.name === "Acme Ltd"));
    const state = JSON.parse((await ws.ok(["stack", "export"])).stdout);
    const acme = state.deployment.resources.find((r: any) => r.urn.endsWith("::acme"));
    assert.match(acme.provider, /::pulumi:providers:backupportal::portal::/);
    // The provider's password is kept as a secret (the CLI encrypts it), not as text.
    const provider = state.deployment.resources.find((r: any) => r.type === "pulumi:providers:backupportal");
    assert.equal(provider.inputs.password["4dabf18193072939515e22adb298388d"], "1b47061264138c4ac30d75fd1eb44270");
  });
});
