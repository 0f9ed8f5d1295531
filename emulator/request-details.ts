// What the request log keeps of a request when asked for details: the headers a
// portal client's behaviour depends on, and the body's keys (with their casing)
// and values, secrets replaced. Used to record what real clients send
// (test/data/go-client-flow.json).
import type { IncomingHttpHeaders } from "node:http";
import type { RequestLogEntry } from "./types";

/** Headers worth recording; Authorization only as its scheme. */
const HEADERS = ["content-type", "accept", "origin", "user-agent", "x-file-name"];
const SECRET_KEY = /password|secret|token/i;

export interface RequestDetails extends RequestLogEntry {
  headers: Record<string, string>;
  /** A JSON body, a form body (as an object of its fields) or, for other bodies, their size. */
  body?: unknown;
  /** Content-Type of the answer, when it had a body. */
  answerType?: string;
}

function scrub(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(scrub);
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, SECRET_KEY.test(k) ? "***" : scrub(v)]));
  }
  return value;
}

export function describeRequest(entry: RequestLogEntry, headers: IncomingHttpHeaders, body: Buffer | undefined): RequestDetails {
  const out: RequestDetails = { ...entry, headers: {} };
  for (const name of HEADERS) {
    const v = headers[name];
    if (typeof v === "string") out.headers[name] = v;
  }
  const auth = headers.authorization;
  if (typeof auth === "string") out.headers.authorization = `${auth.split(/\s+/)[0]} ***`;
  if (!body || body.length === 0) return out;
  const type = String(headers["content-type"] ?? "").toLowerCase();
  if (type.startsWith("application/x-www-form-urlencoded")) {
    out.body = scrub(Object.fromEntries(new URLSearchParams(body.toString("utf8"))));
  } else {
    try {
      out.body = scrub(JSON.parse(body.toString("utf8")));
    } catch {
      out.body = { bytes: body.length };
    }
  }
  return out;
}
