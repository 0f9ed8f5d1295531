// Test support: an emulator on loopback and clients for its seeded accounts.
import { startEmulator, Emulator } from "../../emulator";
import { PortalClient } from "../../provider/portal";
import { PortalSettings } from "../../provider/portal/settings";

export const ORIGIN = "http://localhost";

export function settingsFor(emu: Emulator, user: "admin" | "tenant" = "admin", extra: Partial<PortalSettings> = {}): PortalSettings {
  return {
    url: emu.url,
    origin: ORIGIN,
    clientId: "emulator",
    username: user,
    password: user,
    retryBaseMs: 20,
    retryMaxMs: 500,
    timeoutMs: 5000,
    ...extra,
  };
}

export function clientFor(emu: Emulator, user: "admin" | "tenant" = "admin", extra: Partial<PortalSettings> = {}): PortalClient {
  return new PortalClient(settingsFor(emu, user, extra));
}

/** The BACKUP_PORTAL_* environment for a process that talks to the emulator. */
export function envFor(emu: Emulator, user: "admin" | "tenant" = "admin"): Record<string, string> {
  return {
    BACKUP_PORTAL_URL: emu.url,
    BACKUP_PORTAL_ORIGIN: ORIGIN,
    BACKUP_PORTAL_CLIENT_ID: "emulator",
    BACKUP_PORTAL_USERNAME: user,
    BACKUP_PORTAL_PASSWORD: user,
  };
}

/** Requests in the emulator's log that change something. */
export function writes(emu: Emulator): Array<{ method: string; path: string; status: number }> {
  return emu.requests().filter((r) => r.method !== "GET" && r.path !== "/v1/oauth");
}

/**
 * Registers the hooks of a suite that runs against one emulator: started once,
 * reset before each test with a fresh admin client.
 */
export function clientSuite() {
  let emu: Emulator | undefined;
  let client: PortalClient | undefined;
  before(async () => {
    emu = await startEmulator({ port: 0, quiet: true });
  });
  after(async () => {
    await emu?.close();
  });
  beforeEach(() => {
    emu!.reset();
    client = clientFor(emu!);
  });
  afterEach(() => client?.close());
  return {
    get emu(): Emulator {
      return emu!;
    },
    get client(): PortalClient {
      return client!;
    },
    /** Replaces the emulator (for a test that needs other options, such as short-lived tokens). */
    async restart(opts: { tokenTtlSeconds?: number }): Promise<Emulator> {
      await emu?.close();
      emu = await startEmulator({ port: 0, quiet: true, ...opts });
      return emu;
    },
  };
}

export { startEmulator, Emulator };
