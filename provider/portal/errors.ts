// The one error type of the API client. Its text says what failed and what to
// check; it never carries a password, a token or an Authorization header.

export interface PortalErrorDetails {
  method: string;
  path: string;
  /** HTTP status; 0 when no answer came (connection error, timeout). */
  status: number;
  code?: string;
  message?: string;
  developerMessage?: string;
  /** True when the request may have been processed although no answer came. */
  outcomeUnknown?: boolean;
  /** True when the request was sent and its deadline passed: the portal may still be working on it. */
  timedOut?: boolean;
  cause?: unknown;
}

const HINTS: Record<number, string> = {
  0: "the portal did not answer: check the portal URL (backup-portal:url or BACKUP_PORTAL_URL) and that it is reachable",
  400: "the portal rejected the request: check the field it names",
  401: "authentication failed: check the client ID, the origin (it must match the one registered with the client ID), the username and the password (stack config backup-portal:clientId/origin/username/password, or BACKUP_PORTAL_CLIENT_ID/ORIGIN/USERNAME/PASSWORD)",
  403: "the account may not reach this object: use an account whose business unit is an ancestor of it",
  404: "the object does not exist on the portal (removed by someone else?); with Pulumi, `pulumi refresh` brings state in line",
  409: "the portal refused because of the object's current state",
  429: "the portal is rate limiting: lower the parallelism (pulumi up --parallel)",
};

function hintFor(status: number, path: string): string {
  // A refused login (the real portal answers 400 invalid_grant, as OAuth servers do) is about the settings.
  if (path.startsWith("/v1/oauth") && status >= 400 && status < 500) return HINTS[401];
  return HINTS[status] ?? (status >= 500 ? "the portal failed: try again later" : "");
}

export class PortalError extends Error {
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly code?: string;
  readonly portalMessage?: string;
  readonly developerMessage?: string;
  readonly outcomeUnknown: boolean;
  readonly timedOut: boolean;

  constructor(d: PortalErrorDetails) {
    const said = [d.code, d.developerMessage || d.message].filter(Boolean).join(": ");
    const hint = hintFor(d.status, d.path);
    const what = d.status ? `HTTP ${d.status}` : "no answer";
    super(`${d.method} ${d.path} failed (${what})${said ? `: ${said}` : ""}${hint ? `. Hint: ${hint}` : ""}`);
    this.name = "PortalError";
    this.method = d.method;
    this.path = d.path;
    this.status = d.status;
    this.code = d.code;
    this.portalMessage = d.message;
    this.developerMessage = d.developerMessage;
    this.outcomeUnknown = d.outcomeUnknown ?? false;
    this.timedOut = d.timedOut ?? false;
  }

  get notFound(): boolean {
    return this.status === 404;
  }
}

export function isNotFound(err: unknown): boolean {
  return err instanceof PortalError && err.status === 404;
}

/** The answer of a read, or undefined when the object does not exist (404); other errors pass. */
export async function unlessNotFound<T>(read: Promise<T>): Promise<T | undefined> {
  try {
    return await read;
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

/**
 * Replaces every occurrence of the given secrets in a text with `***`, also as they appear URL-encoded or
 * JSON-escaped in an echoed request. A secret shorter than 4 characters is replaced only where it stands
 * alone, so that a one-letter password does not turn every word into stars.
 */
export function redact(text: string, secrets: Iterable<string | undefined>): string {
  let out = text;
  for (const s of secrets) {
    if (!s) continue;
    for (const form of new Set([s, encodeURIComponent(s), JSON.stringify(s).slice(1, -1)])) {
      out = form.length >= 4
        ? out.split(form).join("***")
        : out.replace(new RegExp(`(?<![A-Za-z0-9])${form.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(?![A-Za-z0-9])`, "g"), "***");
    }
  }
  return out;
}
