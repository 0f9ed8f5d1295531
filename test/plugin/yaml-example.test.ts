// examples/yaml/Pulumi.yaml through the plugin, registered as the YAML language host registers resources
// (pulumi-yaml pkg/pulumiyaml/run.go: each resource's `type` token and `properties`, `${name.id}` and
// `${name.property}` resolved from the resources registered before it, in dependency order; during a preview
// a reference to a resource not yet created is unknown). The YAML host cannot be installed here.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { parse } from "yaml";
import { ORIGIN, startEmulator, clientFor, type Emulator } from "../support/portal";
import { writesSince } from "../resources/support";
import { secret, UNKNOWN } from "../engine/values";
import { Plugin } from "./plugin";

const EXAMPLE = path.resolve(__dirname, "..", "..", "examples", "yaml", "Pulumi.yaml");

interface Declared {
  name: string;
  type: string;
  properties: Record<string, unknown>;
}
interface Registered {
  id: string;
  outputs: Record<string, unknown>;
  inputs: Record<string, unknown>;
}

const REF = /^\$\{([A-Za-z][A-Za-z0-9_-]*)\.([A-Za-z][A-Za-z0-9_]*)\}$/;

/** The example's resources in dependency order (a resource after those it references). */
function resourcesOf(program: any): Declared[] {
  const all: Declared[] = Object.entries(program.resources as Record<string, any>).map(([name, r]) => ({
    name,
    type: r.type,
    properties: r.properties ?? {},
  }));
  const deps = (r: Declared) => Object.values(r.properties).flatMap((v) => (typeof v === "string" && REF.test(v) ? [REF.exec(v)![1]] : []));
  const ordered: Declared[] = [];
  for (let round = 0; round < all.length && ordered.length < all.length; round++) {
    for (const r of all) if (!ordered.includes(r) && deps(r).every((d) => ordered.some((o) => o.name === d))) ordered.push(r);
  }
  assert.equal(ordered.length, all.length, "every reference names a resource of the program");
  return ordered;
}

/** A property with its `${name.prop}` references resolved; unknown while the resource is not created (preview). */
function resolve(v: unknown, done: Map<string, Registered>, preview: boolean): unknown {
  if (typeof v !== "string" || !REF.test(v)) return v;
  const [, name, prop] = REF.exec(v)!;
  const r = done.get(name);
  if (!r) {
    assert.ok(preview, `${name} is registered before ${v} is used`);
    return UNKNOWN;
  }
  return prop === "id" ? r.id : r.outputs[prop];
}

const urn = (r: Declared) => `urn:pulumi:dev::backupportal-yaml-example::${r.type}::${r.name}`;

describe("examples/yaml/Pulumi.yaml through the plugin", function () {
  this.timeout(240_000);
  let emu: Emulator;
  let plugin: Plugin;
  before(async () => {
    emu = await startEmulator();
    plugin = await Plugin.start();
    await plugin.configure({ url: emu.url, origin: ORIGIN, clientId: "emulator", username: "admin", password: secret("admin") });
  });
  after(async () => {
    await plugin?.close();
    await emu?.close();
  });

  it("is a YAML program of the plugin's types; preview, up, an unchanged up and destroy manage the tenant", async () => {
    const program = parse(fs.readFileSync(EXAMPLE, "utf8"));
    assert.equal(program.runtime, "yaml");
    const resources = resourcesOf(program);
    assert.deepEqual(
      resources.map((r) => r.type),
      ["backupportal:index:BusinessUnit", "backupportal:index:Consumer", "backupportal:index:Node"],
    );

    // Preview: references to resources not created are unknown; nothing is written.
    let mark = emu.requests().length;
    for (const r of resources) {
      const news = Object.fromEntries(Object.entries(r.properties).map(([k, v]) => [k, resolve(v, new Map(), true)]));
      const checked = await plugin.check(urn(r), {}, news, true);
      assert.deepEqual(checked.failures, [], `${r.name} passes Check in preview`);
      assert.equal((await plugin.create(urn(r), checked.inputs, true)).id, "");
    }
    assert.deepEqual(writesSince(emu, mark), []);

    // Up.
    const done = new Map<string, Registered>();
    for (const r of resources) {
      const news = Object.fromEntries(Object.entries(r.properties).map(([k, v]) => [k, resolve(v, done, false)]));
      const checked = await plugin.check(urn(r), {}, news);
      assert.deepEqual(checked.failures, [], `${r.name} passes Check`);
      const created = await plugin.create(urn(r), checked.inputs);
      done.set(r.name, { id: created.id, outputs: created.properties, inputs: checked.inputs });
    }
    const client = clientFor(emu);
    try {
      const bu = await client.businessUnits.get(Number(done.get("acme")!.id));
      assert.equal(bu.name, "Acme Ltd");
      const consumer = await client.consumers.get(bu.id, Number(done.get("web")!.id));
      assert.equal(consumer.name, "web01");
    } finally {
      client.close();
    }
    assert.equal(done.get("webNode")!.outputs.activatedName, "WEB01");
    assert.equal(resolve(program.outputs.businessUnitId, done, false), Number(done.get("acme")!.id));

    // An unchanged up: Check and Diff only, no write.
    mark = emu.requests().length;
    for (const r of resources) {
      const reg = done.get(r.name)!;
      const news = Object.fromEntries(Object.entries(r.properties).map(([k, v]) => [k, resolve(v, done, false)]));
      const checked = await plugin.check(urn(r), reg.inputs, news);
      assert.equal((await plugin.diff(reg.id, urn(r), reg.outputs, checked.inputs)).changes, "none", `${r.name} unchanged`);
    }
    assert.deepEqual(writesSince(emu, mark), []);

    // Destroy, dependents first.
    for (const r of [...resources].reverse()) {
      const reg = done.get(r.name)!;
      await plugin.delete(reg.id, urn(r), reg.outputs);
    }
    assert.equal((await plugin.read(done.get("acme")!.id, urn(resources[0]), done.get("acme")!.outputs)).id, "");
  });
});
