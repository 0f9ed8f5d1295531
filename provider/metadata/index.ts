// Instance metadata reader (spec 001 part A), usable without Pulumi.
//
//   const found = await readInstanceMetadata();
//   found.source            // "config-drive" | "network"
//   found.metadata.meta     // custom metadata, {} when none
//   found.userData          // string | null
//
// Sources in order: an explicit config drive path (no fallback when it fails);
// else block devices that look like a config drive; else the network service.
import { ConfigDriveOptions, discoverConfigDrive, readConfigDrivePath } from "./config-drive";
import { fetchMetadataText, fetchUserData, NetworkOptions } from "./network";
import { MetadataError, MetadataResult } from "./types";
import { parseMetadataDocument } from "./validate";

export * from "./types";
export { parseMetadataDocument } from "./validate";
export {
  DEFAULT_ATTEMPTS, DEFAULT_BACKOFF_MS, DEFAULT_MAX_RETRY_AFTER_MS, DEFAULT_METADATA_URL, DEFAULT_PLATFORM,
  DEFAULT_TIMEOUT_MS, DEFAULT_VERSION, fetchMetadataText, fetchUserData, listMetadataVersions, metadataUrl,
  parseRetryAfter, RETRYABLE_STATUSES,
} from "./network";
export type { NetworkOptions } from "./network";
export {
  CONFIG_DRIVE_LABELS, CONFIG_DRIVE_TYPES, discoverConfigDrive, findConfigDriveDevices, findMountPoint, isPartition, readConfigDriveDevice, readConfigDriveDirectory,
  readConfigDriveImage, readConfigDrivePath,
} from "./config-drive";
export type { ConfigDriveOptions, DriveCandidate } from "./config-drive";
export { createCommandRunner, defaultCommandRunner } from "./runner";
export type { CommandResult, CommandRunner } from "./runner";
export { openIsoImage, readIsoFile } from "./iso9660";
export type { IsoImage } from "./iso9660";

export interface ReadMetadataOptions extends NetworkOptions, ConfigDriveOptions {
  /**
   * A config drive to read instead of searching: a directory (mount point),
   * an ISO 9660 image file, or a block device. When given, it is the only
   * drive tried, and a failure is an error (no fallback to the network).
   */
  configDrive?: string;
  /** Search block devices for a config drive (needs blkid, mount, root). Default true. */
  discoverConfigDrive?: boolean;
  /** Use the network service when no config drive is found. Default true. */
  network?: boolean;
}

/** Reads meta_data.json and user_data from the network service. */
export async function readNetworkMetadata(opts: NetworkOptions & { userData?: boolean } = {}): Promise<MetadataResult> {
  const { url, text } = await fetchMetadataText(opts);
  const { metadata, raw } = parseMetadataDocument(text, url);
  const userData = opts.userData === false ? null : await fetchUserData(opts);
  return { source: "network", location: url, metadata, raw, userData };
}

/**
 * Reads the instance metadata: the config drive first when there is one,
 * then the network service. Throws MetadataError naming the source and the
 * problem; kind "unavailable" (with `causes`) when several sources failed or
 * none was allowed.
 */
export async function readInstanceMetadata(opts: ReadMetadataOptions = {}): Promise<MetadataResult> {
  if (opts.configDrive !== undefined) return readConfigDrivePath(opts.configDrive, opts);

  const failures: Error[] = [];
  if (opts.discoverConfigDrive !== false) {
    const found = await discoverConfigDrive(opts, failures);
    if (found) return found;
  }
  if (opts.network === false) {
    const why = failures.length ? `; passed over: ${failures.map((f) => f.message).join("; ")}` : "";
    throw new MetadataError("unavailable", "", `no instance metadata: no usable config drive and the network source is disabled${why}`, { causes: failures });
  }
  try {
    return await readNetworkMetadata(opts);
  } catch (err) {
    if (failures.length === 0) throw err;
    const error = err instanceof Error ? err : new Error(String(err));
    throw new MetadataError("unavailable", error instanceof MetadataError ? error.location : "",
      `no instance metadata: config drive candidates failed (${failures.map((f) => f.message).join("; ")}); network: ${error.message}`,
      { causes: [...failures, error], cause: error });
  }
}
