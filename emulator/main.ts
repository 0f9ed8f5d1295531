// `npm run emulator -- --port <port> [--data <file>] [--token-ttl <seconds>] [--quiet]` and the readings
// (`--put-replaces`, `--audit-dates`, `--jobs-list`, `--spname`, `--node-delete`, `--refresh`, `--go-client-reads`: emulator/readings.ts).
// Starts the emulator on 127.0.0.1 and prints
// `portal emulator listening on http://127.0.0.1:<port>` and the seed's credentials; SIGINT/SIGTERM close it.
import { startEmulator, type EmulatorOptions } from "./index";
import { portHolder, portInUseLine } from "./port-holder";
import { READING_VALUES } from "./readings";
import { SEED } from "./seed";

const USAGE =
  "usage: npm run emulator -- --port <port> [--data <file>] [--token-ttl <seconds>] [--quiet]\n" +
  "  readings: [--put-replaces] [--audit-dates time|date|both] [--jobs-list first|jobs|both] [--spname bare|json]\n" +
  "            [--node-delete node|empty|204] [--refresh allowed|refused|none] [--go-client-reads served|absent]";

/** The reading flags that take one of a few values, and the option each sets. */
const READING_FLAGS = {
  "--audit-dates": "auditDates",
  "--jobs-list": "jobsList",
  "--spname": "spname",
  "--node-delete": "nodeDelete",
  "--refresh": "refresh",
  "--go-client-reads": "goClientReads",
} as const;

/** Every flag of the command line (docs/emulator.md shows each in its usage). */
export const EMULATOR_FLAGS = ["--port", "--data", "--token-ttl", "--quiet", "--put-replaces", ...Object.keys(READING_FLAGS)];

export function parseArgs(argv: string[]): EmulatorOptions {
  const opts: EmulatorOptions = {};
  const int = (flag: string, v: string | undefined, min: number, max: number): number => {
    if (v === undefined || !/^\d+$/.test(v) || Number(v) < min || Number(v) > max) {
      throw new Error(`${flag} needs an integer from ${min} to ${max}`);
    }
    return Number(v);
  };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].startsWith("--") && argv[i].includes("=") ? argv[i].split(/=(.*)/s, 2) : [argv[i], undefined];
    const value = (): string | undefined => inline ?? argv[++i];
    switch (flag) {
      case "--port":
        opts.port = int("--port", value(), 0, 65535);
        break;
      case "--data": {
        const v = value();
        if (!v) throw new Error("--data needs a file name");
        opts.dataFile = v;
        break;
      }
      case "--token-ttl":
        opts.tokenTtlSeconds = int("--token-ttl", value(), 1, 86_400 * 365);
        break;
      case "--quiet":
        opts.quiet = true;
        break;
      case "--put-replaces":
        opts.putReplaces = true;
        break;
      case "--help":
      case "-h":
        throw new Error("help");
      default: {
        const key = READING_FLAGS[flag as keyof typeof READING_FLAGS];
        if (!key) throw new Error(`unknown argument "${argv[i]}"`);
        const v = value();
        const allowed: readonly string[] = READING_VALUES[key];
        if (v === undefined || !allowed.includes(v)) throw new Error(`${flag} needs one of ${allowed.join(", ")}`);
        (opts as Record<string, unknown>)[key] = v;
      }
    }
  }
  return opts;
}

/** What to log in with (the seed's client and accounts), as shell lines setting the variables the CLI reads. */
export function credentialsText(url: string): string {
  const { emulator } = SEED.clients;
  const { admin, tenant } = SEED.users;
  return [
    "log in with (the seed's accounts; a stack takes the same as backup-portal:url, origin, clientId, username, password):",
    `  export BACKUP_PORTAL_URL=${url} BACKUP_PORTAL_ORIGIN=${emulator.origin} BACKUP_PORTAL_CLIENT_ID=${emulator.clientId}`,
    `  export BACKUP_PORTAL_USERNAME=${admin.username} BACKUP_PORTAL_PASSWORD=${admin.password}` +
      `   # business unit ${admin.businessUnitId} and below; or ${tenant.username} / ${tenant.password}: business unit ${tenant.businessUnitId} only`,
  ].join("\n");
}

async function main(): Promise<void> {
  let opts: EmulatorOptions;
  try {
    opts = parseArgs(process.argv.slice(2));
  } catch (err) {
    const msg = (err as Error).message;
    if (msg === "help") {
      console.log(USAGE);
      return;
    }
    console.error(`portal emulator: ${msg}\n${USAGE}`);
    process.exitCode = 2;
    return;
  }
  let emulator;
  try {
    emulator = await startEmulator(opts);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EADDRINUSE" || opts.port === undefined) throw err;
    const holder = (await portHolder(opts.port)) ?? { text: "another program" };
    console.error(`portal emulator: ${portInUseLine(opts.port, holder, ", or give another --port (--port 0 takes a free one)")}`);
    process.exitCode = 1;
    return;
  }
  console.log(`portal emulator listening on ${emulator.url}`);
  console.log(credentialsText(emulator.url));
  let closing = false;
  const stop = (): void => {
    if (closing) return;
    closing = true;
    emulator.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

if (require.main === module) {
  main().catch((err: unknown) => {
    console.error(`portal emulator: ${(err as Error)?.message ?? String(err)}`);
    process.exit(1);
  });
}
