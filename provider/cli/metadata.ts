// `backup-portal metadata`: prints what the instance metadata reader finds, as JSON.
import {
  DEFAULT_ATTEMPTS,
  DEFAULT_DEADLINE_MS,
  DEFAULT_TIMEOUT_MS,
  MetadataError,
  metadataUrl,
  readInstanceMetadata,
  ReadMetadataOptions,
} from "../metadata";
import { maskUrl } from "../http/mask-url";
import { CommandIo, CommandSpec, processIo, runCommand, Values } from "./args";
import { metadataOptions, metadataOptionSpecs } from "./metadata-options";
import { failureText } from "./failure";
import { formatJson, terminalIo, waitNotice } from "./output";

export const COMMAND: CommandSpec = {
  label: "backup-portal metadata",
  usage: ["backup-portal metadata [options]"],
  about: `Reads this instance's metadata (meta_data.json, and user_data with --user-data)
and prints it as JSON: {source, location, version, disabled, metadata[, userData]}.
version is latest, or when latest is missing the newest dated version known to
the reader; disabled is true when meta.dsmode is "disabled" (cloud-init's off
switch for the source; said on stderr too, and register refuses to run).
Sources in order: the config drive (--config-drive, else block devices labelled
config-2 or whole disks of type iso9660/vfat), then the network service. With no
answer after 3 seconds, it says on stderr what it waits for and for how long at
most (--deadline), then every 10 seconds how long it has waited.`,
  options: {
    ...metadataOptionSpecs(),
    "user-data": { kind: "flag", description: "also print user_data (null when there is none)" },
    raw: { kind: "flag", description: 'print meta_data.json with its own field names as "raw"' },
    verbose: { kind: "flag", short: "v", description: "report each step on stderr" },
  },
  epilog: "exit codes: 0 found, 1 no metadata (reason on stderr), 2 bad arguments",
};

export type CliIo = CommandIo;

/** What the read waits for: the config drive search, then the service (its URL and per-request bounds). */
function waitingFor(o: ReadMetadataOptions): string {
  const service =
    `the metadata service at ${maskUrl(metadataUrl(o))} (each request up to ${(o.timeoutMs ?? DEFAULT_TIMEOUT_MS) / 1000} s, ` +
    `${o.attempts ?? DEFAULT_ATTEMPTS} attempts)`;
  return o.discoverConfigDrive === false ? service : `a config drive, then ${service}`;
}

interface Parsed {
  userData: boolean;
  raw: boolean;
  verbose: boolean;
  options: ReadMetadataOptions;
}

function prepare(v: Values): Parsed {
  return { userData: v["user-data"] === true, raw: v.raw === true, verbose: v.verbose === true, options: metadataOptions(v) };
}

export function run(argv: string[], given: CliIo = processIo): Promise<number> {
  const io = terminalIo(given);
  return runCommand(COMMAND, argv, io, prepare, async (parsed) => {
    let last: string | undefined;
    const options: ReadMetadataOptions = {
      ...parsed.options,
      userData: parsed.userData,
      log: (message) => {
        last = message;
        if (parsed.verbose) io.err(`metadata: ${message}\n`);
      },
    };
    // A service that does not answer is waited for up to --deadline (130 s by default): said while it lasts.
    const stopNotice =
      options.configDrive === undefined && options.network !== false
        ? waitNotice(io, COMMAND.label, {
            what: waitingFor(options),
            atMostMs: options.deadlineMs ?? DEFAULT_DEADLINE_MS,
            status: () => last,
          })
        : () => undefined;
    try {
      const found = await readInstanceMetadata(options);
      const output: Record<string, unknown> = {
        source: found.source,
        location: found.location,
        version: found.version,
        disabled: found.disabled,
        metadata: found.metadata,
      };
      if (found.disabled)
        io.err(
          `backup-portal metadata: warning: meta.dsmode is "disabled" at ${found.location}: cloud-init does not use this source, and register refuses to run\n`,
        );
      for (const warning of found.warnings) io.err(`backup-portal metadata: warning: ${warning}\n`);
      if (parsed.raw) output.raw = found.raw;
      if (parsed.userData) output.userData = found.userData;
      io.out(formatJson(output));
      return 0;
    } catch (err) {
      io.err(failureText("backup-portal metadata", err));
      if (err instanceof MetadataError && err.kind === "timeout") {
        io.err("hint: not on an instance, or the service is unreachable from here; try --config-drive or a larger --timeout\n");
      }
      return 1; // bad arguments were refused (exit 2) before reading
    } finally {
      stopNotice();
    }
  });
}
