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
import { Document, Scalar, visit } from "yaml";
import { shellQuote } from "../shell/quote";
import { maskUrl } from "../http/mask-url";

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

export { shellQuote };

function stringValue(what: string, value: unknown, { allowEmpty = false } = {}): string {
  if (typeof value !== "string") throw new TypeError(`registration user data: ${what} must be a string`);
  if (!allowEmpty && value === "") throw new Error(`registration user data: ${what} must not be empty`);
  // Never echo the value: it may be the password. NUL cannot be in an environment variable or a shell word.
  if (value.includes("\0")) throw new Error(`registration user data: ${what} must not contain a NUL character`);
  return value;
}

// Line breaks of YAML 1.1 (PyYAML, which cloud-init uses) and of sh.
const LINE_BREAKS = /[\r\n\u0085\u2028\u2029]/;

function oneLine(what: string, value: unknown, opts: { allowEmpty?: boolean } = {}): string {
  stringValue(what, value, opts);
  if (LINE_BREAKS.test(value as string)) {
    throw new Error(`registration user data: ${what} must be a single line (no line break characters: CR, LF, U+0085, U+2028, U+2029)`);
  }
  return value as string;
}

function absolutePath(what: string, value: string): string {
  oneLine(what, value);
  if (!value.startsWith("/")) throw new Error(`registration user data: ${what} must be an absolute path, got ${JSON.stringify(value)}`);
  return value;
}

/**
 * The env file's text: BACKUP_PORTAL_* assignments, single-quoted for `sh`, which keeps every byte between the
 * quotes (line breaks included) and gives it back intact when the file is sourced.
 */
export function renderEnvFile(portal: PortalAccount): string {
  const entries: Array<[string, keyof PortalAccount]> = [
    ["BACKUP_PORTAL_URL", "url"],
    ["BACKUP_PORTAL_ORIGIN", "origin"],
    ["BACKUP_PORTAL_CLIENT_ID", "clientId"],
    ["BACKUP_PORTAL_USERNAME", "username"],
    ["BACKUP_PORTAL_PASSWORD", "password"],
  ];
  const lines = entries.map(([name, key]) => {
    const value = key === "url" ? oneLine("portal.url", portal.url) : stringValue(`portal.${key}`, portal[key]);
    return `${name}='${value.replace(/'/g, `'\\''`)}'`;
  });
  return ["# Backup Portal account for `backup-portal register` (written by cloud-init; keep it 0600).", ...lines, ""].join("\n");
}

/**
 * The `#cloud-config` user data, as a string. Holds the portal password:
 * treat it as a secret (registrationUserData does).
 */
export function renderRegistrationUserData(opts: RegistrationUserDataOptions): string {
  const portal = opts.portal;
  if (!portal || typeof portal !== "object")
    throw new TypeError("registration user data: portal {url, origin, clientId, username, password} is required");
  let url: URL;
  try {
    url = new URL(oneLine("portal.url", portal.url));
  } catch (err) {
    if (err instanceof TypeError && /must be a string/.test(err.message)) throw err;
    throw new Error(`registration user data: portal.url is not a URL: ${JSON.stringify(maskUrl(String(portal.url)))}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new Error(`registration user data: portal.url must be http(s), got ${JSON.stringify(maskUrl(String(portal.url)))}`);
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

  const runcmd = [...(installNode ? [installNode] : []), register].map((c) => ["sh", "-c", c]);
  const config = {
    write_files: [{ path: envFile, owner: "root:root", permissions: "0600", content: renderEnvFile(portal) }],
    runcmd,
  };
  return (
    "#cloud-config\n" +
    "# Registers this instance for backup at first boot (backup-portal register; see docs/registration.md).\n" +
    toYaml11(config)
  );
}

// YAML 1.1 escapes of the line breaks that YAML 1.2 does not count as line breaks.
const YAML11_ESCAPES: Record<string, string> = { "\u0085": "\\N", "\u2028": "\\L", "\u2029": "\\P" };

/**
 * `value` as YAML that PyYAML (YAML 1.1) reads back exactly. The yaml package writes U+0085, U+2028 and
 * U+2029 raw (they are not line breaks in YAML 1.2), and PyYAML would end the scalar there: a value could start
 * a new key. So every string holding a line break is double-quoted with its breaks escaped (no folding), and
 * those three characters, which can then only be inside double-quoted scalars, get their YAML 1.1 escapes.
 */
export function toYaml11(value: unknown): string {
  const doc = new Document(value, { version: "1.1" });
  visit(doc, {
    Scalar(_key, node) {
      if (LINE_BREAKS.test(String(node.value))) node.type = Scalar.QUOTE_DOUBLE;
    },
  });
  const text = doc.toString({ lineWidth: 0, doubleQuotedMinMultiLineLength: Number.MAX_SAFE_INTEGER });
  return text.replace(/[\u0085\u2028\u2029]/g, (c) => YAML11_ESCAPES[c]);
}

export interface RegistrationUserDataArgs extends Omit<RegistrationUserDataOptions, "portal"> {
  portal: PortalAccount<pulumi.Input<string>>;
}

/** The user data as a secret Output (it carries the portal password), for an instance's `userData`. */
export function registrationUserData(opts: RegistrationUserDataArgs): pulumi.Output<string> {
  const p = opts.portal;
  const rendered = pulumi
    .all([p.url, p.origin, p.clientId, p.username, p.password])
    .apply(([url, origin, clientId, username, password]) =>
      renderRegistrationUserData({ ...opts, portal: { url, origin, clientId, username, password } }),
    );
  return pulumi.secret(rendered);
}
