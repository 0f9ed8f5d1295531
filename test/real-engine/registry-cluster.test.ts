// The zot registry as a user deploys it from stack config (`backup-portal:registry`), under the real CLI, onto a
// real API server (test/support/cluster): the kubernetes provider built from the Go module proxy, Helm installing
// the tests' stand-in chart from a chart repository on loopback. Judged by what the API server holds and by
// Helm's own release record, not by the CLI's words. What cannot be tested here (a real kubelet, the zot
// process): docs/registry.md.
import { strict as assert } from "node:assert";
import * as bcrypt from "bcryptjs";
import { planRegistry } from "../../provider/registry/plan";
import { eventually, KubeObject } from "../support/cluster/kube-api";
import { Workspace } from "./cli";
import { clusterSuite, helmRelease, installKubernetesPlugin, readyPods } from "./kubernetes";
import { connectionYaml, emulatorSuite, PORTAL_PASSWORD, setAdminPassword, stacksWorkspace, yamlWorkspace } from "./project";

const PASSWORDS = { ci: "Zot-ci-pw-3b9f41e7", reader: "Zot-reader-pw-8c2d5a10" };
const NEW_CI_PASSWORD = "Zot-ci-pw-rotated-77e1c0";
const NS = "zot";
const POD_SELECTOR = "app.kubernetes.io/name=zot,app.kubernetes.io/instance=zot";

function registryYaml(chartRepository: string, extra = ""): string {
  return [
    "  backup-portal:tenants: {}",
    "  backup-portal:registry:",
    `    chartRepository: ${chartRepository}`,
    "    users:",
    "      - username: ci",
    "      - username: reader",
    extra,
  ].join("\n");
}

describe("real engine: the zot registry on a real API server", function () {
  this.timeout(20 * 60_000);
  const portal = emulatorSuite();
  const k8s = clusterSuite();
  let ws: Workspace;
  const api = () => k8s.cluster.api;
  const configMaps = async () =>
    (await api().list(`/api/v1/namespaces/${NS}/configmaps`)).filter((c) => c.metadata.name.startsWith("registry-config"));
  const htpasswd = async (): Promise<string> => {
    const secrets = (await api().list(`/api/v1/namespaces/${NS}/secrets`)).filter((s) => s.metadata.name.startsWith("registry-htpasswd"));
    assert.equal(secrets.length, 1, "one htpasswd Secret");
    return Buffer.from(secrets[0].data.htpasswd, "base64").toString("utf8");
  };
  const verifies = (file: string, user: string, password: string) => {
    const line = file.split("\n").find((l) => l.startsWith(`${user}:`));
    return line !== undefined && bcrypt.compareSync(password, line.slice(user.length + 1));
  };
  const podTemplate = async (): Promise<KubeObject> => (await api().get(`/apis/apps/v1/namespaces/${NS}/statefulsets/zot`)).spec.template;

  // The suite resets the emulator before each test, its admin's password included.
  beforeEach(() => setAdminPassword(portal.emu));
  before(async () => {
    ws = portal.keep(stacksWorkspace("k8s", connectionYaml(portal.emu, registryYaml(k8s.charts.url))));
    await ws.ok(["stack", "init"]);
    await installKubernetesPlugin(ws, k8s.cluster);
    await ws.setSecret("backup-portal:password", PORTAL_PASSWORD);
    await ws.setSecret("backup-portal:kubeconfig", k8s.cluster.kubeconfig);
    for (const [user, password] of Object.entries(PASSWORDS)) await ws.setSecret(`backup-portal:registryPassword-${user}`, password);
  });

  it("a storage class the cluster does not have is refused at preview, naming the classes it has", async () => {
    await ws.ok(["config", "set", "--path", "backup-portal:registry.storageClass", "fast"]);
    const refused = await ws.pulumi(["preview"]);
    assert.notEqual(refused.code, 0);
    assert.match(
      refused.stdout + refused.stderr,
      /registry\.storageClass: the cluster has no StorageClass "fast", so the registry's claim would stay Pending .* it has "large", "standard": set one of them/,
    );
    assert.equal(await api().find(`/api/v1/namespaces/${NS}`), undefined, "nothing was made");
    await ws.ok(["config", "rm", "--path", "backup-portal:registry.storageClass"]);
  });

  it("up creates the namespace, config.json, the htpasswd Secret, a Bound 100Gi claim, the Helm release and a Ready pod", async () => {
    const up = await ws.ok(["up", "--yes"]);
    assert.match(up.stdout, /\+ \d+ created/);

    assert.equal((await api().get(`/api/v1/namespaces/${NS}`)).status.phase, "Active");
    const { plan } = planRegistry({
      chartRepository: k8s.charts.url,
      users: [
        { username: "ci", password: "" },
        { username: "reader", password: "" },
      ],
    });
    const [cm] = await configMaps();
    assert.equal(cm.data["config.json"], plan!.configJson, "the ConfigMap holds config.json byte for byte as planned");

    const file = await htpasswd();
    for (const [user, password] of Object.entries(PASSWORDS)) assert.ok(verifies(file, user, password), `${user}'s password verifies`);
    assert.ok(!verifies(file, "ci", PASSWORDS.reader), "a wrong password does not verify");

    const claim = await eventually(async () => {
      const c = await api().find(`/api/v1/namespaces/${NS}/persistentvolumeclaims/zot-pvc-zot-0`);
      return c?.status?.phase === "Bound" ? c : undefined;
    }, "the registry's claim Bound");
    assert.equal(claim.spec.resources.requests.storage, "100Gi");
    assert.equal(claim.spec.storageClassName, "large");

    // What the component passed, as Helm recorded it.
    const release = await helmRelease(k8s.cluster, NS, "zot", 1);
    assert.equal(release.info.status, "deployed");
    assert.equal(release.chart.metadata.annotations["backup-portal-pulumi/test-stand-in"], "true", "the tests' stand-in chart");
    const values = release.config;
    assert.equal(values.fullnameOverride, "zot");
    assert.deepEqual(values.pvc, { create: true, storage: "100Gi", accessModes: ["ReadWriteOnce"], storageClassName: "large" });
    assert.equal(values.service.type, "ClusterIP");
    assert.equal(values.extraVolumes[0].configMap.name, cm.metadata.name, "the release mounts the ConfigMap the stack made");
    assert.equal(values.podAnnotations["checksum/config"], plan!.configChecksum);
    assert.match(values.podAnnotations["checksum/htpasswd"], /^[0-9a-f]{64}$/);

    const service = await api().get(`/api/v1/namespaces/${NS}/services/zot`);
    assert.deepEqual(
      service.spec.ports.map((p: { port: number }) => p.port),
      [5000],
    );
    const [pod] = await readyPods(k8s.cluster, NS, POD_SELECTOR);
    const mounts = pod.spec.containers[0].volumeMounts.map((m: { mountPath: string }) => m.mountPath);
    assert.ok(
      mounts.includes("/etc/zot/config.json") && mounts.includes("/secret") && mounts.includes("/var/lib/registry"),
      mounts.join(", "),
    );
  });

  it("an unchanged preview and a refresh show no change", async () => {
    await ws.ok(["preview", "--expect-no-changes"]);
    await ws.ok(["refresh", "--yes", "--expect-no-changes"]);
    await ws.ok(["preview", "--expect-no-changes"]);
  });

  it("no htpasswd line, password or kubeconfig token in plain text in the state or the CLI's output", async () => {
    const exported = await ws.ok(["stack", "export"]);
    const outputs = [exported.stdout, (await ws.ok(["preview", "--diff"])).stdout];
    const file = await htpasswd();
    const forbidden = [...Object.values(PASSWORDS), ...k8s.cluster.credentials, ...file.trim().split("\n")];
    for (const text of outputs)
      for (const secret of forbidden) assert.ok(!text.includes(secret), `a secret in plain text: ${secret.slice(0, 12)}…`);
  });

  it("a config change makes a new ConfigMap, rolls the pod by its checksum, and deletes the old ConfigMap afterwards", async () => {
    const [before] = await configMaps();
    const templateBefore = await podTemplate();
    const [podBefore] = await readyPods(k8s.cluster, NS, POD_SELECTOR);
    await ws.ok(["config", "set", "--path", "backup-portal:registry.config.log.level", "debug"]);
    await ws.ok(["up", "--yes"]);

    const after = await configMaps();
    assert.equal(after.length, 1, "the old ConfigMap is deleted");
    assert.notEqual(after[0].metadata.name, before.metadata.name);
    assert.equal(JSON.parse(after[0].data["config.json"]).log.level, "debug");
    const templateAfter = await podTemplate();
    assert.notEqual(templateAfter.metadata.annotations["checksum/config"], templateBefore.metadata.annotations["checksum/config"]);
    const [podAfter] = await eventually(async () => {
      const pods = await readyPods(k8s.cluster, NS, POD_SELECTOR);
      return pods[0].metadata.uid !== podBefore.metadata.uid ? pods : undefined;
    }, "a new registry pod");
    assert.equal(podAfter.metadata.annotations["checksum/config"], templateAfter.metadata.annotations["checksum/config"]);
  });

  it("a password change updates the Secret and rolls the registry", async () => {
    const [podBefore] = await readyPods(k8s.cluster, NS, POD_SELECTOR);
    const checksumBefore = (await podTemplate()).metadata.annotations["checksum/htpasswd"];
    await ws.setSecret("backup-portal:registryPassword-ci", NEW_CI_PASSWORD);
    await ws.ok(["up", "--yes"]);
    const file = await htpasswd();
    assert.ok(verifies(file, "ci", NEW_CI_PASSWORD), "the new password verifies");
    assert.ok(!verifies(file, "ci", PASSWORDS.ci), "the old one no longer does");
    assert.ok(verifies(file, "reader", PASSWORDS.reader), "the other user is unchanged");
    assert.notEqual((await podTemplate()).metadata.annotations["checksum/htpasswd"], checksumBefore);
    await eventually(async () => {
      const pods = await readyPods(k8s.cluster, NS, POD_SELECTOR);
      return pods[0].metadata.uid !== podBefore.metadata.uid ? true : undefined;
    }, "a new registry pod");
  });

  it("a new storageSize is refused at preview with the way to grow the volume; nothing changes on the cluster", async () => {
    const claimBefore = await api().get(`/api/v1/namespaces/${NS}/persistentvolumeclaims/zot-pvc-zot-0`);
    const revisionsBefore = (await api().list(`/api/v1/namespaces/${NS}/secrets?labelSelector=owner%3Dhelm`)).length;
    await ws.ok(["config", "set", "--path", "backup-portal:registry.storageSize", "200Gi"]);
    for (const command of [["preview"], ["up", "--yes"]]) {
      const refused = await ws.pulumi(command);
      assert.notEqual(refused.code, 0, `${command[0]} refuses`);
      const text = refused.stdout + refused.stderr;
      assert.match(text, /registry\.storageSize: the registry's volume was made with 100Gi and cannot become 200Gi/);
      assert.match(text, /Keep storageSize: 100Gi/);
      assert.match(text, /kubectl -n zot patch pvc zot-pvc-zot-0/);
    }
    const claimAfter = await api().get(`/api/v1/namespaces/${NS}/persistentvolumeclaims/zot-pvc-zot-0`);
    assert.equal(claimAfter.metadata.resourceVersion, claimBefore.metadata.resourceVersion, "the claim is untouched");
    const revisions = (await api().list(`/api/v1/namespaces/${NS}/secrets?labelSelector=owner%3Dhelm`)).length;
    assert.equal(revisions, revisionsBefore, "no new Helm revision");
    await ws.ok(["config", "rm", "--path", "backup-portal:registry.storageSize"]);
    await ws.ok(["preview", "--expect-no-changes"]);
  });

  it("a release name the StatefulSet cannot carry, or a namespace too long, is refused at preview at its key", async () => {
    // What the API server teaches: a StatefulSet of 53 characters (Helm's limit) is accepted, and then no pod may
    // ever be made: each pod's controller-revision-hash label is the name, '-' and a hash of the pod template of up
    // to 10 characters. With this template the hash has 10, the label 64 (with another it can fit: 52 always does).
    const long = "z".repeat(53);
    await api().create(`/apis/apps/v1/namespaces/default/statefulsets`, {
      apiVersion: "apps/v1",
      kind: "StatefulSet",
      metadata: { name: long },
      spec: {
        serviceName: long,
        selector: { matchLabels: { app: "l53" } },
        template: { metadata: { labels: { app: "l53" } }, spec: { containers: [{ name: "c", image: "example.invalid/c:1" }] } },
      },
    });
    const failed = await eventually(async () => {
      const events = await api().list(`/api/v1/namespaces/default/events`);
      return events.find((e) => e.reason === "FailedCreate" && e.involvedObject.name === long);
    }, "the StatefulSet controller's FailedCreate");
    assert.match(failed.message, /metadata\.labels: Invalid value: "z{53}-[0-9a-z]+": must be no more than 63 characters/);
    await api().delete(`/apis/apps/v1/namespaces/default/statefulsets/${long}`);

    for (const [key, value, problem] of [
      ["releaseName", long, /registry\.releaseName: "z{53}" is not a Helm release name that can name the Service and the StatefulSet/],
      ["releaseName", "1zot", /registry\.releaseName: "1zot" is not a Helm release name .*starting with a letter/],
      ["namespace", "n".repeat(64), /registry\.namespace: "n{64}" is not a Kubernetes namespace name/],
    ] as const) {
      await ws.ok(["config", "set", "--path", `backup-portal:registry.${key}`, value]);
      const refused = await ws.pulumi(["preview"]);
      assert.notEqual(refused.code, 0);
      assert.match(refused.stdout + refused.stderr, problem);
      await ws.ok(["config", "rm", "--path", `backup-portal:registry.${key}`]);
    }
    await ws.ok(["preview", "--expect-no-changes"]);
  });

  it("the stand-in chart fails rendering on a value zot's chart does not read, which Helm alone would ignore", async () => {
    const program = [
      "name: standin-chart",
      "runtime: yaml",
      "config:",
      "  kubeconfig: { type: string, secret: true }",
      "resources:",
      "  cluster:",
      "    type: pulumi:providers:kubernetes",
      "    properties:",
      "      kubeconfig: ${kubeconfig}",
      "  release:",
      "    type: kubernetes:helm.sh/v3:Release",
      "    properties:",
      "      name: misspelt",
      "      chart: zot",
      "      version: 0.1.122",
      `      repositoryOpts: { repo: "${k8s.charts.url}" }`,
      "      namespace: default",
      "      values: { persistance: true }",
      "    options:",
      "      provider: ${cluster}",
    ].join("\n");
    const yaml = portal.keep(yamlWorkspace("chart", program));
    await yaml.ok(["stack", "init"]);
    await installKubernetesPlugin(yaml, k8s.cluster);
    await yaml.setSecret("kubeconfig", k8s.cluster.kubeconfig);
    const up = await yaml.pulumi(["up", "--yes"]);
    assert.notEqual(up.code, 0);
    assert.match(up.stdout + up.stderr, /value persistance is not read by zot chart 0\.1\.122/);
    assert.equal(await api().find("/api/v1/namespaces/default/services/misspelt"), undefined, "nothing rendered was applied");
  });

  it("destroy leaves nothing, the namespace included", async () => {
    await ws.ok(["destroy", "--yes"]);
    await eventually(async () => ((await api().find(`/api/v1/namespaces/${NS}`)) ? undefined : true), "the namespace gone", 120_000);
    const left = (await api().list("/api/v1/namespaces"))
      .map((n) => n.metadata.name)
      .filter((n) => !n.startsWith("kube-") && n !== "default");
    assert.deepEqual(left, []);
  });
});
