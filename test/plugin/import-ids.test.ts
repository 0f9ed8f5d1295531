// `pulumi import` with an id beyond 2^53 - 1 (issue 37, item 5), through the plugin process over gRPC as the
// engine sends it (Read with only the id): refused with the form and the bound, never read as another id and
// answered "not found", and no request for another object reaches the portal.
import assert from "node:assert/strict";
import { ORIGIN, startEmulator, type Emulator } from "../support/portal";
import { secret } from "../engine/values";
import { GrpcCallError, Plugin, urnOf } from "./plugin";

describe("backupportal plugin process: import ids beyond the safe-integer range", function () {
  this.timeout(120_000);
  let emu: Emulator;
  let plugin: Plugin;

  before(async () => {
    emu = await startEmulator({ port: 0, quiet: true });
    plugin = await Plugin.start();
    await plugin.configure({ url: emu.url, origin: ORIGIN, clientId: "emulator", username: "admin", password: secret("admin") });
  });
  after(async () => {
    await plugin?.close();
    await emu?.close();
  });

  const cases: Array<[string, string, string]> = [
    ["BusinessUnit", "9007199254740993", "<businessUnitId>"],
    ["Consumer", "2/99999999999999999999", "<businessUnitId>/<consumerId>"],
    ["Node", "2/9007199254740993", "<businessUnitId>/<consumerId>"],
    ["NodeProxy", "2/9007199254740993:3", "<businessUnitId>/<agentConsumerId>:<targetConsumerId>"],
  ];
  for (const [type, id, form] of cases)
    it(`${type} "${id}" is refused, naming the form and the bound`, async () => {
      const mark = emu.requests().length;
      const err = await plugin.read(id, urnOf(type, "imported"), {}).then(
        (r) => assert.fail(`imported as ${JSON.stringify(r)}`),
        (e: unknown) => e as GrpcCallError,
      );
      assert.ok(err instanceof GrpcCallError, String(err));
      assert.equal(
        err.details,
        `backupportal: cannot import ${type} "${id}": give the id as ${form}, each id a positive integer up to 9007199254740991, without leading zeros`,
      );
      assert.deepEqual(emu.requests().slice(mark), [], "nothing was asked of the portal");
    });
});
