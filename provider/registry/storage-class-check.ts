// Whether the cluster has the StorageClass the registry's volume asks for, read at preview: without it the claim
// stays Pending and the Helm release waits for its whole timeout (10 minutes) before `up` fails. Read with the
// kubeconfig's token or client certificate; a kubeconfig that authenticates otherwise (an exec plugin, as EKS and
// GKE use) or a cluster that does not answer is not checked here, and the provider reports what it finds.
import * as https from "node:https";
import { parse } from "yaml";

interface Access {
  server: string;
  ca?: string;
  token?: string;
  cert?: string;
  key?: string;
  insecure?: boolean;
}

type Named = { name?: string; [k: string]: unknown };

/** The current context's server and credentials, when the kubeconfig holds them inline; else undefined. */
export function inlineAccess(kubeconfig: string): Access | undefined {
  let config: Record<string, unknown>;
  try {
    config = parse(kubeconfig) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  const find = (list: unknown, name: unknown) => (Array.isArray(list) ? (list as Named[]).find((e) => e?.name === name) : undefined);
  const context = find(config?.contexts, config?.["current-context"])?.context as Named | undefined;
  const cluster = find(config?.clusters, context?.cluster)?.cluster as Record<string, unknown> | undefined;
  const user = (find(config?.users, context?.user)?.user ?? {}) as Record<string, unknown>;
  const text = (v: unknown) => (typeof v === "string" ? Buffer.from(v, "base64").toString("utf8") : undefined);
  if (typeof cluster?.server !== "string" || !cluster.server.startsWith("https://")) return undefined;
  const access: Access = {
    server: cluster.server,
    ca: text(cluster["certificate-authority-data"]),
    token: typeof user.token === "string" ? user.token : undefined,
    cert: text(user["client-certificate-data"]),
    key: text(user["client-key-data"]),
    insecure: cluster["insecure-skip-tls-verify"] === true,
  };
  return access.token || (access.cert && access.key) ? access : undefined;
}

/** GET a path of the API server: its status and parsed body, or undefined when it does not answer in time. */
function get(access: Access, path: string, timeoutMs: number): Promise<{ status: number; body: any } | undefined> {
  return new Promise((resolve) => {
    const req = https.request(
      new URL(path, access.server),
      {
        method: "GET",
        ca: access.ca,
        cert: access.cert,
        key: access.key,
        rejectUnauthorized: !access.insecure,
        headers: { accept: "application/json", ...(access.token ? { authorization: `Bearer ${access.token}` } : {}) },
        timeout: timeoutMs,
      },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (d) => (body += d));
        res.on("end", () => {
          try {
            resolve({ status: res.statusCode ?? 0, body: JSON.parse(body) });
          } catch {
            resolve({ status: res.statusCode ?? 0, body: undefined });
          }
        });
      },
    );
    req.on("timeout", () => req.destroy());
    req.on("error", () => resolve(undefined));
    req.end();
  });
}

/**
 * Why the volume's class cannot be had, at `<path>.storageClass`, or undefined: when the class exists, when the
 * kubeconfig cannot be used here, or when the cluster does not answer. `""` (the cluster's default class) is not read.
 */
export async function storageClassProblem(
  kubeconfig: string,
  storageClass: string,
  path: string,
  timeoutMs = 5000,
): Promise<string | undefined> {
  if (storageClass === "") return undefined;
  const access = inlineAccess(kubeconfig);
  if (!access) return undefined;
  const found = await get(access, `/apis/storage.k8s.io/v1/storageclasses/${encodeURIComponent(storageClass)}`, timeoutMs);
  if (found?.status !== 404) return undefined;
  const all = await get(access, "/apis/storage.k8s.io/v1/storageclasses", timeoutMs);
  const names: string[] = Array.isArray(all?.body?.items)
    ? all!.body.items.map((c: { metadata?: { name?: string } }) => String(c.metadata?.name))
    : [];
  return (
    `${path}.storageClass: the cluster has no StorageClass ${JSON.stringify(storageClass)}, so the registry's claim would stay Pending ` +
    `and the release wait 10 minutes before failing; ${names.length ? `it has ${names.map((n) => JSON.stringify(n)).join(", ")}: set one of them` : "create it first"}, ` +
    `or "" for the cluster's default class`
  );
}
