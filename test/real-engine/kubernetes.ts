/**
 * TEST CODE — the Kubernetes half under the real CLI: one test cluster (test/support/cluster) and the chart
 * repository per suite, and workspaces whose CLI has the kubernetes provider built here installed as the plugin
 * version @pulumi/kubernetes asks for (`pulumi plugin install resource kubernetes <version> --file`, as a user
 * without the web would install it).
 */
import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { gunzipSync } from "node:zlib";
import { ChartRepo, startChartRepo } from "../support/cluster/chart-repo";
import { testCluster, TestCluster } from "../support/cluster/cluster";
import { eventually, KubeObject, podReady } from "../support/cluster/kube-api";
import { REPO, Workspace } from "./cli";

/** The plugin version the lockfile's @pulumi/kubernetes asks the engine for. */
export const KUBERNETES_PLUGIN_VERSION: string = JSON.parse(fs.readFileSync(path.join(REPO, "package-lock.json"), "utf8")).packages[
  "node_modules/@pulumi/kubernetes"
].version;

export interface ClusterSuite {
  readonly cluster: TestCluster;
  readonly charts: ChartRepo;
}

/** A cluster and the chart repository for the suite (started in `before`, ended in `after`). */
export function clusterSuite(): ClusterSuite {
  let cluster: TestCluster | undefined;
  let charts: ChartRepo | undefined;
  before(async function () {
    this.timeout(45 * 60_000); // a first build of the control plane, when .ci/run has not made it
    cluster = await testCluster();
    charts = await startChartRepo();
  });
  after(async () => {
    await charts?.close();
    await cluster?.close();
  });
  return {
    get cluster() {
      return cluster!;
    },
    get charts() {
      return charts!;
    },
  };
}

/** Installs the provider plugin built here into the workspace's PULUMI_HOME, under the version the SDK asks for. */
export async function installKubernetesPlugin(ws: Workspace, cluster: TestCluster): Promise<void> {
  await ws.ok([
    "plugin",
    "install",
    "resource",
    "kubernetes",
    KUBERNETES_PLUGIN_VERSION,
    "--file",
    path.join(cluster.bin, "pulumi-resource-kubernetes"),
  ]);
}

/** The record Helm keeps of a release's revision: `sh.helm.release.v1.<name>.v<revision>` (base64 of gzipped JSON). */
export async function helmRelease(cluster: TestCluster, namespace: string, name: string, revision: number): Promise<any> {
  const secret = await cluster.api.get(`/api/v1/namespaces/${namespace}/secrets/sh.helm.release.v1.${name}.v${revision}`);
  assert.equal(secret.type, "helm.sh/release.v1");
  // The Secret's data is base64 (the API), of Helm's own base64 of the gzipped JSON.
  const helmText = Buffer.from(secret.data.release, "base64").toString("utf8");
  return JSON.parse(gunzipSync(Buffer.from(helmText, "base64")).toString("utf8"));
}

/** The pods of a namespace matching a label selector, once `count` of them are Ready. */
export async function readyPods(
  cluster: TestCluster,
  namespace: string,
  selector: string,
  count = 1,
  timeoutMs = 120_000,
): Promise<KubeObject[]> {
  return eventually(
    async () => {
      const pods = await cluster.api.list(`/api/v1/namespaces/${namespace}/pods?labelSelector=${encodeURIComponent(selector)}`);
      const live = pods.filter((p) => !p.metadata.deletionTimestamp);
      return live.length === count && live.every(podReady) ? live : undefined;
    },
    `${count} Ready pod(s) ${selector} in ${namespace}`,
    timeoutMs,
  );
}
