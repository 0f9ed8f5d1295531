// `backup-portal doctor`: what a user runs once against their own portal before
// the first `pulumi up`. Reads the settings (and says where each came from),
// then asks the portal the questions spec 000 leaves open (docs/portal-contract.md
// names the check that settles each); with a write test, also what the
// providers rely on when they write. The command line is in provider/cli/doctor.ts.
import { PortalClient } from "../portal/client";
import { redact } from "../portal/errors";
import { SETTING_SOURCES, SettingKey } from "../portal/settings";
import { cliHints } from "../portal/hints";
import { Checks, DoctorReport, shown } from "./report";
import { Probe } from "./probe";
import {
  checkAccount,
  checkAuditDates,
  checkErrors,
  checkJobsPath,
  checkLogin,
  checkOrigin,
  checkReference,
  checkVersion,
  ReadContext,
} from "./read-checks";
import { writeTest } from "./write-test";
import { maskUrl } from "../http/mask-url";
import { checkGoClientReads } from "./go-client-reads";

export { formatReport } from "./report";
export type { Check, CheckStatus, DoctorReport } from "./report";

export interface DoctorOptions {
  /** Where the BACKUP_PORTAL_* settings come from; default process.env. */
  env?: NodeJS.ProcessEnv;
  /**
   * Where a variable's value came from when not from the environment itself, by variable (`doctor --stack`: the
   * stack file); the report names it instead of the variable.
   */
  from?: Partial<Record<string, string>>;
  /** The business unit to check; default the account's own (from /v1/me). */
  bunitId?: number;
  /** Also make and remove a consumer and node (needs bunitId). */
  writeTest?: boolean;
  /** Deadline of each request, ms (default 15000). */
  timeoutMs?: number;
}

/** Whether the username shows the password's text (it is shown, the password not; redaction ignores case). */
function passwordInUsername(password: string, env: NodeJS.ProcessEnv): boolean {
  return (env[SETTING_SOURCES.username.env] ?? "").toLowerCase().includes(password.toLowerCase());
}

const PASSWORD_IN_USERNAME = "; the username holds it, so it shows there: on a real portal, choose a password that is not the username";

/** The settings, each with where it came from (the username shown, the password not); missing ones fail with where to set them. */
function readSettings(env: NodeJS.ProcessEnv, checks: Checks, from: DoctorOptions["from"] = {}): Partial<Record<SettingKey, string>> {
  const out: Partial<Record<SettingKey, string>> = {};
  for (const key of Object.keys(SETTING_SOURCES) as SettingKey[]) {
    const src = SETTING_SOURCES[key];
    const where = from[src.env] ?? src.env;
    const value = env[src.env];
    const id = `setting-${key}`;
    if (value === undefined || value === "") {
      checks.failed(
        id,
        `${src.env} is not set`,
        `export ${src.env}=...${key === "password" ? " (a secret)" : ""}; in a stack, ${src.config}`,
      );
      continue;
    }
    out[key] = value;
    if (key === "password") checks.ok(id, `set, from ${where} (not shown)${passwordInUsername(value, env) ? PASSWORD_IN_USERNAME : ""}`);
    else if (key === "username") checks.ok(id, `${shown(value)}, from ${where}`);
    else if (key === "url" && !/^https?:\/\/[^/]/.test(value))
      checks.failed(
        id,
        `${JSON.stringify(maskUrl(value))} from ${where} is not an http(s) URL`,
        "use e.g. https://portal.example.com, without /v1",
      );
    else
      checks.ok(
        id,
        `${key === "url" ? maskUrl(value) : value}, from ${where}${key === "url" && /\/v1\/?$/.test(value) ? " (used without /v1)" : ""}`,
      );
  }
  if (out.url) out.url = out.url.replace(/\/+$/, "").replace(/\/v1$/, "");
  return out;
}

/** Runs the checks; never throws for what the portal answers (each answer is a line of the report). */
export async function runDoctor(o: DoctorOptions = {}): Promise<DoctorReport> {
  const env = o.env ?? process.env;
  const timeoutMs = o.timeoutMs ?? 15_000;
  const password = env[SETTING_SOURCES.password.env] ?? "";
  // Made once the settings are read; every line is cleaned of the password and of any token, the doctor's own
  // and the client's.
  const live: { probe?: Probe; client?: PortalClient } = {};
  const clean = (t: string): string => {
    const out = redact(t, [password, live.probe?.token]);
    return live.client ? live.client.redact(out) : out;
  };
  const checks = new Checks(clean);
  const s = readSettings(env, checks, o.from);
  const finish = (leftBehind: string[] = []): DoctorReport => ({ ok: checks.failures === 0, checks: checks.list, leftBehind });
  if (checks.failures) return finish();

  const probe: Probe = new Probe({ url: s.url!, origin: s.origin!, timeoutMs, secrets: (): string[] => [password, probe.token ?? ""] });
  const client = new PortalClient({
    url: s.url!,
    origin: s.origin!,
    clientId: s.clientId!,
    username: s.username!,
    password,
    timeoutMs,
    deadlineMs: timeoutMs, // a check's request gives up after --timeout, its retry included
    maxAttempts: 2,
    retryBaseMs: 200,
    retryMaxMs: 2000,
    hintContext: cliHints(["--bunit"]),
  });
  Object.assign(live, { probe, client });
  const c: ReadContext = { client, probe, checks, username: s.username!, clientId: s.clientId!, password, bunitId: o.bunitId };
  try {
    if (!(await checkVersion(c))) return finish();
    if (!(await checkLogin(c))) return finish();
    await checkOrigin(c);
    const bunit = await checkAccount(c);
    if (bunit === undefined) return finish();
    await checkReference(c, bunit);
    await checkErrors(c, bunit);
    await checkJobsPath(c, bunit);
    await checkAuditDates(c, bunit);
    await checkGoClientReads(c, bunit);
    if (!o.writeTest) return finish();
    if (checks.failures) {
      checks.skipped("write-test", "not run: fix the failed checks first");
      return finish();
    }
    return finish(await writeTest({ client, probe, checks, bunitId: bunit }));
  } finally {
    client.close();
  }
}
