// An OpenStack-style instance metadata service for tests, on 127.0.0.1 and a
// free port. Serves GET /<platform> (version names, newline separated) and
// /<platform>/<version>/meta_data.json and .../user_data for `latest` and the
// dated versions listed in VERSIONS (or a given set of files), with fault injection (first N requests
// fail with a status, optional Retry-After; a delay before every answer; a
// redirect for every request).
import * as http from "http";
import { AddressInfo } from "net";

/** Versions the emulator lists and serves (same documents for each). */
export const METADATA_VERSIONS = ["2012-08-10", "2013-04-04", "2015-10-15", "2016-06-30", "2018-08-27", "latest"] as const;

export const SAMPLE_METADATA = {
  uuid: "d8e02d56-2648-49a3-bf97-6be8f1204f38",
  name: "backup-node-1",
  hostname: "backup-node-1.novalocal",
  launch_index: 0,
  availability_zone: "nova",
  project_id: "f7ac731cc11f40efbc03a9f9e1d1d21f",
  public_keys: { mykey: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIExample user@host" },
  keys: [{ name: "mykey", type: "ssh", data: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIExample user@host" }],
  devices: [],
  dedicated_cpus: [],
  meta: { role: "backup", portal_consumer: "consumer-42" },
};

export interface MetadataServiceOptions {
  /** The meta_data.json document; a string is served as the raw body (for broken JSON). Default SAMPLE_METADATA. */
  metadata?: object | string;
  /** user_data body (bytes too: gzip user data); null or absent → 404 (no user data). */
  userData?: string | Buffer | null;
  /** The first `count` requests (any path, counted together) answer `status`, with Retry-After when given (seconds). */
  failFirst?: { count: number; status: number; retryAfter?: number | string };
  /** Every request answers 302 Found with this Location (a service behind a redirecting proxy). */
  redirectTo?: string;
  /** Wait this long before answering each request, ms. */
  delayMs?: number;
  /** Platform path segment. Default `openstack`. */
  platform?: string;
  /**
   * Serve exactly these files, by path under /<platform>/ (`2017-02-22/meta_data.json`), instead of the
   * documents above for every version: anything else answers 404 (a cloud-init fixture's layout).
   */
  files?: Record<string, string | Buffer>;
  /** The versions list at /<platform>. Default METADATA_VERSIONS. */
  versions?: readonly string[];
  /**
   * Per path under /<platform>/ (`latest/user_data`, `latest/meta_data.json`): answer this status instead
   * (e.g. 500, 403), or with `delayMs` first wait that long (longer than the reader's timeout: a request that times out).
   */
  paths?: Record<string, { status?: number; delayMs?: number }>;
}

export interface RecordedRequest {
  method: string;
  path: string;
  status: number;
}

export interface MetadataService {
  /** Base URL, e.g. http://127.0.0.1:40123 (no trailing slash). */
  url: string;
  /** Every request answered (or cut off: status 0), in order. */
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export async function startMetadataService(opts: MetadataServiceOptions = {}): Promise<MetadataService> {
  const platform = opts.platform ?? "openstack";
  const metadataBody = typeof opts.metadata === "string" ? opts.metadata : JSON.stringify(opts.metadata ?? SAMPLE_METADATA);
  const userData = opts.userData ?? null;
  const requests: RecordedRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();
  let seen = 0;

  const answer = (req: http.IncomingMessage, res: http.ServerResponse, entry: RecordedRequest): void => {
    const send = (
      status: number,
      body: string | Buffer,
      type = "text/plain; charset=utf-8",
      headers: Record<string, string> = {},
    ): void => {
      entry.status = status;
      res.writeHead(status, { "content-type": type, "content-length": Buffer.byteLength(body), ...headers });
      res.end(req.method === "HEAD" ? undefined : body);
    };
    if (opts.failFirst && seen <= opts.failFirst.count) {
      const headers: Record<string, string> = {};
      if (opts.failFirst.retryAfter !== undefined) headers["retry-after"] = String(opts.failFirst.retryAfter);
      return send(opts.failFirst.status, `injected failure ${seen}/${opts.failFirst.count}\n`, undefined, headers);
    }
    if (opts.redirectTo !== undefined) return send(302, "found\n", undefined, { location: opts.redirectTo });
    if (req.method !== "GET" && req.method !== "HEAD") return send(405, "method not allowed\n", undefined, { allow: "GET, HEAD" });
    const parts = entry.path
      .split("?")[0]
      .split("/")
      .filter((p) => p !== "");
    if (parts[0] !== platform) return send(404, "not found\n");
    const forced = opts.paths?.[parts.slice(1).join("/")]?.status;
    if (forced !== undefined) return send(forced, `injected ${forced}\n`);
    if (parts.length === 1) return send(200, (opts.versions ?? METADATA_VERSIONS).join("\n"));
    if (opts.files) {
      const body = opts.files[parts.slice(1).join("/")];
      return body === undefined ? send(404, "not found\n") : send(200, body, "application/octet-stream");
    }
    if (!(METADATA_VERSIONS as readonly string[]).includes(parts[1])) return send(404, "not found\n");
    if (parts.length === 2) return send(200, ["meta_data.json", "user_data", "network_data.json"].join("\n"));
    if (parts.length === 3 && parts[2] === "meta_data.json") return send(200, metadataBody, "application/json");
    if (parts.length === 3 && parts[2] === "user_data") {
      return userData === null ? send(404, "not found\n") : send(200, userData, "application/octet-stream");
    }
    return send(404, "not found\n");
  };

  const server = http.createServer((req, res) => {
    seen++;
    const entry: RecordedRequest = { method: req.method ?? "", path: req.url ?? "", status: 0 };
    requests.push(entry);
    const rel = entry.path.split("?")[0].replace(/^\/+/, "").split("/").slice(1).join("/");
    const delayMs = opts.paths?.[rel]?.delayMs ?? opts.delayMs;
    if (delayMs && delayMs > 0) {
      const timer = setTimeout(() => {
        timers.delete(timer);
        if (!res.destroyed && !req.socket.destroyed) answer(req, res, entry);
      }, delayMs);
      timers.add(timer);
    } else {
      answer(req, res, entry);
    }
  });

  await new Promise<void>((done, fail) => {
    server.once("error", fail);
    server.listen(0, "127.0.0.1", () => done());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((done) => {
        for (const t of timers) clearTimeout(t);
        timers.clear();
        server.close(() => done());
        server.closeAllConnections();
      }),
  };
}
