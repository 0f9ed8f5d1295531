// zot's config.json rules in-process: the merge of overrides, the cve options, and the exact problem a user reads for
// each value zot v2.1.18 would refuse at startup (types, durations, ports, paths, unknown keys), with the edges
// each rule lets through.
import assert from "node:assert/strict";
import { buildZotConfig, deepMerge, defaultZotConfig, JsonObject, validateZotConfig } from "../../provider/registry";
import { extensionEnabled, getPath, zotConfigWarnings } from "../../provider/registry/zot-config";
import { suggest } from "../../provider/rules/suggest";

/** The problems of the defaults with these overrides merged in. */
const check = (overrides: JsonObject) => validateZotConfig(deepMerge(defaultZotConfig(), overrides));
const trivyOf = (cfg: JsonObject) => getPath(cfg, ["extensions", "search", "cve", "trivy"]);

describe("registry: zot config.json rules", () => {
  it("deepMerge keeps a __proto__ key as data and copies lists, so the inputs stay as they were", () => {
    const override = JSON.parse('{"__proto__": {"polluted": true}, "list": [{"a": 1}]}') as JsonObject;
    const merged = deepMerge({ base: [{ b: [1] }] }, override);
    assert.deepEqual(Object.keys(merged), ["base", "__proto__", "list"]);
    assert.equal(Object.getPrototypeOf(merged), Object.prototype);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    (merged.list as Array<Record<string, number>>)[0].a = 2;
    ((merged.base as Array<Record<string, number[]>>)[0].b as number[]).push(2);
    assert.deepEqual(override.list, [{ a: 1 }]);
    assert.deepEqual(deepMerge({ base: [{ b: [1] }] }, undefined), { base: [{ b: [1] }] });
    // An object over a scalar replaces it; a scalar over an object too.
    assert.deepEqual(deepMerge({ a: 1, b: { c: 1 } }, { a: { x: 1 }, b: 2 }), { a: { x: 1 }, b: 2 });
    // The unknown __proto__ key is then named by the validation like any other.
    assert.match(check(override).join("\n"), /registry\.config\.__proto__: unknown key/);
  });

  it("getPath matches keys case-insensitively and stops at what is no object", () => {
    const cfg = { HTTP: { Port: "5000" }, list: [1] };
    assert.equal(getPath(cfg, ["http", "port"]), "5000");
    assert.equal(getPath(cfg, ["http", "port", "x"]), undefined);
    assert.equal(getPath(cfg, ["list", "0"]), undefined);
    assert.equal(getPath(cfg, ["nope"]), undefined);
    assert.deepEqual(getPath(cfg, []), cfg);
    assert.equal(getPath({ a: 1, A: 2 }, ["A"]), 2, "the exact spelling first");
  });

  it("cve: disabled removes extensions.search.cve; mirrors go into trivy, keeping a spelling the overrides chose", () => {
    assert.equal(getPath(buildZotConfig({ withHtpasswd: false, cve: { enabled: false } }), ["extensions", "search", "cve"]), undefined);
    assert.deepEqual(getPath(buildZotConfig({ withHtpasswd: false, cve: { enabled: false } }), ["extensions", "search"]), { enable: true });
    assert.deepEqual(trivyOf(buildZotConfig({ withHtpasswd: false, cve: { dbRepository: "m.local/trivy-db" } })), {
      dbRepository: "m.local/trivy-db",
    });
    assert.deepEqual(trivyOf(buildZotConfig({ withHtpasswd: false, cve: { javaDbRepository: "m.local/trivy-java-db" } })), {
      javaDBRepository: "m.local/trivy-java-db",
    });
    const overrides = { extensions: { search: { cve: { trivy: { DBRepository: "old", JavaDbRepository: "old-java" } } } } };
    assert.deepEqual(
      trivyOf(buildZotConfig({ withHtpasswd: false, overrides, cve: { dbRepository: "new", javaDbRepository: "new-java" } })),
      {
        DBRepository: "new",
        JavaDbRepository: "new-java",
      },
    );
    // No search extension: nothing is added (the plan names the conflict).
    const noSearch = buildZotConfig({
      withHtpasswd: false,
      overrides: { extensions: { search: null } },
      cve: { dbRepository: "m.local/db" },
    });
    assert.equal(getPath(noSearch, ["extensions", "search"]), undefined);
    // A cve written in other letters keeps its spelling.
    const upper = buildZotConfig({
      withHtpasswd: false,
      overrides: { extensions: { search: { cve: null, CVE: "x" } } },
      cve: { dbRepository: "m.local/db" },
    });
    assert.deepEqual((upper.extensions as JsonObject).search, { enable: true, CVE: { trivy: { dbRepository: "m.local/db" } } });
    // cve over a cve that was a scalar: the trivy object replaces it.
    const scalarCve = buildZotConfig({
      withHtpasswd: false,
      overrides: { extensions: { search: { cve: "x" } } },
      cve: { dbRepository: "m.local/db" },
    });
    assert.deepEqual(getPath(scalarCve, ["extensions", "search", "cve"]), { trivy: { dbRepository: "m.local/db" } });
  });

  it("without users only htpasswd goes: other auth settings and the realm stay", () => {
    const cfg = buildZotConfig({ withHtpasswd: false, realm: "corp", overrides: { http: { auth: { failDelay: 5 } } } });
    assert.deepEqual(cfg.http, { address: "0.0.0.0", port: "5000", realm: "corp", auth: { failDelay: 5 }, compat: ["docker2s2"] });
    assert.deepEqual(buildZotConfig({ withHtpasswd: false, overrides: { http: { auth: "x" } } }).http, {
      address: "0.0.0.0",
      port: "5000",
      realm: "zot",
      auth: "x",
      compat: ["docker2s2"],
    });
  });

  it("values zot refuses at startup: empty strings, whole numbers, objects, lists, long values shortened", () => {
    assert.deepEqual(
      check({
        distSpecVersion: " ",
        storage: { maxRepos: 1.5, dedupe: "x".repeat(100), retention: "r", subPaths: { "/a": { rootDirectory: "/x", maxRepos: "2" } } },
        http: { accessControl: { repositories: "x" }, ratelimit: { methods: "m" } },
        log: { output: "" },
      }),
      [
        'registry.config.distSpecVersion: " " must not be empty; use "1.1.0"',
        `registry.config.storage.dedupe: "${"x".repeat(76)}... must be a boolean (true or false)`,
        "registry.config.storage.maxRepos: 1.5 must be a whole number",
        'registry.config.storage.retention: "r" must be an object',
        'registry.config.storage.subPaths./a.maxRepos: "2" must be a whole number',
        'registry.config.http.accessControl.repositories: "x" must be an object',
        'registry.config.http.ratelimit.methods: "m" must be a list',
        'registry.config.log.output: "" must not be empty; use "/dev/stdout"',
      ],
    );
    assert.deepEqual(check({ storage: { dedupe: "x".repeat(78) } }), [
      `registry.config.storage.dedupe: "${"x".repeat(78)}" must be a boolean (true or false)`,
    ]);
    assert.deepEqual(check({ storage: { maxRepos: 3, subPaths: { "/a": { rootDirectory: "/var/lib/registry/a" } } } }), []);
    assert.deepEqual(check({ http: { address: " " }, extensions: { search: { cve: { trivy: { dbRepository: " " } } } } }), [
      'registry.config.http.address: " " must not be empty; use "0.0.0.0"',
      'registry.config.extensions.search.cve.trivy.dbRepository: " " must not be empty; give an OCI repository or remove the key',
    ]);
    assert.deepEqual(check({ http: { auth: { htpasswd: { path: "" } } } }), [
      'registry.config.http.auth.htpasswd.path: "" must not be empty; use "/secret/htpasswd"',
    ]);
    assert.deepEqual(check({ storage: { rootDirectory: " " } }), [
      'registry.config.storage.rootDirectory: " " must not be empty; use "/var/lib/registry"',
    ]);
  });

  it("storage drivers take any value (zot hands them to the driver)", () => {
    assert.deepEqual(check({ storage: { storageDriver: { name: "s3", region: "eu", secure: true, chunks: [1] } } }), []);
  });

  it("open parts (event sinks) take any key, but what zot reads in them is still typed", () => {
    assert.deepEqual(check({ extensions: { events: { sinks: [{ type: "http", anything: 1, headers: { a: "b" } }] } } }), []);
    assert.deepEqual(check({ extensions: { events: { sinks: [{ headers: { a: 1 } }] } } }), [
      "registry.config.extensions.events.sinks[0].headers.a: 1 must be a string",
    ]);
  });

  it("an unknown key far from every known one lists the keys zot knows there", () => {
    assert.deepEqual(check({ qqqq: 1 }), [
      "registry.config.qqqq: unknown key (zot v2.1.18 refuses to start on unknown keys); known keys here: distSpecVersion, goVersion, " +
        "commit, releaseTag, binaryType, storage, http, log, extensions, scheduler, cluster",
    ]);
  });

  it("suggest: a prefix of three letters or more, else up to two edits or a third of the key", () => {
    assert.equal(suggest("sto", ["http", "storage"]), "storage");
    assert.equal(suggest("STORAGEDRIVERS", ["storageDriver"]), "storageDriver", "the known key as a prefix of the typo");
    assert.equal(suggest("st", ["storage"]), undefined, "two letters are no prefix");
    assert.equal(suggest("lgo", ["log", "http"]), "log", "two edits");
    assert.equal(suggest("xyz", ["log"]), undefined);
    assert.equal(suggest("rXtXnXiXnPXlicy", ["retentionPolicy", "x"]), "retentionPolicy", "five edits on a 15-letter key");
    assert.equal(suggest("rXtXnXiXnPXlXcy", ["retentionPolicy"]), undefined, "six are too many");
    assert.equal(suggest("ab", ["ax", "ay"]), "ax", "of equally close keys, the first");
    assert.equal(suggest("gcDelya", ["gcInterval", "gcDelay"]), "gcDelay", "the closest, not the first");
    assert.equal(suggest("anything", []), undefined);
  });

  it("durations as Go parses them: zero in any sign, fractions, several units; negative ones refused", () => {
    for (const d of ["0", "-0", "+0", ".5h", "1.h", "1h30m", "1.5s", "300ms", "10us", "10µs", "10μs", "1ns"])
      assert.deepEqual(check({ storage: { gcDelay: d } }), [], d);
    assert.deepEqual(check({ storage: { gcDelay: "-1.5h", gcInterval: "-1ns" } }), [
      'registry.config.storage.gcDelay: "-1.5h" must not be negative; use e.g. "1h"',
      'registry.config.storage.gcInterval: "-1ns" must not be negative; use e.g. "1h"',
    ]);
    for (const d of ["1d", "h", "1", "1h 30m", "--1h", "1hh"])
      assert.deepEqual(
        check({ storage: { gcDelay: d } }),
        [`registry.config.storage.gcDelay: ${JSON.stringify(d)} is not a duration zot can parse; use e.g. "1h", "24h" or "90m"`],
        d,
      );
    assert.deepEqual(check({ storage: { gcDelay: 3600 } }), [
      'registry.config.storage.gcDelay: 3600 must be a duration string; use e.g. "1h" or "30m"',
    ]);
  });

  it("ports: digits as a string or a whole number up to 65535, nothing else", () => {
    for (const port of ["0", "65535", 5000])
      assert.deepEqual(validateZotConfig(deepMerge(defaultZotConfig(), { http: { port } })), [], String(port));
    for (const port of [true, "65536", "123456", "50.0", 50.5, "-1", ""])
      assert.deepEqual(check({ http: { port } }), [
        `registry.config.http.port: ${JSON.stringify(port)} is not a port zot accepts (a number 0-65535 as a string); use "5000"`,
      ]);
  });

  it("the metrics path: reserved paths, a leading slash, the cleaned form", () => {
    const path = (p: unknown) => check({ extensions: { metrics: { prometheus: { path: p } } } });
    const at = "registry.config.extensions.metrics.prometheus.path";
    assert.deepEqual(path("/v2/metrics"), [
      `${at}: "/v2/metrics" is reserved (it would shadow the UI or the registry API); use e.g. "/metrics"`,
    ]);
    assert.deepEqual(path("/v2/"), [`${at}: "/v2/" is reserved (it would shadow the UI or the registry API); use e.g. "/metrics"`]);
    assert.deepEqual(path("/v2metrics"), [], "a sibling of /v2 is no part of it");
    assert.deepEqual(path("/a/./b"), [`${at}: "/a/./b" is not a clean path (zot requires it equal to its cleaned form); use "/a/b"`]);
    assert.deepEqual(path("//metrics"), [
      `${at}: "//metrics" is not a clean path (zot requires it equal to its cleaned form); use "/metrics"`,
    ]);
    assert.deepEqual(path("/a/../b"), [`${at}: "/a/../b" is not a clean path (zot requires it equal to its cleaned form); use "/b"`]);
    assert.deepEqual(path("/metrics/zot"), []);
    assert.deepEqual(path(7), [`${at}: 7 must be a string`]);
  });

  it("the UI needs search; an extension counts as on unless enable: false", () => {
    const ui =
      'registry.config.extensions.ui: the UI needs the search extension ("search extension must be enabled"); set extensions.search.enable to true or extensions.ui.enable to false';
    assert.deepEqual(check({ extensions: { search: { enable: false } } }), [ui]);
    assert.deepEqual(check({ extensions: { search: { enable: false }, ui: { enable: false } } }), []);
    assert.deepEqual(check({ extensions: { search: { enable: false }, ui: null } }), []);
    assert.deepEqual(check({ extensions: { search: { enable: null } } }), [], "search present without enable counts as on");
    assert.equal(extensionEnabled({ extensions: { ui: {} } }, "ui"), true);
    assert.equal(extensionEnabled({ extensions: { ui: { Enable: false } } }, "ui"), false);
    assert.equal(extensionEnabled({ extensions: { ui: true } }, "ui"), false, "not an object: not an extension zot runs");
    assert.equal(extensionEnabled({}, "ui"), false);
  });

  it("a configuration that is no object or is empty", () => {
    assert.deepEqual(validateZotConfig([]), ["registry.config: [] must be an object (zot's config.json)"]);
    assert.deepEqual(validateZotConfig(null, "x.config"), ["x.config: null must be an object (zot's config.json)"]);
    assert.deepEqual(validateZotConfig(undefined), ["registry.config: undefined must be an object (zot's config.json)"]);
    assert.deepEqual(validateZotConfig({}, "x.config"), ["x.config: is empty; zot rejects an empty configuration"]);
  });

  it("extensions zot ignores are warned about, under the caller's path", () => {
    assert.deepEqual(zotConfigWarnings({ extensions: { mgmt: { enable: true }, apikey: {} } }, "s.config"), [
      "s.config.extensions.apikey: zot v2.1.18 ignores this extension; API keys are turned on with http.auth.apikey: true",
      "s.config.extensions.mgmt: zot v2.1.18 ignores this extension (search and ui provide it)",
    ]);
    assert.deepEqual(zotConfigWarnings(defaultZotConfig()), []);
  });
});
