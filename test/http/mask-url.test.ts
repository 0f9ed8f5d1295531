// Issue 28 item 7: a portal URL with credentials in it (http://user:pass@host) is shown masked everywhere a URL is
// shown: doctor's report, register's progress (--dry-run), the billing receiver's log, and the errors that name
// the URL. One helper, maskUrl; each place is driven for real here, against the emulator on 127.0.0.1.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import fc from "fast-check";
import { main as receiverMain } from "../../provider/billing/main";
import { TEST_TRIGGER } from "../../provider/billing/requests";
import { run as doctor } from "../../provider/cli/doctor";
import { maskUrl, maskUrlsIn } from "../../provider/http/mask-url";
import { PortalClient } from "../../provider/portal/client";
import { PortalError } from "../../provider/portal/errors";
import { loginRefusedMessage } from "../../provider/portal/login";
import { resolveSettings } from "../../provider/portal/settings";
import { renderRegistrationUserData } from "../../provider/registration/user-data";
import { instanceDocument, register, removeTempDirs, tempDir } from "../registration/helpers";
import { Emulator, envFor, startEmulator, writes } from "../support/portal";

const USER = "url-user-7q";
const PASS = "Url-Pa55-in-userinfo";

/** The emulator's URL with credentials in its userinfo. */
const withUserinfo = (url: string) => url.replace("http://", `http://${USER}:${PASS}@`);

function assertMasked(text: string, where: string): void {
  assert.ok(!text.includes(PASS), `${where} shows the URL's password: ${text}`);
  assert.ok(!text.includes(USER), `${where} shows the URL's user: ${text}`);
}

describe("URLs are shown with their userinfo masked (issue 28 item 7)", function () {
  this.timeout(60_000);

  describe("maskUrl", () => {
    it("replaces whatever stands before the authority's last @, keeps the rest exactly", () => {
      const userinfo = fc.string({ minLength: 1, maxLength: 20 }).filter((s) => !/[/?#\\]/.test(s));
      fc.assert(
        fc.property(userinfo, fc.constantFrom("", "/", "/v1/oauth?x=1", "#f", "?a=b@c"), (info, rest) => {
          const url = `http://${info}@127.0.0.1:8080${rest}`;
          assert.equal(maskUrl(url), `http://***@127.0.0.1:8080${rest}`);
        }),
        { numRuns: 200, seed: 7 },
      );
      for (const [url, shown] of [
        ["http://127.0.0.1:8080/v1", "http://127.0.0.1:8080/v1"],
        ["https://portal.example.com/a@b", "https://portal.example.com/a@b"],
        ["http://u:p@ss@host/x", "http://***@host/x"],
        ["u:p@host", "***@host"],
        ["not a url", "not a url"],
        ["", ""],
      ])
        assert.equal(maskUrl(url), shown, url);
    });

    it("maskUrlsIn: every serialized URL in a library's message", () => {
      assert.equal(
        maskUrlsIn(`request to http://${USER}:${PASS}@127.0.0.1:1/v1/x failed, reason: see https://a:b@h/ and http://h/@x`),
        "request to http://***@127.0.0.1:1/v1/x failed, reason: see https://***@h/ and http://h/@x",
      );
    });
  });

  describe("in every place that shows the portal URL", () => {
    let emu: Emulator;
    before(async () => {
      emu = await startEmulator({ port: 0, quiet: true });
    });
    after(async () => {
      await emu.close();
      removeTempDirs();
    });

    it("doctor: the settings line, the version line, and a portal that does not answer", async () => {
      for (const [what, url] of [
        ["the emulator", withUserinfo(emu.url)],
        ["a closed port", `http://${USER}:${PASS}@127.0.0.1:1`],
        ["a value that is no http(s) URL", `ftp://${USER}:${PASS}@127.0.0.1`],
      ]) {
        for (const args of [[], ["--json"]]) {
          let out = "";
          await doctor([...args, "--timeout", "2000"], {
            out: (t) => void (out += t),
            err: (t) => void (out += t),
            env: { ...envFor(emu), BACKUP_PORTAL_URL: url },
          });
          assert.match(out, /\*\*\*@127\.0\.0\.1/, `${what}: the URL is still shown, masked`);
          assertMasked(out, `doctor ${args.join(" ")} (${what})`);
        }
      }
    });

    it("register --dry-run: progress and result", async () => {
      const env = { ...envFor(emu, "tenant"), BACKUP_PORTAL_URL: withUserinfo(emu.url) };
      const dir = tempDir();
      const o = await register(["--option-file", path.join(dir, "dsm.opt"), "--password-file", path.join(dir, "pw"), "--dry-run"], {
        doc: instanceDocument({ backup_bunit: "2" }),
        env,
      });
      assert.equal(o.code, 0, o.stderr);
      assert.match(o.stderr, /on http:\/\/\*\*\*@127\.0\.0\.1:\d+/, o.stderr);
      assertMasked(o.stdout + o.stderr, "register --dry-run");
      assert.deepEqual(writes(emu), []);
    });

    it("the billing receiver's log when the portal refuses the login", async () => {
      const out = fs.mkdtempSync(path.join(tempDir(), "billing-"));
      let log = "";
      const env = { ...envFor(emu), BACKUP_PORTAL_URL: withUserinfo(emu.url), BACKUP_PORTAL_PASSWORD: "wrong-password" };
      const r = await receiverMain(["--port", "0", "--out", out, "--bunit", "1"], env, {
        out: (t) => void (log += t),
        err: (t) => void (log += t),
        outIsTerminal: false,
      });
      assert.ok(typeof r !== "number", log);
      try {
        const res = await fetch(`${r.url}/notify?bunit=1`, {
          method: "POST",
          body: JSON.stringify({ trigger: TEST_TRIGGER }),
          signal: AbortSignal.timeout(10_000),
        });
        assert.equal(res.status, 503);
        assert.match(log, /the portal at http:\/\/\*\*\*@127\.0\.0\.1:\d+ refused the login/, log);
        assertMasked(log, "the billing receiver's log");
      } finally {
        await r.close();
      }
    });

    it("errors: a URL that is not one, the login refusal, the client's url, the registration user data", () => {
      const env = { ...envFor(emu), BACKUP_PORTAL_URL: `http://${USER}:${PASS}@[::1` };
      assert.throws(
        () => resolveSettings(undefined, env),
        (e: Error) => (assertMasked(e.message, "the settings error"), /is not a URL: "http:\/\/\*\*\*@\[::1"/.test(e.message)),
      );
      const refused = new PortalError({ method: "POST", path: "/v1/oauth", status: 400, code: "invalid_grant" });
      const msg = loginRefusedMessage(refused, withUserinfo(emu.url));
      assertMasked(msg, "loginRefusedMessage");
      const client = new PortalClient({ ...envSettings(emu), url: withUserinfo(emu.url) });
      try {
        assert.equal(client.url, emu.url.replace("http://", "http://***@"));
      } finally {
        client.close();
      }
      for (const url of [`ftp://${USER}:${PASS}@host`, `http://${USER}:${PASS}@[bad`]) {
        assert.throws(
          () => renderRegistrationUserData({ portal: { url, origin: "o", clientId: "c", username: "u", password: "p" } }),
          (e: Error) => (assertMasked(e.message, "the user data error"), /\*\*\*@/.test(e.message)),
        );
      }
    });
  });
});

function envSettings(emu: Emulator) {
  const e = envFor(emu);
  return {
    url: e.BACKUP_PORTAL_URL,
    origin: e.BACKUP_PORTAL_ORIGIN,
    clientId: e.BACKUP_PORTAL_CLIENT_ID,
    username: e.BACKUP_PORTAL_USERNAME,
    password: e.BACKUP_PORTAL_PASSWORD,
  };
}
