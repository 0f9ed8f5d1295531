// verifyRegistry(): checks a running zot registry the way spec 001 section 4 describes
// (typically through `kubectl port-forward svc/<service> 5000:5000`).
import { redact } from "../portal/errors";

/** The Authorization header verifyRegistry sends with credentials. */
export function basicAuthorization(c: RegistryCredentials): string {
  return "Basic " + Buffer.from(`${c.username}:${c.password}`, "utf8").toString("base64");
}

/**
 * Every spelling of the credentials a registry or a proxy may echo: the password, and the base64 of `user:password`
 * (what the Authorization header carries) and of the password alone, each as base64 and base64url, padded or not.
 * redact() adds the JSON, form and URL encodings of each.
 */
export function credentialSpellings(c: RegistryCredentials): string[] {
  const out = new Set<string>([c.password]);
  for (const text of [`${c.username}:${c.password}`, c.password]) {
    const b = Buffer.from(text, "utf8");
    for (const enc of [b.toString("base64"), b.toString("base64url")]) {
      out.add(enc);
      out.add(enc.replace(/=+$/, ""));
    }
  }
  return [...out].filter((x) => x !== "");
}

export interface RegistryCredentials {
  username: string;
  password: string;
}

export interface VerifyCheck {
  check: string;
  ok: boolean;
  detail: string;
}

export interface VerifyOptions {
  /** Per-request timeout in milliseconds; default 5000. */
  timeoutMs?: number;
}

interface Reply {
  status: number;
  headers: Headers;
  body: string;
}

/**
 * Runs the checks and returns one entry per check; it never throws for an unreachable or
 * misbehaving registry (those are failed checks). No detail ever contains the password.
 *
 * - `GET /v2/` without credentials: 200 (no auth) or 401 with `WWW-Authenticate: Basic`
 *   (auth on; what tells the other checks whether auth is on).
 * - `GET /v2/_catalog` without credentials: 401 when auth is on, else 200 with
 *   `{"repositories": [...]}`.
 * - with credentials: `GET /v2/` 200 and `GET /v2/_catalog` 200 with `{"repositories": [...]}`.
 * - `GET /metrics` (with credentials when given): 200 with a text body; when auth is on and no
 *   credentials were given, the expected 401 is reported as passing.
 * - `GET /` (the UI): 200 with HTML.
 */
export async function verifyRegistry(url: string, credentials?: RegistryCredentials, options: VerifyOptions = {}): Promise<VerifyCheck[]> {
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    /* fetch reports it, per check */
  }
  if (parsed && (parsed.username || parsed.password)) {
    // Never echoed: a password in the URL would be in every check's detail.
    throw new Error("verifyRegistry: the URL carries credentials; pass the URL without them and the user and password as credentials");
  }
  const base = url.replace(/\/+$/, "");
  const timeoutMs = options.timeoutMs ?? 5000;
  const auth = credentials ? basicAuthorization(credentials) : undefined;
  const secrets = credentials ? credentialSpellings(credentials) : [];
  const scrub = (s: string): string => redact(s, secrets);
  const results: VerifyCheck[] = [];
  const add = (check: string, ok: boolean, detail: string) => results.push({ check, ok, detail: scrub(detail) });

  async function get(path: string, withAuth: boolean): Promise<Reply | string> {
    try {
      const res = await fetch(base + path, {
        headers: withAuth && auth ? { authorization: auth } : {},
        signal: AbortSignal.timeout(timeoutMs),
      });
      // Scrubbed before anything cuts it short: a cut credential would no longer be found whole.
      const body = scrub(await res.text());
      return { status: res.status, headers: res.headers, body };
    } catch (err) {
      const e = err as Error & { cause?: { code?: string; message?: string } };
      const why =
        e.name === "TimeoutError" || e.name === "AbortError"
          ? `no answer within ${timeoutMs} ms`
          : (e.cause?.code ?? e.cause?.message ?? e.message);
      return `GET ${path} failed: ${why}`;
    }
  }
  const snippet = (s: string) => JSON.stringify(s.length > 120 ? s.slice(0, 117) + "..." : s);
  const catalogOk = (r: Reply): string | undefined => {
    try {
      const j = JSON.parse(r.body) as { repositories?: unknown };
      if (Array.isArray(j.repositories)) return `200, ${j.repositories.length} repositories`;
    } catch {
      /* fall through */
    }
    return undefined;
  };

  // 1. API root without credentials; decides whether auth is on.
  let authOn = false;
  const root = await get("/v2/", false);
  if (typeof root === "string") {
    add("GET /v2/", false, root);
  } else if (root.status === 200) {
    add("GET /v2/", true, "200, no authentication");
  } else if (root.status === 401) {
    const challenge = root.headers.get("www-authenticate") ?? "";
    authOn = true;
    if (/^basic\b/i.test(challenge)) add("GET /v2/", true, `401 with ${challenge} (authentication on)`);
    else add("GET /v2/", false, `401 without a Basic WWW-Authenticate challenge (got ${JSON.stringify(challenge)})`);
  } else {
    add("GET /v2/", false, `expected 200 or 401, got ${root.status}`);
  }

  // 2. Catalog without credentials.
  const anon = await get("/v2/_catalog", false);
  if (typeof anon === "string") add("GET /v2/_catalog without credentials", false, anon);
  else if (authOn)
    add(
      "GET /v2/_catalog without credentials",
      anon.status === 401,
      anon.status === 401 ? "401 as expected (authentication on)" : `expected 401, got ${anon.status}`,
    );
  else {
    const ok = anon.status === 200 ? catalogOk(anon) : undefined;
    add(
      "GET /v2/_catalog without credentials",
      ok !== undefined,
      ok ?? `expected 200 with {"repositories": [...]}, got ${anon.status} ${snippet(anon.body)}`,
    );
  }
  if (credentials === undefined && authOn) {
    add("credentials", false, "authentication is on: pass credentials to check /v2/ and /v2/_catalog with them");
  }

  // 3. With credentials.
  if (credentials) {
    const r = await get("/v2/", true);
    if (typeof r === "string") add("GET /v2/ with credentials", false, r);
    else
      add(
        "GET /v2/ with credentials",
        r.status === 200,
        r.status === 200 ? `200 as ${credentials.username}` : `expected 200, got ${r.status} (wrong credentials?)`,
      );
    const c = await get("/v2/_catalog", true);
    if (typeof c === "string") add("GET /v2/_catalog with credentials", false, c);
    else {
      const ok = c.status === 200 ? catalogOk(c) : undefined;
      add(
        "GET /v2/_catalog with credentials",
        ok !== undefined,
        ok ?? `expected 200 with {"repositories": [...]}, got ${c.status} ${snippet(c.body)}`,
      );
    }
  }

  // 4. Metrics (needs an authenticated user when auth is on).
  const m = await get("/metrics", credentials !== undefined);
  if (typeof m === "string") add("GET /metrics", false, m);
  else if (m.status === 200) {
    const ok = m.body.trim().length > 0 && !/^\s*</.test(m.body);
    add(
      "GET /metrics",
      ok,
      ok
        ? `200, ${m.body.split("\n").filter((l) => l && !l.startsWith("#")).length} samples`
        : `200 but not a metrics text body: ${snippet(m.body)}`,
    );
  } else if (m.status === 401 && authOn && !credentials) {
    add("GET /metrics", true, "401 without credentials (expected: metrics need an authenticated user)");
  } else {
    add("GET /metrics", false, `expected 200 with metrics text, got ${m.status}`);
  }

  // 5. Web UI.
  const ui = await get("/", false);
  if (typeof ui === "string") add("GET / (UI)", false, ui);
  else {
    const html = /<html|<!doctype html/i.test(ui.body) || (ui.headers.get("content-type") ?? "").includes("text/html");
    add(
      "GET / (UI)",
      ui.status === 200 && html,
      ui.status === 200 ? (html ? "200, HTML" : `200 but not HTML: ${snippet(ui.body)}`) : `expected 200 with HTML, got ${ui.status}`,
    );
  }
  return results;
}

/** True when every check passed. */
export function allPassed(report: VerifyCheck[]): boolean {
  return report.length > 0 && report.every((c) => c.ok);
}
