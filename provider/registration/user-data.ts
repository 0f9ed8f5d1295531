// Cloud-init user data that makes an instance register itself at first boot: a `#cloud-config` whose
// write_files puts either a one-time broker token (broker mode) or a tenant's own registration account (portal
// mode) into a 0600 file, and the boot script (boot-script.ts), which installs the pinned, verified package and
// runs `backup-portal register`. User data is readable by every process on the instance (the metadata service
// serves it without login): nothing in it may be the reseller's credential. See docs/security.md.
//
//   new openstack.compute.Instance("web01", {
//     userData: registrationUserData({ broker: { url: brokerUrl, token: mintRegistrationToken(secret, { businessUnitId: 2 }) } }),
//     metadata: { backup_bunit: "2" },
//     ...
//   });
import * as pulumi from "@pulumi/pulumi";
import { Document, Scalar, visit } from "yaml";
import {
  checkIntegrity,
  DEFAULT_NODE_BUILD,
  DEFAULT_WORK_DIR,
  isPinnedSpec,
  NodeBuild,
  ownPackage,
  registryIntegrity,
  renderBootScript,
  tarballIntegrity,
} from "./boot-script";
import { shellQuote } from "../shell/quote";
import { maskUrl } from "../http/mask-url";
import { escapeYamlText, needsEscape, YAML11_LINE_BREAKS as LINE_BREAKS } from "../rules/yaml-scalars";

export { shellQuote };

export const DEFAULT_ENV_FILE = "/etc/backup-portal/portal.env";
export const DEFAULT_PASSWORD_FILE = "/etc/backup-portal/node-password";
export const DEFAULT_TOKEN_FILE = "/etc/backup-portal/registration-token";
export const SCRIPT_NAME = "register.sh";
export const DEFAULT_SCRIPT_FILE = `${DEFAULT_WORK_DIR}/${SCRIPT_NAME}`;
/** The package the boot script installs: this package, at the exact version that rendered the user data. */
export function defaultPackageSpec(): string {
  const own = ownPackage();
  return `${own.name}@${own.version}`;
}
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

/** A registration broker (provider/broker) and a one-time token bound to one business unit (mintRegistrationToken). */
export interface BrokerAccess<S = string> {
  url: S;
  token: S;
}

export interface RegistrationUserDataOptions<S = string> {
  /**
   * A portal account the instance registers itself with, its password in a 0600 file on the instance. Only an
   * account limited to the tenant's own business unit belongs here (docs/security.md), never the reseller's.
   * Exactly one of `portal` and `broker`.
   */
  portal?: PortalAccount<S>;
  /** Register through the registration broker with a one-time token: no portal credential reaches the instance. */
  broker?: BrokerAccess<S>;
  /** npm spec that provides `backup-portal`; default this package at the version that renders (`name@x.y.z`). */
  packageSpec?: string;
  /** The spec's sha512 integrity (`npm view <spec> dist.integrity`); else taken from `packageTarball`, else asked of npm. */
  integrity?: string;
  /** A local tarball of the spec (`npm pack`): its integrity is recorded. */
  packageTarball?: string;
  /** Accept a spec that is not `name@x.y.z` (a range, a tag, a bare name): then nothing is verified. Default false. */
  allowUnpinned?: boolean;
  /** More arguments for `backup-portal register`, e.g. `["--option-file", "/opt/tivoli/tsm/client/ba/bin/dsm.sys"]`. */
  extraArgs?: string[];
  /** Where the env file goes (portal mode). Default /etc/backup-portal/portal.env. */
  envFile?: string;
  /** Where the token file goes (broker mode). Default /etc/backup-portal/registration-token. */
  tokenFile?: string;
  /** `--password-file` for the node password; default /etc/backup-portal/node-password; `false`: none. */
  passwordFile?: string | false;
  /** The Node.js build installed when the image has no Node.js 22 or newer; default DEFAULT_NODE_BUILD; `false`: fail then. */
  node?: NodeBuild | false;
  /** Where the boot script, Node.js and the package go; default /var/lib/backup-portal. */
  workDir?: string;
}

function stringValue(what: string, value: unknown, { allowEmpty = false } = {}): string {
  if (typeof value !== "string") throw new TypeError(`registration user data: ${what} must be a string`);
  if (!allowEmpty && value === "") throw new Error(`registration user data: ${what} must not be empty`);
  // Never echo the value: it may be the password. NUL cannot be in an environment variable or a shell word.
  if (value.includes("\0")) throw new Error(`registration user data: ${what} must not contain a NUL character`);
  return value;
}

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

function httpUrl(what: string, value: unknown): string {
  let url: URL;
  try {
    url = new URL(oneLine(what, value));
  } catch (err) {
    if (err instanceof TypeError && /must be a string/.test(err.message)) throw err;
    throw new Error(`registration user data: ${what} is not a URL: ${JSON.stringify(maskUrl(String(value)))}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new Error(`registration user data: ${what} must be http(s), got ${JSON.stringify(maskUrl(String(value)))}`);
  return value as string;
}

/** The package to install and the integrity to check it against, or why not (an unpinned spec needs allowUnpinned). */
function resolvePackage(opts: RegistrationUserDataOptions): { packageSpec: string; integrity?: string } {
  const packageSpec = oneLine("packageSpec", opts.packageSpec ?? defaultPackageSpec());
  const pinned = isPinnedSpec(packageSpec);
  if (!pinned && opts.allowUnpinned !== true)
    throw new Error(
      `registration user data: packageSpec ${JSON.stringify(packageSpec)} is not pinned to one version (name@x.y.z): the boot script ` +
        "runs it as root, so whoever publishes a newer match would get root on every new instance. Pin it, or set allowUnpinned: true to accept that",
    );
  if (opts.integrity !== undefined) return { packageSpec, integrity: checkIntegrity("integrity", opts.integrity) };
  if (opts.packageTarball !== undefined)
    return { packageSpec, integrity: checkIntegrity("packageTarball's integrity", tarballIntegrity(opts.packageTarball)) };
  if (!pinned) return { packageSpec };
  let integrity: string;
  try {
    integrity = registryIntegrity(packageSpec);
  } catch {
    throw new Error(
      `registration user data: cannot read the integrity of ${packageSpec} from the npm registry (npm view ${packageSpec} dist.integrity); ` +
        "pass integrity (sha512-...) or packageTarball (a tarball made by npm pack)",
    );
  }
  return { packageSpec, integrity: checkIntegrity(`the registry's integrity of ${packageSpec}`, integrity) };
}

/**
 * The `#cloud-config` user data, as a string. In portal mode it holds the (tenant's registration) account's
 * password; in broker mode a one-time token: treat it as a secret either way (registrationUserData does).
 */
export function renderRegistrationUserData(opts: RegistrationUserDataOptions): string {
  const { portal, broker } = opts;
  if ((portal === undefined) === (broker === undefined))
    throw new TypeError(
      "registration user data: give exactly one of broker {url, token} and portal {url, origin, clientId, username, password}",
    );
  if (portal !== undefined && (!portal || typeof portal !== "object"))
    throw new TypeError("registration user data: portal {url, origin, clientId, username, password} is required");
  if (broker !== undefined && (!broker || typeof broker !== "object"))
    throw new TypeError("registration user data: broker must be {url, token}");
  if (portal) httpUrl("portal.url", portal.url);
  const passwordFile = opts.passwordFile === false ? undefined : absolutePath("passwordFile", opts.passwordFile ?? DEFAULT_PASSWORD_FILE);
  const extraArgs = (opts.extraArgs ?? []).map((a, i) => oneLine(`extraArgs[${i}]`, a, { allowEmpty: true }));
  const { packageSpec, integrity } = resolvePackage(opts);
  const node = opts.node === false ? false : (opts.node ?? DEFAULT_NODE_BUILD);

  const files: Array<{ path: string; owner: string; permissions: string; content: string }> = [];
  const args = ["register", ...(passwordFile ? ["--password-file", passwordFile] : [])];
  let envFile: string | undefined;
  if (portal) {
    envFile = absolutePath("envFile", opts.envFile ?? DEFAULT_ENV_FILE);
    files.push({ path: envFile, owner: "root:root", permissions: "0600", content: renderEnvFile(portal) });
  } else {
    const tokenFile = absolutePath("tokenFile", opts.tokenFile ?? DEFAULT_TOKEN_FILE);
    const token = oneLine("broker.token", broker!.token);
    files.push({ path: tokenFile, owner: "root:root", permissions: "0600", content: `${token}\n` });
    args.push("--broker", httpUrl("broker.url", broker!.url), "--token-file", tokenFile);
  }
  args.push(...extraArgs);
  const workDir = absolutePath("workDir", opts.workDir ?? DEFAULT_WORK_DIR).replace(/(.)\/+$/, "$1");
  const scriptFile = `${workDir === "/" ? "" : workDir}/${SCRIPT_NAME}`;
  const script = renderBootScript({ packageSpec, integrity, args, envFile, node, attempts: REGISTER_ATTEMPTS, workDir });
  files.push({ path: scriptFile, owner: "root:root", permissions: "0700", content: script });
  const config = { write_files: files, runcmd: [["sh", scriptFile]] };
  return (
    "#cloud-config\n" +
    "# Registers this instance for backup at first boot (backup-portal register; see docs/registration.md).\n" +
    toYaml11(config)
  );
}

/**
 * `value` as YAML that PyYAML (YAML 1.1) reads back exactly. The yaml package writes U+0085, U+2028 and
 * U+2029 raw (they are not line breaks in YAML 1.2), and PyYAML would end the scalar there: a value could start
 * a new key. So every string holding a line break, or a character PyYAML refuses raw, is double-quoted with its
 * breaks escaped (no folding), and those characters, which can then only be inside double-quoted scalars, get
 * their escapes (provider/rules/yaml-scalars.ts).
 */
export function toYaml11(value: unknown): string {
  const doc = new Document(value, { version: "1.1" });
  visit(doc, {
    Scalar(_key, node) {
      const v = String(node.value);
      if (LINE_BREAKS.test(v) || needsEscape(v)) node.type = Scalar.QUOTE_DOUBLE;
    },
  });
  const text = doc.toString({ lineWidth: 0, doubleQuotedMinMultiLineLength: Number.MAX_SAFE_INTEGER });
  return escapeYamlText(text);
}

export interface RegistrationUserDataArgs extends Omit<RegistrationUserDataOptions, "portal" | "broker"> {
  portal?: PortalAccount<pulumi.Input<string>>;
  broker?: BrokerAccess<pulumi.Input<string>>;
}

/** The user data as a secret Output (it carries a token or an account), for an instance's `userData`. */
export function registrationUserData(opts: RegistrationUserDataArgs): pulumi.Output<string> {
  const p = opts.portal;
  const b = opts.broker;
  const rendered = pulumi
    .all([p?.url, p?.origin, p?.clientId, p?.username, p?.password, b?.url, b?.token])
    .apply(([url, origin, clientId, username, password, brokerUrl, token]) =>
      renderRegistrationUserData({
        ...opts,
        portal: p ? { url: url!, origin: origin!, clientId: clientId!, username: username!, password: password! } : undefined,
        broker: b ? { url: brokerUrl!, token: token! } : undefined,
      }),
    );
  return pulumi.secret(rendered);
}
