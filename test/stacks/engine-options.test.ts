// The options the engine applies itself, from the stack config, end to end through the engine stand-in
// (test/engine/engine.ts): the outcome is the engine's (step_generator.go, step.go), not the provider's.
import assert from "node:assert/strict";
import { portalSuite, writesSince } from "../resources/support";
import { localTenants, runStack, settings } from "./support";

describe("stack config → the engine's resource options", function () {
  this.timeout(300_000);
  const p = portalSuite();

  it("a tenant renamed with `aliases` keeps every object: no create, no delete, no API write", async () => {
    const eng = p.engine();
    await runStack(eng, settings(localTenants(), p.client));
    const ids = Object.fromEntries([...eng.state.values()].map((r) => [r.name, r.id]));
    const renamed = localTenants();
    renamed["globex-corp"] = { ...renamed.globex, aliases: ["globex"] };
    delete renamed.globex;
    const mark = p.emu.requests().length;
    const run = await runStack(eng, settings(renamed, p.client));
    assert.deepEqual(
      run.steps.filter((s) => s.op !== "same").map((s) => `${s.urn.split("::").pop()} ${s.op}`),
      [],
    );
    assert.deepEqual(writesSince(p.emu, mark), [], "no API write");
    assert.equal(eng.get("globex-corp")!.id, ids.globex);
    assert.equal(eng.get("globex-corp/files")!.id, ids["globex/files"], "children follow through their parent's earlier name");
    assert.ok(![...eng.state.values()].some((r) => r.name.startsWith("globex/") || r.name === "globex"));
  });

  it("protectBusinessUnits: removing a tenant fails in the up's preview, so nothing at all is deleted", async () => {
    const eng = p.engine();
    const protectedSettings = (t: ReturnType<typeof localTenants>) => settings(t, p.client, {}, { protectBusinessUnits: true });
    await runStack(eng, protectedSettings(localTenants()));
    const without = localTenants();
    delete without.globex;
    const mark = p.emu.requests().length;
    await assert.rejects(runStack(eng, protectedSettings(without)), /::globex" cannot be deleted\nbecause it is protected/);
    assert.deepEqual(writesSince(p.emu, mark), [], "the preview failed: the consumer and node below were not deleted either");
    assert.ok(eng.get("globex/files"));
    // Unprotected by an up that still declares it, then removed.
    await runStack(eng, settings(localTenants(), p.client));
    const run = await runStack(eng, settings(without, p.client));
    assert.deepEqual(
      run.steps.filter((s) => s.urn.includes("::globex")).map((s) => s.op),
      ["delete", "delete", "delete"],
      "business unit, consumer, node",
    );
  });
});
