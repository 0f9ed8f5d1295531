// The billing receiver and the registration broker from a user's TypeScript program
// (fixtures/kubernetes-components), under the real CLI, onto a real API server: valid objects, Ready pods, claims
// Bound, secrets only in Secrets, an unchanged second preview, and destroy leaving nothing. The broker's ledger is
// on its claim: a replaced pod mounts the same volume, with what the one before it wrote.
import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { ORIGIN } from "../support/portal";
import { eventually } from "../support/cluster/kube-api";
import { REPO, workspace, Workspace } from "./cli";
import { clusterSuite, installKubernetesPlugin, readyPods } from "./kubernetes";
import { emulatorSuite, PORTAL_PASSWORD, setAdminPassword } from "./project";

const PROGRAM = path.join(REPO, "test", "real-engine", "fixtures", "kubernetes-components", "index.ts");
const NS = "backup";
const SECRETS = { receiverSecret: "Receiver-secret-5e81c2aa", brokerSecret: "Broker-secret-0123456789abcdef0123456789abcdef" };

function componentsWorkspace(stackYaml: string): Workspace {
  return workspace({
    stack: "k8s",
    stackYaml,
    project: (dir) => {
      const project = path.join(dir, "project");
      fs.mkdirSync(project);
      fs.writeFileSync(
        path.join(project, "Pulumi.yaml"),
        `name: k8s-components\nruntime:\n  name: nodejs\n  options:\n    typescript: true\nmain: ${PROGRAM}\n`,
      );
      return project;
    },
  });
}

describe("real engine: the billing receiver and the registration broker on a real API server", function () {
  this.timeout(20 * 60_000);
  const portal = emulatorSuite();
  const k8s = clusterSuite();
  let ws: Workspace;
  const api = () => k8s.cluster.api;

  // The suite resets the emulator before each test, its admin's password included.
  beforeEach(() => setAdminPassword(portal.emu));
  before(async () => {
    ws = portal.keep(
      componentsWorkspace(`config:\n  k8s-components:portalUrl: ${portal.emu.url}\n  k8s-components:portalOrigin: ${ORIGIN}\n`),
    );
    await ws.ok(["stack", "init"]);
    await installKubernetesPlugin(ws, k8s.cluster);
    await ws.setSecret("kubeconfig", k8s.cluster.kubeconfig);
    await ws.setSecret("portalPassword", PORTAL_PASSWORD);
    for (const [key, value] of Object.entries(SECRETS)) await ws.setSecret(key, value);
  });

  it("up makes valid objects: Secrets, Bound claims, Services and a Ready pod each", async () => {
    const up = await ws.ok(["up", "--yes"]);
    assert.match(up.stdout, /\+ \d+ created/);
    const outputs = JSON.parse((await ws.ok(["stack", "output", "--json"])).stdout);

    for (const claim of [outputs.receiverClaim, outputs.ledgerClaim]) {
      const pvc = await api().get(`/api/v1/namespaces/${NS}/persistentvolumeclaims/${claim}`);
      assert.equal(pvc.status.phase, "Bound", `${claim} Bound`);
    }
    for (const deployment of [outputs.receiverDeployment, outputs.brokerDeployment]) {
      const d = await api().get(`/apis/apps/v1/namespaces/${NS}/deployments/${deployment}`);
      assert.equal(d.status.readyReplicas, 1, `${deployment} has its Ready replica`);
      const selector = Object.entries(d.spec.selector.matchLabels as Record<string, string>)
        .map(([k, v]) => `${k}=${v}`)
        .join(",");
      const [pod] = await readyPods(k8s.cluster, NS, selector);
      assert.equal(pod.spec.securityContext.runAsNonRoot, true);
    }
    const services = (await api().list(`/api/v1/namespaces/${NS}/services`)).map((s) => s.metadata.name);
    assert.equal(services.length, 2, services.join(", "));

    // The secrets are in Secrets, not in the Deployments' environment.
    const secrets = await api().list(`/api/v1/namespaces/${NS}/secrets`);
    const portalSecrets = secrets.filter((s) => s.data?.password);
    assert.equal(portalSecrets.length, 2);
    for (const s of portalSecrets) assert.equal(Buffer.from(s.data.password, "base64").toString(), PORTAL_PASSWORD);
    const deployments = JSON.stringify(await api().list(`/apis/apps/v1/namespaces/${NS}/deployments`));
    for (const secret of [PORTAL_PASSWORD, ...Object.values(SECRETS)]) assert.ok(!deployments.includes(secret));
  });

  it("an unchanged preview shows no change; no secret in the state or the CLI's output", async () => {
    const preview = await ws.ok(["preview", "--expect-no-changes", "--diff"]);
    const state = (await ws.ok(["stack", "export"])).stdout;
    for (const text of [preview.stdout, preview.stderr, state])
      for (const secret of [PORTAL_PASSWORD, ...k8s.cluster.credentials, ...Object.values(SECRETS)]) assert.ok(!text.includes(secret));
  });

  it("the broker's ledger is on its claim: a replaced pod mounts the same volume, with what the pod before it wrote", async () => {
    const outputs = JSON.parse((await ws.ok(["stack", "output", "--json"])).stdout);
    const claim = await api().get(`/api/v1/namespaces/${NS}/persistentvolumeclaims/${outputs.ledgerClaim}`);
    const volume = await api().get(`/api/v1/persistentvolumes/${claim.spec.volumeName}`);
    // What the broker would have written there (the test node runs no container: the file stands for its ledger).
    const ledgerFile = path.join(volume.spec.hostPath.path, "spent-tokens.json");
    fs.writeFileSync(ledgerFile, '{"spent":["token-1"]}');

    const selector = "app.kubernetes.io/name=registration-broker";
    const [before] = await readyPods(k8s.cluster, NS, selector);
    await api().delete(`/api/v1/namespaces/${NS}/pods/${before.metadata.name}`);
    const [after] = await eventually(async () => {
      const pods = await readyPods(k8s.cluster, NS, selector);
      return pods[0].metadata.uid !== before.metadata.uid ? pods : undefined;
    }, "the broker's new pod Ready");
    const ledger = after.spec.volumes.find((v: { name: string }) => v.name === "ledger");
    assert.equal(ledger.persistentVolumeClaim?.claimName, outputs.ledgerClaim, "the new pod mounts the ledger's claim");
    const again = await api().get(`/api/v1/namespaces/${NS}/persistentvolumeclaims/${outputs.ledgerClaim}`);
    assert.equal(again.spec.volumeName, claim.spec.volumeName, "the same volume");
    assert.equal(fs.readFileSync(ledgerFile, "utf8"), '{"spent":["token-1"]}');
  });

  it("destroy leaves nothing, the namespace included", async () => {
    await ws.ok(["destroy", "--yes"]);
    await eventually(async () => ((await api().find(`/api/v1/namespaces/${NS}`)) ? undefined : true), "the namespace gone", 120_000);
  });
});
