import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import * as pulumi from "@pulumi/pulumi";
import bcrypt from "bcryptjs";
import Ajv from "ajv";
import { chartValuesSchema, Registry, RegistryArgs, RegistryConfigError, REGISTRY_TYPE } from "../../provider/registry";
import { installMocks, isSecretValue, Recorded, settle, unwrap, valueOf } from "../support/mocks";

const PASSWORD = "S3cret-Pa55word!x";
const PASSWORD_2 = "An0ther-Secret#y";

// Spec 001, "Registry configuration (config.json)", key by key (realm: our default "zot"), and http.compat: the zot
// image's own default config (build/Dockerfile at v2.1.18), which the ConfigMap replaces.
const SPEC_TABLE: [string, unknown][] = [
  ["http.compat", ["docker2s2"]],
  ["distSpecVersion", "1.1.0"],
  ["storage.rootDirectory", "/var/lib/registry"],
  ["storage.dedupe", true],
  ["storage.gc", true],
  ["storage.gcDelay", "1h"],
  ["storage.gcInterval", "24h"],
  ["http.address", "0.0.0.0"],
  ["http.port", "5000"],
  ["http.realm", "zot"],
  ["http.auth.htpasswd.path", "/secret/htpasswd"],
  ["log.level", "info"],
  ["log.output", "/dev/stdout"],
  ["extensions.metrics.enable", true],
  ["extensions.metrics.prometheus.path", "/metrics"],
  ["extensions.search.enable", true],
  ["extensions.search.cve.updateInterval", "24h"],
  ["extensions.ui.enable", true],
];

function leaves(o: any, prefix = ""): string[] {
  return Object.entries(o).flatMap(([k, v]) =>
    typeof v === "object" && v !== null && !Array.isArray(v) ? leaves(v, `${prefix}${k}.`) : [`${prefix}${k}`],
  );
}
const at = (o: any, path: string) => path.split(".").reduce((x, k) => (x === undefined ? undefined : x[k]), o);

interface Run {
  registry: Registry;
  resources: Recorded[];
  byType: (t: string) => Recorded[];
  outputs: { namespace: string; releaseName: string; serviceName: string; url: string; accessCommands: string[] };
}

let recorded: Recorded[] = [];
let seq = 0;

async function run(args: RegistryArgs, expected: number): Promise<Run> {
  const name = `reg${++seq}`;
  const registry = new Registry(name, args);
  const outputs = {
    namespace: await valueOf(registry.namespace),
    releaseName: await valueOf(registry.releaseName),
    serviceName: await valueOf(registry.serviceName),
    url: await valueOf(registry.url),
    accessCommands: await valueOf(registry.accessCommands),
  };
  const resources = await settle(recorded, name, expected);
  return { registry, resources, byType: (t) => resources.filter((r) => r.type === t), outputs };
}

const USERS = (pw = PASSWORD) => [
  { username: "admin", password: pulumi.secret(pw) },
  { username: "ci", password: PASSWORD_2 },
];

describe("registry: Registry component under mocks", function () {
  this.timeout(60000);
  before(async () => {
    recorded = await installMocks();
  });

  it("creates Namespace, ConfigMap, Secret, the storage guard and Release with the expected types", async () => {
    const r = await run({ users: USERS() }, 6);
    const types = r.resources.map((x) => x.type).sort();
    assert.deepEqual(
      types,
      [
        REGISTRY_TYPE,
        "kubernetes:core/v1:ConfigMap",
        "kubernetes:core/v1:Namespace",
        "kubernetes:core/v1:Secret",
        "kubernetes:helm.sh/v3:Release",
        "pulumi-nodejs:dynamic/registry:StorageGuard",
      ].sort(),
    );
    const [ns] = r.byType("kubernetes:core/v1:Namespace");
    assert.equal(ns.inputs.metadata.name, "zot");
    const [cm] = r.byType("kubernetes:core/v1:ConfigMap");
    assert.equal(cm.inputs.metadata.namespace, "zot");
    const [rel] = r.byType("kubernetes:helm.sh/v3:Release");
    assert.equal(rel.inputs.chart, "zot");
    assert.equal(rel.inputs.version, "0.1.122");
    assert.equal(rel.inputs.name, "zot");
    assert.equal(rel.inputs.namespace, "zot");
    assert.deepEqual(rel.inputs.repositoryOpts, { repo: "https://zotregistry.dev/helm-charts" });
  });

  it("an OCI chart registry is given to Helm as the chart's reference, not as a repository", async () => {
    const r = await run({ chartRepository: "oci://ghcr.io/project-zot/helm-charts/" }, 5);
    const [rel] = r.byType("kubernetes:helm.sh/v3:Release");
    assert.equal(rel.inputs.chart, "oci://ghcr.io/project-zot/helm-charts/zot");
    assert.equal(rel.inputs.repositoryOpts, undefined);
    assert.equal(rel.inputs.version, "0.1.122");
  });

  it("config.json matches spec 001's table key by key", async () => {
    const r = await run({ users: USERS() }, 6);
    const [cm] = r.byType("kubernetes:core/v1:ConfigMap");
    const cfg = JSON.parse(cm.inputs.data["config.json"]);
    for (const [key, value] of SPEC_TABLE) assert.deepEqual(at(cfg, key), value, key);
    assert.deepEqual(leaves(cfg).sort(), SPEC_TABLE.map(([k]) => k).sort(), "no key beyond the table");
  });

  it("without users: no Secret, no http.auth, no secret volume", async () => {
    const r = await run({}, 5);
    assert.equal(r.byType("kubernetes:core/v1:Secret").length, 0);
    const cfg = JSON.parse(r.byType("kubernetes:core/v1:ConfigMap")[0].inputs.data["config.json"]);
    assert.equal(cfg.http.auth, undefined);
    const values = r.byType("kubernetes:helm.sh/v3:Release")[0].inputs.values;
    assert.deepEqual(
      values.extraVolumeMounts.map((m: any) => m.mountPath),
      ["/etc/zot/config.json"],
    );
    assert.ok(!r.outputs.accessCommands.some((c) => c.includes("-u ")));
  });

  it("htpasswd Secret: secret stringData, bcrypt lines zot accepts that verify for each user", async () => {
    const r = await run({ users: USERS() }, 6);
    const [sec] = r.byType("kubernetes:core/v1:Secret");
    assert.ok(isSecretValue(sec.inputs.stringData), "stringData must arrive as a secret");
    assert.equal(sec.inputs.type, "Opaque");
    const file: string = unwrap(sec.inputs.stringData).htpasswd;
    const lines = file.trimEnd().split("\n");
    assert.equal(lines.length, 2);
    const [u1, h1] = [lines[0].slice(0, lines[0].indexOf(":")), lines[0].slice(lines[0].indexOf(":") + 1)];
    const [u2, h2] = [lines[1].slice(0, lines[1].indexOf(":")), lines[1].slice(lines[1].indexOf(":") + 1)];
    assert.equal(u1, "admin");
    assert.equal(u2, "ci");
    assert.match(h1, /^\$2b\$10\$[./A-Za-z0-9]{53}$/);
    assert.ok(bcrypt.compareSync(PASSWORD, h1));
    assert.ok(bcrypt.compareSync(PASSWORD_2, h2));
    assert.ok(!bcrypt.compareSync(PASSWORD_2, h1));
  });

  it("htpasswd is identical across runs with the same passwords and changes with the password", async () => {
    const read = (r: Run) => unwrap(r.byType("kubernetes:core/v1:Secret")[0].inputs.stringData).htpasswd as string;
    const a = read(await run({ users: USERS() }, 6));
    const b = read(await run({ users: USERS() }, 6));
    const c = read(await run({ users: USERS("a-changed-password") }, 6));
    assert.equal(a, b);
    assert.notEqual(a.split("\n")[0], c.split("\n")[0]);
    assert.equal(a.split("\n")[1], c.split("\n")[1], "the unchanged user's line stays");
  });

  it("a password change changes the pod's checksum/htpasswd annotation and nothing else of the release or the ConfigMap", async () => {
    // zot (pkg/api/htpasswd.go, v2.1.18) reloads on an fsnotify Write of the file; a Secret update swaps the ..data
    // symlink instead, so only a rolled pod sees the new password.
    const shape = (r: Run) => {
      const release = r.byType("kubernetes:helm.sh/v3:Release")[0].inputs;
      const htpasswd = unwrap(r.byType("kubernetes:core/v1:Secret")[0].inputs.stringData).htpasswd as string;
      const configJson = r.byType("kubernetes:core/v1:ConfigMap")[0].inputs.data["config.json"];
      return { release, htpasswd, configJson };
    };
    const a = shape(await run({ users: USERS() }, 6));
    const same = shape(await run({ users: USERS() }, 6));
    const b = shape(await run({ users: USERS("a-changed-password") }, 6));
    const sha = (t: string) => createHash("sha256").update(t).digest("hex");
    const annotation = (x: typeof a) => x.release.values.podAnnotations["checksum/htpasswd"];
    assert.equal(annotation(a), sha(a.htpasswd), "sha256 of the bcrypt lines");
    assert.ok(!isSecretValue(annotation(a)), "plain: it is a hash of one-way bcrypt lines (see index.ts)");
    assert.equal(annotation(same), annotation(a), "unchanged passwords: no roll");
    assert.equal(annotation(b), sha(b.htpasswd));
    assert.notEqual(annotation(b), annotation(a));
    const without = (x: typeof a) => {
      // Each run is its own component (reg1, reg2...): the auto-names differ by that alone.
      const copy = JSON.parse(JSON.stringify(unwrap(x.release)).replace(/"reg\d+-/g, '"reg-'));
      delete copy.values.podAnnotations["checksum/htpasswd"];
      return copy;
    };
    assert.deepEqual(without(b), without(a), "nothing else of the release changes");
    assert.equal(b.configJson, a.configJson);
    assert.ok(!JSON.stringify(a.release).includes(PASSWORD) && !JSON.stringify(b.release).includes("a-changed-password"));
    // Without users there is no htpasswd and no annotation.
    const none = await run({}, 5);
    assert.deepEqual(Object.keys(none.byType("kubernetes:helm.sh/v3:Release")[0].inputs.values.podAnnotations), ["checksum/config"]);
  });

  it("Helm values pass the chart schema; PVC 100Gi of class large; mounts and service as intended", async () => {
    const r = await run({ users: USERS() }, 6);
    const values: any = r.byType("kubernetes:helm.sh/v3:Release")[0].inputs.values;
    const validate = new Ajv({ allErrors: true, strict: false }).compile(chartValuesSchema());
    const valid: boolean = validate(values as object) as boolean;
    assert.ok(valid, JSON.stringify(validate.errors));
    assert.equal(values.persistence, true);
    assert.equal(values.pvc.storage, "100Gi");
    assert.equal(values.pvc.storageClassName, "large");
    assert.equal(values.pvc.create, true);
    assert.deepEqual(values.pvc.accessModes, ["ReadWriteOnce"]);
    assert.deepEqual(values.service, { type: "ClusterIP", port: 5000 });
    assert.deepEqual(values.serviceAccount, { create: true, annotations: {}, name: "" });
    assert.equal(values.replicaCount, 1);
    assert.deepEqual(values.resources, { limits: { cpu: "1000m", memory: "1Gi" }, requests: { cpu: "100m", memory: "256Mi" } });
    assert.equal(values.mountConfig, false);
    assert.equal(values.authHeader, undefined);
    assert.equal(values.fullnameOverride, "zot");
    const cmName = r.byType("kubernetes:core/v1:ConfigMap")[0].state.metadata.name;
    const secName = r.byType("kubernetes:core/v1:Secret")[0].state.metadata.name;
    assert.deepEqual(values.extraVolumes, [
      { name: "zot-config", configMap: { name: cmName, items: [{ key: "config.json", path: "config.json" }] } },
      { name: "zot-htpasswd", secret: { secretName: secName, items: [{ key: "htpasswd", path: "htpasswd" }] } },
    ]);
    assert.deepEqual(values.extraVolumeMounts, [
      { name: "zot-config", mountPath: "/etc/zot/config.json", subPath: "config.json", readOnly: true },
      { name: "zot-htpasswd", mountPath: "/secret", readOnly: true },
    ]);
    assert.match(values.podAnnotations["checksum/config"], /^[0-9a-f]{64}$/);
  });

  it("storage size and class are overridable", async () => {
    const r = await run({ storageSize: "20Gi", storageClass: "" }, 5);
    const values = r.byType("kubernetes:helm.sh/v3:Release")[0].inputs.values;
    assert.equal(values.pvc.storage, "20Gi");
    assert.equal("storageClassName" in values.pvc, false);
  });

  it("the plain password appears in no resource's inputs or state, nor in the outputs", async () => {
    const r = await run({ users: USERS() }, 6);
    for (const res of r.resources) {
      for (const pw of [PASSWORD, PASSWORD_2]) {
        assert.ok(!JSON.stringify(res.inputs).includes(pw), `${res.type} inputs`);
        assert.ok(!JSON.stringify(res.state).includes(pw), `${res.type} state`);
      }
    }
    const out = JSON.stringify(r.outputs);
    assert.ok(!out.includes(PASSWORD) && !out.includes(PASSWORD_2));
  });

  it("outputs: namespace, release, service, in-cluster url and access commands with a placeholder", async () => {
    const r = await run({ users: USERS() }, 6);
    assert.equal(r.outputs.namespace, "zot");
    assert.equal(r.outputs.releaseName, "zot");
    assert.equal(r.outputs.serviceName, "zot");
    assert.equal(r.outputs.url, "http://zot.zot.svc.cluster.local:5000");
    assert.equal(r.outputs.accessCommands[0], "kubectl -n zot port-forward svc/zot 5000:5000");
    const joined = r.outputs.accessCommands.join("\n");
    assert.match(joined, /curl -i -u 'admin:<password>' http:\/\/localhost:5000\/v2\/_catalog/);
    assert.match(joined, /\/metrics/);
    assert.match(joined, /\/v2\//);
  });

  it("an existing namespace is used, not created", async () => {
    const r = await run({ namespace: "infra", createNamespace: false, releaseName: "registry" }, 4);
    assert.equal(r.byType("kubernetes:core/v1:Namespace").length, 0);
    assert.equal(r.byType("kubernetes:core/v1:ConfigMap")[0].inputs.metadata.namespace, "infra");
    assert.equal(r.outputs.url, "http://registry.infra.svc.cluster.local:5000");
  });

  it("air-gapped: CVE off removes extensions.search.cve; mirrors set the trivy repositories", async () => {
    const off = await run({ cve: { enabled: false } }, 5);
    const cfgOff = JSON.parse(off.byType("kubernetes:core/v1:ConfigMap")[0].inputs.data["config.json"]);
    assert.equal(cfgOff.extensions.search.cve, undefined);
    assert.equal(cfgOff.extensions.search.enable, true);
    const mirror = await run(
      {
        cve: { dbRepository: "mirror.local:5000/aquasecurity/trivy-db", javaDbRepository: "mirror.local:5000/aquasecurity/trivy-java-db" },
      },
      5,
    );
    const cfg = JSON.parse(mirror.byType("kubernetes:core/v1:ConfigMap")[0].inputs.data["config.json"]);
    assert.deepEqual(cfg.extensions.search.cve, {
      updateInterval: "24h",
      trivy: { dbRepository: "mirror.local:5000/aquasecurity/trivy-db", javaDBRepository: "mirror.local:5000/aquasecurity/trivy-java-db" },
    });
  });

  it("refuses bad arguments at construction, before registering anything, naming every key", () => {
    const before = recorded.length;
    assert.throws(
      () =>
        new Registry("bad", {
          users: [{ username: "a:b", password: PASSWORD }],
          config: { extensions: { metrics: { prometheus: { path: "/v2" } } }, storage: { gcInterval: "soon" } },
          values: { persistance: true },
        }),
      (e: unknown) => {
        assert.ok(e instanceof RegistryConfigError);
        const m = e.message;
        assert.match(m, /registry\.config\.extensions\.metrics\.prometheus\.path: "\/v2" is reserved.*use e\.g\. "\/metrics"/);
        assert.match(m, /registry\.config\.storage\.gcInterval/);
        assert.match(m, /registry\.users\[0\]\.username/);
        assert.match(m, /registry\.values\.persistance: unknown key/);
        assert.ok(!m.includes(PASSWORD));
        return true;
      },
    );
    assert.equal(recorded.length, before);
  });

  it("warns through pulumi.log when the chart version or zot tag is not the pinned one", async () => {
    const warned: string[] = [];
    const original = pulumi.log.warn;
    (pulumi.log as { warn: typeof pulumi.log.warn }).warn = async (msg: string) => {
      warned.push(msg);
    };
    try {
      await run({}, 5);
      assert.deepEqual(warned, [], "the pinned versions: no warning");
      const r = await run({ chartVersion: "0.1.130", values: { image: { tag: "v2.1.20" } } }, 5);
      assert.equal(r.byType("kubernetes:helm.sh/v3:Release")[0].inputs.version, "0.1.130", "the given version is still deployed");
      assert.equal(warned.length, 2, warned.join("\n"));
      assert.match(
        warned[0],
        /registry\.chartVersion: "0\.1\.130" is not the pinned chart 0\.1\.122; the values are checked against the keys chart 0\.1\.122 reads/,
      );
      assert.match(warned[1], /registry\.values\.image\.tag: "v2\.1\.20" is not v2\.1\.18/);
    } finally {
      (pulumi.log as { warn: typeof pulumi.log.warn }).warn = original;
    }
  });
});
