// Where each connection setting is read: its stack config key and its environment variable. The bottom of the
// client's settings: settings.ts (which resolves them) and hints.ts (which names them in a hint) both read this
// table, and it imports nothing, so neither of them needs the other's.

/** The settings keys, with the stack config key and environment variable of each. */
export const SETTING_SOURCES = {
  url: { config: "backup-portal:url", env: "BACKUP_PORTAL_URL" },
  origin: { config: "backup-portal:origin", env: "BACKUP_PORTAL_ORIGIN" },
  clientId: { config: "backup-portal:clientId", env: "BACKUP_PORTAL_CLIENT_ID" },
  username: { config: "backup-portal:username", env: "BACKUP_PORTAL_USERNAME" },
  password: { config: "backup-portal:password", env: "BACKUP_PORTAL_PASSWORD" },
} as const;

export type SettingKey = keyof typeof SETTING_SOURCES;

/** Optional settings read like the connection's: stack config, then the environment. */
export const LIMIT_SOURCES = {
  maxAnswerBytes: { config: "backup-portal:maxAnswerBytes", env: "BACKUP_PORTAL_MAX_ANSWER_BYTES" },
} as const;
