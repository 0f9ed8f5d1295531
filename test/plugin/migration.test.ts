// Migration from the dynamic types to the plugin's (docs/plugin.md): a stack made by the dynamic providers
// (through the real dynamic-provider host, test/engine/engine.ts), each resource taken out of state and
// imported by id through the plugin (import.go: Read with only the id, then Check and Diff of the declared
// inputs against what Read returned). The portal sees no write from the import or from the next up.
import assert from "node:assert/strict";
import { businessUnit, consumer, portalSuite, writesSince } from "../resources/support";
import { ref, secret } from "../engine/engine";
import { ORIGIN } from "../support/portal";
import { Plugin, urnOf } from "./plugin";

describe("migrating a stack from the dynamic types to the plugin", function () {
  this.timeout(240_000);
  const p = portalSuite();
  let plugin: Plugin | undefined;
  after(() => plugin?.close());

  it("import by id, then an up with the same declarations writes nothing", async () => {
    const buInputs = {
      parentId: 1,
      name: "Migrated",
      registrationNumber: "M-1",
      timeZone: "W. Europe Standard Time",
      note: "n",
      tags: ["a"],
    };
    const cInputs = { name: "web01", note: "c", limitHighStorage: 5 };
    const eng = p.engine();
    const made = await eng.up([businessUnit("acme", buInputs), consumer("web", { businessUnitId: ref("acme", "id"), ...cInputs })]);
    const buId = made.ids.acme;
    const cId = made.ids.web;

    plugin = await Plugin.start();
    await plugin.configure({ url: p.emu.url, origin: ORIGIN, clientId: "emulator", username: "admin", password: secret("admin") });
    const mark = p.emu.requests().length;
    const declared: Array<{ type: string; name: string; importId: string; inputs: Record<string, unknown> }> = [
      { type: "BusinessUnit", name: "acme", importId: buId, inputs: buInputs },
      { type: "Consumer", name: "web", importId: `${buId}/${cId}`, inputs: { businessUnitId: buId, ...cInputs } },
    ];
    for (const r of declared) {
      const urn = urnOf(r.type, r.name);
      const imported = await plugin.read(r.importId, urn, {});
      assert.ok(imported.id, `${r.name} imported`);
      const checked = await plugin.check(urn, imported.inputs ?? {}, r.inputs);
      assert.deepEqual(checked.failures, []);
      const diff = await plugin.diff(imported.id, urn, imported.properties, checked.inputs);
      assert.equal(diff.changes, "none", `${r.name}: ${JSON.stringify(diff.diffs)}`);
    }
    assert.deepEqual(writesSince(p.emu, mark), [], "the migration wrote nothing to the portal");
  });
});
