// The doctor's own requests, with its own token: it must see answers exactly as
// the portal gives them (status, Content-Type, the body's text), which the API
// client deliberately hides (it takes a bare name and a JSON string alike, 200
// empty and 204 alike). Sent with the client's own exchange (node-fetch, the
// deadline over the whole answer, the answer cap), Origin on every call.
import { isHtmlAnswer, notTheApi, redact } from "../portal/errors";
import { AnswerTooLargeError, exchange, TimeoutError } from "../portal/exchange";
import { DEFAULT_MAX_ANSWER_BYTES } from "../portal/settings";

export interface ProbeAnswer {
  status: number;
  contentType: string;
  /** The Location header of a redirect. */
  location?: string;
  text: string;
  /** The body as JSON, when it is JSON. */
  json?: unknown;
}

export interface ProbeOptions {
  url: string;
  origin: string;
  timeoutMs: number;
  /** Values never to show: the password and, once obtained, the tokens. */
  secrets: () => string[];
}

/** No answer at all (refused connection, DNS, timeout). */
export class NoAnswer extends Error {}

export class Probe {
  token?: string;

  constructor(private readonly o: ProbeOptions) {}

  get url(): string {
    return this.o.url;
  }

  async send(
    method: string,
    path: string,
    opts: { query?: Record<string, string>; form?: Record<string, string>; json?: unknown; bearer?: string | false; origin?: boolean } = {},
  ): Promise<ProbeAnswer> {
    const target = new URL(this.o.url + path);
    for (const [k, v] of Object.entries(opts.query ?? {})) target.searchParams.append(k, v);
    const headers: Record<string, string> = { Accept: "application/json" };
    if (opts.origin !== false) headers.Origin = this.o.origin;
    const bearer = opts.bearer === false ? undefined : (opts.bearer ?? this.token);
    if (bearer) headers.Authorization = `Bearer ${bearer}`;
    let body: string | undefined;
    if (opts.form) {
      headers["Content-Type"] = "application/x-www-form-urlencoded";
      body = new URLSearchParams(opts.form).toString();
    } else if (opts.json !== undefined) {
      headers["Content-Type"] = "application/json";
      body = JSON.stringify(opts.json);
    }
    try {
      const res = await exchange({ method, url: target, headers, body, timeoutMs: this.o.timeoutMs, maxBytes: DEFAULT_MAX_ANSWER_BYTES });
      const text = res.text;
      const contentType = res.headers["content-type"] ?? "";
      let json: unknown;
      if (text !== "" && (contentType.includes("json") || /^[[{"]/.test(text))) {
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
      }
      // The text without the secrets known so far: every check cuts it to a few dozen characters, and a secret
      // cut in two would no longer be found by the report's own redaction.
      const location = res.headers.location;
      return { status: res.status, contentType, ...(location ? { location } : {}), text: this.clean(text), json };
    } catch (err) {
      const why =
        err instanceof TimeoutError
          ? `no answer within ${this.o.timeoutMs} ms`
          : err instanceof AnswerTooLargeError
            ? `${err.message} (HTTP ${err.status})`
            : (err as Error).message;
      throw new NoAnswer(this.clean(`${method} ${path}: ${why}`));
    }
  }

  clean(text: string): string {
    return redact(text, this.o.secrets());
  }
}

/** An answer that is an HTML page: a login page, a proxy, or a URL that is not the API's (the client's own test). */
export function isHtml(a: ProbeAnswer): boolean {
  return isHtmlAnswer(a.contentType, a.text);
}

/** Why an answer to `method path` cannot be the Cloutility API's (the client's own test), or undefined. */
export function notTheApiAnswer(method: string, path: string, a: ProbeAnswer): string | undefined {
  return notTheApi({ method, path, status: a.status, contentType: a.contentType, text: a.text, location: a.location });
}

/** The portal's own words in an error answer: `code: message` or OAuth's `error: error_description`. */
export function said(a: ProbeAnswer): string {
  const b = (a.json && typeof a.json === "object" ? a.json : {}) as Record<string, unknown>;
  const code = b.code ?? b.error;
  const message = b.developerMessage ?? b.message ?? b.error_description;
  const words = [code, message].filter((x) => typeof x === "string" && x !== "").join(": ");
  return words || a.text.slice(0, 120).replace(/\s+/g, " ");
}
