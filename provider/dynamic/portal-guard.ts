// Which portal and account a resource lives on, recorded in its outputs, and the refusal to touch it through
// another one. The engine (3.260, deploy/providers/registry.go) updates the default provider IN PLACE when the
// stack config changes, so during an `up` Delete, Update and Read run with the CURRENT backup-portal:url and
// username, not the ones the resource was created with: a changed portal would get the old portal's ids.
import type * as pulumi from "@pulumi/pulumi";
import { maskUrl } from "../http/mask-url";
import type { Lifecycle } from "./provider";

/**
 * The output that records the portal: `<url>|<username>`, both in their normal form (normalPortalUrl,
 * normalUsername). State written before this form holds `<url, userinfo masked>|<username>` as configured;
 * its normal form is the same, so it compares equal.
 */
export const PORTAL_OUTPUT = "portal";

/**
 * The normal form of a portal's base URL (the configured url after portalBaseUrl: its `/v1` already removed):
 * scheme and host in lower case, the host's IDN labels in punycode and its trailing dot removed (WHATWG URL,
 * which also drops the scheme's default port, :443 or :80), no userinfo, no trailing `/`. Path, query, port
 * and scheme otherwise stay as they are: another of them is another portal. Idempotent. A value that is no
 * http(s) URL is kept as text, its userinfo masked and trailing slashes removed (as recorded before).
 */
export function normalPortalUrl(url: string): string {
  const asText = () => maskUrl(url).replace(/\/+$/, "");
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return asText();
  }
  if ((u.protocol !== "https:" && u.protocol !== "http:") || !u.hostname) return asText();
  // `portal.example.com.` is the fully qualified spelling of the same name (one dot: more is no DNS name).
  const host = u.hostname.endsWith(".") && !u.hostname.endsWith("..") ? u.hostname.slice(0, -1) : u.hostname;
  const port = u.port ? `:${u.port}` : "";
  return `${u.protocol}//${host}${port}${u.pathname.replace(/\/+$/, "")}${u.search}${u.hash}`;
}

/**
 * An account name as the portal compares it: ignoring case, not white space. The emulator's token endpoint
 * (emulator/auth.ts) finds the user by `toLowerCase()` of both names and trims nothing, so ` admin` logs in as
 * no account at all; the portal API facts do not say more. Assumption: the portal does the same.
 */
export function normalUsername(username: string): string {
  return username.toLowerCase();
}

/** How a connection is recorded and compared: the normal form of its base url and of its username. */
export function portalOf(connection: { url: string; username: string }): string {
  return `${normalPortalUrl(connection.url)}|${normalUsername(connection.username)}`;
}

/** A recorded portal (this form or the one written before) split into url and username. */
function parts(recorded: string): { url: string; username: string } {
  const bar = recorded.lastIndexOf("|");
  return bar < 0 ? { url: recorded, username: "" } : { url: recorded.slice(0, bar), username: recorded.slice(bar + 1) };
}

/** Whether a recorded portal and the current one name the same portal and account (both normalised). */
export function samePortal(recorded: string, current: string): boolean {
  return portalOf(parts(recorded)) === portalOf(parts(current));
}

/** Shows a recorded portal as "<url> (account <username>)". */
function shown(recorded: string): string {
  const { url, username } = parts(recorded);
  // A name with white space around it (or none) is quoted, so the difference can be seen.
  return `${url} (account ${/^\S(.*\S)?$/.test(username) ? username : JSON.stringify(username)})`;
}

/** The settings to set back, each with the recorded value: the safe step, which changes nothing. */
function settingsBack(recorded: string, current: string): string {
  const was = parts(portalOf(parts(recorded)));
  const now = parts(portalOf(parts(current)));
  const steps: string[] = [];
  if (was.url !== now.url) steps.push(`backup-portal:url to ${was.url}`);
  if (was.username !== now.username) {
    const spaced = now.username.trim() === was.username && now.username !== was.username;
    steps.push(
      `backup-portal:username to ${JSON.stringify(was.username)}` +
        (spaced ? " (the configured one has white space around it, and the portal takes it as part of the name)" : ""),
    );
  }
  return steps.join(" and ");
}

/**
 * Throws the one refusal when `props` record another portal than `current`; state written before the portal
 * was recorded (no such output) is taken as unknown and passes.
 */
export function assertSamePortal(what: string, op: string, props: Record<string, unknown> | undefined, current: string): void {
  const recorded = props?.[PORTAL_OUTPUT];
  if (typeof recorded !== "string" || samePortal(recorded, current)) return;
  throw new Error(
    `${what}: refusing to ${op} it: it was created on ${shown(recorded)}, but the stack is now configured for ` +
      `${shown(current)} and the engine runs this ${op} with the current config, so it would reach the other portal ` +
      `with this portal's id; nothing was sent. First correct the connection settings: set ` +
      `${settingsBack(recorded, current)} (the recorded values; add the credentials again if the url had them) and ` +
      `run \`pulumi up\` again; if the portal did not really change, that is all. If it did, that \`pulumi up\` ` +
      `finishes the removals there; change the config after it. Only for an object that is really gone from ` +
      `that portal (or moved to the new one), and as the last step, drop it from the state with ` +
      `\`pulumi state delete '<urn>'\` (the URN shown with this error); for an object that still exists that ` +
      `orphans it.`,
  );
}

/**
 * The lifecycle with the portal recorded on create, read and update, and Delete, Update and Read refused when
 * the recorded portal is not the current one (`current` is called only when needed: it reads the connection).
 */
export function withPortalGuard<T extends Lifecycle>(kind: string, current: () => string, methods: T): T {
  const stamp = (outs: Record<string, unknown> | undefined) => ({ ...(outs ?? {}), [PORTAL_OUTPUT]: current() });
  return {
    ...methods,
    async create(inputs: any): Promise<pulumi.dynamic.CreateResult> {
      const r = await methods.create(inputs);
      return { ...r, outs: stamp(r.outs) };
    },
    async read(id: string, props: any): Promise<pulumi.dynamic.ReadResult> {
      assertSamePortal(`${kind} ${id}`, "read", props, current());
      const r = await methods.read(id, props);
      return r.id ? { ...r, props: stamp(r.props) } : r;
    },
    async update(id: string, olds: any, news: any): Promise<pulumi.dynamic.UpdateResult> {
      assertSamePortal(`${kind} ${id}`, "update", olds, current());
      const r = await methods.update(id, olds, news);
      return { ...r, outs: stamp(r.outs) };
    },
    async delete(id: string, props: any): Promise<void> {
      assertSamePortal(`${kind} ${id}`, "delete", props, current());
      await methods.delete(id, props);
    },
  };
}
