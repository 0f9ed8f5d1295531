// The doctor's first checks, its settings: each says where it came from, the password is never shown, a URL
// that is not http(s) fails before any request, and a URL given with /v1 is used without it.
import assert from "node:assert/strict";
import { startEmulator, type Emulator } from "../../emulator";
import { runDoctor, type DoctorReport } from "../../provider/doctor";
import { envFor } from "../support/portal";

const byId = (r: DoctorReport): Record<string, { status: string; detail: string; fix?: string }> =>
  Object.fromEntries(r.checks.map(({ id, status, detail, fix }) => [id, { status, detail, ...(fix ? { fix } : {}) }]));

describe("doctor: the settings", function () {
  this.timeout(30000);
  let em: Emulator;
  before(async () => {
    em = await startEmulator({ quiet: true });
  });
  after(() => em.close());

  it("a URL that is not http(s) fails with the fix, the others say where they came from, and nothing is asked", async () => {
    // The emulator's accounts use their name as password, which every line hides: another name here.
    const env: Record<string, string> = { ...envFor(em), BACKUP_PORTAL_URL: "ftp://portal.example", BACKUP_PORTAL_USERNAME: "ops" };
    const mark = em.requests().length;
    const r = await runDoctor({ env });
    assert.equal(r.ok, false);
    assert.deepEqual(byId(r), {
      "setting-url": {
        status: "failed",
        detail: '"ftp://portal.example" from BACKUP_PORTAL_URL is not an http(s) URL',
        fix: "use e.g. https://portal.example.com, without /v1",
      },
      "setting-origin": { status: "ok", detail: `${env.BACKUP_PORTAL_ORIGIN}, from BACKUP_PORTAL_ORIGIN` },
      "setting-clientId": { status: "ok", detail: "emulator, from BACKUP_PORTAL_CLIENT_ID" },
      "setting-username": { status: "ok", detail: "ops, from BACKUP_PORTAL_USERNAME" },
      "setting-password": { status: "ok", detail: "set, from BACKUP_PORTAL_PASSWORD (not shown)" },
    });
    assert.deepEqual(r.leftBehind, []);
    assert.equal(em.requests().length, mark, "no request with a failed setting");
    for (const url of ["http://", "https:///v1", "portal.example"]) {
      const bad = await runDoctor({ env: { ...env, BACKUP_PORTAL_URL: url } });
      assert.equal(byId(bad)["setting-url"].status, "failed", url);
    }
  });

  it("an empty variable is not set; the password's fix says it is a secret, the others' do not", async () => {
    const r = await runDoctor({ env: { ...envFor(em), BACKUP_PORTAL_USERNAME: "", BACKUP_PORTAL_PASSWORD: "" } });
    const c = byId(r);
    assert.deepEqual(c["setting-username"], {
      status: "failed",
      detail: "BACKUP_PORTAL_USERNAME is not set",
      fix: "export BACKUP_PORTAL_USERNAME=...; in a stack, backup-portal:username",
    });
    assert.match(c["setting-password"].fix!, /^export BACKUP_PORTAL_PASSWORD=\.\.\. \(a secret\); in a stack, backup-portal:password/);
    assert.equal(Object.keys(c).length, 5, "settings only");
  });

  it("a URL ending in /v1 (or /v1/, or with trailing slashes) is used without it, and the line says so", async () => {
    for (const suffix of ["/v1", "/v1/", "//"]) {
      const r = await runDoctor({ env: { ...envFor(em), BACKUP_PORTAL_URL: `${em.url}${suffix}` } });
      const c = byId(r);
      assert.equal(c["setting-url"].status, "ok");
      assert.equal(
        c["setting-url"].detail,
        `${em.url}${suffix}, from BACKUP_PORTAL_URL${suffix.startsWith("/v1") ? " (used without /v1)" : ""}`,
      );
      assert.equal(c.version.status, "ok", `${suffix}: ${c.version.detail}`);
      assert.equal(c.login.status, "ok", suffix);
      assert.equal(r.ok, true, suffix);
    }
  });
});
