// The zot chart's values in-process: what buildChartValues gives the Release, how user values join it, and the
// exact problem a user reads for a key or value chart 0.1.122 would not take (with its path and the chart's key).
import assert from "node:assert/strict";
import { buildChartValues, ChartValuesInput, validateChartValues } from "../../provider/registry";
import { volumeConflicts } from "../../provider/registry/chart-values";

const input = (extra: Partial<ChartValuesInput<string>> = {}): ChartValuesInput<string> => ({
  fullname: "zot",
  storageSize: "100Gi",
  storageClass: "large",
  configMapName: "zot-config-abc",
  configChecksum: "c".repeat(64),
  ...extra,
});
const UNKNOWN = "unknown key for the zot chart 0.1.122 (Helm would silently ignore it)";

describe("registry: chart values rules", () => {
  it("without users: the config.json mount only, the PVC, resources, HTTP probes and the checksum annotation", () => {
    assert.deepEqual(buildChartValues(input()), {
      fullnameOverride: "zot",
      replicaCount: 1,
      serviceAccount: { create: true, annotations: {}, name: "" },
      service: { type: "ClusterIP", port: 5000 },
      persistence: true,
      pvc: { create: true, storage: "100Gi", accessModes: ["ReadWriteOnce"], storageClassName: "large" },
      resources: { limits: { cpu: "1000m", memory: "1Gi" }, requests: { cpu: "100m", memory: "256Mi" } },
      mountConfig: false,
      mountSecret: false,
      extraVolumes: [{ name: "zot-config", configMap: { name: "zot-config-abc", items: [{ key: "config.json", path: "config.json" }] } }],
      extraVolumeMounts: [{ name: "zot-config", mountPath: "/etc/zot/config.json", subPath: "config.json", readOnly: true }],
      httpGet: { scheme: "HTTP", port: 5000 },
      startupProbe: { initialDelaySeconds: 5, periodSeconds: 10, failureThreshold: 30 },
      podAnnotations: { "checksum/config": "c".repeat(64) },
    });
  });

  it("with users: the htpasswd Secret as a directory at /secret; TLS probes; the default storage class", () => {
    const v = buildChartValues(input({ htpasswdSecretName: "zot-htpasswd-xyz", tls: true, storageClass: "" }));
    assert.deepEqual(v.extraVolumes, [
      { name: "zot-config", configMap: { name: "zot-config-abc", items: [{ key: "config.json", path: "config.json" }] } },
      { name: "zot-htpasswd", secret: { secretName: "zot-htpasswd-xyz", items: [{ key: "htpasswd", path: "htpasswd" }] } },
    ]);
    assert.deepEqual(v.extraVolumeMounts, [
      { name: "zot-config", mountPath: "/etc/zot/config.json", subPath: "config.json", readOnly: true },
      { name: "zot-htpasswd", mountPath: "/secret", readOnly: true },
    ]);
    assert.deepEqual(v.httpGet, { scheme: "HTTPS", port: 5000 });
    assert.deepEqual(v.pvc, { create: true, storage: "100Gi", accessModes: ["ReadWriteOnce"] });
    assert.deepEqual(validateChartValues(v), []);
  });

  it("user values merge last; volumes and mounts that are no list are kept as given, for the schema to name", () => {
    const v = buildChartValues(
      input({ extra: { replicaCount: 2, pvc: { storageClassName: null }, extraVolumes: "v", extraVolumeMounts: 3 } }),
    );
    assert.equal(v.replicaCount, 2);
    assert.deepEqual(v.pvc, { create: true, storage: "100Gi", accessModes: ["ReadWriteOnce"] }, "null deletes");
    assert.equal(v.extraVolumes, "v");
    assert.equal(v.extraVolumeMounts, 3);
    assert.deepEqual(validateChartValues(v), [
      "registry.values.extraVolumeMounts: must be array",
      "registry.values.extraVolumes: must be array",
    ]);
    // Only volumes, or only mounts: the other list stays the component's.
    const onlyVolumes = buildChartValues(input({ extra: { extraVolumes: [{ name: "tls", emptyDir: {} }] } }));
    assert.deepEqual(
      (onlyVolumes.extraVolumeMounts as Array<{ name: string }>).map((m) => m.name),
      ["zot-config"],
    );
    assert.deepEqual(
      (onlyVolumes.extraVolumes as Array<{ name: string }>).map((m) => m.name),
      ["zot-config", "tls"],
    );
  });

  it("volume conflicts: the component's volume names, mounts at, above or below its files, under the caller's path", () => {
    const extra = {
      extraVolumes: [null, { name: "zot-htpasswd" }, { name: "mine" }, { name: 7 }],
      extraVolumeMounts: [
        { mountPath: "/etc/zot/config.json/" },
        { mountPath: "/etc/" },
        { mountPath: 5 },
        null,
        { mountPath: "/secretx" },
        { mountPath: "/etc/zot/config.jsonx" },
        { mountPath: "/secret" },
        { mountPath: "/secret/htpasswd" },
      ],
    };
    assert.deepEqual(volumeConflicts(extra, "stack.registry"), [
      'stack.registry.values.extraVolumes[1].name: "zot-htpasswd" is this component\'s own volume; give yours another name',
      'stack.registry.values.extraVolumeMounts[0].mountPath: "/etc/zot/config.json/" would hide /etc/zot/config.json, which this component ' +
        "mounts (zot's config.json and htpasswd); mount it elsewhere",
      'stack.registry.values.extraVolumeMounts[1].mountPath: "/etc/" would hide /etc/zot/config.json, which this component mounts ' +
        "(zot's config.json and htpasswd); mount it elsewhere",
      'stack.registry.values.extraVolumeMounts[6].mountPath: "/secret" would hide /secret, which this component mounts ' +
        "(zot's config.json and htpasswd); mount it elsewhere",
      'stack.registry.values.extraVolumeMounts[7].mountPath: "/secret/htpasswd" would hide /secret/htpasswd, which this component mounts ' +
        "(zot's config.json and htpasswd); mount it elsewhere",
    ]);
    assert.deepEqual(volumeConflicts({ extraVolumeMounts: [{ mountPath: "//" }] }, "r").length, 1, "the root, however written");
    assert.deepEqual(volumeConflicts(undefined, "r"), []);
    assert.deepEqual(
      volumeConflicts({ extraVolumes: { name: "zot-config" }, extraVolumeMounts: "/" }, "r"),
      [],
      "no list: the schema names it",
    );
  });

  it("unknown keys: the chart's real key, the same words one level up, a likely spelling, or the keys read there", () => {
    const v = { ...buildChartValues(input()), service: { type: "ClusterIP", port: 5000, account: {} }, image: { pullSecrets: [] } };
    assert.deepEqual(validateChartValues(v, "s.values"), [
      `s.values.image.pullSecrets: ${UNKNOWN}; the chart's key is imagePullSecrets`,
      `s.values.service.account: ${UNKNOWN}; the chart's key is serviceAccount`,
    ]);
    assert.deepEqual(validateChartValues({ ...buildChartValues(input()), zzzqqq: 1 }), [
      `registry.values.zzzqqq: ${UNKNOWN}; keys the chart reads here: affinity, authHeader, configFiles, deploymentAnnotations, dnsConfig, ` +
        "dnsPolicy, env, externalSecrets, extraArgs, extraContainers, extraVolumeMounts, extraVolumes, forceRoll, fullnameOverride, " +
        "hostAliases, httpGet, httproute, image, imagePullSecrets, ingress, initContainers, listenerset, metrics, mountConfig, mountSecret, " +
        "nameOverride, namespace, nodeSelector, persistence, podAnnotations, podDisruptionBudget, podLabels, podSecurityContext, " +
        "priorityClassName, pvc, replicaCount, resources, secretFiles, securityContext, service, serviceAccount, serviceHeadless, " +
        "startupProbe, strategy, test, tolerations, topologySpreadConstraints",
    ]);
    // Inside a list element the index is no key: the hint looks at the element's keys.
    assert.deepEqual(validateChartValues({ ...buildChartValues(input()), ingress: { hosts: [{ hostx: "h" }] } }), [
      `registry.values.ingress.hosts[0].hostx: ${UNKNOWN}; did you mean "host"?`,
    ]);
    assert.deepEqual(
      validateChartValues({ ...buildChartValues(input()), externalSecrets: [{ secretName: "s", mountPath: "/s", foo: 1 }] }),
      [`registry.values.externalSecrets[0].foo: ${UNKNOWN}; keys the chart reads here: mountPath, secretName`],
    );
  });

  it("other schema problems: the allowed values, the message of the rule, keys with / and ~ written as they are", () => {
    const base = buildChartValues(input());
    assert.deepEqual(validateChartValues({ ...base, service: { type: "Internal", port: 5000 } }), [
      'registry.values.service.type: must be one of ["ClusterIP","NodePort","LoadBalancer"]',
    ]);
    assert.deepEqual(validateChartValues({ ...base, replicaCount: "one" }), ["registry.values.replicaCount: must be integer"]);
    assert.deepEqual(validateChartValues({ ...base, podAnnotations: { "a/b~c": 1 } }), [
      "registry.values.podAnnotations.a/b~c: must be string",
    ]);
    assert.deepEqual(validateChartValues({ ...base, externalSecrets: [{ mountPath: "/s" }] }), [
      "registry.values.externalSecrets[0]: must have required property 'secretName'",
    ]);
    assert.deepEqual(validateChartValues(base), [], "the validator is reused across calls");
  });
});
