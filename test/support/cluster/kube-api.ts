/**
 * TEST CODE — a small client of a Kubernetes API server for the tests: HTTPS with the cluster's CA and a bearer
 * token, JSON in and out. Reads what the API server holds, so that a test judges by it rather than by what the
 * Pulumi CLI printed.
 */
import * as https from "node:https";
import { inlineAccess } from "../../../provider/registry/storage-class-check";

export interface KubeAccess {
  /** https://127.0.0.1:<port> */
  server: string;
  /** The PEM the server's certificate chains to (undefined: the system's roots). */
  ca?: string;
  /** A bearer token, or a client certificate and its key (PEM). */
  token?: string;
  cert?: string;
  key?: string;
}

export class KubeApiError extends Error {
  constructor(
    readonly status: number,
    readonly method: string,
    readonly path: string,
    readonly body: string,
  ) {
    super(`${method} ${path}: HTTP ${status}: ${body.slice(0, 500)}`);
    this.name = "KubeApiError";
  }
}

/** Any object the API server returns. */
export type KubeObject = {
  metadata: { name: string; namespace?: string; [k: string]: any };
  [k: string]: any;
};

export class KubeApi {
  constructor(readonly access: KubeAccess) {}

  /** One request; resolves with the parsed body, rejects with a KubeApiError on a status of 400 or more. */
  request<T = any>(method: string, path: string, body?: unknown, contentType = "application/json"): Promise<T> {
    const url = new URL(path, this.access.server);
    const payload = body === undefined ? undefined : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const req = https.request(
        url,
        {
          method,
          ca: this.access.ca,
          cert: this.access.cert,
          key: this.access.key,
          headers: {
            ...(this.access.token ? { authorization: `Bearer ${this.access.token}` } : {}),
            accept: "application/json",
            ...(payload !== undefined ? { "content-type": contentType, "content-length": Buffer.byteLength(payload) } : {}),
          },
          timeout: 15_000,
        },
        (res) => {
          let text = "";
          res.setEncoding("utf8");
          res.on("data", (d) => (text += d));
          res.on("end", () => {
            if ((res.statusCode ?? 0) >= 400) return reject(new KubeApiError(res.statusCode ?? 0, method, path, text));
            // /readyz and /healthz answer plain text.
            const json = /json/.test(String(res.headers["content-type"]));
            try {
              resolve((json ? JSON.parse(text) : text) as T);
            } catch (e) {
              reject(e);
            }
          });
        },
      );
      req.on("timeout", () => req.destroy(new Error(`${method} ${path}: no answer in 15 s`)));
      req.on("error", reject);
      req.end(payload);
    });
  }

  get<T = KubeObject>(path: string): Promise<T> {
    return this.request<T>("GET", path);
  }

  /** The object, or undefined when the API server says 404. */
  async find<T = KubeObject>(path: string): Promise<T | undefined> {
    try {
      return await this.get<T>(path);
    } catch (e) {
      if (e instanceof KubeApiError && e.status === 404) return undefined;
      throw e;
    }
  }

  async list(path: string): Promise<KubeObject[]> {
    return (await this.get<{ items: KubeObject[] }>(path)).items;
  }

  create<T = KubeObject>(path: string, body: unknown): Promise<T> {
    return this.request<T>("POST", path, body);
  }

  delete(path: string): Promise<unknown> {
    return this.request("DELETE", path);
  }
}

/** Polls `probe` until it returns a value other than undefined; throws naming `what` after `timeoutMs`. */
export async function eventually<T>(probe: () => Promise<T | undefined>, what: string, timeoutMs = 60_000, everyMs = 250): Promise<T> {
  const end = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > end)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? ` (last error: ${String(last)})` : ""}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** Whether a pod's Ready condition is True. */
export function podReady(pod: KubeObject): boolean {
  return (pod.status?.conditions ?? []).some((c: { type: string; status: string }) => c.type === "Ready" && c.status === "True");
}

/** How to reach the cluster of a kubeconfig's current context, read as the registry's preview check reads it. */
export function accessFromKubeconfig(text: string, file: string): KubeAccess {
  const access = inlineAccess(text);
  if (!access)
    throw new Error(
      `${file}: the current context needs an https server and an inline token or client certificate (the tests run no exec plugin)`,
    );
  return access;
}
