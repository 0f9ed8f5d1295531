// Cloud-init user data that makes an instance register itself at first boot:
// a `#cloud-config` whose write_files puts the portal account into a 0600 env
// file, and whose runcmd runs `backup-portal register` with that file sourced.
//
//   new openstack.compute.Instance("web01", {
//     userData: registrationUserData({ portal: { url, origin, clientId, username, password } }),
//     metadata: { backup_bunit: "2" },
//     ...
//   });
import * as pulumi from "@pulumi/pulumi";

export const DEFAULT_ENV_FILE = "/etc/backup-portal/portal.env";
export const DEFAULT_PASSWORD_FILE = "/etc/backup-portal/node-password";
export const DEFAULT_PACKAGE_SPEC = "backup-portal-pulumi";
/** Installs Node.js and npm from the distribution when `npx` is missing (apt, dnf or yum). */
export const DEFAULT_INSTALL_NODE =
  "command -v npx >/dev/null 2>&1 || { if command -v apt-get >/dev/null 2>&1; then apt-get update -q && apt-get install -y -q nodejs npm; " +
  "elif command -v dnf >/dev/null 2>&1; then dnf install -y -q nodejs npm; elif command -v yum >/dev/null 2>&1; then yum install -y -q nodejs npm; " +
  "else echo 'backup-portal: no npx and no known package manager; install Node.js 20' >&2; exit 1; fi; }";
/**
 * Attempts of the registration at boot (the network or the portal may not be ready yet). Every failure is
 * retried except exit codes 2 (bad arguments) and 3 (configuration to fix): they fail the same way every time.
 */
export const REGISTER_ATTEMPTS = 5;

export interface PortalAccount<S = string> {
  url: S;
  origin: S;
  clientId: S;
  username: S;
  password: S;
}

export interface RegistrationUserDataOptions<S = string> {
  /** The account the instance registers itself with (its password ends up on the instance, in a 0600 file). */
  portal: PortalAccount<S>;
  /** npm package spec that provides `backup-portal`, e.g. `backup-portal-pulumi@0.1.0` (pin it). Default `backup-portal-pulumi`. */
  packageSpec?: string;
  /** More arguments for `backup-portal register`, e.g. `["--option-file", "/opt/tivoli/tsm/client/ba/bin/dsm.sys"]`. */
  extraArgs?: string[];
  /** Where the env file goes. Default /etc/backup-portal/portal.env. */
  envFile?: string;
  /** `--password-file` for the node password; default /etc/backup-portal/node-password; `false`: none. */
  passwordFile?: string | false;
  /** Shell command that makes `npx` available; default DEFAULT_INSTALL_NODE; `false`: assume the image has Node.js 20. */
  installNode?: string | false;
}

/** A POSIX shell word: single-quoted unless plainly safe. */
export function shellQuote(word: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

function oneLine(what: string, value: unknown, { allowEmpty = false } = {}): string {
  if (typeof value !== "string") throw new TypeError(`registration user data: ${what} must be a string`);
  if (!allowEmpty && value === "") throw new Error(`registration user data: ${what} must not be empty`);
  // Never echo the value: it may be the password.
  if (/[\r\n\0]/.test(value)) throw new Error(`registration user data: ${what} must be a single line (no newline or NUL characters)`);
  return value;
}

function absolutePath(what: string, value: string): string {
  oneLine(what, value);
  if (!value.startsWith("/")) throw new Error(`registration user data: ${what} must be an absolute path, got ${JSON.stringify(value)}`);
  return value;
}

/** The env file's text: BACKUP_PORTAL_* assignments, single-quoted for `sh`. */
export function renderEnvFile(portal: PortalAccount): string {
  const entries: Array<[string, keyof PortalAccount]> = [
    ["BACKUP_PORTAL_URL", "url"], ["BACKUP_PORTAL_ORIGIN", "origin"], ["BACKUP_PORTAL_CLIENT_ID", "clientId"],
    ["BACKUP_PORTAL_USERNAME", "username"], ["BACKUP_PORTAL_PASSWORD", "password"],
  ];
  const lines = entries.map(([name, key]) => `${name}='${oneLine(`portal.${key}`, portal[key]).replace(/'/g, `'\\''`)}'`);
  return ["# Backup Portal account for `backup-portal register` (written by cloud-init; keep it 0600).", ...lines, ""].join("\n");
}

/**
 * The `#cloud-config` user data, as a string. Holds the portal password:
 * treat it as a secret (registrationUserData does).
 */
export function renderRegistrationUserData(opts: RegistrationUserDataOptions): string {
  const portal = opts.portal;
  if (!portal || typeof portal !== "object") throw new TypeError("registration user data: portal {url, origin, clientId, username, password} is required");
  let url: URL;
  try {
    url = new URL(oneLine("portal.url", portal.url));
  } catch (err) {
    if (err instanceof TypeError && /must be a string/.test(err.message)) throw err;
    throw new Error(`registration user data: portal.url is not a URL: ${JSON.stringify(portal.url)}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error(`registration user data: portal.url must be http(s), got ${JSON.stringify(portal.url)}`);
  const envFile = absolutePath("envFile", opts.envFile ?? DEFAULT_ENV_FILE);
  const packageSpec = oneLine("packageSpec", opts.packageSpec ?? DEFAULT_PACKAGE_SPEC);
  const passwordFile = opts.passwordFile === false ? undefined : absolutePath("passwordFile", opts.passwordFile ?? DEFAULT_PASSWORD_FILE);
  const extraArgs = (opts.extraArgs ?? []).map((a, i) => oneLine(`extraArgs[${i}]`, a, { allowEmpty: true }));
  const installNode = opts.installNode === false ? undefined : oneLine("installNode", opts.installNode ?? DEFAULT_INSTALL_NODE);

  const args = ["register", ...(passwordFile ? ["--password-file", passwordFile] : []), ...extraArgs];
  const command = ["npx", "--yes", `--package=${packageSpec}`, "--", "backup-portal", ...args].map(shellQuote).join(" ");
  const register = [
    `export HOME="\${HOME:-/root}"`,
    `set -a && . ${shellQuote(envFile)} && set +a || exit 1`,
    `n=0; until ${command}; do rc=$?; n=$((n+1)); if [ "$rc" -eq 2 ] || [ "$rc" -eq 3 ] || [ "$n" -ge ${REGISTER_ATTEMPTS} ]; then exit "$rc"; fi; sleep 20; done`,
  ].join("; ");

  const env = renderEnvFile(portal).split("\n").map((l) => (l ? `      ${l}` : l)).join("\n").replace(/\n+$/, "");
  const runcmd = [...(installNode ? [installNode] : []), register].map((c) => `  - ${JSON.stringify(["sh", "-c", c])}`);
  return [
    "#cloud-config",
    "# Registers this instance for backup at first boot (backup-portal register; see docs/registration.md).",
    "write_files:",
    `  - path: ${JSON.stringify(envFile)}`,
    "    owner: root:root",
    "    permissions: '0600'",
    "    content: |",
    env,
    "runcmd:",
    ...runcmd,
    "",
  ].join("\n");
}

export interface RegistrationUserDataArgs extends Omit<RegistrationUserDataOptions, "portal"> {
  portal: PortalAccount<pulumi.Input<string>>;
}

/** The user data as a secret Output (it carries the portal password), for an instance's `userData`. */
export function registrationUserData(opts: RegistrationUserDataArgs): pulumi.Output<string> {
  const p = opts.portal;
  const rendered = pulumi.all([p.url, p.origin, p.clientId, p.username, p.password]).apply(([url, origin, clientId, username, password]) =>
    renderRegistrationUserData({ ...opts, portal: { url, origin, clientId, username, password } }));
  return pulumi.secret(rendered);
}
