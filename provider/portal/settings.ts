// Connection settings of the API client, and where they come from when the
// caller does not give them: the BACKUP_PORTAL_* environment variables.
import { maskUrl } from "../http/mask-url";
import type { HintContext } from "./hints";
import { LIMIT_SOURCES, SETTING_SOURCES, SettingKey } from "./sources";

export interface PortalSettings {
  /** Base URL of the portal, without `/v1` (e.g. https://portal.example.com). */
  url: string;
  /** The origin registered with the client ID; sent as `Origin` on every call. */
  origin: string;
  clientId: string;
  username: string;
  password: string;
  /** Per-request timeout in milliseconds (default 30000). */
  timeoutMs?: number;
  /**
   * Deadline over all tries of one call, in milliseconds: no retry starts after it and no try runs past it
   * (default: none, each try has its own timeout; the CLI sets 60000, see its --timeout).
   */
  deadlineMs?: number;
  /** The largest answer accepted, in bytes; a larger one fails with PortalError code AnswerTooLarge (default 32 MiB). */
  maxAnswerBytes?: number;
  /** Attempts for a request that is safe to repeat (default 6). */
  maxAttempts?: number;
  /** First retry delay in milliseconds; doubles each attempt, with jitter (default 200). */
  retryBaseMs?: number;
  /** Upper bound of one retry delay, Retry-After included (default 10000). */
  retryMaxMs?: number;
  /** Concurrent connections to the portal (default 32). */
  maxSockets?: number;
  /** Who reads the errors' hints (portal/hints.ts): the stack's by default; a CLI command gives its own. */
  hintContext?: HintContext;
}

export { LIMIT_SOURCES, SETTING_SOURCES, type SettingKey } from "./sources";

export const DEFAULT_MAX_ANSWER_BYTES = 32 * 1024 * 1024;

/**
 * The base URL of a configured url: trailing slashes and then one `/v1` removed (`https://p.example/v1/` is
 * `https://p.example`), as the client appends `/v1/...`. Applied once, to the configured text; the portal
 * guard's normal form (dynamic/portal-guard.ts) works on its result.
 */
export function portalBaseUrl(url: string): string {
  return url.replace(/\/+$/, "").replace(/\/v1$/, "");
}

/**
 * Completes settings from a lookup (stack config) and then the environment.
 * Throws one error naming every missing key and where to set it: both places for the stack, the environment
 * variable for a CLI command (`tool: "cli"`).
 */
export function resolveSettings(
  lookup: (configKey: string) => string | undefined = () => undefined,
  env: NodeJS.ProcessEnv = process.env,
  tool: "stack" | "cli" = "stack",
): PortalSettings {
  const cli = tool === "cli";
  const out: Partial<Record<SettingKey, string>> = {};
  const missing: string[] = [];
  for (const key of Object.keys(SETTING_SOURCES) as SettingKey[]) {
    const src = SETTING_SOURCES[key];
    const value = lookup(src.config) ?? env[src.env];
    if (value === undefined || value === "") missing.push(cli ? src.env : `${src.config} (or ${src.env})`);
    else out[key] = value;
  }
  if (missing.length && cli) {
    throw new Error(
      `the portal connection is not configured: export ${missing.join(", ")} ` +
        "(the password in the environment too, never as an argument other users can read)",
    );
  }
  if (missing.length) {
    throw new Error(
      `Backup Portal connection is not configured: set ${missing.join(", ")}. ` +
        `Use \`pulumi config set <key> <value>\` (add --secret for the password) or export the environment variables.`,
    );
  }
  try {
    new URL(out.url!);
  } catch {
    const name = cli ? SETTING_SOURCES.url.env : SETTING_SOURCES.url.config;
    throw new Error(`${name} is not a URL: "${maskUrl(out.url!)}". Use e.g. https://portal.example.com (without /v1).`);
  }
  const settings: PortalSettings = { ...(out as Record<SettingKey, string>), url: portalBaseUrl(out.url!) };
  const cap = LIMIT_SOURCES.maxAnswerBytes;
  const capText = lookup(cap.config) ?? env[cap.env];
  if (capText !== undefined && capText !== "") {
    const n = Number(capText);
    if (!/^\d+$/.test(String(capText).trim()) || !Number.isSafeInteger(n) || n < 1) {
      const name = cli ? cap.env : `${cap.config} (or ${cap.env})`;
      throw new Error(`${name} must be a whole number of bytes, at least 1, got ${JSON.stringify(String(capText))}`);
    }
    settings.maxAnswerBytes = n;
  }
  return settings;
}
