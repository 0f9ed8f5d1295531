// A test's proxy on loopback in front of a portal (the emulator): each request passed on, refused (the connection
// closed before it reaches the portal), lost (passed on, then the connection closed) or answered in the portal's
// place, as the test's rule decides from the request and the requests seen before it.
import * as http from "node:http";
import { startEmulator, type Emulator } from "../../emulator";
import { closeServer, listenLoopback } from "./loopback";

export interface Seen {
  method: string;
  /** The path with its query. */
  path: string;
}

/**
 * Passed on; refused (closed before the portal); lost (passed on, then closed); an empty 204; or answered by the
 * proxy itself: `json` as application/json, or `text` with `type` (default text/plain); with `forward`, after
 * passing the request on (the portal acts, its answer is replaced).
 */
export type Verdict =
  | "pass"
  | "refuse"
  | "lose"
  | "fake204"
  | { status: number; json: unknown; forward?: boolean }
  | { status: number; text: string; type?: string; forward?: boolean };
/** Decides a request from what it is, the requests seen before it and its headers. */
export type Rule = (req: Seen, seen: Seen[], headers: http.IncomingHttpHeaders) => Verdict;

export interface Proxy {
  url: string;
  /** The requests answered so far (clear it with `seen.length = 0`). */
  seen: Seen[];
  close(): Promise<void>;
}

/** A proxy on 127.0.0.1 in front of `target` that applies the rule `rule()` returns to each request. */
export async function startProxy(target: string, rule: () => Rule): Promise<Proxy> {
  const to = new URL(target);
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const info = { method: req.method ?? "GET", path: req.url ?? "/" };
      const verdict = rule()(info, seen, req.headers);
      seen.push(info);
      if (verdict === "refuse") return void res.destroy();
      if (verdict === "fake204") return void res.writeHead(204).end();
      const answerInstead = (): void => {
        if (typeof verdict !== "object") return;
        if ("json" in verdict) res.writeHead(verdict.status, { "content-type": "application/json" }).end(JSON.stringify(verdict.json));
        else res.writeHead(verdict.status, { "content-type": verdict.type ?? "text/plain" }).end(verdict.text);
      };
      if (typeof verdict === "object" && !verdict.forward) return answerInstead();
      const out = http.request(
        { host: to.hostname, port: to.port, method: info.method, path: info.path, headers: { ...req.headers, host: to.host } },
        (answer) => {
          const body: Buffer[] = [];
          answer.on("data", (c: Buffer) => body.push(c));
          answer.on("end", () => {
            if (verdict === "lose") return void res.destroy();
            if (typeof verdict === "object") return answerInstead();
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            res.end(Buffer.concat(body));
          });
        },
      );
      out.on("error", () => res.destroy());
      out.end(Buffer.concat(chunks));
    });
  });
  return { url: await listenLoopback(server), seen, close: () => closeServer(server) };
}

/**
 * For one describe block: the emulator behind a proxy, started before its tests and closed after them. The
 * proxy applies the suite's `rule` at each request (every request passes until a test sets another). Read
 * `em` and `proxy` inside tests and hooks, not while the suite is being declared.
 */
export function proxiedEmulatorSuite(): { readonly em: Emulator; readonly proxy: Proxy; rule: Rule } {
  let em: Emulator | undefined;
  let proxy: Proxy | undefined;
  const started = <T>(v: T | undefined, name: string): T => {
    if (v === undefined) throw new Error(`proxiedEmulatorSuite: ${name} is read before the suite's before hook started it`);
    return v;
  };
  const suite = {
    get em() {
      return started(em, "em");
    },
    get proxy() {
      return started(proxy, "proxy");
    },
    rule: (() => "pass") as Rule,
  };
  before(async () => {
    em = await startEmulator({ quiet: true });
    proxy = await startProxy(em.url, () => suite.rule);
  });
  after(async () => {
    await proxy?.close();
    await em?.close();
  });
  return suite;
}
