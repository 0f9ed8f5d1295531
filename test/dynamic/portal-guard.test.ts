// What the portal guard records and compares (provider/dynamic/portal-guard.ts); the guard through the engine
// against two emulators: test/resources/portal-guard.test.ts.
import assert from "node:assert/strict";
import fc from "fast-check";
import { assertSamePortal, normalPortalUrl, portalOf, samePortal } from "../../provider/dynamic/portal-guard";
import { diffConfig } from "../../provider/plugin/config";
import { resolveSettings } from "../../provider/portal/settings";

/** The portal a stack configured with this url and username records (resolveSettings, then portalOf). */
const configured = (url: string, username = "admin") =>
  portalOf(
    resolveSettings(
      (key) => ({ "backup-portal:url": url, "backup-portal:username": username, "backup-portal:maxAnswerBytes": "" })[key] ?? "x",
      {},
    ),
  );

describe("portal guard: the recorded portal", () => {
  it("holds no credential of the URL (state is plain text) and ignores a trailing slash", () => {
    const recorded = portalOf({ url: "https://ops:s3cret@portal.example.com/", username: "admin" });
    assert.equal(recorded, "https://portal.example.com|admin");
    assert.ok(!recorded.includes("s3cret"));
    assert.equal(portalOf({ url: "https://portal.example.com//", username: "admin" }), "https://portal.example.com|admin");
  });

  it("refuses another url or another account, passes the same one and state without a record", () => {
    const here = portalOf({ url: "https://a.example", username: "admin" });
    assertSamePortal("consumer 7", "delete", { portal: here }, here);
    assertSamePortal("consumer 7", "delete", {}, here);
    assertSamePortal("consumer 7", "delete", undefined, here);
    for (const other of [
      portalOf({ url: "https://b.example", username: "admin" }),
      portalOf({ url: "https://a.example", username: "ops" }),
    ]) {
      assert.throws(
        () => assertSamePortal("consumer 7", "update", { portal: here }, other),
        (e: Error) =>
          e.message.startsWith("consumer 7: refusing to update it: it was created on https://a.example (account admin)") &&
          e.message.includes(`configured for ${other.replace("|", " (account ")})`),
      );
    }
  });

  // Recorded (as 0.2.0 and later wrote it: `<url, userinfo masked>|<username>`) against configured.
  const base = "https://portal.example.com|admin";
  const samePortalSpelledOtherwise: [string, string, string][] = [
    ["a trailing slash", base, configured("https://portal.example.com/")],
    ["/v1", base, configured("https://portal.example.com/v1")],
    ["/v1/", base, configured("https://portal.example.com/v1/")],
    ["the host in another case", base, configured("https://Portal.Example.com")],
    ["the scheme in another case, :443 and a slash", base, configured("HTTPS://Portal.Example.com:443/")],
    ["the default port of http", "http://portal.example.com|admin", configured("http://portal.example.com:80")],
    ["a trailing dot on the host", base, configured("https://portal.example.com./")],
    ["IDN against punycode", "https://xn--bcher-kva.example|admin", configured("https://bücher.example")],
    ["punycode against IDN (recorded as configured)", "https://bücher.example|admin", configured("https://xn--bcher-kva.example")],
    ["userinfo removed (recorded masked)", "https://***@portal.example.com|admin", configured("https://portal.example.com")],
    ["userinfo added", base, configured("https://ops:s3cret@portal.example.com")],
    ["the username in another case", base, configured("https://portal.example.com", "Admin")],
    ["recorded username in another case", "https://portal.example.com|ADMIN", configured("https://portal.example.com")],
    ["the emulator's spelling", "http://127.0.0.1:4010|admin", configured("HTTP://127.0.0.1:4010/v1/")],
    ["a path with /v1 after it", "https://p.example/backup|admin", configured("https://P.example/backup/v1/")],
  ];
  const anotherPortal: [string, string, string][] = [
    ["another host", base, configured("https://portal2.example.com")],
    ["localhost for 127.0.0.1", "http://127.0.0.1:4010|admin", configured("http://localhost:4010")],
    ["another port", base, configured("https://portal.example.com:8443")],
    ["the port that is not the default", "http://portal.example.com|admin", configured("http://portal.example.com:443")],
    ["another scheme", base, configured("http://portal.example.com")],
    ["another path", base, configured("https://portal.example.com/other")],
    ["a path in another case", "https://p.example/backup|admin", configured("https://p.example/Backup")],
    ["/v1 twice (the client keeps one)", base, configured("https://portal.example.com/v1/v1")],
    ["a query", base, configured("https://portal.example.com/?tenant=2")],
    ["another account", base, configured("https://portal.example.com", "ops")],
    ["a username with a trailing space (the portal does not trim)", base, configured("https://portal.example.com", "admin ")],
  ];

  for (const [what, recorded, current] of samePortalSpelledOtherwise) {
    it(`passes the same portal spelled otherwise: ${what}`, () => {
      assert.ok(samePortal(recorded, current), `${recorded} vs ${current}`);
      assertSamePortal("consumer 7", "update", { portal: recorded }, current);
    });
  }
  for (const [what, recorded, current] of anotherPortal) {
    it(`refuses another portal or account: ${what}`, () => {
      assert.equal(samePortal(recorded, current), false, `${recorded} vs ${current}`);
      assert.throws(() => assertSamePortal("consumer 7", "delete", { portal: recorded }, current), /refusing to delete it/);
    });
  }

  it("the refusal leads with the settings to set back, with the recorded values, and ends with state delete", () => {
    const check = (current: string, step: RegExp) =>
      assert.throws(
        () => assertSamePortal("node 3", "delete", { portal: "https://***@a.example|admin" }, current),
        (e: Error) => {
          const m = e.message;
          assert.match(m, step);
          assert.ok(m.indexOf("correct the connection settings") < m.indexOf("pulumi state delete"), m);
          assert.ok(m.indexOf("pulumi up") < m.indexOf("pulumi state delete"), m);
          assert.match(m, /really gone/);
          return true;
        },
      );
    check(configured("https://b.example"), /set backup-portal:url to https:\/\/a\.example \(the recorded values/);
    check(configured("https://a.example", "ops"), /set backup-portal:username to "admin" \(the recorded/);
    check(configured("https://b.example", "ops"), /set backup-portal:url to https:\/\/a\.example and backup-portal:username to "admin"/);
    check(configured("https://a.example", " admin"), /configured for https:\/\/a\.example \(account " admin"\).*white space around it/s);
  });

  it("the plugin's DiffConfig: the same portal spelled otherwise is an update, another one a replacement", () => {
    const olds = { url: "https://portal.example.com", username: "admin", password: "p" };
    assert.deepEqual(diffConfig(olds, { ...olds, url: "HTTPS://Portal.Example.com:443/v1/" }), { changed: ["url"], replaces: [] });
    assert.deepEqual(diffConfig(olds, { ...olds, username: "Admin" }), { changed: ["username"], replaces: [] });
    assert.deepEqual(diffConfig(olds, { ...olds, url: "https://portal.example.com:8443" }).replaces, ["url"]);
    assert.deepEqual(diffConfig(olds, { ...olds, username: "admin " }).replaces, ["username"]);
  });
});

describe("portal guard: the normal form (property-based)", () => {
  // No `xn--` label: that is punycode, which the URL parser checks (a random one is no valid name).
  const label = fc.stringMatching(/^[a-z][a-z0-9-]{0,6}[a-z0-9]$/).filter((l) => !l.startsWith("xn--"));
  const parts = fc.record({
    scheme: fc.constantFrom("http", "https"),
    labels: fc.array(label, { minLength: 1, maxLength: 3 }),
    port: fc.option(fc.constantFrom(80, 443, 4010, 8443), { nil: undefined }),
    path: fc.array(fc.stringMatching(/^[a-zA-Z0-9_-]{1,5}$/), { maxLength: 3 }),
  });
  // Two portals that differ in one part at most (from small pools), so that pairs often meet.
  const near = fc.record({
    scheme: fc.constantFrom("http", "https"),
    labels: fc.constantFrom(["portal", "example"], ["portal2", "example"], ["bücher", "example"], ["localhost"]),
    port: fc.option(fc.constantFrom(80, 443, 4010), { nil: undefined }),
    path: fc.constantFrom([], ["v2"], ["V2"], ["backup", "v1"]),
  });
  const spellings = fc.record({
    upper: fc.array(fc.boolean(), { minLength: 40, maxLength: 40 }),
    dot: fc.boolean(),
    userinfo: fc.boolean(),
    slash: fc.boolean(),
    explicitPort: fc.boolean(),
  });
  type Parts = { scheme: string; labels: readonly string[]; port?: number; path: readonly string[] };
  const defaultPort = (p: Parts) => (p.scheme === "https" ? 443 : 80);
  const spell = (p: Parts, s: { upper: boolean[]; dot: boolean; userinfo: boolean; slash: boolean; explicitPort: boolean }) => {
    const cased = (t: string) => [...t].map((c, i) => (s.upper[i % s.upper.length] ? c.toUpperCase() : c)).join("");
    const port = p.port ?? (s.explicitPort ? defaultPort(p) : undefined);
    return (
      `${cased(p.scheme)}://${s.userinfo ? "ops:s3cret@" : ""}${cased(p.labels.join("."))}${s.dot ? "." : ""}` +
      `${port === undefined ? "" : `:${port}`}${p.path.map((x) => `/${x}`).join("")}${s.slash ? "/" : ""}`
    );
  };
  /** What makes a portal another: scheme, host, effective port, path. */
  const identity = (p: Parts) => JSON.stringify([p.scheme, p.labels.join("."), p.port ?? defaultPort(p), p.path.join("/")]);

  it("is idempotent", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.tuple(parts, spellings).map(([p, s]) => spell(p, s)),
          fc.webUrl(),
          fc.string(),
        ),
        (url) => {
          const once = normalPortalUrl(url);
          assert.equal(normalPortalUrl(once), once);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("two spellings of one portal have one normal form; equal normal forms mean the same scheme, host, port and path", () => {
    fc.assert(
      fc.property(parts, spellings, spellings, (p, s1, s2) => {
        assert.equal(normalPortalUrl(spell(p, s1)), normalPortalUrl(spell(p, s2)));
      }),
      { numRuns: 200 },
    );
    fc.assert(
      fc.property(fc.oneof(fc.tuple(parts, parts), fc.tuple(near, near)), spellings, spellings, ([p1, p2], s1, s2) => {
        const same = normalPortalUrl(spell(p1, s1)) === normalPortalUrl(spell(p2, s2));
        assert.equal(same, identity(p1) === identity(p2), `${spell(p1, s1)} vs ${spell(p2, s2)}`);
      }),
      { numRuns: 400 },
    );
  });
});
