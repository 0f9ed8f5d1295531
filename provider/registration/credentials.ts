// Where `backup-portal register` gets the portal account: the BACKUP_PORTAL_*
// environment variables, and the instance's user data when it is a JSON
// document `{"backupPortal": {url, origin, clientId, username, password}}`.
// Each setting is taken from the environment when set there (explicit beats
// what was baked into the instance at launch), else from the user data.
// No message built here ever contains a value of the password.
import { PortalSettings, SETTING_SOURCES, SettingKey } from "../portal/settings";
import { maskUrl } from "../http/mask-url";

export type CredentialSource = "environment" | "user data";

/** The key of the user data document that holds the portal account. */
export const USER_DATA_KEY = "backupPortal";

const FIELDS = Object.keys(SETTING_SOURCES) as SettingKey[];

export interface UserDataCredentials {
  /** Settings found in the user data. */
  values: Partial<Record<SettingKey, string>>;
  /** Why the user data gave nothing, or a problem with it (never quotes its content). */
  notes: string[];
  /** Errors: the user data has a `backupPortal` block that is broken. */
  problems: string[];
}

/**
 * Reads portal settings from user data. User data that is not a JSON object
 * (a `#cloud-config`, a script, none at all) gives nothing, with a note.
 */
export function credentialsFromUserData(userData: string | null): UserDataCredentials {
  const out: UserDataCredentials = { values: {}, notes: [], problems: [] };
  if (userData === null) {
    out.notes.push("the instance has no user data");
    return out;
  }
  const text = userData.trim();
  if (!text.startsWith("{")) {
    const kind = text.startsWith("#cloud-config")
      ? "a #cloud-config document"
      : text.startsWith("#!")
        ? "a script"
        : text === ""
          ? "empty"
          : "not a JSON object";
    out.notes.push(`the user data is ${kind}, so it holds no portal account`);
    return out;
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    // The parser's message quotes the text, which may hold the password: not used.
    out.problems.push(`the user data starts with "{" but is not valid JSON; fix it or give the account through BACKUP_PORTAL_* variables`);
    return out;
  }
  if (!doc || typeof doc !== "object" || Array.isArray(doc)) return out;
  const block = (doc as Record<string, unknown>)[USER_DATA_KEY];
  if (block === undefined) {
    out.notes.push(`the user data is JSON without a "${USER_DATA_KEY}" key`);
    return out;
  }
  if (!block || typeof block !== "object" || Array.isArray(block)) {
    out.problems.push(`"${USER_DATA_KEY}" in the user data must be an object {url, origin, clientId, username, password}`);
    return out;
  }
  for (const key of FIELDS) {
    const v = (block as Record<string, unknown>)[key];
    if (v === undefined || v === null || v === "") continue;
    if (typeof v !== "string") out.problems.push(`"${USER_DATA_KEY}.${key}" in the user data must be a string`);
    else out.values[key] = v;
  }
  return out;
}

export interface ResolvedCredentials {
  settings: PortalSettings;
  /** Where each setting came from (no values). */
  sources: Record<SettingKey, CredentialSource>;
}

/** Settings from the environment (preferred) and the user data, or the problems that prevent them. */
export function resolveCredentials(
  env: NodeJS.ProcessEnv,
  userData: string | null,
): { credentials?: ResolvedCredentials; problems: string[]; notes: string[] } {
  const fromUserData = credentialsFromUserData(userData);
  const problems = [...fromUserData.problems];
  const values: Partial<Record<SettingKey, string>> = {};
  const sources: Partial<Record<SettingKey, CredentialSource>> = {};
  const missing: SettingKey[] = [];
  for (const key of FIELDS) {
    const e = env[SETTING_SOURCES[key].env];
    if (e !== undefined && e !== "") {
      values[key] = e;
      sources[key] = "environment";
    } else if (fromUserData.values[key] !== undefined) {
      values[key] = fromUserData.values[key];
      sources[key] = "user data";
    } else {
      missing.push(key);
    }
  }
  if (missing.length) {
    const why = fromUserData.notes.length ? ` (${fromUserData.notes.join("; ")})` : "";
    problems.push(
      `portal credentials are missing: ${missing.map((k) => `${k} (${SETTING_SOURCES[k].env})`).join(", ")}. ` +
        `Export the BACKUP_PORTAL_* variables (e.g. from a 0600 env file, as the Pulumi helper registrationUserData does), ` +
        `or launch the instance with JSON user data {"${USER_DATA_KEY}": {"url", "origin", "clientId", "username", "password"}}${why}`,
    );
  }
  if (values.url !== undefined) {
    let ok = false;
    try {
      const u = new URL(values.url);
      ok = u.protocol === "http:" || u.protocol === "https:";
    } catch {
      ok = false;
    }
    if (!ok)
      problems.push(
        `the portal url from the ${sources.url} is not an http(s) URL: ${JSON.stringify(maskUrl(values.url))}; use e.g. https://portal.example.com`,
      );
  }
  if (problems.length) return { problems, notes: fromUserData.notes };
  const v = values as Record<SettingKey, string>;
  return {
    problems,
    notes: fromUserData.notes,
    credentials: {
      settings: { ...v, url: v.url.replace(/\/+$/, "").replace(/\/v1$/, "") },
      sources: sources as Record<SettingKey, CredentialSource>,
    },
  };
}
