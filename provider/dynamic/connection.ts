// The portal connection of one provider host process: every resource type
// shares one authenticated client, configured from stack config (the
// provider's `configure`) with the BACKUP_PORTAL_* environment as fallback.
import { PortalClient } from "../portal/client";
import { resolveSettings } from "../portal/settings";

interface ConfigLike {
  get(key: string): string | undefined;
}

let config: ConfigLike | undefined;
let client: PortalClient | undefined;

/** Called by each provider's `configure` with the stack config. Synchronous: see the host's configure race. */
export function configure(c: ConfigLike): void {
  config = c;
}

export function portal(): PortalClient {
  if (!client) {
    client = new PortalClient(resolveSettings((key) => config?.get(key)), {
      // Retries are worth seeing in the engine's log; lines never hold a secret.
      log: (line) => console.error(`backup-portal: ${line}`),
    });
  }
  return client;
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
}
