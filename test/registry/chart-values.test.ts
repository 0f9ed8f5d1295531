import assert from "node:assert/strict";
import Ajv from "ajv";
import { buildChartValues, chartValuesSchema, planRegistry, validateChartValues, validateRegistryArgs } from "../../provider/registry";

const base = () =>
  buildChartValues<string>({
    fullname: "zot",
    storageSize: "100Gi",
    storageClass: "large",
    configMapName: "cm",
    htpasswdSecretName: "sec",
    configChecksum: "0".repeat(64),
  });

describe("registry: zot chart values schema", () => {
  const validate = new Ajv({ allErrors: true, strict: false }).compile(chartValuesSchema());

  it("the component's values are valid", () => {
    assert.ok(validate(base()), JSON.stringify(validate.errors));
    assert.deepEqual(validateChartValues(base()), []);
  });

  it("a misspelt key (persistance) fails the schema, named with its path", () => {
    const v = { ...base(), persistance: true };
    assert.equal(validate(v), false);
    assert.deepEqual(validateChartValues(v), [
      'registry.values.persistance: unknown key for the zot chart 0.1.122 (Helm would silently ignore it); did you mean "persistence"?',
    ]);
  });

  it("misspelt nested keys fail too (pvc.storageClass, service.typ, extraVolumeMounts[0].readonly)", () => {
    const v = base() as any;
    v.pvc.storageClass = "large";
    v.service.typ = "ClusterIP";
    v.extraVolumeMounts[0].readonly = true;
    const p = validateChartValues(v);
    assert.ok(
      p.some((m) => m.startsWith("registry.values.pvc.storageClass:")),
      p.join("\n"),
    );
    assert.ok(
      p.some((m) => m.startsWith("registry.values.service.typ:")),
      p.join("\n"),
    );
    assert.ok(
      p.some((m) => m.startsWith("registry.values.extraVolumeMounts[0].readonly:")),
      p.join("\n"),
    );
  });

  it("spec 001's literal persistence map is refused: the chart wants a boolean plus pvc", () => {
    const v = { ...base(), persistence: { enabled: true, storageClass: "large", size: "100Gi" } };
    assert.ok(validateChartValues(v).some((m) => m.startsWith("registry.values.persistence:")));
    assert.ok(validateChartValues({ ...base(), secretMounts: [] }).some((m) => m.startsWith("registry.values.secretMounts:")));
  });

  it("user values are merged last and checked; mountConfig: true is refused", () => {
    const { plan } = planRegistry({ values: { nodeSelector: { disk: "ssd" }, resources: { limits: { memory: "2Gi" } } } });
    assert.deepEqual(plan!.values.nodeSelector, { disk: "ssd" });
    assert.deepEqual(plan!.values.resources, { limits: { cpu: "1000m", memory: "2Gi" }, requests: { cpu: "100m", memory: "256Mi" } });
    assert.ok(validateRegistryArgs({ values: { mountConfig: true } }).some((m) => m.startsWith("registry.values.mountConfig")));
    assert.ok(
      validateRegistryArgs({ values: { service: { type: "Internal" } } }).some((m) => m.startsWith("registry.values.service.type")),
    );
    assert.ok(validateRegistryArgs({ values: { persistence: false } }).some((m) => m.startsWith("registry.values.persistence")));
    assert.ok(
      validateRegistryArgs({ values: { authHeader: "YWRtaW46cw==" } }).some((m) =>
        m.startsWith("registry.values.authHeader: a credential"),
      ),
    );
  });

  it("extra volumes and mounts are added to the component's, never replace them (which would turn authentication off)", () => {
    const users = [{ username: "admin", password: "a-long-password-1" }];
    const tls = { name: "tls", secret: { secretName: "registry-tls" } };
    const tlsMount = { name: "tls", mountPath: "/etc/tls", readOnly: true };
    const { plan, problems } = planRegistry({ users, values: { extraVolumes: [tls], extraVolumeMounts: [tlsMount] } });
    assert.deepEqual(problems, []);
    assert.deepEqual(
      (plan!.values.extraVolumes as Array<{ name: string }>).map((v) => v.name),
      ["zot-config", "zot-htpasswd", "tls"],
    );
    assert.deepEqual(
      (plan!.values.extraVolumeMounts as Array<{ mountPath: string }>).map((m) => m.mountPath),
      ["/etc/zot/config.json", "/secret", "/etc/tls"],
    );
    // null no longer deletes them either.
    const nulled = planRegistry({ users, values: { extraVolumes: null, extraVolumeMounts: null } as never });
    assert.deepEqual(
      (nulled.plan!.values.extraVolumeMounts as Array<{ mountPath: string }>).map((m) => m.mountPath),
      ["/etc/zot/config.json", "/secret"],
    );

    const hiding = validateRegistryArgs({
      users,
      values: {
        extraVolumes: [{ name: "zot-config", emptyDir: {} }],
        extraVolumeMounts: [
          { name: "x", mountPath: "/etc/zot" },
          { name: "y", mountPath: "/secret/" },
          { name: "z", mountPath: "/" },
          { name: "ok", mountPath: "/etc/zotx" },
        ],
      },
    });
    assert.ok(
      hiding.some((m) => m.startsWith('registry.values.extraVolumes[0].name: "zot-config" is this component\'s own volume')),
      hiding.join("\n"),
    );
    for (const i of [0, 1, 2])
      assert.ok(
        hiding.some((m) => m.startsWith(`registry.values.extraVolumeMounts[${i}].mountPath:`)),
        `${i}: ${hiding.join("\n")}`,
      );
    assert.ok(!hiding.some((m) => m.startsWith("registry.values.extraVolumeMounts[3]")), "a sibling path is fine");
  });

  it("a directory below the volume's root is on the volume too", () => {
    assert.deepEqual(planRegistry({ config: { storage: { rootDirectory: "/var/lib/registry/images" } } }).problems, []);
  });

  it("fullnameOverride decides the service name and URL; TLS switches probes to HTTPS", () => {
    const { plan } = planRegistry({ values: { fullnameOverride: "registry" }, config: { http: { tls: { cert: "/c", key: "/k" } } } });
    assert.equal(plan!.serviceName, "registry");
    assert.equal(plan!.url, "https://registry.zot.svc.cluster.local:5000");
    assert.deepEqual(plan!.values.httpGet, { scheme: "HTTPS", port: 5000 });
  });

  it("bad top-level arguments are named", () => {
    const p = validateRegistryArgs({ namespace: "Bad_NS", storageSize: "lots", chartVersion: "latest", storageClass: "Large!" });
    for (const k of ["namespace", "storageSize", "chartVersion", "storageClass"]) {
      assert.ok(
        p.some((m) => m.startsWith(`registry.${k}:`)),
        `${k}: ${p.join("\n")}`,
      );
    }
  });

  // Issue 14: keys chart 0.1.122 reads (values.yaml or templates) are accepted; keys it never reads are refused.
  const READ_BY_THE_CHART: [string, Record<string, unknown>][] = [
    ["hostAliases", { hostAliases: [{ ip: "10.0.0.5", hostnames: ["mirror.internal"] }] }],
    ["initContainers", { initContainers: [{ name: "init", image: "busybox", command: ["true"] }] }],
    [
      "topologySpreadConstraints",
      { topologySpreadConstraints: [{ maxSkew: 1, topologyKey: "kubernetes.io/hostname", whenUnsatisfiable: "DoNotSchedule" }] },
    ],
    ["podDisruptionBudget", { podDisruptionBudget: { enabled: true, minAvailable: 1 } }],
    [
      "httproute",
      {
        httproute: {
          enabled: true,
          parentRefs: [{ name: "gw", namespace: "gateway", sectionName: "https" }],
          hostnames: ["zot.example.com"],
          pathType: "PathPrefix",
          path: "/",
        },
      },
    ],
    [
      "listenerset",
      { listenerset: { enabled: true, parentRef: { name: "gw" }, listeners: [{ name: "https", port: 443, protocol: "HTTPS" }] } },
    ],
    ["service.externalTrafficPolicy", { service: { externalTrafficPolicy: "Local" } }],
    ["service.trafficDistribution", { service: { trafficDistribution: "PreferClose" } }],
    ["ingress.path", { ingress: { enabled: true, path: "/", hosts: ["zot.example.com"] } }],
    [
      "metrics.serviceMonitor.{jobLabel,scheme,scrapeTimeout}",
      { metrics: { enabled: true, serviceMonitor: { enabled: true, jobLabel: "zot", scheme: "https", scrapeTimeout: "10s" } } },
    ],
    ["serviceHeadless", { serviceHeadless: { enabled: true, port: 5000, annotations: { a: "b" } } }],
  ];
  for (const [key, values] of READ_BY_THE_CHART) {
    it(`accepts ${key}, which chart 0.1.122 reads`, () => {
      assert.deepEqual(validateRegistryArgs({ values }), []);
    });
  }

  const NEVER_READ: [string, Record<string, unknown>, string, RegExp][] = [
    [
      "livenessProbe",
      { livenessProbe: { httpGet: { path: "/livez", port: 5000 } } },
      "registry.values.livenessProbe",
      /the chart's key is httpGet/,
    ],
    ["readinessProbe", { readinessProbe: { periodSeconds: 5 } }, "registry.values.readinessProbe", /the chart's key is httpGet/],
    [
      "service.headless",
      { service: { headless: { enabled: true } } },
      "registry.values.service.headless",
      /the chart's key is serviceHeadless/,
    ],
  ];
  for (const [key, values, at, real] of NEVER_READ) {
    it(`refuses ${key}, which the chart never reads, naming the chart's key`, () => {
      const problems = validateRegistryArgs({ values });
      assert.equal(problems.length, 1, problems.join("\n"));
      assert.ok(problems[0].startsWith(`${at}: unknown key for the zot chart 0.1.122 (Helm would silently ignore it)`), problems[0]);
      assert.match(problems[0], real);
    });
  }

  it("list elements the templates read key by key are closed (externalSecrets[], httproute.parentRefs[])", () => {
    const p = validateRegistryArgs({
      values: { externalSecrets: [{ secretName: "s", mountPath: "/s", readOnly: true }], httproute: { parentRefs: [{ nam: "gw" }] } },
    });
    assert.ok(
      p.some((m) => m.startsWith("registry.values.externalSecrets[0].readOnly: unknown key")),
      p.join("\n"),
    );
    assert.ok(
      p.some((m) => m.startsWith("registry.values.httproute.parentRefs[0].nam: unknown key") && m.includes('did you mean "name"?')),
      p.join("\n"),
    );
  });

  it("another chart version or zot tag is warned about: the checks are the pinned versions'", () => {
    assert.deepEqual(planRegistry({}).warnings, []);
    assert.deepEqual(planRegistry({ chartVersion: "0.1.122", values: { image: { tag: "v2.1.18" } } }).warnings, []);
    const w = planRegistry({ chartVersion: "0.1.130", values: { image: { tag: "v2.1.20" } } }).warnings;
    assert.equal(w.length, 2, w.join("\n"));
    assert.match(w[0], /^registry\.chartVersion: "0\.1\.130" is not the pinned chart 0\.1\.122; .*zot v2\.1\.18/);
    assert.match(w[1], /^registry\.values\.image\.tag: "v2\.1\.20" is not v2\.1\.18, the zot version chart 0\.1\.122 deploys/);
  });
});
