// The provider's configuration: the connection keys of the stack config
// (portal/settings.ts SETTING_SOURCES) under the `backupportal:` namespace.
// CheckConfig reports every problem at once, with the did-you-mean of the stack
// rules; DiffConfig replaces the provider when the portal or the account changes.
import { portalBaseUrl, resolveSettings, SETTING_SOURCES, SettingKey } from "../portal/settings";
import { normalPortalUrl, normalUsername } from "../dynamic/portal-guard";
import { suggest } from "../rules/suggest";
import { isUnknown } from "../dynamic/values";
import { PACKAGE, SECRET_CONFIG_KEYS } from "./package";

export const CONFIG_KEYS = Object.keys(SETTING_SOURCES) as SettingKey[];
/** Opt-in takeover after a crash (dynamic/recovery.ts), as `backup-portal:recoverInterruptedCreates` in a stack. */
export const OPTIONAL_KEYS = ["recoverInterruptedCreates"] as const;
export { SECRET_CONFIG_KEYS };
/** Changing one of these points the provider at another portal or account: its resources are not the same objects. */
export const REPLACING_CONFIG_KEYS: readonly string[] = ["url", "username"];
/** Keys the engine adds to every provider's inputs. */
const ENGINE_KEYS = new Set(["version", "pluginDownloadURL"]);

export const CONFIG_DOCS: Record<string, string> = {
  url: "base URL of the portal, without /v1 (e.g. https://portal.example.com); env BACKUP_PORTAL_URL",
  origin: "the origin registered with the client ID, sent as Origin; env BACKUP_PORTAL_ORIGIN",
  clientId: "the API client ID; env BACKUP_PORTAL_CLIENT_ID",
  username: "the portal account; env BACKUP_PORTAL_USERNAME",
  password: "the portal account's password; env BACKUP_PORTAL_PASSWORD",
  recoverInterruptedCreates: "take over objects an interrupted create left (the run after a crash); env BACKUP_PORTAL_RECOVER_INTERRUPTED",
};

/** A provider input key: `url`, or `backupportal:url` as the engine's variables spell it. */
const bare = (key: string) => key.replace(new RegExp(`^${PACKAGE}:(config:)?`), "");

export interface ConfigFailure {
  property: string;
  reason: string;
}

/** Every problem of the provider's inputs: unknown keys (with did-you-mean), then missing or malformed settings. */
export function checkConfig(news: Record<string, unknown>, env: NodeJS.ProcessEnv = process.env): ConfigFailure[] {
  const known: string[] = [...CONFIG_KEYS, ...OPTIONAL_KEYS];
  const failures: ConfigFailure[] = [];
  for (const raw of Object.keys(news)) {
    const key = bare(raw);
    if (known.includes(key) || ENGINE_KEYS.has(key)) continue;
    const guess = suggest(key, known);
    failures.push({
      property: raw,
      reason: `${PACKAGE}:${key}: unknown key; ${guess ? `did you mean "${PACKAGE}:${guess}"?` : `known keys: ${known.map((k) => `${PACKAGE}:${k}`).join(", ")}`}`,
    });
  }
  // Settings not known yet (preview of a provider whose url is another resource's output) are checked at Configure.
  if (Object.values(news).some(isUnknown)) return failures;
  try {
    resolveSettings(lookup(news), env);
  } catch (e) {
    failures.push({ property: "", reason: namespaced((e as Error).message) });
  }
  return failures;
}

/**
 * The configuration Configure receives: the provider's inputs (`args`), and for what they leave out the
 * `backupportal:config:<key>` variables older engines send beside them; keys without their namespace.
 */
export function configurationOf(args: Record<string, unknown>, variables: Iterable<[string, string]>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of variables) out[bare(key)] = value;
  for (const [key, value] of Object.entries(args)) if (value !== undefined) out[bare(key)] = value;
  return out;
}

/** The stack-config lookup resolveSettings and dynamic/connection.ts use, answered from the provider's inputs. */
export function lookup(args: Record<string, unknown>): (configKey: string) => string | undefined {
  const byKey = new Map(Object.entries(args).map(([k, v]) => [bare(k), v]));
  return (configKey) => {
    const v = byKey.get(configKey.replace(/^backup-portal:/, ""));
    return v === undefined || v === null ? undefined : String(v);
  };
}

/** The settings' messages name the stack's keys; the provider's are in its own namespace. */
const namespaced = (message: string) => message.replace(/backup-portal:/g, `${PACKAGE}:`);

/** The changed keys, and those of them that replace the provider. */
export function diffConfig(olds: Record<string, unknown>, news: Record<string, unknown>): { changed: string[]; replaces: string[] } {
  const o = lookup(olds);
  const n = lookup(news);
  const changed = [...CONFIG_KEYS, ...OPTIONAL_KEYS].filter((k) => o(k) !== n(k));
  // The same portal and account spelled otherwise (`HTTPS://Portal.Example.com:443/`, `Admin`) is an update,
  // not another portal: compared in the portal guard's normal form (dynamic/portal-guard.ts portalOf).
  const same = (k: string) => {
    const [was, now] = [o(k), n(k)];
    if (was === undefined || now === undefined) return false;
    const url = (v: string) => normalPortalUrl(portalBaseUrl(v));
    return k === "url" ? url(was) === url(now) : normalUsername(was) === normalUsername(now);
  };
  return { changed, replaces: changed.filter((k) => REPLACING_CONFIG_KEYS.includes(k) && !same(k)) };
}
