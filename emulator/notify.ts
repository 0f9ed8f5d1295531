// Sending the billing notification the way the real portal (.NET) does: a
// POST with `Content-Type: application/json; charset=utf-8`, `Content-Length`
// and `Expect: 100-continue`; the body goes out on the receiver's 100 Continue,
// or after about one second without it. A receiver that answers with a final
// status before 100 Continue does not get the body.
import * as http from "node:http";
import * as https from "node:https";

export interface Delivery {
  url: string;
  sent: { method: "POST"; headers: Record<string, string>; body: string };
  /** The receiver's final status; null when no answer came (see `error`). */
  status: number | null;
  /** Whether the receiver answered 100 Continue before the body was sent. */
  continued: boolean;
  /** Whether the body was sent. */
  bodySent: boolean;
  responseBody?: string;
  error?: string;
}

export interface DeliveryOptions {
  /** Wait for 100 Continue at most this long before sending the body anyway (.NET: 350 ms to 1 s). */
  continueTimeoutMs?: number;
  /** Give up on the whole exchange after this long. */
  timeoutMs?: number;
}

const MAX_RESPONSE_BYTES = 64 * 1024;

export function deliver(url: string, payload: unknown, opts: DeliveryOptions = {}): Promise<Delivery> {
  const continueTimeoutMs = opts.continueTimeoutMs ?? 1000;
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const text = JSON.stringify(payload);
  const body = Buffer.from(text, "utf8");
  const headers: Record<string, string> = {
    "Content-Type": "application/json; charset=utf-8",
    "Content-Length": String(body.length),
    Expect: "100-continue",
  };
  const result: Delivery = { url, sent: { method: "POST", headers, body: text }, status: null, continued: false, bodySent: false };

  return new Promise<Delivery>((resolve) => {
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      resolve({ ...result, error: "invalid URL" });
      return;
    }
    let settled = false;
    const timers: NodeJS.Timeout[] = [];
    const finish = (extra: Partial<Delivery>): void => {
      if (settled) return;
      settled = true;
      timers.forEach(clearTimeout);
      resolve({ ...result, ...extra });
    };
    const mod = target.protocol === "https:" ? https : http;
    const req = mod.request(target, { method: "POST", headers, agent: false }, (res) => {
      if (!result.bodySent) req.end(); // answered before 100 Continue: the body is not sent
      const chunks: Buffer[] = [];
      let size = 0;
      res.on("data", (c: Buffer) => {
        if (size < MAX_RESPONSE_BYTES) chunks.push(c);
        size += c.length;
      });
      res.on("end", () =>
        finish({ status: res.statusCode ?? null, responseBody: Buffer.concat(chunks).toString("utf8").slice(0, MAX_RESPONSE_BYTES) }),
      );
      res.on("error", (err) => finish({ status: res.statusCode ?? null, error: err.message }));
    });
    const sendBody = (): void => {
      if (result.bodySent || settled) return;
      result.bodySent = true;
      req.end(body);
    };
    req.on("continue", () => {
      result.continued = true;
      sendBody();
    });
    req.on("error", (err) => finish({ error: err.message }));
    timers.push(setTimeout(sendBody, continueTimeoutMs));
    timers.push(
      setTimeout(() => {
        req.destroy(new Error(`no answer within ${timeoutMs} ms`));
      }, timeoutMs),
    );
    req.flushHeaders();
  });
}
