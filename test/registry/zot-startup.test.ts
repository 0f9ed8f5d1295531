// zot v2.1.18's startup checks (pkg/cli/server/root.go `validateConfiguration` and what it calls, at commit
// 7bb211bcd435): one case per rule, each naming the zot function it follows and zot's own reason (the message
// zot logs before it exits), with a config zot refuses and the fix that it accepts. Then the warnings (where zot
// starts but changes a value), the compat default, and the credentials that must not reach the ConfigMap.
import assert from "node:assert/strict";
import {
  buildZotConfig,
  JsonObject,
  planRegistry,
  validateZotConfig,
  ZOT_CREDENTIAL_KEYS,
  ZOT_DIST_SPEC_MODULE,
  ZOT_KEY_DATA,
  ZOT_STARTUP_RULES,
  zotKeyPaths,
  zotCredentialProblems,
  zotStartupProblems,
  zotStartupWarnings,
} from "../../provider/registry";

const S3 = { name: "s3", region: "eu-north-1", bucket: "zot" };
const TLS = { key: "/tls/tls.key", cert: "/tls/tls.crt", caCert: "/tls/ca.crt" };
const SUB = (extra: JsonObject): JsonObject => ({
  storage: { rootDirectory: "/var/lib/registry/main", subPaths: { "/a": { rootDirectory: "/var/lib/registry/a", ...extra } } },
});

interface RuleCase {
  /** zot's function (root.go at v2.1.18). */
  fn: string;
  /** zot's reason, as it logs it. */
  reason: string;
  /** Overrides zot refuses with that reason. */
  bad: JsonObject;
  /** The same with the fix zot accepts. */
  good: JsonObject;
  /** Without the htpasswd users (for the access-control rule). */
  noUsers?: boolean;
}

const CASES: RuleCase[] = [
  {
    fn: "validateGC",
    reason: "invalid GC delay configuration - cannot be negative or zero",
    bad: SUB({ gc: true, gcDelay: "0s" }),
    good: SUB({ gc: true, gcDelay: "1h" }),
  },
  {
    fn: "validateGCRules",
    reason: "retention repo glob pattern could not be compiled",
    bad: { storage: { retention: { policies: [{ repositories: ["infra/[a"] }] } } },
    good: { storage: { retention: { policies: [{ repositories: ["infra/**"] }] } } },
  },
  {
    fn: "validateGCRules",
    reason: "retention tag regex could not be compiled",
    bad: { storage: { retention: { policies: [{ repositories: ["**"], keepTags: [{ patterns: ["^(?!dev)"] }] }] } } },
    good: { storage: { retention: { policies: [{ repositories: ["**"], keepTags: [{ patterns: ["^v[0-9]+"] }] }] } } },
  },
  {
    fn: "validateLDAP",
    reason: "invalid LDAP configuration, missing mandatory key: userAttribute",
    bad: { http: { auth: { ldap: { address: "ldap.corp", baseDN: "dc=corp", credentialsFile: "/ldap/creds.json" } } } },
    good: {
      http: { auth: { ldap: { address: "ldap.corp", baseDN: "dc=corp", userAttribute: "uid", credentialsFile: "/ldap/creds.json" } } },
    },
  },
  {
    fn: "validateMTLS",
    reason: "mTLS configuration requires TLS to be enabled with CA certificate",
    bad: { http: { auth: { mtls: { identityAttributes: ["CN"] } } } },
    good: { http: { tls: TLS, auth: { mtls: { identityAttributes: ["CN"] } } } },
  },
  {
    fn: "validateMTLS",
    reason: "unsupported identityAttributes",
    bad: { http: { tls: TLS, auth: { mtls: { identityAttributes: ["SerialNumber"] } } } },
    good: { http: { tls: TLS, auth: { mtls: { identityAttributes: ["commonname"] } } } },
  },
  {
    fn: "validateMTLS",
    reason: "uriSanIndex is only supported for URI/URL MTLS identity attribute",
    bad: { http: { tls: TLS, auth: { mtls: { identityAttributes: ["CN"], uriSanIndex: 1 } } } },
    good: { http: { tls: TLS, auth: { mtls: { identityAttributes: ["URI"], uriSanIndex: 1 } } } },
  },
  {
    fn: "validateOpenIDConfig",
    reason: "OpenID provider config requires clientid, issuer and scopes parameters",
    bad: { http: { auth: { openID: { providers: { oidc: { issuer: "https://id.corp", scopes: ["openid"] } } } } } },
    good: {
      http: {
        auth: { openID: { providers: { oidc: { issuer: "https://id.corp", scopes: ["openid"], credentialsFile: "/oidc/c.json" } } } },
      },
    },
  },
  {
    fn: "validateOpenIDConfig",
    reason: "unsupported openid/oauth2 provider",
    bad: { http: { auth: { openID: { providers: { okta: { clientID: "zot", scopes: ["openid"] } } } } } },
    good: { http: { auth: { openID: { providers: { github: { clientID: "zot", scopes: ["read:org"] } } } } } },
  },
  {
    fn: "validateBearerConfig",
    reason: "cannot configure both cert and awsSecretsManager for bearer authentication",
    bad: { http: { auth: { bearer: { realm: "r", service: "s", cert: "/c.pem", awsSecretsManager: { region: "eu", secretName: "k" } } } } },
    good: { http: { auth: { bearer: { realm: "r", service: "s", awsSecretsManager: { region: "eu", secretName: "k" } } } } },
  },
  {
    fn: "validateBearerConfig",
    reason: "awsSecretsManager region must be specified",
    bad: { http: { auth: { bearer: { realm: "r", service: "s", awsSecretsManager: { secretName: "k" } } } } },
    good: { http: { auth: { bearer: { realm: "r", service: "s", awsSecretsManager: { region: "eu", secretName: "k" } } } } },
  },
  {
    fn: "validateSync",
    reason: "retryDelay is required when using maxRetries",
    bad: { extensions: { sync: { registries: [{ urls: ["https://docker.io"], maxRetries: 3 }] } } },
    good: { extensions: { sync: { registries: [{ urls: ["https://docker.io"], maxRetries: 3, retryDelay: "5m" }] } } },
  },
  {
    fn: "validateSync",
    reason: "can not use PreserveDigest option without enabling http.Compat",
    bad: { http: { compat: [] }, extensions: { sync: { registries: [{ urls: ["https://docker.io"], preserveDigest: true }] } } },
    good: { extensions: { sync: { registries: [{ urls: ["https://docker.io"], preserveDigest: true }] } } },
  },
  {
    fn: "validateSync",
    reason: "sync prefix could not be compiled",
    bad: { extensions: { sync: { registries: [{ urls: ["https://docker.io"], content: [{ prefix: "library/{a" }] }] } } },
    good: { extensions: { sync: { registries: [{ urls: ["https://docker.io"], content: [{ prefix: "library/{a,b}" }] }] } } },
  },
  {
    fn: "validateSync",
    reason: "sync content regex could not be compiled",
    bad: { extensions: { sync: { registries: [{ urls: ["https://docker.io"], content: [{ prefix: "a", tags: { regex: "(v1" } }] }] } } },
    good: {
      extensions: { sync: { registries: [{ urls: ["https://docker.io"], content: [{ prefix: "a", tags: { regex: "(?P<v>v1)" } }] }] } },
    },
  },
  {
    fn: "validateSync",
    reason: "can not use stripPrefix true and destination '/' without using glob patterns in prefix",
    bad: {
      extensions: {
        sync: {
          registries: [{ urls: ["https://docker.io"], content: [{ prefix: "library/alpine", stripPrefix: true, destination: "/" }] }],
        },
      },
    },
    good: {
      extensions: {
        sync: { registries: [{ urls: ["https://docker.io"], content: [{ prefix: "library/**", stripPrefix: true, destination: "/" }] }] },
      },
    },
  },
  {
    fn: "validateStorageConfig",
    reason: "invalid storage config, default storage and substore (route: /a) cannot use the same root directory",
    bad: { storage: { subPaths: { "/a": { rootDirectory: "/var/lib/registry" } } } },
    good: SUB({}),
  },
  {
    fn: "validateStorageConfig",
    reason: "invalid storage config, substore (route: /a) root directory cannot be inside default storage root directory",
    bad: { storage: { subPaths: { "/a": { rootDirectory: "/var/lib/registry/a" } } } },
    good: SUB({}),
  },
  {
    fn: "validateCacheConfig",
    reason: "invalid database config, dedupe set to true with remote storage and database, but no remote database configured",
    bad: { storage: { storageDriver: S3, dedupe: true }, extensions: { search: { cve: null } } },
    good: { storage: { storageDriver: S3, dedupe: true, remoteCache: false }, extensions: { search: { cve: null } } },
  },
  {
    fn: "validateCacheConfig",
    reason: "invalid database config, cannot have local storage driver with remote database!",
    bad: { storage: { remoteCache: true, cacheDriver: { name: "dynamodb", region: "eu" } } },
    good: { storage: { remoteCache: true, cacheDriver: { name: "redis", url: "redis://redis:6379" } } },
  },
  {
    fn: "validateCacheConfig",
    reason: "invalid database config, unsupported database driver",
    bad: { storage: { storageDriver: S3, remoteCache: true, cacheDriver: { name: "memcached" } }, extensions: { search: { cve: null } } },
    good: {
      storage: { storageDriver: S3, remoteCache: true, cacheDriver: { name: "dynamodb", region: "eu" } },
      extensions: { search: { cve: null } },
    },
  },
  {
    fn: "validateRemoteSessionStoreConfig",
    reason: "session store driver memcached is not allowed!",
    bad: { http: { auth: { sessionDriver: { name: "memcached" } } } },
    good: { http: { auth: { sessionDriver: { name: "local" } } } },
  },
  {
    fn: "validateRemoteSessionStoreConfig",
    reason: "session keys not supported when redis session driver is used!",
    bad: { http: { auth: { sessionDriver: { name: "redis", url: "redis://redis:6379" }, sessionKeysFile: "/keys/s.json" } } },
    good: { http: { auth: { sessionDriver: { name: "redis", url: "redis://redis:6379" } } } },
  },
  {
    fn: "validateExtensionsConfig",
    reason: "failed to enable cve scanning due to incompatibility with remote storage, please disable cve",
    bad: { storage: { storageDriver: S3, dedupe: false } },
    good: { storage: { storageDriver: S3, dedupe: false }, extensions: { search: { cve: null } } },
  },
  {
    fn: "validateAuthzPolicies",
    reason: "access control config requires one of htpasswd, ldap, openid or mTLS authentication or using only 'anonymousPolicy' policies",
    noUsers: true,
    bad: { http: { accessControl: { repositories: { "**": { policies: [{ users: ["ci"], actions: ["read"] }] } } } } },
    good: { http: { accessControl: { repositories: { "**": { anonymousPolicy: ["read"] } } } } },
  },
  {
    fn: "validateStorageConfigSection",
    reason: "invalid storage config, redirectBlobURL is supported only for s3/gcs/azure storage",
    bad: { storage: { redirectBlobURL: true } },
    good: { storage: { redirectBlobURL: false } },
  },
  {
    fn: "validateStorageConfigSection",
    reason: "unsupported storage driver",
    bad: { storage: { storageDriver: { name: "filesystem" }, dedupe: false }, extensions: { search: { cve: null } } },
    good: { storage: { storageDriver: S3, dedupe: false }, extensions: { search: { cve: null } } },
  },
  {
    fn: "validateStorageConfigSection",
    reason: "using both sync and remote storage features needs config.Extensions.Sync.DownloadDir to be specified",
    bad: {
      storage: { storageDriver: S3, dedupe: false },
      extensions: { search: { cve: null }, sync: { registries: [{ urls: ["https://docker.io"] }] } },
    },
    good: {
      storage: { storageDriver: S3, dedupe: false },
      extensions: {
        search: { cve: null },
        sync: { downloadDir: "/var/lib/registry/.sync", registries: [{ urls: ["https://docker.io"] }] },
      },
    },
  },
  {
    fn: "validateConfiguration",
    reason: "failed to compile authorization pattern",
    bad: { http: { accessControl: { repositories: { "team/[x": { anonymousPolicy: ["read"] } } } } },
    good: { http: { accessControl: { repositories: { "team/**": { anonymousPolicy: ["read"] } } } } },
  },
  {
    fn: "validateClusterConfig",
    reason: "cannot have 0 members in a scale out cluster",
    bad: { cluster: { members: [], hashKey: "loremipsumdolors" } },
    good: { cluster: { members: ["zot-0:5000"], hashKey: "loremipsumdolors" } },
  },
  {
    fn: "validateClusterConfig",
    reason: "hashKey for scale out cluster must have 16 characters",
    bad: { cluster: { members: ["zot-0:5000"], hashKey: "short" } },
    good: { cluster: { members: ["zot-0:5000"], hashKey: "loremipsumdolors" } },
  },
];

const configOf = (c: { noUsers?: boolean }, overrides: JsonObject): JsonObject =>
  buildZotConfig({ withHtpasswd: c.noUsers !== true, overrides });

describe("registry: zot v2.1.18 startup rules (validateConfiguration)", () => {
  for (const c of CASES) {
    it(`${c.fn}: "${c.reason}"`, () => {
      const bad = configOf(c, c.bad);
      assert.deepEqual(validateZotConfig(bad), [], "keys and types are fine: only the startup rule can refuse it");
      const problems = zotStartupProblems(bad);
      const quoted = `${c.fn}: "${c.reason}"`;
      assert.ok(
        problems.some((p) => p.includes(quoted)),
        `expected a problem citing ${quoted}, got:\n${problems.join("\n")}`,
      );
      const good = zotStartupProblems(configOf(c, c.good));
      assert.deepEqual(good, [], `the fix must pass:\n${good.join("\n")}`);
    });
  }

  it("every rule function has a case, and the defaults pass every rule", () => {
    const covered = new Set(CASES.map((c) => c.fn));
    for (const rule of ZOT_STARTUP_RULES) assert.ok(covered.has(rule.zotFunction.split(" ")[0]), `no case for ${rule.zotFunction}`);
    assert.deepEqual(zotStartupProblems(buildZotConfig({ withHtpasswd: true })), []);
    assert.deepEqual(zotStartupProblems(buildZotConfig({ withHtpasswd: false })), []);
  });

  it("at preview: planRegistry lists every rule's problem at once, under the caller's path, so nothing is created", () => {
    const { problems, plan } = planRegistry(
      {
        users: [{ username: "admin", password: "x" }],
        config: { storage: { redirectBlobURL: true }, cluster: { members: [], hashKey: "k" } },
      },
      "backup-portal:registry",
    );
    assert.equal(plan, undefined);
    assert.ok(
      problems.some(
        (p) => p.startsWith("backup-portal:registry.config.storage.redirectBlobURL: ") && p.includes("validateStorageConfigSection"),
      ),
    );
    assert.ok(problems.some((p) => p.startsWith("backup-portal:registry.config.cluster.members: ") && p.includes("validateClusterConfig")));
  });
});

describe("registry: where zot starts but warns or changes the value", () => {
  const warningsOf = (overrides: JsonObject): string[] =>
    zotStartupWarnings(buildZotConfig({ withHtpasswd: true, overrides }), "registry.config", overrides);

  it("the defaults give no warning (spec 001's distSpecVersion 1.1.0 included, see docs)", () => {
    assert.deepEqual(planRegistry({ users: [{ username: "a", password: "x" }] }).warnings, []);
  });

  it("gc: false (validateGC: delay and interval ignored, nothing collected)", () => {
    assert.match(warningsOf({ storage: { gc: false } }).join("\n"), /storage\.gc: false — zot v2\.1\.18 never removes unreferenced blobs/);
  });

  it("cve.updateInterval below 2h: zot uses 2h (applyDefaultValues)", () => {
    assert.match(
      warningsOf({ extensions: { search: { cve: { updateInterval: "90m" } } } }).join("\n"),
      /"90m" is below zot's minimum; zot v2\.1\.18 uses 2h instead/,
    );
    assert.deepEqual(warningsOf({ extensions: { search: { cve: { updateInterval: "2h" } } } }), []);
  });

  it("a distSpecVersion other than the pinned zot's 1.1.1 (updateDistSpecVersion)", () => {
    assert.match(
      warningsOf({ distSpecVersion: "1.0.0" }).join("\n"),
      /distSpecVersion: "1\.0\.0" is not what zot v2\.1\.18 implements; it uses 1\.1\.1 instead/,
    );
    assert.deepEqual(warningsOf({ distSpecVersion: "1.1.1" }), []);
  });

  it("warnings reach planRegistry (and so pulumi.log.warn), they do not refuse", () => {
    const { plan, warnings } = planRegistry({ users: [{ username: "a", password: "x" }], config: { storage: { gc: false } } });
    assert.ok(plan);
    assert.ok(warnings.some((w) => w.includes("storage.gc: false")));
  });
});

describe("registry: http.compat docker2s2 (the zot image's own default)", () => {
  it("comes from the derived facts of zot v2.1.18 (build/Dockerfile, pkg/compat), and the hand-read distSpecVersion matches go.mod", () => {
    assert.deepEqual(ZOT_KEY_DATA.facts.imageDefaultCompat, ["docker2s2"]);
    assert.deepEqual(ZOT_KEY_DATA.facts.compatValues, ["docker2s2"]);
    // ZOT_DIST_SPEC_VERSION was read from this module version: a zot bump that moves it must re-read it.
    assert.equal(ZOT_KEY_DATA.facts.distSpecModule, ZOT_DIST_SPEC_MODULE);
  });

  it("is on in the written config.json, as in zot's build/Dockerfile at v2.1.18", () => {
    const { plan } = planRegistry({ users: [{ username: "a", password: "x" }] });
    assert.deepEqual(JSON.parse(plan!.configJson).http.compat, ["docker2s2"]);
  });

  it("can be turned off with [] or null, and an unknown value is a warning", () => {
    const off = planRegistry({ config: { http: { compat: [] } } });
    assert.deepEqual(JSON.parse(off.plan!.configJson).http.compat, []);
    const gone = planRegistry({ config: { http: { compat: null } } as unknown as JsonObject });
    assert.equal(JSON.parse(gone.plan!.configJson).http.compat, undefined);
    const odd = planRegistry({ config: { http: { compat: ["docker2s1"] } } });
    assert.ok(odd.warnings.some((w) => w.includes('http.compat[0]: "docker2s1" is no compatibility zot v2.1.18 knows')));
  });
});

describe("registry: credentials never go into config.json (issue 28 item 6)", () => {
  const SECRET = "wJalrXUtnFEMI-K7MDENG-bPxRfiCYEXAMPLEKEY";
  const cases: Array<[string, JsonObject, RegExp]> = [
    [
      "s3 secretkey",
      { storage: { storageDriver: { ...S3, secretkey: SECRET } } },
      /storage\.storageDriver\.secretkey: .*AWS_SECRET_ACCESS_KEY.*values\.env/,
    ],
    [
      "s3 accesskey in a sub path",
      { storage: { subPaths: { "/a": { rootDirectory: "/x", storageDriver: { ...S3, accesskey: SECRET } } } } },
      /storage\.subPaths\.\/a\.storageDriver\.accesskey: /,
    ],
    [
      "a sync registry's password",
      { extensions: { sync: { registries: [{ urls: ["https://r"], password: SECRET }] } } },
      /registries\[0\]\.password: .*extensions\.sync\.credentialsFile/,
    ],
    [
      "an LDAP bind password",
      { http: { auth: { ldap: { address: "l", bindPassword: SECRET } } } },
      /http\.auth\.ldap\.bindPassword: .*credentialsFile.*updateLDAPConfig/,
    ],
    [
      "an OpenID client secret",
      { http: { auth: { openID: { providers: { github: { clientSecret: SECRET } } } } } },
      /providers\.github\.clientSecret: .*credentialsFile/,
    ],
    [
      "a password inside a redis URL",
      { storage: { cacheDriver: { name: "redis", url: `redis://:${SECRET}@redis:6379` } } },
      /storage\.cacheDriver\.url: a URL with a password in it/,
    ],
  ];
  for (const [what, config, pattern] of cases) {
    it(`${what} is refused at preview, saying how to pass it, never quoting it`, () => {
      const { problems, plan } = planRegistry({ users: [{ username: "a", password: "x" }], config });
      assert.equal(plan, undefined, "no plan: no ConfigMap is ever made");
      const mine = problems.filter((p) => p.includes("plain text in the ConfigMap"));
      assert.equal(mine.length, 1, problems.join("\n"));
      assert.match(mine[0], pattern);
      assert.ok(!problems.join("\n").includes(SECRET), "the credential is quoted");
    });
  }

  it("every place a credential rule looks at is a key zot v2.1.18 has (derived key list), so a zot bump that moves one fails here", () => {
    const paths = zotKeyPaths().map((p) => p.toLowerCase());
    for (const rule of ZOT_CREDENTIAL_KEYS) {
      const at = rule.at.toLowerCase();
      assert.ok(
        paths.some((p) => p === at || p.startsWith(`${at}.`)),
        rule.at,
      );
    }
  });

  it("file references and environment-based credentials pass", () => {
    assert.deepEqual(
      zotCredentialProblems(
        buildZotConfig({
          withHtpasswd: true,
          overrides: {
            storage: { storageDriver: S3 },
            http: { auth: { ldap: { credentialsFile: "/ldap/c.json" }, sessionKeysFile: "/k/s.json" } },
            extensions: { sync: { credentialsFile: "/sync/c.json", registries: [{ urls: ["https://r"] }] } },
          },
        }),
      ),
      [],
    );
  });
});
