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
    // The safe step first: the setting to set back, with the recorded value; state surgery last.
    assert.ok(message.includes(`First correct the connection settings: set backup-portal:url to ${p.emu.url} `), message);
    assert.match(message, /finishes the removals there/);
    assert.match(message, /`pulumi state delete '<urn>'`/);
    assert.ok(message.indexOf("backup-portal:url to") < message.indexOf("pulumi state delete"), message);
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

  it("the same portal spelled otherwise (scheme case, /v1/, the account's case, old records) updates, deletes and reads; localhost is another host", async () => {
    const e1 = p.engine({ config: stackConfigFor(p.emu.url) });
    const r = await e1.up(declared("kept", "gone", "read"));
    assert.equal(e1.get("kept")!.outputs.portal, `${p.emu.url}|admin`);
    const port = new URL(p.emu.url).port;

    // `http://127.0.0.1:<port>` recorded, `HTTP://127.0.0.1:<port>/v1/` and `Admin` configured: not refused.
    const respelt = stackConfigFor(`HTTP://127.0.0.1:${port}/v1/`, "admin", { "backup-portal:username": "Admin" });
    const e2 = p.track(TestEngine.fromState(e1.exportState(), { config: respelt }));
    const mark = p.emu.requests().length;
    const up = await e2.up([consumer("kept", { businessUnitId: 1, name: "guard-kept-renamed" }), ...declared("read")]);
    assert.deepEqual(
      up.steps.filter((s) => s.op !== "same").map((s) => [s.urn.split("::").pop(), s.op]),
      [
        ["kept", "update"],
        ["gone", "delete"],
      ],
    );
    const sent = p.emu
      .requests()
      .slice(mark)
      .filter((q) => q.method === "PUT" || q.method === "DELETE")
      .map((q) => q.method);
    assert.deepEqual(sent.sort(), ["DELETE", "PUT"], "the update and the delete reached the portal");
    assert.ok(onPortal(p.emu, "kept-renamed") && !onPortal(p.emu, "gone"));
    assert.equal(e2.get("kept")!.outputs.portal, `${p.emu.url}|admin`, "recorded in the normal form");

    // A record written before the normal form, in its configured spelling (userinfo masked): read and updated.
    const old = e2.exportState();
    for (const res of old.resources) if (res.outputs.portal) res.outputs.portal = `HTTP://***@127.0.0.1:${port}|ADMIN`;
    const e3 = p.track(TestEngine.fromState(old, { config: stackConfigFor(p.emu.url) }));
    await e3.refresh();
    await e3.up([consumer("kept", { businessUnitId: 1, name: "guard-kept" }), ...declared("read")]);
    assert.ok(onPortal(p.emu, "kept") && onPortal(p.emu, "read"));

    // `localhost` is another host than `127.0.0.1` (even if it resolves there): refused, nothing sent.
    const e4 = p.track(TestEngine.fromState(e3.exportState(), { config: stackConfigFor(`http://localhost:${port}`) }));
    const before = p.emu.requests().length;
    const err = await e4.up([consumer("kept", { businessUnitId: 1, name: "guard-kept-again" }), ...declared("read")]).then(
      () => assert.fail("the up must fail"),
      (e: unknown) => e,
    );
    assert.ok(err instanceof UpdateError);
    assert.deepEqual(
      err.failures.map((f) => [f.urn.split("::").pop(), f.op]),
      [["kept", "register"]], // the engine's op of a failed step of the program's registration
    );
    assert.ok(err.failures[0].message.includes(`consumer ${r.ids.kept}: refusing to update it`), err.failures[0].message);
    assert.ok(err.failures[0].message.includes(`set backup-portal:url to ${p.emu.url} `), err.failures[0].message);
    assert.deepEqual(
      p.emu
        .requests()
        .slice(before)
        .filter((q) => q.method === "PUT"),
      [],
    );
    assert.ok(onPortal(p.emu, "kept"));
  });
});
