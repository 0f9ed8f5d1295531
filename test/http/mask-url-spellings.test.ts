// A URL whose userinfo the WHATWG parser (fetch, the portal client) finds although the text is not written
// `scheme://`: `http:\\admin:s3cret@host`, `http:admin:s3cret@host`, `HTTP:/\admin:s3cret@host`, `//admin:…`, a tab
// inside the scheme. The client connects with those credentials, so maskUrl must hide them: property over the
// spellings, and the real `backup-portal doctor` with such a BACKUP_PORTAL_URL.
import assert from "node:assert/strict";
import fc from "fast-check";
import { maskUrl } from "../../provider/http/mask-url";
import { backupPortal } from "../cli/process";

const USER = "adm1n-q7";
const PASS = "s3cret-Pa55-z9";

describe("maskUrl: every spelling the URL parser reads userinfo from", function () {
  this.timeout(120_000);

  it("never shows a password (nor a user) the parser finds in the text (property)", () => {
    const slashes = fc.array(fc.constantFrom("/", "\\"), { maxLength: 3 }).map((a) => a.join(""));
    const scheme = fc.constantFrom("http", "HTTP", "https", "hTtPs", "ht\ttp", "ws");
    const blank = fc.constantFrom("", " ", "\t", "\n ");
    fc.assert(
      fc.property(blank, scheme, slashes, fc.constantFrom("", "/v1", "\\v1?a=b", "#x@y"), (b, s, sl, rest) => {
        const url = `${b}${s}:${sl}${USER}:${PASS}@127.0.0.1:1${rest}`;
        let parsed: URL | undefined;
        try {
          parsed = new URL(url);
        } catch {
          parsed = undefined;
        }
        const shown = maskUrl(url);
        if (parsed?.password)
          assert.ok(!shown.includes(PASS) && !shown.includes(USER), `${JSON.stringify(url)} shown as ${JSON.stringify(shown)}`);
        assert.ok(!shown.includes(PASS), `${JSON.stringify(url)} shown as ${JSON.stringify(shown)}`);
      }),
      { numRuns: 300, seed: 44 },
    );
    assert.equal(maskUrl(`//${USER}:${PASS}@host/x`), "//***@host/x");
    assert.equal(maskUrl(`http:\\\\${USER}:${PASS}@127.0.0.1:1`), "http:\\\\***@127.0.0.1:1");
  });

  it("doctor with BACKUP_PORTAL_URL='http:\\\\admin:s3cret@127.0.0.1:1' shows no password", async () => {
    const r = await backupPortal(["doctor"], {
      env: {
        BACKUP_PORTAL_URL: `http:\\\\${USER}:${PASS}@127.0.0.1:1`,
        BACKUP_PORTAL_ORIGIN: "http://localhost",
        BACKUP_PORTAL_CLIENT_ID: "c",
        BACKUP_PORTAL_USERNAME: "u",
        BACKUP_PORTAL_PASSWORD: "the-account-password-44",
      },
      timeoutMs: 90_000,
    });
    const shown = r.out + r.err;
    assert.match(shown, /127\.0\.0\.1:1/, shown);
    assert.ok(!shown.includes(PASS), shown);
    assert.ok(!shown.includes(USER), shown);
  });
});
