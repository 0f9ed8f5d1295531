// One HTTP request and its whole answer, on Node's http/https with a keep-alive
// agent. Not node-fetch: in the provider host every resource costs a few
// requests, and Node's own client needs less than half the CPU per request
// (measured in docs/benchmark.md), with nothing between us and the socket that
// could hold a credential.
import * as http from "http";
import * as https from "https";

export interface Exchange {
  method: string;
  url: URL;
  headers: Record<string, string>;
  body?: string | Buffer;
  agent: http.Agent;
  /** Deadline for the whole exchange, the answer's body included. */
  timeoutMs: number;
}

export interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/** The request did not finish within its deadline (the connection is dropped). */
export class TimeoutError extends Error {
  constructor(ms: number) {
    super(`timed out after ${ms} ms`);
    this.name = "TimeoutError";
  }
}

export function exchange(x: Exchange): Promise<Answer> {
  const send = x.url.protocol === "https:" ? https.request : http.request;
  const headers = x.body === undefined ? x.headers : { ...x.headers, "Content-Length": String(Buffer.byteLength(x.body)) };
  return new Promise<Answer>((resolve, reject) => {
    const req = send(x.url, { method: x.method, headers, agent: x.agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        clearTimeout(timer);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString("utf8") });
      });
      res.on("error", fail);
    });
    const timer = setTimeout(() => req.destroy(new TimeoutError(x.timeoutMs)), x.timeoutMs);
    function fail(err: Error): void {
      clearTimeout(timer);
      reject(err);
    }
    req.on("error", fail);
    req.end(x.body);
  });
}
