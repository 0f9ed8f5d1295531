// Who reads a client error's hint decides what it may tell them to do. The stack (providers, components) is
// configured with stack config and mended with `pulumi` commands; a `backup-portal` command reads only its
// flags and the BACKUP_PORTAL_* variables, and has no state to refresh. Each hint names only what its reader has.
import { maskUrl } from "../http/mask-url";
import { LIMIT_SOURCES, SETTING_SOURCES, SettingKey } from "./sources";

export interface HintContext {
  /** `stack`: stack config and the environment; `cli`: a command's environment. */
  readonly tool: "stack" | "cli";
  /**
   * The namespace the stack's config keys are read under: `backup-portal` for the stack program and the dynamic
   * providers (the default), `backupportal` for the plugin, whose provider config is its package's.
   */
  readonly namespace?: string;
  /** The hints by HTTP status (0: no answer). */
  readonly hints: Readonly<Record<number, string>>;
}

type Source = { config: string; env: string };

/** The namespace of the stack program's and the dynamic providers' config keys, as sources.ts spells them. */
const STACK_NAMESPACE = SETTING_SOURCES.url.config.split(":")[0];

/**
 * How a reader sets a setting: `backup-portal:url (or BACKUP_PORTAL_URL)` for the stack, the plugin's own namespace
 * for the plugin (`backupportal:url`), `BACKUP_PORTAL_URL` for the CLI.
 */
export function settingName(key: SettingKey | "maxAnswerBytes", context: Pick<HintContext, "tool" | "namespace">): string {
  const src: Source = key === "maxAnswerBytes" ? LIMIT_SOURCES.maxAnswerBytes : SETTING_SOURCES[key];
  if (context.tool === "cli") return src.env;
  return `${src.config.replace(`${STACK_NAMESPACE}:`, `${context.namespace ?? STACK_NAMESPACE}:`)} (or ${src.env})`;
}

const login = (tool: HintContext["tool"], namespace = STACK_NAMESPACE): string =>
  tool === "cli"
    ? "authentication failed: check BACKUP_PORTAL_CLIENT_ID, BACKUP_PORTAL_ORIGIN (it must match the origin registered with the client ID), BACKUP_PORTAL_USERNAME and BACKUP_PORTAL_PASSWORD"
    : `authentication failed: check the client ID, the origin (it must match the one registered with the client ID), the username and the password (stack config ${namespace}:clientId/origin/username/password, or BACKUP_PORTAL_CLIENT_ID/ORIGIN/USERNAME/PASSWORD)`;

const COMMON: Record<number, string> = {
  400: "the portal rejected the request: check the field it names",
  403: "the account may not reach this object: use an account whose business unit is an ancestor of it",
  409: "the portal refused because of the object's current state",
};

/** A stack's hints, its config keys under `namespace`: stack config, `pulumi refresh`, `pulumi up --parallel`. */
export function stackHints(namespace = STACK_NAMESPACE): HintContext {
  return {
    tool: "stack",
    namespace,
    hints: {
      ...COMMON,
      0: `the portal did not answer: check the portal URL (${namespace}:url or BACKUP_PORTAL_URL) and that it is reachable`,
      401: login("stack", namespace),
      404: "the object does not exist on the portal (removed by someone else?); with Pulumi, `pulumi refresh` brings state in line",
      429: "the portal is rate limiting: lower the parallelism (pulumi up --parallel)",
    },
  };
}

/** The stack program's and the dynamic providers' hints. */
export const STACK_HINTS: HintContext = stackHints();

/**
 * A command's hints: its environment variables, and for a missing object the flags that named it (`--bunit`,
 * `--consumer`), or none for a command that finds its objects itself.
 */
export function cliHints(idFlags: readonly string[] = [], timeoutFlag = "--timeout", url = "BACKUP_PORTAL_URL"): HintContext {
  const ids = idFlags.length ? `: check ${idFlags.join(" and ")}` : "";
  return {
    tool: "cli",
    hints: {
      ...COMMON,
      0: `the portal did not answer: check ${url} and that the portal is reachable from here; ${timeoutFlag} gives it longer`,
      401: login("cli"),
      404: `the object does not exist on the portal, or the account cannot see it${ids}`,
      429: "the portal is rate limiting: wait a minute and run the command again",
    },
  };
}

/** What to set when the URL is not the API's: its base address, without /v1, with nothing in front of it. */
export function urlFix(context: Pick<HintContext, "tool">): string {
  return (
    `set ${settingName("url", context)} to the portal API's base address (the part before /v1, e.g. https://portal.example.com), ` +
    "with no login page or proxy in front of it"
  );
}

/**
 * The hint of an answer that did not come from the Cloutility API (errors.ts, `notTheApi`, says why): the URL is
 * another server's, or a path beside the API's, and no other setting can help, so no other setting is named.
 */
export function notTheApiHint(reason: string, url: string | undefined, context: Pick<HintContext, "tool">): string {
  return `this URL${url ? ` (${maskUrl(url)})` : ""} does not answer as the Cloutility API: ${reason}; ${urlFix(context)}`;
}
