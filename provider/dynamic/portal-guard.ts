// Which portal and account a resource lives on, recorded in its outputs, and the refusal to touch it through
// another one. The engine (3.260, deploy/providers/registry.go) updates the default provider IN PLACE when the
// stack config changes, so during an `up` Delete, Update and Read run with the CURRENT backup-portal:url and
// username, not the ones the resource was created with: a changed portal would get the old portal's ids.
import type * as pulumi from "@pulumi/pulumi";
import { maskUrl } from "../http/mask-url";
import type { Lifecycle } from "./provider";

/** The output that records the portal: `<url, userinfo masked>|<username>`. */
export const PORTAL_OUTPUT = "portal";

/** How a connection is recorded and compared (a trailing slash of the URL does not make another portal). */
export function portalOf(connection: { url: string; username: string }): string {
  return `${maskUrl(connection.url).replace(/\/+$/, "")}|${connection.username}`;
}

/** Shows a recorded portal as "<url> (account <username>)". */
function shown(recorded: string): string {
  const bar = recorded.lastIndexOf("|");
  return `${recorded.slice(0, bar)} (account ${recorded.slice(bar + 1)})`;
}

/**
 * Throws the one refusal when `props` record another portal than `current`; state written before the portal
 * was recorded (no such output) is taken as unknown and passes.
 */
export function assertSamePortal(what: string, op: string, props: Record<string, unknown> | undefined, current: string): void {
  const recorded = props?.[PORTAL_OUTPUT];
  if (typeof recorded !== "string" || recorded === current) return;
  throw new Error(
    `${what}: refusing to ${op} it: it was created on ${shown(recorded)}, but the stack is now configured for ` +
      `${shown(current)} and the engine runs this ${op} with the current config, so it would reach the other portal ` +
      `with this portal's id; nothing was sent. Set backup-portal:url and backup-portal:username back to the old ` +
      `portal and run \`pulumi up\` to finish the removals there, then change the config; if the object is already ` +
      `gone or was moved to the new portal, drop it from the state with \`pulumi state delete '<urn>'\` (the URN shown ` +
      `with this error).`,
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
