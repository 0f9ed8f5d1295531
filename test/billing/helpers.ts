// Helpers of the billing receiver tests: the emulator's control API, temporary output
// directories and raw HTTP exchanges.
import * as fs from "fs";
import * as net from "net";
import * as os from "os";
import * as path from "path";
import { BillingReceiverHandle, BillingReceiverOptions, startBillingReceiver } from "../../provider/billing/receiver";
import { Emulator } from "../support/portal";

export async function control<T = any>(emu: Emulator, p: string, body?: unknown, method = "POST"): Promise<{ status: number; body: T }> {
  const res = await fetch(`${emu.url}${p}`, {
    method,
    headers: body === undefined ? {} : { "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : undefined) as T };
}

export function tempDir(prefix = "billing-"): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** Every file under a directory, relative, sorted (temporary files included). */
export function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  const out: string[] = [];
  const walk = (d: string, rel: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(path.join(d, e.name), path.join(rel, e.name));
      else out.push(path.join(rel, e.name));
    }
  };
  walk(dir, "");
  return out.sort();
}

export interface RawResponse {
  status: number;
  head: string;
  body: string;
  /** Everything the server sent, in order. */
  raw: string;
}

/** Parses the last final (non-1xx) response out of what a server sent. */
export function lastResponse(raw: string): RawResponse {
  let rest = raw;
  for (let i = 0; i < 10; i++) {
    const end = rest.indexOf("\r\n\r\n");
    if (end < 0) break;
    const head = rest.slice(0, end);
    const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]);
    rest = rest.slice(end + 4);
    if (status >= 200) {
      const len = Number(/content-length:\s*(\d+)/i.exec(head)?.[1] ?? rest.length);
      return { status, head, body: rest.slice(0, len), raw };
    }
  }
  return { status: 0, head: "", body: "", raw };
}

/**
 * A raw HTTP/1.1 exchange: sends `head`, then (when `waitForContinue`) waits for
 * `HTTP/1.1 100 Continue` before sending `body`. Resolves when the server closes or a final
 * response with its whole body has arrived; `continued` tells whether 100 Continue came.
 */
export function rawRequest(
  port: number,
  head: string,
  body: Buffer | string,
  opts: { waitForContinue?: boolean; timeoutMs?: number } = {},
): Promise<RawResponse & { continued: boolean; bodySent: boolean }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1");
    let raw = "";
    let continued = false;
    let bodySent = false;
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no complete answer within ${opts.timeoutMs ?? 5000} ms; got ${JSON.stringify(raw)}`));
    }, opts.timeoutMs ?? 5000);
    const done = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ ...lastResponse(raw), continued, bodySent });
    };
    const sendBody = () => {
      if (bodySent) return;
      bodySent = true;
      socket.write(body);
    };
    socket.on("connect", () => {
      socket.write(head);
      if (!opts.waitForContinue) sendBody();
    });
    socket.on("data", (chunk) => {
      raw += chunk.toString("latin1");
      if (!continued && raw.startsWith("HTTP/1.1 100 Continue\r\n\r\n")) {
        continued = true;
        if (opts.waitForContinue) sendBody();
      }
      const r = lastResponse(raw);
      if (r.status && Buffer.byteLength(r.body) >= Number(/content-length:\s*(\d+)/i.exec(r.head)?.[1] ?? Infinity)) done();
    });
    socket.on("end", done);
    socket.on("close", done);
    socket.on("error", (err) => {
      // A server that closes after answering may reset the connection while we still write.
      if (raw) done();
      else {
        clearTimeout(timer);
        reject(err);
      }
    });
  });
}

/** The head of a POST to the receiver. */
export function postHead(pathAndQuery: string, body: Buffer | string, extra: Record<string, string> = {}): string {
  const headers: Record<string, string> = {
    Host: "127.0.0.1",
    "Content-Type": "application/json; charset=utf-8",
    "Content-Length": String(Buffer.byteLength(body)),
    ...extra,
  };
  return `POST ${pathAndQuery} HTTP/1.1\r\n${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}`)
    .join("\r\n")}\r\n\r\n`;
}

export { waitFor } from "../support/wait";

/**
 * Every spelling of a secret a request or an answer may carry: as is, URL-encoded (encodeURIComponent, and form
 * encoding as URLSearchParams sends it), JSON-escaped, and escaped as .NET's JSON encoder does (\uXXXX for
 * non-ASCII and HTML-sensitive characters).
 */
export function spellings(secret: string): string[] {
  const dotnet = [...secret]
    .map((ch) => {
      const c = ch.codePointAt(0)!;
      if (c < 0x20 || c > 0x7e || `"&'+<>\`\\`.includes(ch)) {
        return ch
          .split("")
          .map((u) => `\\u${u.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}`)
          .join("");
      }
      return ch;
    })
    .join("");
  return [
    ...new Set([
      secret,
      encodeURIComponent(secret),
      new URLSearchParams({ s: secret }).toString().slice(2),
      JSON.stringify(secret).slice(1, -1),
      dotnet,
    ]),
  ];
}

/** A receiver for business unit 1 with the tests' short retry waits, logging into `logs`; `extra` overrides. */
export function startTestReceiver(
  base: Pick<BillingReceiverOptions, "outDir" | "secret" | "client">,
  logs: string[],
  extra: Partial<BillingReceiverOptions> = {},
): Promise<BillingReceiverHandle> {
  return startBillingReceiver({ businessUnitId: 1, log: (l) => logs.push(l), retryBaseMs: 50, retryMaxMs: 400, ...base, ...extra });
}
