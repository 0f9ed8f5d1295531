// runDoctor in process (in Stryker's spec list), against the emulator behind the loopback proxy of
// test/support/proxy.ts: how each setting is shown, where the run stops, that the write test waits for the read
// checks to pass, the hints a command's user can follow, and no password or token in any line, also where the
// portal echoes one back.
import assert from "node:assert/strict";
import { runDoctor, type DoctorReport } from "../../provider/doctor";
import { envFor } from "../support/portal";
import { proxiedEmulatorSuite, startProxy } from "../support/proxy";

const byId = (r: DoctorReport, id: string) => {
  const found = r.checks.find((c) => c.id === id);
  assert.ok(found, `no check ${id} in ${JSON.stringify(r.checks)}`);
  return found;
};

describe("doctor: runDoctor, in process", function () {
  this.timeout(60_000);
  const suite = proxiedEmulatorSuite();
  beforeEach(() => {
    suite.em.reset();
    suite.rule = () => "pass";
  });

  /** The environment of a run through the proxy. */
  const proxied = (user: "admin" | "tenant" = "admin") => ({ ...envFor(suite.em, user), BACKUP_PORTAL_URL: suite.proxy.url });

  it("each setting as given, a URL's credentials masked; only the URL is used without /v1", async () => {
    const port = new URL(suite.em.url).port;
    const r = await runDoctor({
      env: {
        ...envFor(suite.em),
        BACKUP_PORTAL_URL: `http://someone:In-the-url@127.0.0.1:${port}/v1`,
        BACKUP_PORTAL_CLIENT_ID: "svc/v1",
        BACKUP_PORTAL_USERNAME: "ops@corp.example",
        BACKUP_PORTAL_PASSWORD: "Not-the-username",
      },
    });
    assert.deepEqual(
      r.checks.slice(0, 5).map((c) => [c.id, c.status, c.detail]),
      [
        ["setting-url", "ok", `http://***@127.0.0.1:${port}/v1, from BACKUP_PORTAL_URL (used without /v1)`],
        ["setting-origin", "ok", "http://localhost, from BACKUP_PORTAL_ORIGIN"],
        ["setting-clientId", "ok", "svc/v1, from BACKUP_PORTAL_CLIENT_ID"],
        ["setting-username", "ok", "ops@corp.example, from BACKUP_PORTAL_USERNAME"],
        ["setting-password", "ok", "set, from BACKUP_PORTAL_PASSWORD (not shown)"],
      ],
    );
  });

  it("a URL with /v1 only inside its path is used as it is; one with text before the scheme is no URL", async () => {
    const inside = await runDoctor({ env: { ...envFor(suite.em), BACKUP_PORTAL_URL: `${suite.em.url}/v1x` } });
    assert.equal(byId(inside, "setting-url").detail, `${suite.em.url}/v1x, from BACKUP_PORTAL_URL`);
    // Asked under /v1x, where the emulator has nothing: an answer, not an address that cannot be reached.
    assert.match(byId(inside, "version").detail, /^GET \/v1\/fullVersion answered HTTP 404 /);
    const prefixed = await runDoctor({ env: { ...envFor(suite.em), BACKUP_PORTAL_URL: `see ${suite.em.url}` } });
    assert.equal(byId(prefixed, "setting-url").status, "failed");
    assert.equal(prefixed.checks.length, 5, "nothing asked");
  });

  it("no URL: that setting fails and nothing is asked", async () => {
    const { BACKUP_PORTAL_URL: _url, ...rest } = envFor(suite.em);
    const r = await runDoctor({ env: rest });
    assert.equal(r.ok, false);
    assert.deepEqual(byId(r, "setting-url"), {
      id: "setting-url",
      status: "failed",
      detail: "BACKUP_PORTAL_URL is not set",
      fix: "export BACKUP_PORTAL_URL=...; in a stack, backup-portal:url",
    });
    assert.equal(r.checks.length, 5);
  });

  it("a portal that does not answer: the version check says so with the address and the request", async () => {
    const closed = await startProxy(suite.em.url, () => () => "pass");
    await closed.close();
    const r = await runDoctor({ env: { ...envFor(suite.em), BACKUP_PORTAL_URL: closed.url }, timeoutMs: 2000 });
    const v = byId(r, "version");
    assert.equal(v.status, "failed");
    assert.ok(v.detail.startsWith(`no answer from ${closed.url}: GET /v1/fullVersion: `), v.detail);
  });

  it("the password is hidden in every line, the settings' too (before any client exists); the username is shown", async () => {
    const password = "Pw-2b7e41c9";
    const r = await runDoctor({
      env: { ...envFor(suite.em), BACKUP_PORTAL_URL: "ftp://portal.example", BACKUP_PORTAL_PASSWORD: password },
    });
    assert.equal(byId(r, "setting-username").detail, "admin, from BACKUP_PORTAL_USERNAME");
    assert.ok(!JSON.stringify(r).includes(password), JSON.stringify(r));
    // The emulator's accounts use their name as password: the username is shown all the same, and the password's
    // line says why its text shows there.
    const same = await runDoctor({ env: { ...envFor(suite.em), BACKUP_PORTAL_URL: "ftp://portal.example" } });
    assert.equal(byId(same, "setting-username").detail, "admin, from BACKUP_PORTAL_USERNAME");
    assert.match(byId(same, "setting-password").detail, /\(not shown\); the username holds it, so it shows there/);
  });

  it("a token the portal echoes is hidden: the doctor's own and the client's", async () => {
    const echoed: string[] = [];
    suite.rule = (req, _seen, headers) => {
      const auth = String(headers.authorization ?? "");
      if (req.method === "GET" && req.path === "/v1/bunits/2/consumers/0") {
        echoed.push(auth);
        return { status: 400, text: `sent ${auth}` };
      }
      if (req.method === "GET" && req.path === "/v1/bunits/2/defaultserver") {
        echoed.push(auth);
        return { status: 400, json: { code: "Echo", message: `sent ${auth}` } };
      }
      return "pass";
    };
    const r = await runDoctor({ env: proxied(), bunitId: 2 });
    assert.equal(echoed.length, 2);
    // Two tokens: the doctor's own (the errors check asks with it) and the API client's.
    assert.notEqual(echoed[0], echoed[1]);
    for (const auth of echoed) assert.match(auth, /^Bearer \S{20,}$/);
    assert.equal(byId(r, "errors").detail.split("; ")[0], 'an unknown consumer is HTTP 400 with "sent Bearer ***"');
    assert.match(byId(r, "default-server").detail, /: Echo: sent Bearer \*\*\*\. Hint: /);
    const all = JSON.stringify(r);
    for (const auth of echoed) assert.ok(!all.includes(auth.slice(7)), "a token shown");
  });

  it("a missing object's hint names --bunit, the flag that chose it", async () => {
    suite.rule = (req) =>
      req.path === "/v1/bunits/2/defaultserver" ? { status: 404, json: { code: "NotFound", message: "none" } } : "pass";
    const r = await runDoctor({ env: proxied(), bunitId: 2 });
    assert.equal(byId(r, "default-server").fix, "the object does not exist on the portal, or the account cannot see it: check --bunit");
  });

  it("the run stops at a business unit it cannot check", async () => {
    const r = await runDoctor({ env: proxied("tenant"), bunitId: 1, writeTest: true });
    assert.equal(r.ok, false);
    assert.deepEqual(
      r.checks.slice(5).map((c) => `${c.id} ${c.status}`),
      ["version ok", "login ok", "refresh ok", "origin ok", "me ok", "bunit failed"],
    );
  });

  it("--write-test after a failed read check: skipped, nothing made", async () => {
    suite.rule = (req) => (req.path === "/v1/timezones" ? { status: 500, json: { code: "Down", message: "no" } } : "pass");
    const r = await runDoctor({ env: proxied(), bunitId: 2, writeTest: true });
    assert.equal(r.ok, false);
    assert.equal(byId(r, "reference").status, "failed");
    assert.deepEqual(r.checks.at(-1), { id: "write-test", status: "skipped", detail: "not run: fix the failed checks first" });
    assert.deepEqual(r.leftBehind, []);
    assert.deepEqual(
      suite.em.requests().filter((q) => q.method !== "GET" && q.path !== "/v1/oauth"),
      [],
      "nothing written",
    );
  });
});
