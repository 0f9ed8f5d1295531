// The doctor's read checks called in process (in Stryker's spec list), against the emulator behind a proxy on
// 127.0.0.1 (test/support/proxy.ts) that passes a request on, refuses it, or answers in the portal's place: each
// answer a portal may give is said as that answer, with the exact detail, reading and fix, and each check returns
// whether the run can go on.
import assert from "node:assert/strict";
import { Probe } from "../../provider/doctor/probe";
import {
  checkAccount,
  checkAuditDates,
  checkErrors,
  checkJobsPath,
  checkLogin,
  checkOrigin,
  checkReference,
  checkVersion,
  type ReadContext,
} from "../../provider/doctor/read-checks";
import { Checks, type Check } from "../../provider/doctor/report";
import { cliHints } from "../../provider/portal/hints";
import { clientFor, ORIGIN } from "../support/portal";
import { proxiedEmulatorSuite, type Rule, type Seen, type Verdict } from "../support/proxy";

const URL_FIX =
  "set BACKUP_PORTAL_URL to the portal API's base address (the part before /v1, e.g. https://portal.example.com), " +
  "with no login page or proxy in front of it";
const LOGIN_FIX =
  "check BACKUP_PORTAL_CLIENT_ID, BACKUP_PORTAL_ORIGIN, BACKUP_PORTAL_USERNAME, BACKUP_PORTAL_PASSWORD; " +
  "the origin must be the one registered with the client ID (portal: Settings, API access)";
const FAILED_HINT = "the portal failed: try again later";
const HTML = { status: 200, text: "<!DOCTYPE html><title>Sign in</title>", type: "text/html" } as const;

/** A rule that answers `verdict` to the requests `match` picks and passes the others on. */
const on =
  (match: (r: Seen) => boolean, verdict: Verdict | ((r: Seen) => Verdict)): Rule =>
  (req) =>
    match(req) ? (typeof verdict === "function" ? verdict(req) : verdict) : "pass";
const path = (method: string, p: string | RegExp) => (r: Seen) =>
  r.method === method && (typeof p === "string" ? r.path.split("?")[0] === p : p.test(r.path));
/** The one check of a run, with its id and status (its detail varies with the platform's words for a closed connection). */
function only(checks: Check[], id: string, status: Check["status"]): Check {
  assert.deepEqual(
    checks.map((c) => [c.id, c.status]),
    [[id, status]],
  );
  return checks[0];
}
const portalSaid = (status: number, code = "Refused") => ({ status, json: { status, code, message: `refused with ${status}` } });

describe("doctor: the read checks, in process", function () {
  this.timeout(60_000);
  const suite = proxiedEmulatorSuite();

  /**
   * One check through the proxy with `r` (the login before it, when asked, passed on): what it returned, the
   * checks it added, and the requests it sent.
   */
  async function run<T>(
    r: Rule,
    check: (c: ReadContext) => Promise<T>,
    o: { login?: boolean; bunitId?: number; user?: "admin" | "tenant"; clientId?: string } = {},
  ): Promise<{ result: T; checks: Check[]; seen: Seen[]; c: ReadContext }> {
    suite.rule = () => "pass";
    const user = o.user ?? "admin";
    const client = clientFor(suite.em, user, { url: suite.proxy.url, maxAttempts: 1, hintContext: cliHints(["--bunit"]) });
    const probe = new Probe({ url: suite.proxy.url, origin: ORIGIN, timeoutMs: 5000, secrets: () => [user] });
    const c: ReadContext = {
      client,
      probe,
      checks: new Checks(),
      username: user,
      clientId: o.clientId ?? "emulator",
      password: user,
      bunitId: o.bunitId,
    };
    try {
      // The client's own login first, so that `seen` holds the check's requests only.
      await client.timeZones.list();
      if (o.login) {
        assert.ok(await checkLogin(c));
        c.checks = new Checks();
      }
      suite.proxy.seen.length = 0;
      suite.rule = r;
      const result = await check(c);
      return { result, checks: c.checks.list, seen: [...suite.proxy.seen], c };
    } finally {
      suite.rule = () => "pass";
      client.close();
    }
  }

  beforeEach(() => suite.em.reset());

  describe("version", () => {
    const at = () => `at ${suite.proxy.url}`;

    it("the emulator's JSON version: ok, and the run goes on", async () => {
      const r = await run(() => "pass", checkVersion);
      assert.equal(r.result, true);
      assert.deepEqual(r.checks, [{ id: "version", status: "ok", detail: `portal 1.0.4480.0 ${at()}` }]);
      assert.deepEqual(r.seen, [{ method: "GET", path: "/v1/fullVersion" }]);
    });

    it("a bare version (spaces around it, long numbers) is ok, said as bare text", async () => {
      const r = await run(on(path("GET", "/v1/fullVersion"), { status: 200, text: " 12.0.345.6789\n" }), checkVersion);
      assert.equal(r.result, true);
      assert.deepEqual(r.checks, [{ id: "version", status: "ok", detail: `portal 12.0.345.6789 ${at()} (answered as bare text)` }]);
    });

    it("asked without a token even when the probe holds one, as is the login; the refresh grant with the login's", async () => {
      await run(
        () => "pass",
        async (c) => {
          c.probe.token = "A-token-held-before";
          assert.ok(await checkVersion(c));
          assert.ok(await checkLogin(c));
        },
      );
      const sent = suite.em
        .requestDetails()
        .filter((d) => d.path === "/v1/fullVersion" || d.path === "/v1/oauth")
        .slice(-3);
      assert.deepEqual(
        sent.map((d) => [d.path, d.headers.authorization]),
        [
          ["/v1/fullVersion", undefined],
          ["/v1/oauth", undefined],
          ["/v1/oauth", "Bearer ***"],
        ],
      );
    });

    it("no answer: failed with the URL fix, and the run stops", async () => {
      const r = await run(() => "refuse", checkVersion);
      assert.equal(r.result, false);
      const v = only(r.checks, "version", "failed");
      assert.match(v.detail, new RegExp(`^no answer from ${suite.proxy.url}: GET /v1/fullVersion: .+`));
      assert.equal(v.fix, `${URL_FIX}, and make sure the portal is reachable from here (proxy, firewall)`);
    });

    it("an HTML page: failed with the URL fix, and the run stops", async () => {
      const r = await run(() => ({ ...HTML, status: 203 }), checkVersion);
      assert.equal(r.result, false);
      assert.deepEqual(r.checks, [
        {
          id: "version",
          status: "failed",
          detail: `this URL (${suite.proxy.url}) does not answer as the Cloutility API: GET /v1/fullVersion (HTTP 203): it answered with an HTML page, not the API's JSON`,
          fix: URL_FIX,
        },
      ]);
    });

    it("anything but HTTP 200 with a four-part version differs; the run stops only after a 5xx", async () => {
      const long = "x".repeat(70);
      const cases: Array<[Verdict, boolean, string]> = [
        [{ status: 200, json: "1.2.3" }, true, `HTTP 200 "\\"1.2.3\\""`],
        [{ status: 200, json: "1.2.3.4.5" }, true, `HTTP 200 "\\"1.2.3.4.5\\""`],
        [{ status: 200, json: "v1.2.3.4" }, true, `HTTP 200 "\\"v1.2.3.4\\""`],
        [{ status: 200, text: "1.2.3.4 beta" }, true, `HTTP 200 "1.2.3.4 beta"`],
        [{ status: 200, text: "1.2.x.4" }, true, `HTTP 200 "1.2.x.4"`],
        [{ status: 201, text: "1.2.3.4" }, true, `HTTP 201 "1.2.3.4"`],
        [{ status: 404, text: long }, true, `HTTP 404 "${"x".repeat(60)}"`],
        [{ status: 499, text: "" }, true, `HTTP 499 ""`],
        [{ status: 500, text: "1.2.3.4" }, false, `HTTP 500 "1.2.3.4"`],
      ];
      for (const [answer, goesOn, said] of cases) {
        const r = await run(() => answer, checkVersion);
        assert.equal(r.result, goesOn, JSON.stringify(answer));
        assert.deepEqual(
          r.checks,
          [
            {
              id: "version",
              status: "differs",
              detail: `GET /v1/fullVersion answered ${said}, not a four-part version; nothing relies on it`,
              reading: "other",
            },
          ],
          JSON.stringify(answer),
        );
      }
    });
  });

  describe("login and refresh", () => {
    const oauth = path("POST", "/v1/oauth");
    const refreshGrant = (r: Seen, seen: Seen[]) => oauth(r) && seen.some(oauth);

    it("the emulator: a token with its lifetime, the refresh grant allowed; the probe keeps the refreshed token", async () => {
      const r = await run(() => "pass", checkLogin);
      assert.equal(r.result, true);
      assert.deepEqual(r.checks, [
        {
          id: "login",
          status: "ok",
          detail: "token for admin with client ID emulator, lifetime 299 s; the client renews it before it expires",
        },
        {
          id: "refresh",
          status: "ok",
          detail: "the refresh grant is allowed; the refresh token stays the same",
          reading: "refresh allowed",
        },
      ]);
      assert.deepEqual(r.seen, [
        { method: "POST", path: "/v1/oauth" },
        { method: "POST", path: "/v1/oauth" },
      ]);
      // Both grants as the portal takes them: the password grant, then the refresh grant with its token.
      const bodies = suite.em
        .requestDetails()
        .filter((d) => d.path === "/v1/oauth")
        .map((d) => d.body as Record<string, string>);
      assert.deepEqual(
        bodies.slice(-2).map((b) => [b.grant_type, b.username, b.client_id]),
        [
          ["password", "admin", "emulator"],
          ["refresh_token", undefined, "emulator"],
        ],
      );
      // The token the probe keeps is the refreshed one: it is accepted, and the first is not the last issued.
      assert.equal((await r.c.probe.send("GET", "/v1/me")).status, 200);
    });

    it("the token the probe keeps when the refresh fails is the login's", async () => {
      const r = await run((req, seen) => (refreshGrant(req, seen) ? portalSaid(400, "invalid_grant") : "pass"), checkLogin);
      assert.equal(r.result, true);
      assert.ok(r.c.probe.token);
      assert.equal((await r.c.probe.send("GET", "/v1/me")).status, 200);
    });

    it("the lifetime as given, or not given", async () => {
      const token = (extra: Record<string, unknown>): Rule =>
        on(oauth, { status: 200, json: { access_token: "A-token-for-the-test", token_type: "bearer", ...extra } });
      for (const [extra, said] of [
        [{ expires_in: 60 }, "60 s"],
        [{ expires_in: "120" }, "120 s"],
        [{}, "not given (299 s assumed)"],
        [{ expires_in: "soon" }, "not given (299 s assumed)"],
      ] as const) {
        const r = await run(token(extra), checkLogin);
        assert.equal(r.result, true);
        assert.equal(
          r.checks[0].detail,
          `token for admin with client ID emulator, lifetime ${said}; the client renews it before it expires`,
          JSON.stringify(extra),
        );
        assert.equal(r.c.probe.token, "A-token-for-the-test");
        // No refresh token (or not a string): refreshing is not allowed, and nothing is sent for it.
        assert.deepEqual(r.checks[1], {
          id: "refresh",
          status: "differs",
          detail:
            "no refresh_token: this client ID does not allow refreshing; the client logs in with the password again when the token runs out (handled)",
          reading: "refresh not allowed",
        });
        assert.equal(r.seen.length, 1);
      }
      const numeric = await run(token({ refresh_token: 7 }), checkLogin);
      assert.equal(numeric.checks[1].reading, "refresh not allowed");
      const empty = await run(token({ refresh_token: "" }), checkLogin);
      assert.equal(empty.checks[1].reading, "refresh not allowed");
    });

    it("no answer: failed with the URL fix", async () => {
      const r = await run(() => "refuse", checkLogin);
      assert.equal(r.result, false);
      only(r.checks, "login", "failed");
      assert.match(r.checks[0].detail, /^POST \/v1\/oauth: /);
      assert.equal(r.checks[0].fix, URL_FIX);
      assert.equal(r.c.probe.token, undefined);
    });

    it("an HTML page: failed with the URL fix", async () => {
      const r = await run(() => HTML, checkLogin);
      assert.equal(r.result, false);
      assert.deepEqual(r.checks, [
        {
          id: "login",
          status: "failed",
          detail: `this URL (${suite.proxy.url}) does not answer as the Cloutility API: POST /v1/oauth (HTTP 200): it answered with an HTML page, not the API's JSON`,
          fix: URL_FIX,
        },
      ]);
    });

    it("a refused login says which setting the portal's code points at, with the settings to check", async () => {
      const cases: Array<[Verdict, string]> = [
        [
          { status: 400, json: { error: "invalid_client", error_description: "unknown client" } },
          "HTTP 400: invalid_client: unknown client): the client ID is not known to the portal",
        ],
        [
          { status: 400, json: { error: "invalid_grant" } },
          "HTTP 400: invalid_grant): the username or password is wrong, or the account may not use this client ID",
        ],
        [
          { status: 401, json: { code: "invalid_grant", message: "no" } },
          "HTTP 401: invalid_grant: no): the username or password is wrong, or the account may not use this client ID",
        ],
        [
          { status: 401, json: { error: 7, code: "invalid_client" } },
          "HTTP 401: invalid_client): the client ID is not known to the portal",
        ],
        [{ status: 403, json: { code: "Forbidden" } }, "HTTP 403: Forbidden): the portal refused the login"],
        [{ status: 400, json: null }, "HTTP 400: null): the portal refused the login"],
        [{ status: 400, json: "invalid_grant" }, 'HTTP 400: "invalid_grant"): the portal refused the login'],
        [{ status: 400, text: "no" }, "HTTP 400: no): the portal refused the login"],
        // A token with another status: refused too. (A 200 without a token is not the API: below.)
        [
          { status: 201, json: { access_token: "A-token-for-the-test" } },
          'HTTP 201: {"access_token":"A-token-for-the-test"}): the portal refused the login',
        ],
      ];
      for (const [answer, said] of cases) {
        const r = await run(() => answer, checkLogin);
        assert.equal(r.result, false, JSON.stringify(answer));
        assert.deepEqual(
          r.checks,
          [{ id: "login", status: "failed", detail: `the portal refused the login (${said}`, fix: LOGIN_FIX }],
          JSON.stringify(answer),
        );
        assert.equal(r.c.probe.token, undefined);
      }
    });

    it("a 200 without a string access_token, a 404 or 405 of the token request, a redirect, a 501: not the API, with the URL fix", async () => {
      const cases: Array<[Verdict, string]> = [
        [{ status: 200, json: {} }, "HTTP 200): its token request was answered without an access_token"],
        [{ status: 200, json: { access_token: 5 } }, "HTTP 200): its token request was answered without an access_token"],
        [
          { status: 404, json: { code: "NotFound" } },
          "HTTP 404): nothing answers its token request (HTTP 404), which every portal serves at /v1/oauth",
        ],
        [{ status: 405, text: "" }, "HTTP 405): nothing answers its token request (HTTP 405), which every portal serves at /v1/oauth"],
        [{ status: 501, text: "Unsupported method" }, "HTTP 501): it does not implement POST (HTTP 501), as a plain web server answers"],
        [{ status: 302, text: "" }, "HTTP 302): it answered with a redirect, which the API never sends"],
      ];
      for (const [answer, said] of cases) {
        const r = await run(() => answer, checkLogin);
        assert.equal(r.result, false, JSON.stringify(answer));
        assert.deepEqual(
          r.checks,
          [
            {
              id: "login",
              status: "failed",
              detail: `this URL (${suite.proxy.url}) does not answer as the Cloutility API: POST /v1/oauth (${said}`,
              fix: URL_FIX,
            },
          ],
          JSON.stringify(answer),
        );
      }
    });

    it("the refresh grant: a new refresh token, none, refused, or no answer", async () => {
      const refresh =
        (v: Verdict): Rule =>
        (req, seen) =>
          refreshGrant(req, seen) ? v : "pass";
      const cases: Array<[Verdict, Omit<Check, "id">]> = [
        [
          { status: 200, json: { access_token: "B-token-for-the-test", refresh_token: "a-new-one" } },
          {
            status: "ok",
            detail: "the refresh grant is allowed; it answered a new refresh token (the client keeps the newest)",
            reading: "refresh allowed",
          },
        ],
        [
          { status: 200, json: { access_token: "B-token-for-the-test" } },
          { status: "ok", detail: "the refresh grant is allowed; the refresh token stays the same", reading: "refresh allowed" },
        ],
        [
          { status: 400, json: { error: "invalid_grant", error_description: "expired" } },
          {
            status: "differs",
            detail:
              "the refresh grant is refused (HTTP 400: invalid_grant: expired); the client falls back to the password grant (handled)",
            reading: "refresh refused",
          },
        ],
        [
          { status: 200, json: { access_token: 1 } },
          {
            status: "differs",
            detail: 'the refresh grant is refused (HTTP 200: {"access_token":1}); the client falls back to the password grant (handled)',
            reading: "refresh refused",
          },
        ],
        [
          { status: 200, json: null },
          {
            status: "differs",
            detail: "the refresh grant is refused (HTTP 200: null); the client falls back to the password grant (handled)",
            reading: "refresh refused",
          },
        ],
        [
          { status: 202, json: { access_token: "B-token-for-the-test" } },
          {
            status: "differs",
            detail:
              'the refresh grant is refused (HTTP 202: {"access_token":"B-token-for-the-test"}); the client falls back to the password grant (handled)',
            reading: "refresh refused",
          },
        ],
      ];
      for (const [answer, want] of cases) {
        const r = await run(refresh(answer), checkLogin);
        assert.equal(r.result, true);
        assert.deepEqual(r.checks[1], { id: "refresh", ...want }, JSON.stringify(answer));
        const refreshed = want.status === "ok";
        assert.equal(r.c.probe.token === "B-token-for-the-test", refreshed, JSON.stringify(answer));
      }
      const lost = await run(refresh("refuse"), checkLogin);
      assert.equal(lost.result, true);
      only(lost.checks.slice(1), "refresh", "differs");
      assert.equal(lost.checks[1].reading, "unknown");
      assert.match(
        lost.checks[1].detail,
        /^the refresh grant got no answer \(POST \/v1\/oauth: .+\); the client falls back to the password grant \(handled\)$/,
      );
    });
  });

  describe("origin", () => {
    it("refused without Origin (4xx): ok; any other answer differs; no answer: skipped", async () => {
      const pass = await run(() => "pass", checkOrigin, { login: true });
      assert.deepEqual(pass.checks, [
        { id: "origin", status: "ok", detail: "a call without Origin is refused (HTTP 401); the client sends it on every call" },
      ]);
      assert.deepEqual(pass.seen, [{ method: "GET", path: "/v1/me" }]);
      for (const status of [400, 499]) {
        const r = await run(() => portalSaid(status), checkOrigin, { login: true });
        assert.equal(r.checks[0].status, "ok", String(status));
      }
      for (const status of [200, 399, 500]) {
        const r = await run(() => portalSaid(status), checkOrigin, { login: true });
        assert.deepEqual(r.checks, [
          {
            id: "origin",
            status: "differs",
            detail: `a call without Origin answered HTTP ${status}; the client sends Origin on every call anyway (handled)`,
            reading: "Origin not required",
          },
        ]);
      }
      const none = await run(() => "refuse", checkOrigin, { login: true });
      only(none.checks, "origin", "skipped");
      assert.match(none.checks[0].detail, /^GET \/v1\/me: /);
    });
  });

  describe("account and business unit", () => {
    const me = path("GET", "/v1/me");
    const bunit = (id: number) => path("GET", `/v1/bunits/${id}`);

    it("the account's own business unit, or one below it", async () => {
      const own = await run(() => "pass", checkAccount);
      assert.equal(own.result, 1);
      assert.deepEqual(own.checks, [
        { id: "me", status: "ok", detail: 'account admin (id 1) reaches business unit 1 "Reseller" and everything below it' },
        {
          id: "bunit",
          status: "ok",
          detail: 'business unit 1 "Reseller", time zone (GMT+01:00) Amsterdam, Berlin, Bern, Rome, Stockholm, Vienna',
        },
      ]);
      const below = await run(() => "pass", checkAccount, { bunitId: 2 });
      assert.equal(below.result, 2);
      assert.equal(
        below.checks[1].detail,
        'business unit 2 "Tenant A", time zone (GMT+01:00) Amsterdam, Berlin, Bern, Rome, Stockholm, Vienna (below the account\'s 1)',
      );
      const same = await run(() => "pass", checkAccount, { bunitId: 1 });
      assert.equal(same.checks[1].detail, own.checks[1].detail);
    });

    it("an account and a business unit with fewer fields: what there is", async () => {
      const r = await run(
        (req) => (me(req) ? { status: 200, json: {} } : bunit(3)(req) ? { status: 200, json: { id: 3 } } : "pass"),
        checkAccount,
        {
          bunitId: 3,
        },
      );
      assert.equal(r.result, 3);
      assert.deepEqual(r.checks, [
        { id: "me", status: "ok", detail: "account admin reaches business unit ? and everything below it" },
        { id: "bunit", status: "ok", detail: 'business unit 3 ""' },
      ]);
      const named = await run(
        on(me, { status: 200, json: { id: 9, name: "Someone", businessUnit: { id: 2, name: "" }, username: undefined } }),
        checkAccount,
      );
      assert.equal(named.checks[0].detail, "account Someone (id 9) reaches business unit 2 and everything below it");
      assert.equal(named.result, 2);
      const zero = await run(on(me, { status: 200, json: { id: 0, username: "zero" } }), checkAccount, { bunitId: 2 });
      assert.equal(zero.checks[0].detail, "account zero (id 0) reaches business unit ? and everything below it");
      assert.doesNotMatch(zero.checks[1].detail, /below the account/);
    });

    it("no /v1/me: differs; without --bunit nothing to check, with it that business unit", async () => {
      const r = await run(on(me, portalSaid(404, "NotFound")), checkAccount);
      assert.equal(r.result, undefined);
      assert.deepEqual(r.checks, [
        {
          id: "me",
          status: "differs",
          detail: "GET /v1/me is not answered (the API documentation does not list it); nothing the providers do needs it: give --bunit",
          reading: "no /v1/me",
        },
        { id: "bunit", status: "skipped", detail: "no business unit to check: give --bunit <id>" },
      ]);
      assert.deepEqual(r.seen, [{ method: "GET", path: "/v1/me" }]);
      const given = await run(on(me, portalSaid(404, "NotFound")), checkAccount, { bunitId: 2 });
      assert.equal(given.result, 2);
      assert.equal(given.checks[1].status, "ok");
      assert.doesNotMatch(given.checks[1].detail, /below/);
    });

    it("/v1/me failing otherwise: failed with the client's hint, or the generic fix", async () => {
      const failing = await run(on(me, portalSaid(500)), checkAccount);
      only(failing.checks.slice(0, 1), "me", "failed");
      assert.equal(failing.checks[0].detail, `GET /v1/me failed (HTTP 500): Refused: refused with 500. Hint: ${FAILED_HINT}`);
      assert.equal(failing.checks[0].fix, FAILED_HINT);
      // Nothing to go on: no business unit is read.
      assert.equal(failing.result, undefined);
      assert.equal(failing.checks[1].status, "skipped");
      const teapot = await run(on(me, portalSaid(418)), checkAccount);
      assert.equal(teapot.checks[0].fix, "check the account");
      assert.equal(teapot.checks[0].detail, "GET /v1/me failed (HTTP 418): Refused: refused with 418");
    });

    it("a business unit the account cannot read: failed, naming the account's own; other failures their hint", async () => {
      const reach = (extra = "") => `give --bunit (and backup-portal:rootBusinessUnitId) a business unit the account reaches${extra}`;
      const cases: Array<[Rule, number, string, string]> = [
        [on(bunit(3), portalSaid(403)), 3, "Refused: refused with 403", reach(" (its own is 1, or one below it)")],
        [() => "pass", 999, "NotFound: ", reach(" (its own is 1, or one below it)")],
        [(req) => (me(req) ? portalSaid(404) : bunit(3)(req) ? portalSaid(404) : "pass"), 3, "Refused: ", reach()],
        [on(bunit(3), portalSaid(500)), 3, "Refused: refused with 500", FAILED_HINT],
        [on(bunit(3), portalSaid(418)), 3, "Refused: refused with 418", "check the business unit id"],
      ];
      for (const [r, id, said, fix] of cases) {
        const o = await run(r, checkAccount, { bunitId: id });
        assert.equal(o.result, undefined);
        const b = o.checks.find((c) => c.id === "bunit")!;
        assert.equal(b.status, "failed");
        assert.ok(b.detail.startsWith(`business unit ${id}: GET /v1/bunits/${id} failed (HTTP `), b.detail);
        assert.ok(b.detail.includes(said), b.detail);
        assert.equal(b.fix, fix, b.detail);
      }
    });
  });

  describe("reference data", () => {
    it("the emulator's: counted and named, at most five names", async () => {
      const r = await run(
        () => "pass",
        (c) => checkReference(c, 2),
      );
      assert.deepEqual(r.checks, [
        {
          id: "reference",
          status: "ok",
          detail:
            "4 operating systems (Windows workstation, Windows server, Linux, macOS), 3 node types (File server, Workstation, Application server), 8 time zones",
        },
        {
          id: "default-server",
          status: "ok",
          detail:
            "SP01 of business unit 2: 7 domains (STANDARD, 30DAYS, 60DAYS, 90DAYS, 180DAYS, ...), 3 client option sets (None, DEDUP_AND_COMPRESS, FORCE_ENCRYPT)",
        },
      ]);
    });

    it("five names in full; an item without a name by its id; a server without a name by its id", async () => {
      suite.em.update((s) => {
        s.operatingSystems = s.operatingSystems.slice(0, 1);
        s.domains.splice(5);
      });
      const r = await run(
        (req) =>
          path("GET", "/v1/nodetypes")(req)
            ? { status: 200, json: [{ id: 7 }, { id: 8, name: "Eight" }] }
            : path("GET", "/v1/bunits/2/defaultserver")(req)
              ? { status: 200, json: { id: 1 } }
              : "pass",
        (c) => checkReference(c, 2),
      );
      assert.equal(r.checks[0].detail, "1 operating systems (Windows workstation), 2 node types (7, Eight), 8 time zones");
      assert.equal(
        r.checks[1].detail,
        "id 1 of business unit 2: 5 domains (STANDARD, 30DAYS, 60DAYS, 90DAYS, 180DAYS), 3 client option sets (None, DEDUP_AND_COMPRESS, FORCE_ENCRYPT)",
      );
    });

    it("an empty list: failed, naming each empty one; a server without domains: failed", async () => {
      suite.em.update((s) => {
        s.operatingSystems = [];
        s.timeZones = [];
        s.domains = [];
      });
      const r = await run(
        () => "pass",
        (c) => checkReference(c, 2),
      );
      assert.deepEqual(r.checks, [
        {
          id: "reference",
          status: "failed",
          detail: "the portal lists no operating systems, no time zones",
          fix: "nodes and business units need them: ask the portal's operator",
        },
        {
          id: "default-server",
          status: "failed",
          detail: "default server SP01 of business unit 2 has no domains",
          fix: "a node needs a policy domain: ask the portal's operator",
        },
      ]);
      suite.em.reset();
      suite.em.update((s) => {
        s.nodeTypes = [];
      });
      const one = await run(on(path("GET", "/v1/bunits/2/defaultserver/domains"), { status: 200, json: [] }), (c) => checkReference(c, 2));
      assert.equal(one.checks[0].detail, "the portal lists no node types");
      const unnamed = await run(
        (req) =>
          path("GET", "/v1/bunits/2/defaultserver/domains")(req)
            ? { status: 200, json: [] }
            : path("GET", "/v1/bunits/2/defaultserver")(req)
              ? { status: 200, json: { id: 4 } }
              : "pass",
        (c) => checkReference(c, 2),
      );
      assert.equal(unnamed.checks[1].detail, "default server 4 of business unit 2 has no domains");
    });

    it("a read failing: that check failed with the client's hint, or the generic fix", async () => {
      const r = await run(
        (req) =>
          path("GET", "/v1/timezones")(req)
            ? portalSaid(418)
            : path("GET", "/v1/bunits/2/defaultserver/clientoptionsets")(req)
              ? portalSaid(418)
              : "pass",
        (c) => checkReference(c, 2),
      );
      assert.deepEqual(r.checks, [
        {
          id: "reference",
          status: "failed",
          detail: "GET /v1/timezones failed (HTTP 418): Refused: refused with 418",
          fix: "check the account",
        },
        {
          id: "default-server",
          status: "failed",
          detail: "business unit 2: GET /v1/bunits/2/defaultserver/clientoptionsets failed (HTTP 418): Refused: refused with 418",
          fix: "check the business unit",
        },
      ]);
      const hinted = await run(on(path("GET", /^\/v1\/(nodetypes|bunits\/2\/defaultserver)$/), portalSaid(500)), (c) =>
        checkReference(c, 2),
      );
      assert.deepEqual(
        hinted.checks.map((c) => [c.status, c.fix]),
        [
          ["failed", FAILED_HINT],
          ["failed", FAILED_HINT],
        ],
      );
    });
  });

  describe("error shape", () => {
    const consumer0 = path("GET", "/v1/bunits/2/consumers/0");
    const errors = (r: Rule) => run(r, (c) => checkErrors(c, 2), { login: true });

    it("the portal's shape: ok, naming its fields", async () => {
      const r = await errors(() => "pass");
      assert.deepEqual(r.checks, [
        { id: "errors", status: "ok", detail: "an unknown consumer is 404 with {status, code, message, developerMessage}" },
      ]);
      assert.deepEqual(r.seen, [{ method: "GET", path: "/v1/bunits/2/consumers/0" }]);
    });

    it("another shape, another status, no error at all, no answer", async () => {
      const long = `not found ${"-".repeat(90)}`;
      const other = (status: number, text: string): Check => ({
        id: "errors",
        status: "differs",
        detail: `an unknown consumer is HTTP ${status} with ${JSON.stringify(text)}; the client shows the portal's text as it is (handled)`,
        reading: "other error shape",
      });
      const cases: Array<[Verdict, Check]> = [
        [{ status: 404, text: long }, other(404, long.slice(0, 80))],
        [{ status: 404, json: { code: 404 } }, other(404, '{"code":404}')],
        [{ status: 404, json: null }, other(404, "null")],
        [{ status: 400, json: { code: "Bad" } }, other(400, '{"code":"Bad"}')],
        [
          { status: 399, json: {} },
          {
            id: "errors",
            status: "differs",
            detail: "an unknown consumer (id 0) answered HTTP 399; nothing relies on it",
            reading: "no 404",
          },
        ],
        [
          { status: 200, json: { id: 0 } },
          {
            id: "errors",
            status: "differs",
            detail: "an unknown consumer (id 0) answered HTTP 200; nothing relies on it",
            reading: "no 404",
          },
        ],
      ];
      for (const [answer, want] of cases) {
        const r = await errors(on(consumer0, answer));
        assert.deepEqual(r.checks, [want], JSON.stringify(answer));
      }
      const none = await errors(on(consumer0, "refuse"));
      only(none.checks, "errors", "skipped");
      assert.match(none.checks[0].detail, /^GET \/v1\/bunits\/2\/consumers\/0: /);
    });

    it("a secret the portal echoes is removed before the text is cut, so no part of it is shown", async () => {
      // The run's password is "admin"; cut at 80 characters, the echo would end in "adm", which the report's
      // redaction of the whole password no longer finds.
      const echo = `${"y".repeat(77)}admin and more`;
      const r = await errors(on(consumer0, { status: 404, text: echo }));
      assert.equal(
        r.checks[0].detail,
        `an unknown consumer is HTTP 404 with ${JSON.stringify(`${"y".repeat(77)}***`)}; the client shows the portal's text as it is (handled)`,
      );
    });
  });

  describe("job list path", () => {
    const jobs = (r: Rule, bunit = 2) => run(r, (c) => checkJobsPath(c, bunit));

    it("spec 000's path, asked of the first consumer with jobs", async () => {
      const r = await jobs(() => "pass");
      assert.deepEqual(r.checks, [
        {
          id: "jobs-path",
          status: "ok",
          detail: "the job list is at .../jobs/first?startTime&endTime, the documented path (consumer 1, 4 jobs)",
          reading: "jobs/first",
        },
      ]);
      // The consumers listed, the first one's first job, then its list until tomorrow.
      assert.deepEqual(
        r.seen.map((s) => s.path.split("?")[0]),
        ["/v1/bunits/2/consumers", "/v1/bunits/2/consumers/1/jobs/first", "/v1/bunits/2/consumers/1/jobs/first"],
      );
      const end = new URL(r.seen[2].path, "http://x").searchParams.get("endTime");
      const ahead = Date.parse(end!) - Date.now();
      assert.ok(ahead > 86_000_000 && ahead <= 86_400_000, end!);
    });

    it("the jobs counted are those the portal answered until tomorrow, older ones too", async () => {
      const ago = (ms: number) => new Date(Date.now() - ms).toISOString();
      const r = await jobs((req) =>
        req.method === "GET" && /^\/v1\/bunits\/2\/consumers\/1\/jobs\/first\?/.test(req.path)
          ? {
              status: 200,
              json: [
                { id: 1, completed: ago(3 * 86_400_000) },
                { id: 2, completed: ago(3_600_000) },
              ],
            }
          : "pass",
      );
      assert.match(r.checks[0].detail, /\(consumer 1, 2 jobs\)$/);
    });

    it("a consumer without jobs is passed over for one with; none with jobs: the first", async () => {
      suite.em.update((s) => {
        for (const j of s.jobs) if (j.consumerId === 1) j.consumerId = 2;
      });
      const r = await jobs(() => "pass");
      assert.match(r.checks[0].detail, /\(consumer 2, \d+ jobs\)$/);
      suite.em.update((s) => {
        s.jobs = [];
      });
      const none = await jobs(() => "pass");
      assert.match(none.checks[0].detail, /\(consumer 1, 0 jobs\)$/);
      // A first job that cannot be read is a consumer without jobs.
      suite.em.reset();
      suite.em.update((s) => {
        const mine = s.jobs.filter((j) => j.consumerId === 1);
        mine.forEach((j, i) => s.jobs.push({ ...j, id: 1000 + i, consumerId: 2 }));
      });
      const both = await jobs(() => "pass");
      assert.match(both.checks[0].detail, /\(consumer 1, \d+ jobs\)$/, "the first with jobs, not the last");
      const failing = await jobs((req) => (req.path === "/v1/bunits/2/consumers/1/jobs/first" ? portalSaid(500) : "pass"));
      assert.match(failing.checks[0].detail, /\(consumer 2, \d+ jobs\)$/);
    });

    it("only the first five consumers are asked", async () => {
      suite.em.update((s) => {
        const jobOf = s.jobs.find((j) => j.consumerId === 1)!;
        s.jobs = [];
        for (let i = 0; i < 6; i++) s.consumers.push({ ...s.consumers[0], id: 100 + i, name: `extra-${i}`, businessUnitId: 1 });
        s.jobs.push({ ...jobOf, consumerId: 105 });
      });
      const r = await jobs(() => "pass", 1);
      assert.match(r.checks[0].detail, /\(consumer 100, 0 jobs\)$/);
      assert.equal(r.seen.filter((s) => s.path.split("?")[0].endsWith("/jobs/first")).length, 6);
    });

    it("`.../jobs` when jobs/first is not a list: differs", async () => {
      const r = await jobs(on(path("GET", /\/jobs\/first/), portalSaid(404, "NotFound")));
      assert.deepEqual(r.checks, [
        {
          id: "jobs-path",
          status: "differs",
          detail:
            "the job list is at .../jobs (.../jobs/first answered one job or 404); the client falls back to it and keeps it (handled; consumer 1, 4 jobs)",
          reading: "jobs",
        },
      ]);
    });

    it("no consumer: skipped; no job list answered: skipped with the reason", async () => {
      suite.em.update((s) => {
        s.consumers = s.consumers.filter((c) => c.businessUnitId !== 2);
      });
      const r = await jobs(() => "pass");
      assert.deepEqual(r.checks, [
        {
          id: "jobs-path",
          status: "skipped",
          detail: "business unit 2 has no consumer to ask; the client tries the documented path, then .../jobs",
        },
      ]);
      suite.em.reset();
      const failing = await jobs(on(path("GET", /\/jobs/), portalSaid(500)));
      only(failing.checks, "jobs-path", "skipped");
      assert.match(
        failing.checks[0].detail,
        /^neither path answered a job list: GET \/v1\/bunits\/2\/consumers\/1\/jobs\/first failed \(HTTP 500\): Refused: refused with 500\. Hint: the portal failed: try again later; only `backup-portal jobs` needs it$/,
      );
    });
  });

  describe("audit log dates", () => {
    const audit = (r: Rule) => run(r, (c) => checkAuditDates(c, 2), { login: true });
    const auditOf = (id: number) => (r: Seen) => r.method === "GET" && r.path.startsWith(`/v1/bunits/2/consumers/${id}/auditlogs?`);
    /** The audit log answered by the proxy: `total` entries, or none when the query names `filtered`. */
    const answering =
      (total: (q: URLSearchParams) => number, shape: (n: number) => unknown = (n) => ({ total: n, items: [] })): Rule =>
      (req) =>
        auditOf(1)(req) || auditOf(2)(req) ? { status: 200, json: shape(total(new URL(req.path, "http://x").searchParams)) } : "pass";
    const future = (q: URLSearchParams, k: string) => q.get(k) === "2999-01-01T00:00:00Z";

    it("the emulator takes both spellings: ok, with the query it was asked", async () => {
      const r = await audit(() => "pass");
      assert.deepEqual(r.checks, [
        {
          id: "audit-dates",
          status: "ok",
          detail: "the audit log range takes startTime/endTime and startDate/endDate (consumer 1); the client sends both spellings",
          reading: "both",
        },
      ]);
      assert.deepEqual(
        r.seen.map((s) => s.path),
        [
          "/v1/bunits/2/consumers",
          "/v1/bunits/2/consumers/1/auditlogs?includeDescendants=true&limit=1",
          "/v1/bunits/2/consumers/1/auditlogs?includeDescendants=true&limit=1&startTime=2999-01-01T00%3A00%3A00Z",
          "/v1/bunits/2/consumers/1/auditlogs?includeDescendants=true&limit=1&startDate=2999-01-01T00%3A00%3A00Z",
        ],
      );
    });

    it("each spelling honoured alone, or neither", async () => {
      const cases: Array<[(q: URLSearchParams) => number, Check]> = [
        [
          (q) => (future(q, "startTime") ? 0 : 3),
          {
            id: "audit-dates",
            status: "ok",
            detail:
              "the audit log range takes startTime/endTime, as the API documentation's table has it (consumer 1); the client sends both spellings",
            reading: "startTime/endTime",
          },
        ],
        [
          (q) => (future(q, "startDate") ? 0 : 3),
          {
            id: "audit-dates",
            status: "differs",
            detail:
              "the audit log range takes startDate/endDate (as the API documentation's prose has it), not startTime/endTime (consumer 1); the client sends both spellings (handled)",
            reading: "startDate/endDate",
          },
        ],
        [
          () => 3,
          {
            id: "audit-dates",
            status: "differs",
            detail:
              "the portal filters the audit log by neither spelling (consumer 1); the client sends both spellings: `backup-portal audit --from/--to` shows every entry",
            reading: "neither",
          },
        ],
      ];
      for (const [total, want] of cases) {
        const r = await audit(answering(total));
        assert.deepEqual(r.checks, [want]);
      }
    });

    it("the count read from total, the items, a bare list; anything else is none", async () => {
      const shapes: Array<(n: number) => unknown> = [
        (n) => ({ items: Array.from({ length: n }, (_, i) => ({ id: i })) }),
        (n) => Array.from({ length: n }, (_, i) => ({ id: i })),
        (n) => ({ total: n, items: [] }),
        (n) => ({ total: n, items: [{ id: 1 }, { id: 2 }] }),
      ];
      for (const shape of shapes) {
        const r = await audit(answering((q) => (future(q, "startTime") ? 0 : 2), shape));
        assert.equal(r.checks[0].reading, "startTime/endTime", String(shape));
      }
      // A total that is not a number, or an answer with neither: no entries (and a list of one counted as one).
      for (const body of [{ total: "3", items: [] }, { count: 3 }, "3", null]) {
        const r = await audit((req) => (auditOf(1)(req) || auditOf(2)(req) ? { status: 200, json: body } : "pass"));
        assert.deepEqual(
          r.checks,
          [
            {
              id: "audit-dates",
              status: "skipped",
              detail: "no consumer of business unit 2 has audit entries to ask; the client sends both spellings",
            },
          ],
          JSON.stringify(body),
        );
      }
      const one = await audit((req) =>
        auditOf(1)(req) || auditOf(2)(req) ? { status: 200, json: { total: "3", items: [{ id: 1 }] } } : "pass",
      );
      assert.equal(one.checks[0].reading, "neither");
    });

    it("the first consumer with entries is asked; a consumer without entries is passed over", async () => {
      const r = await audit((req) => (auditOf(1)(req) ? { status: 200, json: { total: 0, items: [] } } : "pass"));
      assert.match(r.checks[0].detail, /\(consumer 2\)/);
      assert.deepEqual(
        r.seen.map((s) => s.path.split("?")[0]),
        [
          "/v1/bunits/2/consumers",
          "/v1/bunits/2/consumers/1/auditlogs",
          "/v1/bunits/2/consumers/2/auditlogs",
          "/v1/bunits/2/consumers/2/auditlogs",
          "/v1/bunits/2/consumers/2/auditlogs",
        ],
      );
    });

    it("an audit log that does not answer 200: skipped with the portal's words", async () => {
      const r = await audit(on(auditOf(1), portalSaid(403)));
      assert.deepEqual(r.checks, [
        {
          id: "audit-dates",
          status: "skipped",
          detail: "GET .../auditlogs answered HTTP 403: Refused: refused with 403; only `backup-portal audit` needs it",
        },
      ]);
      const created = await audit(on(auditOf(1), { status: 201, json: { total: 1 } }));
      assert.equal(created.checks[0].status, "skipped");
    });
  });
});
