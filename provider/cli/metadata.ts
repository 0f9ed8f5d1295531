// `backup-portal metadata`: prints what the instance metadata reader finds, as JSON.
import {
  DEFAULT_ATTEMPTS, DEFAULT_METADATA_URL, DEFAULT_PLATFORM, DEFAULT_TIMEOUT_MS, DEFAULT_VERSION,
  MetadataError, readInstanceMetadata, ReadMetadataOptions,
} from "../metadata";

export const USAGE = `usage: backup-portal metadata [options]

Reads this instance's metadata (meta_data.json, and user_data with --user-data)
and prints it as JSON: {source, location, metadata[, userData]}.
Sources in order: the config drive (--config-drive, else block devices labelled
config-2 or whole disks of type iso9660/vfat), then the network service.

options:
  --url <base>            metadata service base URL (default ${DEFAULT_METADATA_URL})
  --platform <name>       platform path segment (default ${DEFAULT_PLATFORM})
  --api-version <v>       version path segment (default ${DEFAULT_VERSION})
  --config-drive <path>   read this config drive only: a directory (mount point),
                          an ISO 9660 image file or a block device
  --no-config-drive       do not search block devices for a config drive
  --no-network            do not use the network service
  --user-data             also print user_data (null when there is none)
  --raw                   print meta_data.json with its own field names as "raw"
  --timeout <ms>          timeout of each request (default ${DEFAULT_TIMEOUT_MS})
  --attempts <n>          attempts per request (default ${DEFAULT_ATTEMPTS})
  --verbose               report each step on stderr
  -h, --help              show this help

exit codes: 0 found, 1 no metadata (reason on stderr), 2 bad arguments`;

export interface CliIo {
  out(text: string): void;
  err(text: string): void;
}

const processIo: CliIo = {
  out: (text) => { process.stdout.write(text); },
  err: (text) => { process.stderr.write(text); },
};

class UsageError extends Error {}

interface Parsed {
  help: boolean;
  userData: boolean;
  raw: boolean;
  verbose: boolean;
  options: ReadMetadataOptions;
}

function parseArgs(argv: string[]): Parsed {
  const parsed: Parsed = { help: false, userData: false, raw: false, verbose: false, options: {} };
  const o = parsed.options;
  const integer = (flag: string, text: string, min: number): number => {
    if (!/^\d+$/.test(text) || Number(text) < min) throw new UsageError(`${flag} needs an integer >= ${min}, got ${JSON.stringify(text)}`);
    return Number(text);
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const eq = arg.startsWith("--") ? arg.indexOf("=") : -1;
    const flag = eq > 0 ? arg.slice(0, eq) : arg;
    const inline = eq > 0 ? arg.slice(eq + 1) : undefined;
    const value = (): string => {
      if (inline !== undefined) return inline;
      const next = argv[i + 1];
      if (next === undefined || next.startsWith("--")) throw new UsageError(`${flag} needs a value`);
      i++;
      return next;
    };
    const noValue = (): void => {
      if (inline !== undefined) throw new UsageError(`${flag} takes no value`);
    };
    switch (flag) {
      case "-h": case "--help": parsed.help = true; break;
      case "--url": o.url = value(); break;
      case "--platform": o.platform = value(); break;
      case "--api-version": o.version = value(); break;
      case "--config-drive": o.configDrive = value(); break;
      case "--no-config-drive": noValue(); o.discoverConfigDrive = false; break;
      case "--no-network": noValue(); o.network = false; break;
      case "--user-data": noValue(); parsed.userData = true; break;
      case "--raw": noValue(); parsed.raw = true; break;
      case "--verbose": case "-v": noValue(); parsed.verbose = true; break;
      case "--timeout": o.timeoutMs = integer(flag, value(), 1); break;
      case "--attempts": o.attempts = integer(flag, value(), 1); break;
      default: throw new UsageError(`unknown option ${JSON.stringify(arg)}`);
    }
  }
  if (o.url !== undefined) {
    try {
      const u = new URL(o.url);
      if (u.protocol !== "http:" && u.protocol !== "https:") throw new Error();
    } catch {
      throw new UsageError(`--url needs an http(s) URL, got ${JSON.stringify(o.url)}`);
    }
  }
  return parsed;
}

export async function run(argv: string[], io: CliIo = processIo): Promise<number> {
  let parsed: Parsed;
  try {
    parsed = parseArgs(argv);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    io.err(`backup-portal metadata: ${err.message}\n\n${USAGE}\n`);
    return 2;
  }
  if (parsed.help) {
    io.out(`${USAGE}\n`);
    return 0;
  }
  const options: ReadMetadataOptions = {
    ...parsed.options,
    userData: parsed.userData,
    log: parsed.verbose ? (message) => io.err(`metadata: ${message}\n`) : undefined,
  };
  try {
    const found = await readInstanceMetadata(options);
    const output: Record<string, unknown> = { source: found.source, location: found.location, metadata: found.metadata };
    if (parsed.raw) output.raw = found.raw;
    if (parsed.userData) output.userData = found.userData;
    io.out(`${JSON.stringify(output, null, 2)}\n`);
    return 0;
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    io.err(`backup-portal metadata: ${message}\n`);
    if (err instanceof MetadataError && err.kind === "timeout") {
      io.err("hint: not on an instance, or the service is unreachable from here; try --config-drive or a larger --timeout\n");
    }
    return err instanceof RangeError ? 2 : 1;
  }
}
