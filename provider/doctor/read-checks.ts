// The read-only checks of `backup-portal doctor`: reachability, login, refresh,
// Origin, the account and its business unit, reference data, the error shape,
// and which job list path and audit spelling the portal answers. Each check's id
// is named by docs/portal-contract.md.
import { PortalClient } from "../portal/client";
import { PortalError } from "../portal/errors";
import { loginSettings } from "../portal/login";
import { bunitPath, consumerPath } from "../portal/core";
import { Consumer } from "../portal/types";
import { accountName } from "../portal/reference-data";
import { Checks, shown } from "./report";
import { Probe, ProbeAnswer, notTheApiAnswer, said } from "./probe";
import { maskUrl } from "../http/mask-url";
import { urlFix } from "../portal/hints";

const URL_FIX = urlFix({ tool: "cli" });
const FUTURE = "2999-01-01T00:00:00Z";

export interface ReadContext {
  client: PortalClient;
  probe: Probe;
  checks: Checks;
  username: string;
  clientId: string;
  password: string;
  /** --bunit; else the account's own business unit from /v1/me. */
  bunitId?: number;
}

/** The text of a failure, for a detail. */
function why(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** The fix a client error points at: its hint, or the generic one. */
function fixOf(err: unknown, fallback: string): string {
  const m = /Hint: (.*)$/.exec(why(err));
  return m ? m[1] : fallback;
}

/** The detail of an answer that is not the API's: the words every command's error uses (portal/hints.ts). */
function notTheApiDetail(c: ReadContext, request: string, a: ProbeAnswer, reason: string): string {
  return `this URL (${maskUrl(c.probe.url)}) does not answer as the Cloutility API: ${request} (HTTP ${a.status}): ${reason}`;
}

/** Reachability: the version call needs no token. False when nothing else can be asked. */
export async function checkVersion(c: ReadContext): Promise<boolean> {
  let a: ProbeAnswer;
  try {
    a = await c.probe.send("GET", "/v1/fullVersion", { bearer: false });
  } catch (err) {
    c.checks.failed(
      "version",
      `no answer from ${maskUrl(c.probe.url)}: ${why(err)}`,
      `${URL_FIX}, and make sure the portal is reachable from here (proxy, firewall)`,
    );
    return false;
  }
  const off = notTheApiAnswer("GET", "/v1/fullVersion", a);
  if (off) {
    c.checks.failed("version", notTheApiDetail(c, "GET /v1/fullVersion", a, off), URL_FIX);
    return false;
  }
  const version = typeof a.json === "string" ? a.json : a.text.trim();
  if (a.status === 200 && /^\d+(\.\d+){3}$/.test(version)) {
    c.checks.ok("version", `portal ${version} at ${maskUrl(c.probe.url)}${typeof a.json === "string" ? "" : " (answered as bare text)"}`);
    return true;
  }
  c.checks.differs(
    "version",
    `GET /v1/fullVersion answered HTTP ${a.status} ${JSON.stringify(a.text.slice(0, 60))}, not a four-part version; nothing relies on it`,
    "other",
  );
  return a.status < 500;
}

/** The password grant, its lifetime, then the refresh grant. False when there is no token. */
export async function checkLogin(c: ReadContext): Promise<boolean> {
  let a: ProbeAnswer;
  try {
    a = await c.probe.send("POST", "/v1/oauth", {
      bearer: false,
      form: { client_id: c.clientId, grant_type: "password", username: c.username, password: c.password },
    });
  } catch (err) {
    c.checks.failed("login", why(err), URL_FIX);
    return false;
  }
  const t = (a.json && typeof a.json === "object" ? a.json : {}) as Record<string, unknown>;
  if (a.status !== 200 || typeof t.access_token !== "string") {
    const off =
      notTheApiAnswer("POST", "/v1/oauth", a) ?? (a.status === 200 ? "its token request was answered without an access_token" : undefined);
    if (off) {
      c.checks.failed("login", notTheApiDetail(c, "POST /v1/oauth", a, off), URL_FIX);
    } else {
      const code = typeof t.error === "string" ? t.error : typeof t.code === "string" ? t.code : "";
      const which =
        code === "invalid_client"
          ? "the client ID is not known to the portal"
          : code === "invalid_grant"
            ? "the username or password is wrong, or the account may not use this client ID"
            : "the portal refused the login";
      c.checks.failed(
        "login",
        `the portal refused the login (HTTP ${a.status}: ${said(a)}): ${which}`,
        `check ${loginSettings({ tool: "cli" })}; the origin must be the one registered with the client ID (portal: Settings, API access)`,
      );
    }
    return false;
  }
  c.probe.token = t.access_token;
  const lifetime = Number(t.expires_in);
  c.checks.ok(
    "login",
    `token for ${shown(c.username)} with client ID ${c.clientId}, lifetime ${Number.isFinite(lifetime) ? `${lifetime} s` : "not given (299 s assumed)"}` +
      "; the client renews it before it expires",
  );
  await checkRefresh(c, typeof t.refresh_token === "string" ? t.refresh_token : undefined, t.access_token);
  return true;
}

async function checkRefresh(c: ReadContext, refresh: string | undefined, access: string): Promise<void> {
  if (!refresh) {
    c.checks.differs(
      "refresh",
      "no refresh_token: this client ID does not allow refreshing; the client logs in with the password again when the token runs out (handled)",
      "refresh not allowed",
    );
    return;
  }
  let a: ProbeAnswer;
  try {
    a = await c.probe.send("POST", "/v1/oauth", {
      bearer: access,
      form: { client_id: c.clientId, grant_type: "refresh_token", refresh_token: refresh },
    });
  } catch (err) {
    c.checks.differs(
      "refresh",
      `the refresh grant got no answer (${why(err)}); the client falls back to the password grant (handled)`,
      "unknown",
    );
    return;
  }
  const t = (a.json && typeof a.json === "object" ? a.json : {}) as Record<string, unknown>;
  if (a.status === 200 && typeof t.access_token === "string") {
    c.probe.token = t.access_token;
    const kept = t.refresh_token === undefined || t.refresh_token === refresh;
    c.checks.ok(
      "refresh",
      `the refresh grant is allowed${kept ? "; the refresh token stays the same" : "; it answered a new refresh token (the client keeps the newest)"}`,
      "refresh allowed",
    );
    return;
  }
  c.checks.differs(
    "refresh",
    `the refresh grant is refused (HTTP ${a.status}: ${said(a)}); the client falls back to the password grant (handled)`,
    "refresh refused",
  );
}

/** A call without Origin should fail, as the spec says. */
export async function checkOrigin(c: ReadContext): Promise<void> {
  try {
    const a = await c.probe.send("GET", "/v1/me", { origin: false });
    if (a.status >= 400 && a.status < 500)
      c.checks.ok("origin", `a call without Origin is refused (HTTP ${a.status}); the client sends it on every call`);
    else
      c.checks.differs(
        "origin",
        `a call without Origin answered HTTP ${a.status}; the client sends Origin on every call anyway (handled)`,
        "Origin not required",
      );
  } catch (err) {
    c.checks.skipped("origin", why(err));
  }
}

/**
 * The account `/v1/me` names, for the detail: shown as it is when it is the username the doctor logged in with (the
 * portal may spell it in another case), which setting-username shows already; any other name (a display name) is
 * redacted as every text from the portal is, so nothing shows that was not shown before.
 */
function accountText(name: string | undefined, username: string): string {
  if (name === undefined) return shown(username);
  return name.toLowerCase() === username.toLowerCase() ? shown(name) : name;
}

/** `/v1/me`, then the business unit to work in. Undefined when there is none. */
export async function checkAccount(c: ReadContext): Promise<number | undefined> {
  let own: number | undefined;
  try {
    const me = await c.client.reference.me();
    own = me.businessUnit?.id;
    c.checks.ok(
      "me",
      `account ${accountText(accountName(me), c.username)}${me.id !== undefined ? ` (id ${me.id})` : ""} reaches business unit ${own ?? "?"}` +
        `${me.businessUnit?.name ? ` ${JSON.stringify(me.businessUnit.name)}` : ""} and everything below it`,
    );
  } catch (err) {
    if (err instanceof PortalError && err.status === 404) {
      c.checks.differs(
        "me",
        "GET /v1/me is not answered (the API documentation does not list it); nothing the providers do needs it: give --bunit",
        "no /v1/me",
      );
    } else {
      c.checks.failed("me", why(err), fixOf(err, "check the account"));
    }
  }
  const bunit = c.bunitId ?? own;
  if (bunit === undefined) {
    c.checks.skipped("bunit", "no business unit to check: give --bunit <id>");
    return undefined;
  }
  try {
    const bu = await c.client.businessUnits.get(bunit);
    c.checks.ok(
      "bunit",
      `business unit ${bu.id} ${JSON.stringify(bu.name ?? "")}${bu.timeZone?.name ? `, time zone ${bu.timeZone.name}` : ""}` +
        `${own !== undefined && own !== bunit ? ` (below the account's ${own})` : ""}`,
    );
    return bunit;
  } catch (err) {
    const reach = err instanceof PortalError && (err.status === 403 || err.status === 404);
    c.checks.failed(
      "bunit",
      `business unit ${bunit}: ${why(err)}`,
      reach
        ? `give --bunit (and backup-portal:rootBusinessUnitId) a business unit the account reaches${own !== undefined ? ` (its own is ${own}, or one below it)` : ""}`
        : fixOf(err, "check the business unit id"),
    );
    return undefined;
  }
}

/** Operating systems, node types, time zones; the default server with its domains and option sets. */
export async function checkReference(c: ReadContext, bunit: number): Promise<void> {
  try {
    const [os, types, zones] = await Promise.all([
      c.client.reference.operatingSystems(),
      c.client.reference.nodeTypes(),
      c.client.timeZones.list(),
    ]);
    const empty = [
      ["operating systems", os],
      ["node types", types],
      ["time zones", zones],
    ]
      .filter(([, l]) => (l as unknown[]).length === 0)
      .map(([n]) => n);
    if (empty.length)
      c.checks.failed(
        "reference",
        `the portal lists no ${empty.join(", no ")}`,
        "nodes and business units need them: ask the portal's operator",
      );
    else
      c.checks.ok(
        "reference",
        `${os.length} operating systems (${names(os)}), ${types.length} node types (${names(types)}), ${zones.length} time zones`,
      );
  } catch (err) {
    c.checks.failed("reference", why(err), fixOf(err, "check the account"));
  }
  try {
    const [server, domains, sets] = await Promise.all([
      c.client.reference.defaultServer(bunit),
      c.client.reference.domains(bunit),
      c.client.reference.clientOptionSets(bunit),
    ]);
    if (domains.length === 0) {
      c.checks.failed(
        "default-server",
        `default server ${server.name ?? server.id} of business unit ${bunit} has no domains`,
        "a node needs a policy domain: ask the portal's operator",
      );
    } else {
      c.checks.ok(
        "default-server",
        `${server.name ?? `id ${server.id}`} of business unit ${bunit}: ${domains.length} domains (${names(domains)}), ` +
          `${sets.length} client option sets (${names(sets)})`,
      );
    }
  } catch (err) {
    c.checks.failed("default-server", `business unit ${bunit}: ${why(err)}`, fixOf(err, "check the business unit"));
  }
}

function names(list: Array<{ name?: string; id: number }>): string {
  const all = list.map((x) => x.name ?? String(x.id));
  return all.length > 5 ? `${all.slice(0, 5).join(", ")}, ...` : all.join(", ");
}

/** The shape of an error answer: the portal's `{status, code, message, developerMessage}`. */
export async function checkErrors(c: ReadContext, bunit: number): Promise<void> {
  try {
    const a = await c.probe.send("GET", bunitPath(bunit, "/consumers/0"));
    const b = (a.json && typeof a.json === "object" ? a.json : {}) as Record<string, unknown>;
    if (a.status === 404 && typeof b.code === "string") {
      c.checks.ok("errors", `an unknown consumer is 404 with {${Object.keys(b).join(", ")}}`);
    } else if (a.status >= 400) {
      c.checks.differs(
        "errors",
        `an unknown consumer is HTTP ${a.status} with ${JSON.stringify(a.text.slice(0, 80))}; the client shows the portal's text as it is (handled)`,
        "other error shape",
      );
    } else {
      c.checks.differs("errors", `an unknown consumer (id 0) answered HTTP ${a.status}; nothing relies on it`, "no 404");
    }
  } catch (err) {
    c.checks.skipped("errors", why(err));
  }
}

/** Up to a few consumers of the business unit, to ask about jobs and the audit log. */
async function someConsumers(c: ReadContext, bunit: number): Promise<Consumer[]> {
  return (await c.client.consumers.list(bunit)).slice(0, 5);
}

/** Which path answers the job list: spec 000's `.../jobs/first?startTime&endTime`, or `.../jobs`. */
export async function checkJobsPath(c: ReadContext, bunit: number): Promise<void> {
  try {
    const consumers = await someConsumers(c, bunit);
    if (consumers.length === 0) {
      c.checks.skipped("jobs-path", `business unit ${bunit} has no consumer to ask; the client tries the documented path, then .../jobs`);
      return;
    }
    // A consumer with jobs tells the paths apart best; without, the first one.
    let chosen = consumers[0];
    for (const x of consumers) {
      const first = await c.client.activity.firstJob(bunit, x.id).catch(() => undefined);
      if (first?.completed) {
        chosen = x;
        break;
      }
    }
    const jobs = await c.client.activity.jobs(bunit, chosen.id, { endTime: new Date(Date.now() + 86400_000).toISOString() });
    const where = `consumer ${chosen.id}, ${jobs.length} jobs`;
    if (c.client.activity.jobsPath === "first")
      c.checks.ok("jobs-path", `the job list is at .../jobs/first?startTime&endTime, the documented path (${where})`, "jobs/first");
    else
      c.checks.differs(
        "jobs-path",
        `the job list is at .../jobs (.../jobs/first answered one job or 404); the client falls back to it and keeps it (handled; ${where})`,
        "jobs",
      );
  } catch (err) {
    c.checks.skipped("jobs-path", `neither path answered a job list: ${why(err)}; only \`backup-portal jobs\` needs it`);
  }
}

/** Which audit log range spelling the portal honours: startTime/endTime (the spec's table) or startDate/endDate (its prose). */
export async function checkAuditDates(c: ReadContext, bunit: number): Promise<void> {
  try {
    const count = async (consumerId: number, extra: Record<string, string>): Promise<number> => {
      const a = await c.probe.send("GET", consumerPath(bunit, consumerId, "/auditlogs"), {
        query: { includeDescendants: "true", limit: "1", ...extra },
      });
      if (a.status !== 200) throw new Error(`GET .../auditlogs answered HTTP ${a.status}: ${said(a)}`);
      const b = (a.json ?? {}) as { total?: number; items?: unknown[] };
      return typeof b.total === "number"
        ? b.total
        : Array.isArray(b.items)
          ? b.items.length
          : Array.isArray(a.json)
            ? (a.json as unknown[]).length
            : 0;
    };
    let consumerId: number | undefined;
    for (const x of await someConsumers(c, bunit)) {
      if ((await count(x.id, {})) > 0) {
        consumerId = x.id;
        break;
      }
    }
    if (consumerId === undefined) {
      c.checks.skipped("audit-dates", `no consumer of business unit ${bunit} has audit entries to ask; the client sends both spellings`);
      return;
    }
    const time = (await count(consumerId, { startTime: FUTURE })) === 0;
    const date = (await count(consumerId, { startDate: FUTURE })) === 0;
    const where = `(consumer ${consumerId}); the client sends both spellings`;
    if (time && date) c.checks.ok("audit-dates", `the audit log range takes startTime/endTime and startDate/endDate ${where}`, "both");
    else if (time)
      c.checks.ok(
        "audit-dates",
        `the audit log range takes startTime/endTime, as the API documentation's table has it ${where}`,
        "startTime/endTime",
      );
    else if (date)
      c.checks.differs(
        "audit-dates",
        `the audit log range takes startDate/endDate (as the API documentation's prose has it), not startTime/endTime ${where} (handled)`,
        "startDate/endDate",
      );
    else
      c.checks.differs(
        "audit-dates",
        `the portal filters the audit log by neither spelling ${where}: \`backup-portal audit --from/--to\` shows every entry`,
        "neither",
      );
  } catch (err) {
    c.checks.skipped("audit-dates", `${why(err)}; only \`backup-portal audit\` needs it`);
  }
}
