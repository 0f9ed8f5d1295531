// The portal connection of one provider host process: every resource type
// shares one authenticated client, configured from stack config (the
// provider's `configure`) with the BACKUP_PORTAL_* environment as fallback.
import { PortalClient } from "../portal/client";
import { isLoginRefused } from "../portal/login";
import { resolveSettings } from "../portal/settings";
import type { HintContext } from "../portal/hints";
import { portalOf } from "./portal-guard";

interface ConfigLike {
  get(key: string): string | undefined;
}

let config: ConfigLike | undefined;
let client: PortalClient | undefined;
let hints: HintContext | undefined;

/**
 * Called by each provider's `configure` with the stack config. Synchronous: see the host's configure race.
 * `keys`: how the errors' hints name the settings (the plugin's are under its own namespace); the stack's by default.
 */
export function configure(c: ConfigLike, keys?: HintContext): void {
  config = c;
  hints = keys;
}

export function portal(): PortalClient {
  if (!client) {
    client = new PortalClient(
      { ...resolveSettings((key) => config?.get(key)), ...(hints ? { hintContext: hints } : {}) },
      {
        // Retries are worth seeing in the engine's log; lines never hold a secret.
        log: (line) => console.error(`backup-portal: ${line}`),
      },
    );
  }
  return client;
}

/** The portal and account this process is configured for, as resources record it (portal-guard.ts). */
export function currentPortal(): string {
  return portalOf(resolveSettings((key) => config?.get(key)));
}

/** Whether this run takes over objects an interrupted create left (see recovery.ts). */
export function recoverInterruptedCreates(): boolean {
  const v = config?.get("backup-portal:recoverInterruptedCreates") ?? process.env.BACKUP_PORTAL_RECOVER_INTERRUPTED;
  return v === "true" || v === "1";
}

/** Forgets the client (tests that point one process at another portal). */
export function resetConnection(): void {
  client?.close();
  client = undefined;
  config = undefined;
  hints = undefined;
}

/**
 * What to run when the portal refuses the login. The engine configures refresh and destroy with the stack
 * config stored in state at the last `pulumi up`, not the current one: credentials rotated since then are
 * not seen by them until an up stores the new ones (or the command runs the program: `--run-program`).
 */
export const ROTATED_CREDENTIALS_HINT =
  "If the credentials were changed in the stack config after the last `pulumi up`: `pulumi refresh` and `pulumi destroy` " +
  "still use the ones stored then. Run `pulumi up` first, or add `--run-program` to the refresh or destroy.";

/** The lifecycle with the rotated-credentials hint added to a refused login, whichever method met it. */
export function withLoginHint<T extends Record<string, (...args: any[]) => Promise<any>>>(methods: T): T {
  const out: Record<string, (...args: any[]) => Promise<any>> = {};
  for (const [name, method] of Object.entries(methods)) {
    out[name] = (...args) =>
      method(...args).catch((e: unknown) => {
        if (isLoginRefused(e)) e.message = `${e.message}. ${ROTATED_CREDENTIALS_HINT}`;
        throw e;
      });
  }
  return out as T;
}
