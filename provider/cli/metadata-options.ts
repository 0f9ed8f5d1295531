// The metadata reader's options, shared by `backup-portal metadata` and `backup-portal register`.
import {
  DEFAULT_ATTEMPTS,
  DEFAULT_DEADLINE_MS,
  DEFAULT_METADATA_URL,
  DEFAULT_PLATFORM,
  DEFAULT_TIMEOUT_MS,
  DEFAULT_VERSION,
  metadataUrl,
  ReadMetadataOptions,
} from "../metadata";
import { definedOnly, existingPath, OptionSpecs, UsageError, Values } from "./args";

/** The reader's options as `backup-portal metadata` declares them; register lists them under `group`. */
export function metadataOptionSpecs(group?: string): OptionSpecs {
  const specs: OptionSpecs = {
    url: { kind: "url", value: "base", description: "metadata service base URL", default: DEFAULT_METADATA_URL },
    platform: { kind: "string", value: "name", description: "platform path segment", default: DEFAULT_PLATFORM },
    "api-version": {
      kind: "string",
      value: "v",
      description: `version path segment (default ${DEFAULT_VERSION}, then the newest known dated version when latest is missing)`,
    },
    "config-drive": {
      kind: "string",
      value: "path",
      description: "read this config drive only: a directory (mount point), an ISO 9660 image file or a block device",
    },
    "no-config-drive": { kind: "flag", description: "do not search block devices for a config drive" },
    "no-network": { kind: "flag", description: "do not use the network service" },
    timeout: { kind: "int", min: 1, value: "ms", description: "timeout of each metadata request", default: DEFAULT_TIMEOUT_MS },
    attempts: { kind: "int", min: 1, description: "attempts per metadata request", default: DEFAULT_ATTEMPTS },
    deadline: {
      kind: "int",
      min: 1,
      value: "ms",
      description:
        "give up the whole network read after this long, retries and Retry-After waits included " +
        "(default: twice cloud-init's worst case for one document, so a slow boot still reads and a Retry-After of an hour does not hold it)",
      default: DEFAULT_DEADLINE_MS,
    },
  };
  return group === undefined ? specs : Object.fromEntries(Object.entries(specs).map(([name, s]) => [name, { ...s, group }]));
}

/** The reader's names for its options, as the command line spells them. */
const FLAGS: Record<string, string> = {
  platform: "--platform",
  version: "--api-version",
  timeoutMs: "--timeout",
  attempts: "--attempts",
  deadlineMs: "--deadline",
};

/**
 * The reader's options from the values read, checked by the reader's own rules: a bad one is a
 * UsageError (exit 2), never a failure to read.
 */
export function metadataOptions(v: Values): ReadMetadataOptions {
  if (typeof v["config-drive"] === "string") existingPath("--config-drive", v["config-drive"]);
  const o: ReadMetadataOptions = definedOnly({
    url: v.url as string | undefined,
    platform: v.platform as string | undefined,
    version: v["api-version"] as string | undefined,
    configDrive: v["config-drive"] as string | undefined,
    timeoutMs: v.timeout as number | undefined,
    attempts: v.attempts as number | undefined,
    deadlineMs: v.deadline as number | undefined,
    ...(v["no-config-drive"] ? { discoverConfigDrive: false } : {}),
    ...(v["no-network"] ? { network: false } : {}),
  });
  try {
    metadataUrl(o);
  } catch (err) {
    if (!(err instanceof RangeError)) throw err;
    throw new UsageError(err.message.replace(/^\w+/, (name) => FLAGS[name] ?? name));
  }
  return o;
}
