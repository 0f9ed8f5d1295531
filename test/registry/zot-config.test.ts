import assert from "node:assert/strict";
import {
  buildZotConfig,
  deepMerge,
  defaultZotConfig,
  planRegistry,
  validateRegistryArgs,
  validateZotConfig,
} from "../../provider/registry";

describe("registry: zot config.json", () => {
  it("the defaults are valid for zot", () => {
    assert.deepEqual(validateZotConfig(defaultZotConfig()), []);
    assert.deepEqual(validateZotConfig(buildZotConfig({ withHtpasswd: false })), []);
  });

  it("deep merge: objects merge, scalars/arrays replace, null deletes, keys match case-insensitively", () => {
    const base = { a: { b: 1, c: [1, 2] }, d: "x" };
    const merged = deepMerge(base, { a: { c: [3], e: true }, d: null, f: { g: 1 } });
    assert.deepEqual(merged, { a: { b: 1, c: [3], e: true }, f: { g: 1 } });
    assert.deepEqual(base, { a: { b: 1, c: [1, 2] }, d: "x" }, "inputs are not modified");
    const cfg = buildZotConfig({ withHtpasswd: true, overrides: { HTTP: { Port: "5000", realm: "corp" }, log: { level: "debug" } } });
    assert.equal((cfg.http as any).realm, "corp");
    assert.equal((cfg.http as any).port, "5000");
    assert.equal((cfg as any).HTTP, undefined);
    assert.equal((cfg.log as any).level, "debug");
  });

  it("without users http.auth is removed; other auth methods stay", () => {
    assert.equal((buildZotConfig({ withHtpasswd: false }).http as any).auth, undefined);
    const withLdap = buildZotConfig({ withHtpasswd: false, overrides: { http: { auth: { ldap: { address: "ldap.local" } } } } });
    assert.deepEqual((withLdap.http as any).auth, { ldap: { address: "ldap.local" } });
    const withUsers = buildZotConfig({ withHtpasswd: true });
    assert.deepEqual((withUsers.http as any).auth, { htpasswd: { path: "/secret/htpasswd" } });
  });

  it("an explicit htpasswd without users is refused (the file would be missing)", () => {
    const p = validateRegistryArgs({ config: { http: { auth: { htpasswd: { path: "/secret/htpasswd" } } } } });
    assert.ok(
      p.some((m) => m.startsWith("registry.config.http.auth.htpasswd:")),
      p.join("\n"),
    );
  });

  // Each bad override, the key path its problem must name, and a word of the fix.
  const BAD: [string, Record<string, unknown>, string, RegExp][] = [
    ["unknown top-level key", { storrage: {} }, "registry.config.storrage", /unknown key.*did you mean "storage"/],
    [
      "unknown nested key",
      { storage: { rootDir: "/var/lib/registry" } },
      "registry.config.storage.rootDir",
      /did you mean "rootDirectory"/,
    ],
    ["UI without search", { extensions: { search: { enable: false } } }, "registry.config.extensions.ui", /search extension/],
    ["UI with search removed", { extensions: { search: null } }, "registry.config.extensions.ui", /search/],
    [
      "metrics path /v2",
      { extensions: { metrics: { prometheus: { path: "/v2" } } } },
      "registry.config.extensions.metrics.prometheus.path",
      /"\/v2" is reserved.*use e\.g\. "\/metrics"/,
    ],
    [
      "metrics path /",
      { extensions: { metrics: { prometheus: { path: "/" } } } },
      "registry.config.extensions.metrics.prometheus.path",
      /reserved/,
    ],
    [
      "metrics path not clean",
      { extensions: { metrics: { prometheus: { path: "/metrics/" } } } },
      "registry.config.extensions.metrics.prometheus.path",
      /not a clean path.*use "\/metrics"/,
    ],
    [
      "metrics path of disabled metrics",
      { extensions: { metrics: { enable: false, prometheus: { path: "/v2" } } } },
      "registry.config.extensions.metrics.prometheus.path",
      /reserved/,
    ],
    [
      "metrics path without /",
      { extensions: { metrics: { prometheus: { path: "metrics" } } } },
      "registry.config.extensions.metrics.prometheus.path",
      /must start with "\/"/,
    ],
    ["port out of range", { http: { port: "70000" } }, "registry.config.http.port", /0-65535/],
    ["port not numeric", { http: { port: "http" } }, "registry.config.http.port", /0-65535/],
    ["port other than the chart's", { http: { port: "8080" } }, "registry.config.http.port", /container port/],
    ["empty rootDirectory", { storage: { rootDirectory: "" } }, "registry.config.storage.rootDirectory", /must not be empty/],
    ["rootDirectory off the PVC", { storage: { rootDirectory: "/data" } }, "registry.config.storage.rootDirectory", /persistent volume/],
    [
      "rootDirectory beside the PVC",
      { storage: { rootDirectory: "/var/lib/registry-other" } },
      "registry.config.storage.rootDirectory",
      /persistent volume/,
    ],
    [
      "rootDirectory climbing out",
      { storage: { rootDirectory: "/var/lib/registry/../../etc" } },
      "registry.config.storage.rootDirectory",
      /persistent volume/,
    ],
    ["invalid log level", { log: { level: "verbose" } }, "registry.config.log.level", /log level/],
    ["negative duration", { storage: { gcDelay: "-1h" } }, "registry.config.storage.gcDelay", /negative/],
    ["invalid duration", { storage: { gcInterval: "1 day" } }, "registry.config.storage.gcInterval", /duration/],
    [
      "numeric duration",
      { extensions: { search: { cve: { updateInterval: 24 } } } },
      "registry.config.extensions.search.cve.updateInterval",
      /duration string/,
    ],
    ["boolean as string", { storage: { dedupe: "yes" } }, "registry.config.storage.dedupe", /boolean/],
    ["loopback address", { http: { address: "127.0.0.1" } }, "registry.config.http.address", /0\.0\.0\.0/],
    [
      "unknown trivy key",
      { extensions: { search: { cve: { trivy: { dbRepo: "m.local/db" } } } } },
      "registry.config.extensions.search.cve.trivy.dbRepo",
      /did you mean "dbRepository"/,
    ],
    ["empty log output", { log: { output: "" } }, "registry.config.log.output", /must not be empty/],
    // zot v2.1.18 has no such key (a later release adds a time window, as "HH:MM-HH:MM")
    [
      "storage.gcTimeWindow",
      { storage: { gcTimeWindow: "1h" } },
      "registry.config.storage.gcTimeWindow",
      /unknown key \(zot v2\.1\.18 refuses to start/,
    ],
    [
      "a key of a struct the old lists left open",
      { http: { tls: { cert: "/c", key: "/k", certFile: "/c" } } },
      "registry.config.http.tls.certFile",
      /unknown key/,
    ],
    [
      "a wrong type in a list element",
      { extensions: { search: { cve: { trivy: { vulnSeveritySources: ["nvd", 3] } } } } },
      "registry.config.extensions.search.cve.trivy.vulnSeveritySources[1]",
      /must be a string/,
    ],
  ];
  for (const [what, config, key, fix] of BAD) {
    it(`refuses ${what}, naming ${key}`, () => {
      const problems = validateRegistryArgs({ config });
      const hit = problems.find((m) => m.startsWith(key));
      assert.ok(hit, `expected a problem at ${key}, got:\n${problems.join("\n")}`);
      assert.match(hit!, fix);
    });
  }

  it("reports all problems at once, under the caller's path", () => {
    const { plan, problems } = planRegistry(
      { config: { log: { level: "loud" }, storage: { gcDelay: "-5m" }, extensions: { metrics: { prometheus: { path: "/" } } } } },
      "stack.registry",
    );
    assert.equal(plan, undefined);
    assert.equal(problems.length, 3, problems.join("\n"));
    assert.ok(problems.every((m) => m.startsWith("stack.registry.config.")));
  });

  it("validateZotConfig refuses keys that differ only in case (zot matches keys case-insensitively)", () => {
    const cfg = defaultZotConfig() as any;
    cfg.http.Realm = "other";
    const p = validateZotConfig(cfg);
    assert.equal(p.length, 1);
    assert.match(p[0], /^registry\.config\.http\.Realm: duplicates "realm"/);
  });

  it("validateZotConfig rejects a non-object and an empty configuration", () => {
    assert.match(validateZotConfig("x")[0], /must be an object/);
    assert.match(validateZotConfig({})[0], /empty/);
  });

  it("cve options: mirrors need the search extension, and contradict enabled: false", () => {
    assert.ok(
      validateRegistryArgs({ cve: { enabled: false, dbRepository: "m.local/trivy-db" } }).some((m) =>
        m.startsWith("registry.cve.dbRepository"),
      ),
    );
    assert.ok(
      validateRegistryArgs({ cve: { dbRepository: "https://m.local/trivy-db" } }).some((m) => m.startsWith("registry.cve.dbRepository")),
    );
    assert.ok(
      validateRegistryArgs({ cve: { dbRepository: "m.local/trivy-db" }, config: { extensions: { search: null, ui: null } } }).some((m) =>
        m.startsWith("registry.cve:"),
      ),
    );
    assert.deepEqual(validateRegistryArgs({ cve: { dbRepository: "m.local:5000/aquasecurity/trivy-db" } }), []);
  });

  it("accepts the keys zot v2.1.18 knows that the old lists refused: extensions.apikey, trivy.vulnSeveritySources and sbom", () => {
    const config = {
      extensions: {
        apikey: { enable: true },
        search: { cve: { trivy: { vulnSeveritySources: ["nvd", "ghsa"], sbom: { enable: true, format: "cyclonedx" } } } },
      },
    };
    assert.deepEqual(validateRegistryArgs({ config }), []);
    // zot v2.1.18 accepts extensions.apikey but ignores it (API keys moved to http.auth.apikey): a warning says so.
    assert.deepEqual(planRegistry({ config }).warnings, [
      "registry.config.extensions.apikey: zot v2.1.18 ignores this extension; API keys are turned on with http.auth.apikey: true",
    ]);
    assert.deepEqual(planRegistry({ config: { http: { auth: { apikey: true } } } }).warnings, []);
  });

  it("log levels as zot's ParseLevel takes them: case-insensitive, warning too", () => {
    for (const level of ["WARNING", "Info", "trace"]) assert.deepEqual(validateRegistryArgs({ config: { log: { level } } }), [], level);
  });
});
