// `backup-portal doctor` (the real binary, against the emulator on loopback) shows the username it logs in with:
// it is no secret, and a wrong one is the commonest mistake. The password never appears, in the text report, the
// JSON report or on stderr; where the password is the username's text (the emulator's admin/admin), the username
// is still shown (the setting, the login and the account /v1/me names) and the password line says why its text
// shows there; an account name that is not the username is redacted as any text from the portal.
import assert from "node:assert/strict";
import { hashSecret } from "../../emulator/util";
import { envFor, Emulator, startEmulator } from "../support/portal";
import { startProxy } from "../support/proxy";
import { backupPortal } from "./process";

const USER = "ops.Backup";
const PASSWORD = "Pw-7f3a9c1e";

describe("backup-portal doctor: the username is shown, the password never", function () {
  this.timeout(120_000);
  let emu: Emulator;
  before(async () => {
    emu = await startEmulator({ quiet: true });
    emu.update((s) => {
      const admin = s.users.find((u) => u.username === "admin")!;
      s.users.push({ ...admin, id: 901, username: USER, passwordSalt: "salt-901", passwordHash: hashSecret(PASSWORD, "salt-901") });
    });
  });
  after(async () => {
    await emu?.close();
  });

  const env = () => ({ ...envFor(emu), BACKUP_PORTAL_USERNAME: USER, BACKUP_PORTAL_PASSWORD: PASSWORD });
  const line = (report: string, id: string) => report.split("\n").find((l) => new RegExp(`^\\w+ +${id} `).test(l)) ?? "";

  it("the setting and the login name the username; the password is in no output", async () => {
    const text = await backupPortal(["doctor"], { env: env() });
    assert.equal(text.code, 0, text.out + text.err);
    assert.match(
      line(text.out, "setting-username"),
      new RegExp(`^ok +setting-username +${USER.replace(".", "\\.")}, from BACKUP_PORTAL_USERNAME$`),
    );
    assert.match(line(text.out, "login"), new RegExp(`token for ${USER.replace(".", "\\.")} with client ID emulator`));
    assert.match(line(text.out, "setting-password"), /set, from BACKUP_PORTAL_PASSWORD \(not shown\)$/);
    const json = await backupPortal(["doctor", "--json"], { env: env() });
    assert.equal(json.code, 0, json.err);
    const report = JSON.parse(json.out) as { checks: Array<{ id: string; detail: string }> };
    assert.equal(report.checks.find((c) => c.id === "setting-username")?.detail, `${USER}, from BACKUP_PORTAL_USERNAME`);
    for (const o of [text.out, text.err, json.out, json.err]) {
      assert.ok(!o.toLowerCase().includes(PASSWORD.toLowerCase()), o);
    }
  });

  it("a wrong password: the login fails naming the username, the password still in no output", async () => {
    const wrong = "Wrong-Pw-4d2b";
    const r = await backupPortal(["doctor"], { env: { ...env(), BACKUP_PORTAL_PASSWORD: wrong } });
    assert.equal(r.code, 1, r.out);
    assert.match(line(r.out, "setting-username"), new RegExp(`${USER.replace(".", "\\.")}, from`));
    assert.match(line(r.out, "login"), /^failed +login +the portal refused the login/);
    assert.ok(!`${r.out}${r.err}`.includes(wrong), r.out);
  });

  it("the password is the username (admin/admin): the username shows, and the password line says why", async () => {
    const r = await backupPortal(["doctor"], { env: envFor(emu) });
    assert.equal(r.code, 0, r.out + r.err);
    assert.match(line(r.out, "setting-username"), /^ok +setting-username +admin, from BACKUP_PORTAL_USERNAME$/);
    assert.match(line(r.out, "login"), /token for admin with client ID/);
    assert.match(line(r.out, "me"), /^ok +me +account admin \(id 1\) reaches business unit 1 /);
    assert.match(line(r.out, "setting-password"), /\(not shown\); the username holds it, so it shows there/);
  });

  it("an account name from the portal that is not the username stays redacted: the password's text never shows", async () => {
    // A portal that names the account otherwise (a display name holding the password): only the username is let through.
    const proxy = await startProxy(
      emu.url,
      () => (req) =>
        req.method === "GET" && req.path === "/v1/me"
          ? { status: 200, json: { id: 7, username: `svc ${PASSWORD}`, businessUnit: { id: 1, name: "Reseller" } } }
          : "pass",
    );
    try {
      const r = await backupPortal(["doctor"], { env: { ...env(), BACKUP_PORTAL_URL: proxy.url } });
      assert.equal(r.code, 0, r.out + r.err);
      assert.match(line(r.out, "me"), /^ok +me +account svc \*\*\* \(id 7\) reaches business unit 1 /);
      assert.ok(!`${r.out}${r.err}`.toLowerCase().includes(PASSWORD.toLowerCase()), r.out);
    } finally {
      await proxy.close();
    }
  });
});
