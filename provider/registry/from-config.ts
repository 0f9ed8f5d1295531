// The stack-config side of the registry: turns the plain-data block under
// `backup-portal:registry` into RegistryArgs, reporting every problem with its path and fix.
import * as pulumi from "@pulumi/pulumi";
import { planRegistry, RegistryArgs, RegistryUser } from "./plan";
import { keysOf, REGISTRY_CVE_KEYS, REGISTRY_KEYS, REGISTRY_USER_KEYS, setSecretHint } from "../rules/stack-config";
import { unknownKeyHint } from "../rules/suggest";
import { isPlainObject, JsonObject } from "./zot-config";

/** Looks up a password by its secret config key. */
export type PasswordLookup = (key: string) => pulumi.Input<string>;

/** Default secret config key of a user's password: `registryPassword-<username>`. */
export function defaultPasswordKey(username: string): string {
  return `registryPassword-${username}`;
}

// The keys of the block, its users and its cve map: the table of provider/rules/stack-config.ts. Each one is a
// RegistryArgs input (test/registry/config-keys.test.ts follows each).
export const REGISTRY_CONFIG_KEYS = keysOf(REGISTRY_KEYS);
const KEYS = REGISTRY_CONFIG_KEYS;
const STRING_KEYS = KEYS.filter((k) => REGISTRY_KEYS[k].kind === "string") as Array<
  "namespace" | "releaseName" | "chartVersion" | "chartRepository" | "storageSize" | "storageClass" | "realm"
>;
const USER_KEYS = keysOf(REGISTRY_USER_KEYS);
const CVE_KEYS = keysOf(REGISTRY_CVE_KEYS);

function unknownKeys(obj: JsonObject, known: readonly string[], at: string, problems: string[]): void {
  for (const k of Object.keys(obj)) {
    if (!known.includes(k)) problems.push(`${at}.${k}: unknown key; ${unknownKeyHint(k, known)}`);
  }
}

/**
 * Validates the registry block of a stack config, as Pulumi hands it over from YAML
 * (the stack program's config reader, provider/stack-config/read.ts, hands it over):
 *
 * ```yaml
 * backup-portal:registry:
 *   enabled: true
 *   namespace: zot
 *   storageSize: 100Gi
 *   users:
 *     - username: admin                       # password from secret key registryPassword-admin
 *     - username: ci
 *       passwordSecretKey: zotCiPassword      # pulumi config set --secret backup-portal:zotCiPassword
 *   config: { log: { level: debug } }
 *   cve: { dbRepository: mirror.local/aquasecurity/trivy-db }
 * ```
 *
 * Passwords never appear in this block (a `password` key is a problem): each user names a
 * secret config key (`passwordSecretKey`, default `registryPassword-<username>`), and the
 * password is obtained through `lookupPassword(key)`: the stack program's is the config reader's
 * `secret(key)` (a secret Output, refusing a key stored in plain text). The lookup is called only when the block has no other
 * problem; a lookup that throws (missing key) becomes a problem too.
 *
 * Returns every problem (path + fix), and `args` only when there are none. `enabled: false`
 * returns `{ enabled: false, problems: [] }` without args.
 */
export function registryArgsFromConfig(
  raw: unknown,
  path: string,
  lookupPassword: PasswordLookup,
): { args?: RegistryArgs; problems: string[]; enabled: boolean } {
  const problems: string[] = [];
  if (raw === undefined || raw === null) return { problems, enabled: false };
  if (!isPlainObject(raw)) return { problems: [`${path}: must be an object (the registry block of the stack config)`], enabled: false };
  unknownKeys(raw, KEYS, path, problems);

  const enabled = raw.enabled ?? true;
  if (typeof enabled !== "boolean") problems.push(`${path}.enabled: ${JSON.stringify(enabled)} must be true or false`);
  if (enabled === false) return { problems, enabled: false };

  const args: RegistryArgs = {};
  for (const k of STRING_KEYS) {
    const v = raw[k];
    if (v === undefined) continue;
    if (typeof v !== "string") problems.push(`${path}.${k}: ${JSON.stringify(v)} must be a string`);
    else args[k] = v;
  }
  if (raw.createNamespace !== undefined) {
    if (typeof raw.createNamespace !== "boolean") problems.push(`${path}.createNamespace: must be true or false`);
    else args.createNamespace = raw.createNamespace;
  }
  for (const k of ["config", "values"] as const) {
    const v = raw[k];
    if (v === undefined) continue;
    if (!isPlainObject(v)) problems.push(`${path}.${k}: must be an object`);
    else args[k] = v;
  }
  if (raw.cve !== undefined) {
    if (!isPlainObject(raw.cve)) problems.push(`${path}.cve: must be an object {enabled, dbRepository, javaDbRepository}`);
    else {
      unknownKeys(raw.cve, CVE_KEYS, `${path}.cve`, problems);
      args.cve = raw.cve as RegistryArgs["cve"];
    }
  }

  const pending: { username: string; key: string }[] = [];
  if (raw.users !== undefined) {
    if (!Array.isArray(raw.users)) problems.push(`${path}.users: must be a list of {username, passwordSecretKey}`);
    else {
      raw.users.forEach((u: unknown, i: number) => {
        const at = `${path}.users[${i}]`;
        if (!isPlainObject(u)) {
          problems.push(`${at}: must be {username, passwordSecretKey}`);
          return;
        }
        if ("password" in u) {
          problems.push(
            `${at}.password: plain passwords are not allowed in stack config; run ${setSecretHint(defaultPasswordKey(String(u.username)))} and remove the key`,
          );
        }
        unknownKeys(u, [...USER_KEYS, "password"], at, problems);
        const key = u.passwordSecretKey ?? (typeof u.username === "string" ? defaultPasswordKey(u.username) : undefined);
        if (
          u.passwordSecretKey !== undefined &&
          (typeof u.passwordSecretKey !== "string" || u.passwordSecretKey === "" || u.passwordSecretKey.includes(":"))
        ) {
          problems.push(
            `${at}.passwordSecretKey: must be a non-empty config key name without a namespace (it is read as backup-portal:<key>)`,
          );
        }
        pending.push({ username: u.username as string, key: String(key) });
      });
    }
  }
  // Usernames, zot config, chart values etc.: the same checks as the component, on
  // placeholder passwords so no secret is read before the block is known to be valid.
  args.users = pending.map((p) => ({ username: p.username, password: "<unresolved>" }));
  if (args.users.length === 0) delete args.users;
  problems.push(...planRegistry(args, path).problems);
  if (problems.length > 0) return { problems, enabled: true };

  const users: RegistryUser[] = [];
  pending.forEach((p, i) => {
    try {
      users.push({ username: p.username, password: lookupPassword(p.key) });
    } catch (err) {
      // A lookup that knows better (the key is set, but in plain text) says so; a missing key is the usual case.
      problems.push(
        err instanceof Error && /plain text/.test(err.message)
          ? `${path}.users[${i}]: ${err.message}`
          : `${path}.users[${i}]: secret config key "${p.key}" is not set; run ${setSecretHint(p.key)}`,
      );
    }
  });
  if (problems.length > 0) return { problems, enabled: true };
  if (users.length > 0) args.users = users;
  return { args, problems, enabled: true };
}
