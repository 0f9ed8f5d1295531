// The connection keys of an exported stack file (issue 45 item 2): the settings the export read the portal with, as
// the stack's `backup-portal:` keys, so that the file's first preview needs only the password (a secret, never
// written); and, for a file `--merge` updates, a line for each key it lacks, with the value to set.
import { portalBaseUrl, SETTING_SOURCES, SettingKey } from "../portal/settings";

/** The connection keys a stack file holds in plain text: every one but the password. */
export const PLAIN_KEYS = (Object.keys(SETTING_SOURCES) as SettingKey[]).filter((k) => k !== "password");
export const PASSWORD_KEY = SETTING_SOURCES.password.config;

/**
 * `backup-portal:url` … `backup-portal:username` → the values in `env` (the BACKUP_PORTAL_* variables, or with
 * --stack the stack's own over them). A URL that carries credentials (`https://user:pw@…`) is not written.
 */
export function connectionConfig(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of PLAIN_KEYS) {
    const value = env[SETTING_SOURCES[key].env];
    if (!value) continue;
    if (key === "url") {
      let url: URL;
      try {
        url = new URL(value);
      } catch {
        continue;
      }
      if (url.username || url.password) continue;
      out[SETTING_SOURCES.url.config] = portalBaseUrl(value);
    } else out[SETTING_SOURCES[key].config] = value;
  }
  return out;
}

/**
 * One line per connection key `config` (a stack file's, as the program reads it) lacks, naming the file, the key and
 * the command that sets it (with the value the export used, when it had one); the password only when the file
 * holds no `secure:` one, as the secret to add.
 */
export function missingConnectionLines(
  shown: string,
  stack: string,
  config: Record<string, string>,
  used: Record<string, string>,
): string[] {
  const lines: string[] = [];
  for (const key of PLAIN_KEYS) {
    const { config: name, env } = SETTING_SOURCES[key];
    if (config[name]) continue;
    const value = used[name] ?? `<${key}>`;
    lines.push(
      `${shown}: ${name}: not set, and the stack's preview needs it: pulumi config set ${name} ${value} --stack ${stack} (or the variable ${env} in CI)`,
    );
  }
  if (!config[PASSWORD_KEY]) {
    lines.push(
      `${shown}: ${PASSWORD_KEY}: not set (a secret): pulumi config set --secret ${PASSWORD_KEY} --stack ${stack} (it asks for it), or the secret ${SETTING_SOURCES.password.env} in CI`,
    );
  }
  return lines;
}
