// The portal guard through the real provider host (test/engine's stand-in) against two emulators. The engine
// runs an `up`'s deletes with the CURRENT stack config (registry.go updates the default provider in place; see
// test/engine/config-and-options.test.ts), so each resource records its portal and account and refuses a
// Delete or Update through another (provider/dynamic/portal-guard.ts).
import assert from "node:assert/strict";
import { TestEngine, UpdateError } from "../engine/engine";
import { startEmulator, stackConfigFor, Emulator } from "../support/portal";
import { consumer, portalSuite } from "./support";

describe("portal guard: a changed backup-portal:url never sends the old portal's deletes to the new one", function () {
  this.timeout(180_000); // each up is two deployments, each starting a host
  const p = portalSuite(); // emulator A
  let b: Emulator; // emulator B
  before(async () => (b = await startEmulator({ port: 0, quiet: true })));
  after(() => b?.close());
  beforeEach(() => b.reset());

  const declared = (...names: string[]) => names.map((n) => consumer(n, { businessUnitId: 1, name: `guard-${n}` }));
  const onPortal = (emu: Emulator, name: string) => emu.state().consumers.some((c) => c.name === `guard-${name}`);

  it("the outputs name the portal; with the config changed to another portal, removing a consumer fails and sends nothing there", async () => {
    const e1 = p.engine({ config: stackConfigFor(p.emu.url) });
    const r = await e1.up(declared("kept", "gone"));
    assert.equal(e1.get("gone")!.outputs.portal, `${p.emu.url}|admin`);
    assert.ok(onPortal(p.emu, "gone"));

    const e2 = p.track(TestEngine.fromState(e1.exportState(), { config: stackConfigFor(b.url) }));
    const markB = b.requests().length;
    const err = await e2.up(declared("kept")).then(
      () => assert.fail("the up must fail"),
      (e: unknown) => e,
    );
    assert.ok(err instanceof UpdateError);
    assert.deepEqual(
      err.failures.map((f) => [f.urn.split("::").pop(), f.op]),
      [["gone", "delete"]],
    );
    const message = err.failures[0].message;
    assert.ok(message.includes(`consumer ${r.ids.gone}: refusing to delete it`), message);
    assert.ok(message.includes(`created on ${p.emu.url} (account admin)`), message);
    assert.ok(message.includes(`configured for ${b.url} (account admin)`), message);
    assert.match(message, /run `pulumi up` to finish the removals there/);
    assert.match(message, /`pulumi state delete '<urn>'`/);
    assert.deepEqual(
      b
        .requests()
        .slice(markB)
        .filter((q) => q.method === "DELETE"),
      [],
      "the new portal received no DELETE",
    );
    assert.ok(onPortal(p.emu, "gone"), "the old portal still has the consumer");
    assert.ok(e2.get("gone"), "and the state still has it");
  });

  it("state written before the portal was recorded deletes as before", async () => {
    const e1 = p.engine({ config: stackConfigFor(p.emu.url) });
    await e1.up(declared("kept", "old"));
    const snapshot = e1.exportState();
    for (const res of snapshot.resources) delete res.outputs.portal;
    assert.ok(snapshot.resources.some((res) => res.name === "old"));
    const e2 = p.track(TestEngine.fromState(snapshot, { config: stackConfigFor(p.emu.url) }));
    await e2.up(declared("kept"));
    assert.equal(onPortal(p.emu, "old"), false);
    assert.equal(e2.get("old"), undefined);
  });
});
