/**
 * `npm run cluster`: the tests' Kubernetes control plane started by hand, until Ctrl-C. Prints the kubeconfig's
 * path, so that `KUBECONFIG=<path> kubectl ...` (any kubectl) or a Pulumi program can use it.
 */
import { startCluster } from "./cluster";

async function main(): Promise<void> {
  console.error("starting the test cluster (etcd, kube-apiserver, kube-controller-manager, kube-scheduler, a hollow node) ...");
  const started = Date.now();
  const cluster = await startCluster({ verbose: true });
  console.log(`cluster ready in ${((Date.now() - started) / 1000).toFixed(1)} s at ${cluster.server}`);
  console.log(`export KUBECONFIG=${cluster.kubeconfigPath}`);
  console.log("Ctrl-C stops it and removes its folder.");
  let closing = false;
  const stop = () => {
    if (closing) return;
    closing = true;
    void cluster.close().then(() => process.exit(0));
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  setInterval(() => undefined, 60_000);
}

main().catch((e) => {
  console.error((e as Error).message);
  process.exit(1);
});
