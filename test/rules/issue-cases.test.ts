// The values issue 13 found passing preview and failing up, through each resource's Check (in this process):
// each is refused with the field and the reason. Check makes no request for them: shape comes before names.
import assert from "node:assert/strict";
import { businessUnitLifecycle } from "../../provider/resources/business-unit";
import { consumerLifecycle } from "../../provider/resources/consumer";
import { nodeLifecycle } from "../../provider/resources/node";
import { resetConnection } from "../../provider/dynamic/connection";
import { Emulator, envFor, startEmulator } from "../support/portal";

describe("Check refuses what the portal refuses (the cases of issue 13)", () => {
  let emu: Emulator;
  const saved = { ...process.env };
  before(async () => {
    emu = await startEmulator({ port: 0, quiet: true });
    Object.assign(process.env, envFor(emu));
    resetConnection();
  });
  after(async () => {
    resetConnection();
    process.env = saved;
    await emu.close();
  });

  const bu = { parentId: 1, name: "Acme", registrationNumber: "1", timeZone: "UTC" };
  const node = { businessUnitId: 1, consumerId: 2, operatingSystem: "Linux", type: "File server", domain: "STANDARD", cpuCount: 1 };
  const CASES: Array<[string, typeof businessUnitLifecycle, Record<string, unknown>, string, RegExp]> = [
    ["nodeLimit 2.5", businessUnitLifecycle, { ...bu, nodeLimit: 2.5 }, "nodeLimit", /^nodeLimit must be an integer ≥ 0, got 2\.5$/],
    ["a whitespace-only name", businessUnitLifecycle, { ...bu, name: "   " }, "name", /only whitespace/],
    ["NUL in a name", businessUnitLifecycle, { ...bu, name: "Acme\u0000" }, "name", /control character U\+0000/],
    ["ESC in a registration number", businessUnitLifecycle, { ...bu, registrationNumber: "1\u001b[2J" }, "registrationNumber", /U\+001B/],
    ["BEL in a tag", businessUnitLifecycle, { ...bu, tags: ["a", "\u0007"] }, "tags", /item 1 .*U\+0007/],
    ["a consumer name of spaces", consumerLifecycle, { businessUnitId: 1, name: " \t " }, "name", /only whitespace|U\+0009/],
    ["cpuCount Infinity", nodeLifecycle, { ...node, cpuCount: Infinity }, "cpuCount", /got Infinity$/],
    ["a domain name with NUL", nodeLifecycle, { ...node, domain: "STANDARD\u0000" }, "domain", /U\+0000/],
  ];
  for (const [what, lifecycle, news, property, reason] of CASES) {
    it(`refuses ${what}`, async () => {
      const mark = emu.requests().length;
      const r = await lifecycle.check({}, news);
      assert.deepEqual(
        r.failures?.map((f) => f.property),
        [property],
        JSON.stringify(r.failures),
      );
      assert.match(r.failures![0].reason, reason);
      assert.deepEqual(
        emu
          .requests()
          .slice(mark)
          .filter((x) => x.method !== "GET" && x.path !== "/v1/oauth"),
        [],
        "no write",
      );
    });
  }
});
