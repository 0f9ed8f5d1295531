// A Node activated without a declared tsmPassword: the real portal chooses one and hands it back on the node
// (the published Go client's ActivateNode reads it and its enroll example prints it, cloutility/node.go at
// 3a29ec8; the emulator models it). Through the engine stand-in and the real provider host: the product keeps
// it as the secret output generatedPassword, never in plain state, host logs or the portal client's lines.
import assert from "node:assert/strict";
import { ref } from "../engine/engine";
import { isSecret } from "../engine/values";
import { consumer, node, ops, portalSuite } from "./support";

describe("Node: the password the portal chooses", function () {
  this.timeout(180_000);
  const p = portalSuite();

  const nodeInputs = (extra: Record<string, unknown> = {}) => ({
    businessUnitId: 1,
    consumerId: ref("web", "consumerId"),
    operatingSystem: "Linux",
    type: "File server",
    domain: "STANDARD",
    cpuCount: 1,
    tsmName: "GEN-PW-01",
    ...extra,
  });
  const stack = (extra: Record<string, unknown> = {}) => [
    consumer("web", { businessUnitId: 1, name: "gen-pw-01" }),
    node("n", nodeInputs(extra)),
  ];

  it("is kept as a secret output, in state only as a secret, and survives up and refresh", async () => {
    const eng = p.engine();
    await eng.up(stack());
    const chosen = p.emu.state().nodes.find((n) => n.tsmName === "GEN-PW-01")?.generatedPassword;
    assert.ok(chosen && chosen.length >= 8, "the emulator chose a password at activation");

    const out = eng.get("n")!.outputs.generatedPassword;
    assert.ok(isSecret(out), "generatedPassword is a secret output");
    assert.equal(out.value, chosen);
    assert.equal(eng.stateJson().includes(chosen), false, "the checkpoint holds it only as ciphertext");
    for (const h of eng.hosts) assert.equal(h.logs().includes(chosen), false, "no host log line holds it");

    assert.deepEqual(ops((await eng.up(stack())).steps), { web: "same", n: "same" });
    await eng.refresh();
    const kept = eng.get("n")!.outputs.generatedPassword;
    assert.ok(isSecret(kept));
    assert.equal(kept.value, chosen);
    assert.equal(eng.stateJson().includes(chosen), false);
  });

  it("a declared tsmPassword: the portal chooses none and there is no generatedPassword", async () => {
    const eng = p.engine();
    await eng.up(
      stack({ tsmPassword: { "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270", value: "Declared-Pa55word-1" } }),
    );
    assert.equal(p.emu.state().nodes.find((n) => n.tsmName === "GEN-PW-01")?.generatedPassword, undefined);
    assert.equal(eng.get("n")!.outputs.generatedPassword, undefined);
    assert.ok(isSecret(eng.get("n")!.outputs.tsmPassword));
  });
});
