// `backup-portal metadata`: prints what the instance metadata reader finds, as JSON.
import {
  DEFAULT_ATTEMPTS, DEFAULT_METADATA_URL, DEFAULT_PLATFORM, DEFAULT_TIMEOUT_MS, DEFAULT_VERSION,
  MetadataError, readInstanceMetadata, ReadMetadataOptions,
} from "../metadata";
import { CommandIo, parseArgv, processIo, runCommand, unknownOption } from "./args";
import { checkMetadataOptions, metadataOption } from "./metadata-options";

export const USAGE = `usage: backup-portal metadata [options]

Reads this instance's metadata (meta_data.json, and user_data with --user-data)
and prints it as JSON: {source, location, version, disabled, metadata[, userData]}.
version is latest, or when latest is missing the newest dated version known to
the reader; disabled is true when meta.dsmode is "disabled" (cloud-init's off
switch for the source; said on stderr too, and register refuses to run).
Sources in order: the config drive (--config-drive, else block devices labelled
config-2 or whole disks of type iso9660/vfat), then the network service.

options:
  --url <base>            metadata service base URL (default ${DEFAULT_METADATA_URL})
  --platform <name>       platform path segment (default ${DEFAULT_PLATFORM})
  --api-version <v>       version path segment (default ${DEFAULT_VERSION}, then the
                          newest known dated version when latest is missing)
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

export type CliIo = CommandIo;

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
  parseArgv(argv, (a) => {
    switch (a.flag) {
      case "-h": case "--help": parsed.help = true; break;
      case "--user-data": a.noValue(); parsed.userData = true; break;
      case "--raw": a.noValue(); parsed.raw = true; break;
      case "--verbose": case "-v": a.noValue(); parsed.verbose = true; break;
      default: if (!metadataOption(a, o)) throw unknownOption(a.arg);
    }
  });
  checkMetadataOptions(o);
  return parsed;
}

export function run(argv: string[], io: CliIo = processIo): Promise<number> {
  return runCommand("backup-portal metadata", USAGE, argv, io, parseArgs, async (parsed) => {
    const options: ReadMetadataOptions = {
      ...parsed.options,
      userData: parsed.userData,
      log: parsed.verbose ? (message) => io.err(`metadata: ${message}\n`) : undefined,
    };
    try {
      const found = await readInstanceMetadata(options);
      const output: Record<string, unknown> = {
        source: found.source, location: found.location, version: found.version, disabled: found.disabled, metadata: found.metadata,
      };
      if (found.disabled) io.err(`backup-portal metadata: warning: meta.dsmode is "disabled" at ${found.location}: cloud-init does not use this source, and register refuses to run\n`);
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
      return 1; // bad arguments were refused (exit 2) before reading
    }
  });
}
