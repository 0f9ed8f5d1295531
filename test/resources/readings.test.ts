// The providers through the real provider host against the other readings of the portal (emulator modes:
// DELETE answers 204 or 200 empty, spname a JSON string, the job list at .../jobs only, the audit range
// as startDate/endDate only), and against a portal that refuses the login: the error names the settings.
import assert from "node:assert/strict";
import { ref } from "../engine/engine";
import { Emulator, EmulatorOptions, startEmulator } from "../../emulator";
import { businessUnit, consumer, engines, node } from "./support";

const declared = () => [
  businessUnit("bu", { parentId: 1, name: "Readings", registrationNumber: "RD-1", timeZone: "UTC" }),
  consumer("c", { businessUnitId: ref("bu"), name: "rd1", nodeName: "READING-1" }),
  node("n", {
    businessUnitId: ref("bu"),
    consumerId: ref("c"),
    operatingSystem: "Linux",
    type: "File server",
    domain: "STANDARD",
    cpuCount: 2,
    tsmName: "READING-1",
  }),
];

describe("providers against the other readings of the portal", function () {
  this.timeout(90_000);
  let emu: Emulator;
  const e = engines(() => emu);
  afterEach(async () => {
    await e.closeAll();
    await emu?.close();
  });

  for (const opts of [
    { nodeDelete: "204", spname: "json" },
    { nodeDelete: "empty", jobsList: "jobs", auditDates: "date" },
  ] as EmulatorOptions[]) {
    it(`create, refresh and destroy: ${JSON.stringify(opts)}`, async () => {
      emu = await startEmulator({ port: 0, quiet: true, ...opts });
      const before = emu.state().consumers.length;
      const eng = e.engine();
      const r = await eng.up(declared());
      assert.equal(emu.state().nodes.find((n) => n.consumerId === Number(r.ids.c))?.tsmName, "READING-1");
      assert.ok((await eng.refresh()).every((x) => x.op === "same"));
      await eng.destroy();
      assert.equal(emu.state().consumers.length, before);
      assert.equal(
        emu.state().businessUnits.some((b) => b.name === "Readings"),
        false,
      );
    });
  }

  it("a refused login fails the update with the settings to check, never the password", async () => {
    emu = await startEmulator({ port: 0, quiet: true });
    const eng = e.engine({ env: { BACKUP_PORTAL_PASSWORD: "Wr0ng-Provider-Pa55word" } });
    const err = await eng.up(declared()).then(
      () => assert.fail("the update went through"),
      (x: Error) => x,
    );
    assert.match(err.message, /invalid_grant.*backup-portal:clientId.*BACKUP_PORTAL_CLIENT_ID/);
    assert.ok(!err.message.includes("Wr0ng-Provider-Pa55word"));
    assert.deepEqual(
      emu.requests().filter((x) => x.path !== "/v1/oauth"),
      [],
      "nothing but the refused logins",
    );
  });
});
