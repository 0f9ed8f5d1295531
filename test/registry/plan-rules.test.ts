// planRegistry in-process, rule by rule: the exact problem a user reads for each wrong argument (key path, what is
// wrong, the fix), the edges each rule lets through, and the plan the defaults give.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { planRegistry, RegistryArgs, RegistryConfigError, validateRegistryArgs, versionWarnings } from "../../provider/registry";

const problems = (args: RegistryArgs, path?: string) => planRegistry(args, path).problems;
/** The problems at one key path (or below it). */
const at = (args: RegistryArgs, key: string) => problems(args).filter((m) => m.startsWith(`${key}:`) || m.startsWith(`${key}.`));
const loose = (v: unknown) => v as never;
const USER = { username: "admin", password: "Registry-Test-Password-0815" };

describe("registry: planRegistry rules", () => {
  it("the defaults: namespace and release zot, pinned chart, 100Gi of class large, no users, an in-cluster URL", () => {
    const { plan, problems: p, warnings } = planRegistry();
    assert.deepEqual(p, []);
    assert.deepEqual(warnings, []);
    assert.ok(plan);
    const { zotConfig, values, configJson, configChecksum, ...rest } = plan;
    assert.deepEqual(rest, {
      namespace: "zot",
      createNamespace: true,
      releaseName: "zot",
      serviceName: "zot",
      chartVersion: "0.1.122",
      chartRepository: "https://zotregistry.dev/helm-charts",
      storageSize: "100Gi",
      storageClass: "large",
      claimName: "zot-pvc-zot-0",
      usernames: [],
      tls: false,
      url: "http://zot.zot.svc.cluster.local:5000",
      accessCommands: [
        "kubectl -n zot port-forward svc/zot 5000:5000",
        "curl -i http://localhost:5000/v2/",
        "curl -i http://localhost:5000/v2/_catalog",
        "curl -s http://localhost:5000/metrics | head",
        "curl -s http://localhost:5000/ | head -n 5",
      ],
    });
    assert.equal(configJson, JSON.stringify(zotConfig, null, 2) + "\n", "config.json is the config, indented, with a final newline");
    assert.equal(configChecksum, createHash("sha256").update(configJson).digest("hex"));
    assert.deepEqual((values.podAnnotations as Record<string, string>)["checksum/config"], configChecksum, "a config change rolls the pod");
    assert.equal((values.pvc as Record<string, unknown>).storageClassName, "large");
  });

  it("the arguments given are the plan's; commands name the first user with a password placeholder, TLS uses https", () => {
    const { plan, problems: p } = planRegistry({
      namespace: "registry",
      createNamespace: false,
      releaseName: "oci",
      chartVersion: "0.1.122",
      chartRepository: "oci://mirror.local/charts",
      storageSize: "1.5Ti",
      storageClass: "",
      users: [USER, { username: "ci", password: "Another-Registry-Password-4711" }],
      config: { http: { tls: { cert: "/c", key: "/k" } } },
    });
    assert.deepEqual(p, []);
    assert.ok(plan);
    assert.equal(plan.namespace, "registry");
    assert.equal(plan.createNamespace, false);
    assert.equal(plan.releaseName, "oci");
    assert.equal(plan.serviceName, "oci");
    assert.equal(plan.chartRepository, "oci://mirror.local/charts");
    assert.equal(plan.storageSize, "1.5Ti");
    assert.equal(plan.storageClass, "");
    assert.equal("storageClassName" in (plan.values.pvc as object), false, '"" leaves the class to the cluster');
    assert.deepEqual(plan.usernames, ["admin", "ci"]);
    assert.equal(plan.tls, true);
    assert.equal(plan.url, "https://oci.registry.svc.cluster.local:5000");
    assert.deepEqual(plan.accessCommands, [
      "kubectl -n registry port-forward svc/oci 5000:5000",
      "curl -i https://localhost:5000/v2/",
      "curl -i -u 'admin:<password>' https://localhost:5000/v2/_catalog",
      "curl -s -u 'admin:<password>' https://localhost:5000/metrics | head",
      "curl -s https://localhost:5000/ | head -n 5",
    ]);
    assert.ok(!JSON.stringify(plan).includes(USER.password), "no password in the plan");
    // An empty fullnameOverride leaves the release's name to the Service.
    assert.equal(planRegistry({ releaseName: "oci", values: { fullnameOverride: "" } }).plan?.serviceName, "oci");
  });

  it("each malformed top-level argument: its path, the value, and the form it must have", () => {
    assert.deepEqual(
      problems({
        namespace: loose(3),
        createNamespace: loose("yes"),
        releaseName: "a".repeat(54),
        chartVersion: "latest",
        chartRepository: "ftp://x",
        storageClass: "Large!",
        realm: 'a"b',
      }),
      [
        "registry.namespace: 3 must be a string (a Kubernetes namespace name (lowercase letters, digits, '-', at most 63))",
        "registry.createNamespace: must be true or false",
        `registry.releaseName: "${"a".repeat(54)}" is not a Helm release name that can name the Service and the StatefulSet (lowercase letters, digits, '-', starting with a letter, at most 52)`,
        'registry.chartVersion: "latest" is not a chart version such as "0.1.122"',
        'registry.chartRepository: "ftp://x" is not a chart repository URL such as "https://zotregistry.dev/helm-charts"',
        'registry.storageClass: "Large!" is not a StorageClass name such as "large" ("" for the default class)',
        'registry.realm: "a\\"b" must be a non-empty string without quotes or control characters; use e.g. "zot"',
      ],
    );
    assert.deepEqual(at({ storageSize: "lots" }, "registry.storageSize"), [
      'registry.storageSize: "lots" is not a storage quantity such as "100Gi"',
    ]);
    assert.deepEqual(at({ namespace: "n".repeat(64) }, "registry.namespace").length, 1, "64 letters are too many");
    assert.deepEqual(problems({ namespace: "n".repeat(63), releaseName: "r".repeat(52) }), [], "63 and 52 are the limits");
    // 53 is Helm's limit, but a StatefulSet of 53 gets no pod (test/real-engine/registry-cluster.test.ts); a Service
    // name starts with a letter.
    assert.equal(at({ releaseName: "r".repeat(53) }, "registry.releaseName").length, 1, "53 letters are too many for the StatefulSet");
    assert.equal(at({ releaseName: "1zot" }, "registry.releaseName").length, 1, "a Service name starts with a letter");
    assert.deepEqual(problems({}, "stack.registry"), []);
    assert.deepEqual(problems({ realm: "" }, "stack.registry"), [
      'stack.registry.realm: "" must be a non-empty string without quotes or control characters; use e.g. "zot"',
    ]);
    assert.equal(at({ realm: "a\\b" }, "registry.realm").length, 1, "a backslash");
    assert.equal(at({ realm: "a\tb" }, "registry.realm").length, 1, "a control character");
    assert.equal(at({ realm: loose(5) }, "registry.realm").length, 1, "not a string");
    assert.equal(at({ chartRepository: `https://${"x".repeat(2050)}` }, "registry.chartRepository").length, 1, "longer than a URL can be");
  });

  it("the forms each argument takes", () => {
    for (const chartVersion of ["0.1.122", "v0.1.122", "1.2.3-rc.1", "1.2.3+build.7"])
      assert.deepEqual(at({ chartVersion }, "registry.chartVersion"), [], chartVersion);
    for (const chartRepository of ["http://charts.local", "oci://mirror.local/zot"])
      assert.deepEqual(at({ chartRepository }, "registry.chartRepository"), [], chartRepository);
    for (const storageSize of ["100Gi", "1.5Ti", "500M", "1000000", "1Ki", "1Mi", "1Pi", "1Ei", "1k", "1G", "1T", "1P", "1E"])
      assert.deepEqual(problems({ storageSize }), [], storageSize);
    for (const storageSize of ["1.Gi", "Gi", "1Gi ", "1gi", "-1Gi"])
      assert.equal(at({ storageSize }, "registry.storageSize").length, 1, storageSize);
    for (const storageClass of ["fast-ssd", "gp3.encrypted", "a", `${"a".repeat(63)}.${"b".repeat(189)}`])
      assert.deepEqual(problems({ storageClass }), [], storageClass);
    for (const storageClass of ["-ssd", "ssd-", "a..b", `${"a".repeat(63)}.${"b".repeat(190)}`])
      assert.equal(at({ storageClass }, "registry.storageClass").length, 1, storageClass);
    for (const namespace of ["-zot", "zot-", "z.t", "Zot"]) assert.equal(at({ namespace }, "registry.namespace").length, 1, namespace);
    for (const chartVersion of ["1.2", "1.2.3.4", "v1.2.3-", "1.2.3+"])
      assert.equal(at({ chartVersion }, "registry.chartVersion").length, 1, chartVersion);
    for (const realm of ["zot registry", "Ünïcode", "a'b"]) assert.deepEqual(problems({ realm }), [], realm);
    for (const realm of ["a\u0000", "a\u001f"]) assert.equal(at({ realm }, "registry.realm").length, 1, JSON.stringify(realm));
  });

  it("users: a list of {username, password}, each with a password", () => {
    assert.deepEqual(problems({ users: loose("admin") }), ["registry.users: must be a list of {username, password}"]);
    assert.deepEqual(problems({ users: [loose(null), loose({ username: "bob" }), loose({ username: "eve", password: null })] }), [
      "registry.users[0]: must be {username, password}",
      "registry.users[1].password: is missing",
      "registry.users[2].password: is missing",
      "registry.users[0].username: must be a string",
    ]);
    assert.deepEqual(problems({ users: [USER] }), []);
  });

  it("config, cve and values must be objects; cve.enabled a boolean; mirrors not with enabled: false", () => {
    assert.deepEqual(problems({ config: loose([]), cve: loose(5), values: loose("v") }), [
      "registry.config: must be an object of config.json overrides",
      "registry.cve: must be an object {enabled, dbRepository, javaDbRepository}",
      "registry.values: must be an object of Helm values",
    ]);
    assert.deepEqual(problems({ cve: { enabled: loose("no") } }), ["registry.cve.enabled: must be true or false"]);
    assert.deepEqual(problems({ cve: { enabled: false, javaDbRepository: "m.local/trivy-java-db" } }), [
      "registry.cve.javaDbRepository: is set but cve.enabled is false; remove one of them",
    ]);
    assert.deepEqual(problems({ cve: { javaDbRepository: "https://m.local/trivy-java-db" } }), [
      'registry.cve.javaDbRepository: "https://m.local/trivy-java-db" is not an OCI repository without scheme, e.g. "mirror.local:5000/aquasecurity/trivy-db"',
    ]);
    assert.deepEqual(problems({ cve: { enabled: true, dbRepository: "m.local/aquasecurity/trivy-db:2" } }), []);
    assert.deepEqual(problems({ cve: { enabled: false } }), []);
  });

  it("an explicit htpasswd without users, or users with htpasswd removed or moved", () => {
    assert.deepEqual(problems({ config: { http: { auth: { htpasswd: { path: "/secret/htpasswd" } } } } }), [
      "registry.config.http.auth.htpasswd: is set but no users are given, so no htpasswd file would exist and zot would not start; add registry.users or remove the key",
    ]);
    assert.deepEqual(problems({ config: { http: { auth: { htpasswd: null } } } }), [], "deleting it without users is what happens anyway");
    assert.deepEqual(problems({ users: [USER], config: { http: { auth: { htpasswd: null } } } }), [
      "registry.config.http.auth.htpasswd: was removed although users are given; remove the override or the users",
    ]);
    assert.deepEqual(problems({ users: [USER], config: { http: { auth: { htpasswd: { path: "/etc/htpasswd" } } } } }), [
      'registry.config.http.auth.htpasswd.path: "/etc/htpasswd" is not where the users\' Secret is mounted; use "/secret/htpasswd"',
    ]);
    assert.deepEqual(problems({ users: [USER], config: { http: { auth: { htpasswd: { path: "" } } } } }), [
      'registry.config.http.auth.htpasswd.path: "" must not be empty; use "/secret/htpasswd"',
    ]);
  });

  it("port, address and rootDirectory as the chart's pod needs them", () => {
    assert.deepEqual(problems({ config: { http: { port: "8080" } } }), [
      'registry.config.http.port: "8080" differs from the chart\'s fixed container port; use "5000"',
    ]);
    assert.deepEqual(problems({ config: { http: { port: 5000 } } }), [], "a number is a port as well");
    assert.deepEqual(problems({ config: { http: { port: "65535" } } }), [
      'registry.config.http.port: "65535" differs from the chart\'s fixed container port; use "5000"',
    ]);
    assert.deepEqual(problems({ config: { http: { port: 65536 } } }), [
      'registry.config.http.port: 65536 is not a port zot accepts (a number 0-65535 as a string); use "5000"',
    ]);
    for (const address of ["0.0.0.0", "::", "[::]"]) assert.deepEqual(problems({ config: { http: { address } } }), [], address);
    assert.deepEqual(problems({ config: { http: { address: "10.0.0.1" } } }), [
      'registry.config.http.address: "10.0.0.1" would not be reachable through the Service; use "0.0.0.0"',
    ]);
    assert.deepEqual(problems({ config: { http: { address: "" } } }), [
      'registry.config.http.address: "" must not be empty; use "0.0.0.0"',
    ]);
    assert.deepEqual(problems({ config: { http: { address: null } } }), [
      'registry.config.http.address: is missing (zot would listen on 127.0.0.1 only); use "0.0.0.0"',
    ]);
    for (const rootDirectory of ["/var/lib/registry/", "/var/lib/registry//", "/var/lib/registry/images/"])
      assert.deepEqual(problems({ config: { storage: { rootDirectory } } }), [], rootDirectory);
    for (const rootDirectory of ["/var/lib/registry/..", "var/lib/registry", "/var/lib/registry-x"])
      assert.deepEqual(problems({ config: { storage: { rootDirectory } } }), [
        `registry.config.storage.rootDirectory: "${rootDirectory}" is not on the persistent volume (mounted at /var/lib/registry); use "/var/lib/registry" or a directory below it`,
      ]);
    assert.deepEqual(problems({ config: { storage: { rootDirectory: "/var/lib/registry/./images/../data" } } }), []);
    assert.deepEqual(problems({ config: { storage: { rootDirectory: "/var/lib/registry/a/../../../etc" } } }), [
      'registry.config.storage.rootDirectory: "/var/lib/registry/a/../../../etc" is not on the persistent volume (mounted at /var/lib/registry); use "/var/lib/registry" or a directory below it',
    ]);
    assert.deepEqual(problems({ config: { storage: { rootDirectory: null } } }), [
      'registry.config.storage.rootDirectory: is missing; zot needs it, use "/var/lib/registry"',
    ]);
  });

  it("Trivy mirrors need the search extension", () => {
    const noSearch = { extensions: { search: { enable: false }, ui: { enable: false } } };
    assert.deepEqual(problems({ cve: { javaDbRepository: "m.local/trivy-java-db" }, config: noSearch }), [
      "registry.cve: Trivy mirrors are set but the search extension (which runs CVE scanning) is disabled; enable extensions.search or remove the mirrors",
    ]);
    assert.deepEqual(problems({ config: noSearch }), [], "without mirrors a disabled search is fine");
  });

  it("values: no credential, none of the chart's own mounts, persistence stays on", () => {
    assert.deepEqual(problems({ values: { authHeader: "YWRtaW46cw==" } }), [
      "registry.values.authHeader: a credential in the release values (stored in plain text in state); remove it, the probes need no authentication",
    ]);
    assert.deepEqual(problems({ values: { mountConfig: true, mountSecret: true } }), [
      "registry.values.mountConfig: true would mount the chart's own ConfigMap over /etc/zot, replacing this component's; remove it",
      "registry.values.mountSecret: true would mount the chart's own Secret over /secret, replacing this component's; remove it",
    ]);
    assert.deepEqual(problems({ values: { mountConfig: false, mountSecret: false } }), []);
    assert.deepEqual(problems({ values: { persistence: false } }), [
      "registry.values.persistence: must stay true (the registry's data lives on the PVC)",
    ]);
    // A value the schema refuses is named with the values' path (a storage size the chart's pattern refuses).
    assert.deepEqual(at({ values: { pvc: { storage: "lots" } } }, "registry.values.pvc"), [
      'registry.values.pvc.storage: must match pattern "^[0-9]+(\\.[0-9]+)?(m|k|Ki|M|Mi|G|Gi|T|Ti|P|Pi|E|Ei)?$"',
    ]);
  });

  it("an entry of extraVolumes/extraVolumeMounts the chart refuses is numbered as the user wrote it", () => {
    // The component's own volumes and mounts come first in the merged lists; the message counts only the user's.
    const mounts = [
      { name: "data2", mountPath: "/data2" },
      { name: "data3", mountPath: "/data3", readonly: true },
    ];
    const volumes = [
      { name: "data2", emptyDir: {} },
      { name: "data3", emptyDir: {}, sizeLimitt: "1Gi" },
    ];
    const p = problems({ users: [USER], values: { extraVolumeMounts: mounts, extraVolumes: volumes } });
    assert.ok(
      p.some((m) => m.startsWith("registry.values.extraVolumeMounts[1].readonly: unknown key")),
      p.join("\n"),
    );
    assert.ok(
      p.every((m) => !m.includes("extraVolumeMounts[2]") && !m.includes("extraVolumeMounts[3]")),
      p.join("\n"),
    );
  });

  it("a value of the wrong type is named once, not again by the checks that build on it", () => {
    assert.deepEqual(problems({ releaseName: loose(5), storageSize: loose(5), storageClass: loose(5) }), [
      "registry.releaseName: 5 must be a string (a Helm release name that can name the Service and the StatefulSet (lowercase letters, digits, '-', starting with a letter, at most 52))",
      'registry.storageSize: 5 must be a string (a storage quantity such as "100Gi")',
      'registry.storageClass: 5 must be a string (a StorageClass name such as "large" ("" for the default class))',
    ]);
    assert.deepEqual(problems({ realm: loose(5) }), [
      'registry.realm: 5 must be a non-empty string without quotes or control characters; use e.g. "zot"',
    ]);
    assert.deepEqual(problems({ config: { storage: { rootDirectory: "" } } }), [
      'registry.config.storage.rootDirectory: "" must not be empty; use "/var/lib/registry"',
    ]);
    for (const port of ["a1234", "123456"])
      assert.deepEqual(problems({ config: { http: { port } } }), [
        `registry.config.http.port: "${port}" is not a port zot accepts (a number 0-65535 as a string); use "5000"`,
      ]);
    for (const chartRepository of ["xhttps://charts.local", "https://charts.local/a b"])
      assert.equal(at({ chartRepository }, "registry.chartRepository").length, 1, chartRepository);
  });

  it("RegistryConfigError lists every problem", () => {
    const e = new RegistryConfigError(["registry.a: x", "registry.b: y"]);
    assert.equal(e.message, "invalid registry configuration:\n  - registry.a: x\n  - registry.b: y");
    assert.equal(e.name, "RegistryConfigError");
    assert.deepEqual(e.problems, ["registry.a: x", "registry.b: y"]);
  });

  it("validateRegistryArgs is planRegistry's problem list", () => {
    assert.deepEqual(validateRegistryArgs({ namespace: "Bad" }, "r"), planRegistry({ namespace: "Bad" }, "r").problems);
    assert.deepEqual(validateRegistryArgs(), []);
  });

  it("another chart version or image tag is warned about, saying how to check against it; the pinned ones are not", () => {
    const regenerate =
      'regenerate the key lists for it to check against that version (docs/registry.md, "Bumping the chart or zot version")';
    assert.deepEqual(versionWarnings("0.1.123", { image: { tag: "v2.1.19" } }, "stack.registry"), [
      'stack.registry.chartVersion: "0.1.123" is not the pinned chart 0.1.122; the values are checked against the keys chart 0.1.122 ' +
        `reads and config.json against zot v2.1.18's, which may differ; ${regenerate}`,
      'stack.registry.values.image.tag: "v2.1.19" is not v2.1.18, the zot version chart 0.1.122 deploys; config.json is checked ' +
        `against the keys zot v2.1.18 accepts, which may differ; ${regenerate}`,
    ]);
    assert.deepEqual(versionWarnings("v0.1.122", { image: { tag: "v2.1.18" } }), []);
    assert.deepEqual(versionWarnings("0.1.122", { image: "zot:v2" }), []);
    assert.deepEqual(versionWarnings(undefined, undefined), []);
    assert.equal(versionWarnings("0.1.123", undefined)[0].split(":")[0], "registry.chartVersion", "the default path");
    // The plan carries them, with the problems-free plan.
    const { plan, warnings } = planRegistry({ chartVersion: "0.1.123" });
    assert.ok(plan);
    assert.equal(warnings.length, 1);
  });
});
