// The plugin's provider configuration as the engine drives it (provider_plugin.go: CheckConfig, DiffConfig,
// Configure), and explicit providers: two plugin processes, two portals, one program.
import assert from "node:assert/strict";
import { clientFor, ORIGIN, startEmulator, type Emulator } from "../support/portal";
import { secret } from "../engine/values";
import { Plugin, urnOf } from "./plugin";

const argsFor = (emu: Emulator) => ({ url: emu.url, origin: ORIGIN, clientId: "emulator", username: "admin", password: secret("admin") });

describe("backupportal provider configuration", function () {
  this.timeout(240_000);
  let a: Emulator;
  let b: Emulator;
  const plugins: Plugin[] = [];
  before(async () => {
    [a, b] = await Promise.all([startEmulator(), startEmulator()]);
  });
  after(async () => {
    await Promise.all(plugins.map((p) => p.close()));
    await Promise.all([a?.close(), b?.close()]);
  });
  const start = async () => {
    const p = await Plugin.start();
    plugins.push(p);
    return p;
  };

  it("CheckConfig: a misspelt key gets the stack rules' did-you-mean, a missing one its fix, all at once", async () => {
    const p = await start();
    const { failures } = await p.checkConfig({
      url: a.url,
      orign: ORIGIN,
      clientId: "emulator",
      usernme: "admin",
      password: secret("admin"),
    });
    const reasons = failures.map((f) => f.reason);
    assert.ok(reasons.includes('backupportal:orign: unknown key; did you mean "backupportal:origin"?'), reasons.join("\n"));
    assert.ok(reasons.includes('backupportal:usernme: unknown key; did you mean "backupportal:username"?'), reasons.join("\n"));
    const missing = reasons.find((r) => r.startsWith("Backup Portal connection is not configured"));
    assert.match(missing ?? "", /backupportal:origin \(or BACKUP_PORTAL_ORIGIN\), backupportal:username/);
    assert.doesNotMatch(reasons.join("\n"), /admin"/, "no value, and never the password, in a message");
    assert.deepEqual((await p.checkConfig(argsFor(a))).failures, [], "the right keys pass");
    assert.equal(
      (await p.checkConfig({ ...argsFor(a), url: "not a url" })).failures[0]?.reason.includes("backupportal:url is not a URL"),
      true,
    );
  });

  it("DiffConfig: a new url or username replaces the provider (and its resources), a new password does not", async () => {
    const p = await start();
    const olds = argsFor(a);
    const url = await p.diffConfig(olds, { ...olds, url: b.url });
    assert.deepEqual([url.changes, url.replaces, url.detailed], ["some", ["url"], { url: "replace" }]);
    const user = await p.diffConfig(olds, { ...olds, username: "tenant" });
    assert.deepEqual(user.replaces, ["username"]);
    const pw = await p.diffConfig(olds, { ...olds, password: secret("rotated") });
    assert.deepEqual([pw.changes, pw.replaces, pw.detailed], ["some", [], { password: "update" }]);
    assert.equal((await p.diffConfig(olds, olds)).changes, "none");
  });

  it("Configure: the args win over an older engine's variables, which fill only what the args leave out", async () => {
    const p = await start();
    const { username: _left, ...args } = argsFor(a);
    // provider_plugin.go sends both; the variables in the legacy `<package>:config:<key>` form.
    await p.configure(args, { variables: { "backupportal:config:url": b.url, "backupportal:config:username": "admin" } });
    const urn = urnOf("BusinessUnit", "from-variables");
    const inputs = (await p.check(urn, {}, { parentId: 1, name: "From variables", registrationNumber: "1", timeZone: "UTC" })).inputs;
    const before = b.requests().length;
    const made = await p.create(urn, inputs);
    const c = clientFor(a);
    try {
      assert.equal(
        (await c.businessUnits.get(Number(made.id))).name,
        "From variables",
        "made on the args' portal, as the variables' account",
      );
    } finally {
      c.close();
    }
    assert.equal(b.requests().length, before, "the variables' url was not used");
  });

  it("an engine that does not accept secrets (Configure acceptSecrets false) gets plain values back", async () => {
    const p = await start();
    await p.configure(argsFor(a), { acceptSecrets: false });
    const checked = await p.check(urnOf("Node", "plain"), {}, { businessUnitId: 1, consumerId: 2, tsmPassword: secret("s3cret-pass") });
    assert.equal(checked.inputs.tsmPassword, "s3cret-pass");
  });

  it("explicit providers: two plugin processes, each configured for its own portal, create where they point", async () => {
    const [pa, pb] = await Promise.all([start(), start()]);
    await pa.configure(argsFor(a));
    await pb.configure(argsFor(b));
    const declared = (name: string) => ({ parentId: 1, name, registrationNumber: "1", timeZone: "UTC" });
    const ia = (await pa.check(urnOf("BusinessUnit", "in-a"), {}, declared("In A"))).inputs;
    const ib = (await pb.check(urnOf("BusinessUnit", "in-b"), {}, declared("In B"))).inputs;
    const [ca, cb] = await Promise.all([pa.create(urnOf("BusinessUnit", "in-a"), ia), pb.create(urnOf("BusinessUnit", "in-b"), ib)]);
    const names = async (emu: Emulator, id: string) => {
      const c = clientFor(emu);
      try {
        return [(await c.businessUnits.get(Number(id))).name];
      } finally {
        c.close();
      }
    };
    assert.deepEqual(await names(a, ca.id), ["In A"]);
    assert.deepEqual(await names(b, cb.id), ["In B"]);
    // a's plugin never reaches b's object: the portal guard refuses, naming both portals, and sends nothing.
    const before = a.requests().length;
    await assert.rejects(
      pa.read(cb.id, urnOf("BusinessUnit", "in-b"), cb.properties),
      (err: Error) =>
        err.message.includes(`refusing to read it: it was created on ${b.url}`) && err.message.includes(`configured for ${a.url}`),
    );
    assert.equal(a.requests().length, before, "nothing was sent to a");
  });
});
