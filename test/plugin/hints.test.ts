// The plugin reads its connection as provider config under its own namespace (`backupportal:url`), so the hints
// of its errors name those keys: a user who follows one sets a key the plugin reads, not the stack program's.
import assert from "node:assert/strict";
import { ORIGIN, startEmulator, type Emulator } from "../support/portal";
import { secret } from "../engine/values";
import { GrpcCallError } from "../engine/grpc-unary";
import { Plugin, urnOf } from "./plugin";
import { settingName, stackHints, STACK_HINTS } from "../../provider/portal/hints";
import { loginSettings } from "../../provider/portal/login";

describe("the plugin's error hints name its own config keys", function () {
  this.timeout(60_000);
  let emu: Emulator;
  let plugin: Plugin;

  before(async () => {
    emu = await startEmulator();
    plugin = await Plugin.start();
  });
  after(async () => {
    await plugin?.close();
    await emu?.close();
  });

  it("a refused login points at backupportal:clientId/origin/username/password, never at backup-portal:", async () => {
    await plugin.configure({ url: emu.url, origin: ORIGIN, clientId: "emulator", username: "admin", password: secret("wrong") });
    const err = await plugin.read("1", urnOf("BusinessUnit", "acme"), { businessUnitId: 1 }).then(
      () => assert.fail("the read should be refused"),
      (e: unknown) => e,
    );
    assert.ok(err instanceof GrpcCallError, String(err));
    assert.match(
      err.details,
      /authentication failed: .*\(stack config backupportal:clientId\/origin\/username\/password, or BACKUP_PORTAL_/,
    );
    assert.doesNotMatch(err.details, /backup-portal:/);
  });

  it("every setting and hint is named under the namespace given; the stack's stay backup-portal:", () => {
    const plugin = stackHints("backupportal");
    assert.equal(settingName("url", plugin), "backupportal:url (or BACKUP_PORTAL_URL)");
    assert.equal(settingName("url", STACK_HINTS), "backup-portal:url (or BACKUP_PORTAL_URL)");
    assert.equal(settingName("url", { tool: "cli" }), "BACKUP_PORTAL_URL");
    assert.match(plugin.hints[0], /check the portal URL \(backupportal:url or BACKUP_PORTAL_URL\)/);
    assert.ok(
      Object.values(plugin.hints).every((h) => !h.includes("backup-portal:")),
      JSON.stringify(plugin.hints),
    );
    assert.equal(
      loginSettings(plugin),
      "backupportal:clientId (or BACKUP_PORTAL_CLIENT_ID), backupportal:origin (or BACKUP_PORTAL_ORIGIN), " +
        "backupportal:username (or BACKUP_PORTAL_USERNAME), backupportal:password (or BACKUP_PORTAL_PASSWORD)",
    );
    assert.equal(
      loginSettings({ tool: "cli" }),
      "BACKUP_PORTAL_CLIENT_ID, BACKUP_PORTAL_ORIGIN, BACKUP_PORTAL_USERNAME, BACKUP_PORTAL_PASSWORD",
    );
  });
});
