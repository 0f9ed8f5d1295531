// Test support: an emulator on loopback and clients for its seeded accounts.
import { startEmulator as startAnyEmulator, DEFAULT_READINGS, type Emulator, type EmulatorOptions, type Readings } from "../../emulator";
import { parseArgs as parseEmulatorArgs } from "../../emulator/main";
import { PortalClient } from "../../provider/portal";
import { PortalSettings } from "../../provider/portal/settings";

export const ORIGIN = "http://localhost";

/** The environment variable that picks the reading every test emulator answers in (scripts/test-modes.js sets it). */
export const READINGS_ENV = "BACKUP_PORTAL_EMULATOR_READINGS";

/**
 * The readings of `npm run emulator`'s reading flags (`--put-replaces --audit-dates time`), parsed by the
 * emulator's own parser; any other flag is an error, so a typo cannot silently test the default reading.
 */
export function readingsOfFlags(flags: string | undefined): Partial<Readings> {
  const argv = (flags ?? "").split(/\s+/).filter(Boolean);
  let opts: EmulatorOptions;
  try {
    opts = parseEmulatorArgs(argv);
  } catch (err) {
    throw new Error(`${READINGS_ENV}="${flags}": ${(err as Error).message}`);
  }
  const other = Object.keys(opts).filter((k) => !(k in DEFAULT_READINGS));
  if (other.length > 0) throw new Error(`${READINGS_ENV} takes only the emulator's reading flags, not ${other.join(", ")}`);
  return opts;
}

/** The reading this test run's emulators answer in (the default reading when the variable is unset). */
export const RUN_READINGS: Readings = { ...DEFAULT_READINGS, ...readingsOfFlags(process.env[READINGS_ENV]) };

/**
 * An emulator answering in this run's reading. A test that needs one reading names it in `opts`, which wins
 * (test/portal/readings.test.ts and the resources' put-replaces test do).
 */
export function startEmulator(opts: EmulatorOptions = {}): Promise<Emulator> {
  return startAnyEmulator({ ...RUN_READINGS, ...opts });
}

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

/** A stack's `backup-portal:*` config for the portal at `url` (the emulator's accounts use their name as password). */
export function stackConfigFor(url: string, user = "admin", extra: Record<string, string> = {}): Record<string, string> {
  return {
    "backup-portal:url": url,
    "backup-portal:origin": ORIGIN,
    "backup-portal:clientId": "emulator",
    "backup-portal:username": user,
    "backup-portal:password": user,
    ...extra,
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

export type { Emulator };
