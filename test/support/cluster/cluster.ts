/**
 * TEST CODE — a real Kubernetes control plane on loopback for the tests, as controller-runtime's envtest starts
 * one: etcd, kube-apiserver, kube-controller-manager and kube-scheduler, plus a hollow node (kubemark's kubelet
 * with a fake container runtime, tools/kubernetes/cmd/hollow-node) so that pods are scheduled and report Ready.
 * Built from the Go module proxy by scripts/kubernetes-tools.sh. Random ports, a generated service-account key
 * and token, a kubeconfig; StorageClasses and PersistentVolumes so that claims bind. Bounded in time, and
 * `close()` leaves no process and no file behind.
 */
import { ChildProcess, spawn, spawnSync } from "node:child_process";
import { generateKeyPairSync, randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { accessFromKubeconfig, eventually, KubeAccess, KubeApi } from "./kube-api";

const REPO = path.resolve(__dirname, "..", "..", "..");

let toolsBin: string | undefined = process.env.TEST_CLUSTER_BIN;

/** The folder of the built control plane and provider plugin; builds them when missing (minutes, once). */
export function kubernetesTools(): string {
  if (toolsBin) return toolsBin;
  const built = spawnSync("bash", [path.join(REPO, "scripts/kubernetes-tools.sh")], { encoding: "utf8", timeout: 90 * 60_000 });
  if (built.status !== 0) {
    throw new Error(
      `the Kubernetes tests need the control plane: ${built.stderr.trim().split("\n").pop() ?? "scripts/kubernetes-tools.sh failed"}`,
    );
  }
  toolsBin = built.stdout.trim().split("\n").pop()!;
  return toolsBin;
}

/** A StorageClass the cluster has, with PersistentVolumes of it that claims can bind to. */
export interface VolumePool {
  storageClass: string;
  /** Sizes of the PersistentVolumes made (each one binds one claim, and is not reused: reclaim policy Retain). */
  sizes: string[];
  default?: boolean;
  allowVolumeExpansion?: boolean;
}

export interface ClusterOptions {
  /** The classes and volumes to make; by default "large" (the registry's, 2 × 100Gi) and "standard" (the default class, 4 × 1Gi). */
  volumes?: VolumePool[];
  /** Bound on the whole start; default 120 s. */
  startTimeoutMs?: number;
  /** Log lines of each process to stderr as well (npm run cluster). */
  verbose?: boolean;
}

export const DEFAULT_VOLUMES: VolumePool[] = [
  { storageClass: "large", sizes: ["100Gi", "100Gi"] },
  { storageClass: "standard", sizes: ["1Gi", "1Gi", "1Gi", "1Gi"], default: true },
];

export const NODE_NAME = "hollow-node-1";

export interface TestCluster extends KubeAccess {
  /** What must never appear in plain text: the token or the client key of the kubeconfig. */
  credentials: string[];
  dir: string;
  /** A kubeconfig file for the cluster (the token inside, mode 0600). */
  kubeconfigPath: string;
  /** The kubeconfig's text, as the kubernetes provider takes it. */
  kubeconfig: string;
  /** The folder of the built binaries (the kubernetes provider plugin among them). */
  bin: string;
  api: KubeApi;
  /** Adds PersistentVolumes (e.g. after a test's claims took the pool's). */
  addVolumes(pool: VolumePool): Promise<void>;
  /** The last lines each process logged (for a failure message). */
  logs(lines?: number): string;
  close(): Promise<void>;
}

/** A port free on 127.0.0.1 now (the process given it binds it a moment later). */
async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise((r) => server.close(r));
  return port;
}

interface Proc {
  name: string;
  child: ChildProcess;
  log: string;
}

export async function startCluster(options: ClusterOptions = {}): Promise<TestCluster> {
  const bin = kubernetesTools();
  const timeoutMs = options.startTimeoutMs ?? 120_000;
  const deadline = Date.now() + timeoutMs;
  const left = () => Math.max(1000, deadline - Date.now());
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "test-cluster-"));
  const procs: Proc[] = [];
  let volumeCount = 0;

  const start = (name: string, args: string[]): Proc => {
    const log = path.join(dir, `${name}.log`);
    const fd = fs.openSync(log, "a");
    // Its own process group (detached), so that close() ends whatever it started too.
    const child = spawn(path.join(bin, name), args, {
      cwd: dir,
      env: { PATH: process.env.PATH ?? "", HOME: dir, TMPDIR: dir },
      stdio: ["ignore", fd, fd],
      detached: true,
    });
    fs.closeSync(fd);
    const proc = { name, child, log };
    procs.push(proc);
    if (options.verbose) child.on("exit", (code, signal) => console.error(`${name} exited (${code ?? signal})`));
    return proc;
  };
  const tail = (p: Proc, n: number) =>
    fs.existsSync(p.log) ? fs.readFileSync(p.log, "utf8").trimEnd().split("\n").slice(-n).join("\n") : "(no log)";
  const logs = (n = 15) =>
    procs.map((p) => `--- ${p.name} (${p.child.exitCode ?? p.child.signalCode ?? "running"})\n${tail(p, n)}`).join("\n");

  const close = async () => {
    for (const p of [...procs].reverse()) {
      if (p.child.exitCode !== null || p.child.signalCode !== null) continue;
      const exited = new Promise((r) => p.child.once("exit", r));
      try {
        process.kill(-p.child.pid!, "SIGTERM");
      } catch {
        continue;
      }
      const timer = new Promise((r) => setTimeout(r, 5000, "timeout"));
      if ((await Promise.race([exited, timer])) === "timeout") {
        try {
          process.kill(-p.child.pid!, "SIGKILL");
        } catch {
          /* gone meanwhile */
        }
        await Promise.race([exited, new Promise((r) => setTimeout(r, 2000))]);
      }
    }
    process.removeListener("exit", killAll);
    for (const signal of ["SIGINT", "SIGTERM"] as const) process.removeListener(signal, onSignal);
    fs.rmSync(dir, { recursive: true, force: true });
  };
  // A test run that ends without close() (a crash, mocha's --exit) still ends the cluster.
  const killAll = () => {
    for (const p of procs) {
      try {
        process.kill(-p.child.pid!, "SIGKILL");
      } catch {
        /* gone */
      }
    }
    fs.rmSync(dir, { recursive: true, force: true });
  };
  process.on("exit", killAll);
  // A test run stopped by a signal (Ctrl-C, a CI timeout) does not reach "exit": end the cluster, then die of it.
  const onSignal = (signal: NodeJS.Signals) => {
    killAll();
    process.kill(process.pid, signal);
  };
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, onSignal);

  try {
    // etcd, on loopback, without fsync: a test's data need not survive a power cut.
    const [etcdClient, etcdPeer, apiPort] = [await freePort(), await freePort(), await freePort()];
    const etcdUrl = `http://127.0.0.1:${etcdClient}`;
    const peerUrl = `http://127.0.0.1:${etcdPeer}`;
    const etcd = start("etcd", [
      "--name=test",
      `--data-dir=${path.join(dir, "etcd")}`,
      `--listen-client-urls=${etcdUrl}`,
      `--advertise-client-urls=${etcdUrl}`,
      `--listen-peer-urls=${peerUrl}`,
      `--initial-advertise-peer-urls=${peerUrl}`,
      `--initial-cluster=test=${peerUrl}`,
      "--unsafe-no-fsync",
      "--log-level=warn",
    ]);
    await eventually(
      async () => {
        if (etcd.child.exitCode !== null) throw new Error(`etcd exited:\n${tail(etcd, 20)}`);
        const res = await fetchText(`${etcdUrl}/health`);
        return res.includes('"health":"true"') ? true : undefined;
      },
      "etcd's /health",
      left(),
    );

    // The service-account signing key and the admin's token (system:masters), generated for this cluster.
    const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    const saKey = path.join(dir, "sa.key");
    const saPub = path.join(dir, "sa.pub");
    fs.writeFileSync(saKey, privateKey.export({ type: "pkcs8", format: "pem" }), { mode: 0o600 });
    fs.writeFileSync(saPub, publicKey.export({ type: "spki", format: "pem" }));
    const token = randomBytes(24).toString("hex");
    const tokens = path.join(dir, "tokens.csv");
    fs.writeFileSync(tokens, `${token},test-admin,test-admin,"system:masters"\n`, { mode: 0o600 });
    const certDir = path.join(dir, "certs");

    const apiserver = start("kube-apiserver", [
      `--etcd-servers=${etcdUrl}`,
      "--bind-address=127.0.0.1",
      "--advertise-address=127.0.0.1",
      `--secure-port=${apiPort}`,
      `--cert-dir=${certDir}`,
      "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
      `--service-account-key-file=${saPub}`,
      `--service-account-signing-key-file=${saKey}`,
      `--token-auth-file=${tokens}`,
      "--authorization-mode=RBAC",
      "--service-cluster-ip-range=10.96.0.0/16",
      "--allow-privileged=true",
      "--profiling=false",
      "--v=0",
    ]);
    // The API server writes its self-signed serving certificate (and the CA it is signed with) into --cert-dir.
    const caFile = path.join(certDir, "apiserver.crt");
    await eventually(
      async () => {
        if (apiserver.child.exitCode !== null) throw new Error(`kube-apiserver exited:\n${tail(apiserver, 30)}`);
        return fs.existsSync(caFile) && fs.statSync(caFile).size > 0 ? true : undefined;
      },
      "kube-apiserver's serving certificate",
      left(),
    );
    const access: KubeAccess = { server: `https://127.0.0.1:${apiPort}`, ca: fs.readFileSync(caFile, "utf8"), token };
    const api = new KubeApi(access);
    await eventually(
      async () => {
        if (apiserver.child.exitCode !== null) throw new Error(`kube-apiserver exited:\n${tail(apiserver, 30)}`);
        return (await api.request<string>("GET", "/readyz").catch(() => undefined)) === undefined ? undefined : true;
      },
      "kube-apiserver's /readyz",
      left(),
    );

    const kubeconfig = kubeconfigText({ server: access.server, ca: access.ca!, token });
    const kubeconfigPath = path.join(dir, "kubeconfig");
    fs.writeFileSync(kubeconfigPath, kubeconfig, { mode: 0o600 });

    // No serving port for the controllers (--secure-port=0): nothing but the API server listens.
    start("kube-controller-manager", [
      `--kubeconfig=${kubeconfigPath}`,
      `--service-account-private-key-file=${saKey}`,
      `--root-ca-file=${caFile}`,
      "--use-service-account-credentials=false",
      "--leader-elect=false",
      "--secure-port=0",
      "--controllers=*,-nodeipam,-cloud-node-lifecycle,-service-lb-controller,-node-route-controller",
      "--v=0",
    ]);
    start("kube-scheduler", [`--kubeconfig=${kubeconfigPath}`, "--leader-elect=false", "--secure-port=0", "--v=0"]);
    const kubeletDir = path.join(dir, "kubelet");
    fs.mkdirSync(kubeletDir);
    start("hollow-node", [`--kubeconfig=${kubeconfigPath}`, `--name=${NODE_NAME}`, `--root-dir=${kubeletDir}`, "--v=0"]);

    const cluster: TestCluster = {
      ...access,
      credentials: [token],
      dir,
      kubeconfigPath,
      kubeconfig,
      bin,
      api,
      logs,
      close,
      addVolumes: async (pool) => {
        for (const size of pool.sizes) {
          volumeCount += 1;
          const name = `pv-${pool.storageClass}-${volumeCount}`;
          const hostDir = path.join(dir, "volumes", name);
          fs.mkdirSync(hostDir, { recursive: true });
          await api.create("/api/v1/persistentvolumes", {
            apiVersion: "v1",
            kind: "PersistentVolume",
            metadata: { name },
            spec: {
              capacity: { storage: size },
              accessModes: ["ReadWriteOnce"],
              persistentVolumeReclaimPolicy: "Retain",
              storageClassName: pool.storageClass,
              hostPath: { path: hostDir, type: "Directory" },
            },
          });
        }
      },
    };

    for (const pool of options.volumes ?? DEFAULT_VOLUMES) {
      await api.create("/apis/storage.k8s.io/v1/storageclasses", {
        apiVersion: "storage.k8s.io/v1",
        kind: "StorageClass",
        metadata: {
          name: pool.storageClass,
          annotations: pool.default ? { "storageclass.kubernetes.io/is-default-class": "true" } : {},
        },
        // Static volumes only; Immediate binds a claim as soon as it is made, as a provisioner's class would.
        provisioner: "kubernetes.io/no-provisioner",
        volumeBindingMode: "Immediate",
        reclaimPolicy: "Retain",
        allowVolumeExpansion: pool.allowVolumeExpansion ?? false,
      });
      await cluster.addVolumes(pool);
    }

    // Ready: the node reports Ready, and the controllers run (the default namespace's service account exists).
    await eventually(
      async () => {
        const node = await api.find(`/api/v1/nodes/${NODE_NAME}`);
        const ready = (node?.status?.conditions ?? []).some(
          (c: { type: string; status: string }) => c.type === "Ready" && c.status === "True",
        );
        return ready ? true : undefined;
      },
      `node ${NODE_NAME} Ready`,
      left(),
    );
    await eventually(() => api.find("/api/v1/namespaces/default/serviceaccounts/default"), "the default service account", left());
    return cluster;
  } catch (e) {
    const message = `the test cluster did not start: ${(e as Error).message}\n${logs()}`;
    await close();
    throw new Error(message);
  }
}

function fetchText(url: string): Promise<string> {
  return fetch(url, { signal: AbortSignal.timeout(2000) }).then((r) => r.text());
}

/** A kubeconfig for the cluster: its CA inline, the token as the user. */
export function kubeconfigText(access: { server: string; ca: string; token: string }): string {
  return JSON.stringify(
    {
      apiVersion: "v1",
      kind: "Config",
      clusters: [
        { name: "test", cluster: { server: access.server, "certificate-authority-data": Buffer.from(access.ca).toString("base64") } },
      ],
      users: [{ name: "test-admin", user: { token: access.token } }],
      contexts: [{ name: "test", context: { cluster: "test", user: "test-admin" } }],
      "current-context": "test",
    },
    null,
    2,
  );
}

/** Set to a kubeconfig's path, the Kubernetes tests run on that cluster instead of starting one (docs/testing.md). */
export const OWN_CLUSTER_ENV = "BACKUP_PORTAL_TEST_KUBECONFIG";

/**
 * The cluster for a test suite: the one BACKUP_PORTAL_TEST_KUBECONFIG names (never the ambient KUBECONFIG, which may
 * be a production cluster), else a test cluster started here.
 */
export async function testCluster(options: ClusterOptions = {}): Promise<TestCluster> {
  const own = process.env[OWN_CLUSTER_ENV];
  if (!own) return startCluster(options);
  const kubeconfig = fs.readFileSync(own, "utf8");
  const access = accessFromKubeconfig(kubeconfig, own);
  const api = new KubeApi(access);
  await api.request("GET", "/readyz");
  return {
    ...access,
    credentials: [access.token, access.key].filter((c): c is string => c !== undefined),
    dir: path.dirname(own),
    kubeconfigPath: own,
    kubeconfig,
    bin: kubernetesTools(),
    api,
    // The cluster's own provisioner makes the volumes; nothing of the cluster is started or ended here.
    addVolumes: async () => undefined,
    logs: () => `(the cluster of ${own})`,
    close: async () => undefined,
  };
}
