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
import { DEFAULT_VERSION, fetchMetadataText, fetchUserData, listMetadataVersions, NetworkOptions } from "./network";
import { MetadataError, MetadataResult } from "./types";
import { parseMetadataDocument, resultOf } from "./validate";
import { newestKnownVersion } from "./versions";

export * from "./types";
export { parseMetadataDocument } from "./validate";
export {
  DEFAULT_ATTEMPTS,
  DEFAULT_BACKOFF_MS,
  DEFAULT_MAX_RETRY_AFTER_MS,
  DEFAULT_METADATA_URL,
  DEFAULT_PLATFORM,
  DEFAULT_TIMEOUT_MS,
  DEFAULT_VERSION,
  fetchMetadataText,
  fetchUserData,
  listMetadataVersions,
  metadataUrl,
  RETRYABLE_STATUSES,
} from "./network";
export { parseRetryAfter } from "../http/retry-after";
export type { NetworkOptions } from "./network";
export {
  CONFIG_DRIVE_LABELS,
  CONFIG_DRIVE_TYPES,
  discoverConfigDrive,
  findConfigDriveDevices,
  findMountPoint,
  isPartition,
  readConfigDriveDevice,
  readConfigDriveDirectory,
  readConfigDriveImage,
  readConfigDrivePath,
} from "./config-drive";
export type { ConfigDriveOptions, DriveCandidate } from "./config-drive";
export { createCommandRunner, defaultCommandRunner } from "./runner";
export type { CommandResult, CommandRunner } from "./runner";
export { IsoFileTooLargeError, openIsoImage, readIsoFile } from "./iso9660";
export { MAX_DECOMPRESSED_USER_DATA_BYTES, MAX_METADATA_BYTES, MAX_USER_DATA_BYTES, MAX_VERSIONS_BYTES } from "./limits";
export { KNOWN_VERSIONS, LATEST_VERSION, newestKnownVersion } from "./versions";
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

/**
 * The version to read when `latest/meta_data.json` answered 404 (`notFound`): the newest dated version the
 * reader knows from the service's list (as cloud-init). Throws `notFound`, with why, when there is none.
 */
async function fallbackVersion(opts: NetworkOptions, notFound: MetadataError): Promise<string> {
  let offered: string[];
  try {
    offered = await listMetadataVersions(opts);
  } catch (err) {
    throw new MetadataError(
      "http",
      notFound.location,
      `${notFound.message}; the versions list could not be read either: ${(err as Error).message}`,
      { status: notFound.status, attempts: notFound.attempts, cause: err },
    );
  }
  const dated = newestKnownVersion(offered);
  if (dated === undefined) {
    throw new MetadataError(
      "http",
      notFound.location,
      `${notFound.message}; the versions list offers ${offered.length} version${offered.length === 1 ? "" : "s"}, none of them one the reader knows`,
      { status: notFound.status, attempts: notFound.attempts, cause: notFound },
    );
  }
  opts.log?.(`${notFound.location} is missing; using version ${dated}, the newest the service lists that the reader knows`);
  return dated;
}

/**
 * Reads meta_data.json and user_data from the network service: under `latest`, or when that answers 404
 * and no version was given, under the newest dated version listed at <url>/<platform> that the reader knows.
 */
export async function readNetworkMetadata(opts: NetworkOptions & { userData?: boolean } = {}): Promise<MetadataResult> {
  let version = opts.version ?? DEFAULT_VERSION;
  let fetched: { url: string; text: string };
  try {
    fetched = await fetchMetadataText({ ...opts, version });
  } catch (err) {
    if (opts.version !== undefined || !(err instanceof MetadataError) || err.status !== 404) throw err;
    version = await fallbackVersion(opts, err);
    fetched = await fetchMetadataText({ ...opts, version });
  }
  const parsed = parseMetadataDocument(fetched.text, fetched.url);
  const userData = opts.userData === false ? null : await fetchUserData({ ...opts, version });
  return resultOf("network", fetched.url, version, parsed, userData);
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
    throw new MetadataError("unavailable", "", `no instance metadata: no usable config drive and the network source is disabled${why}`, {
      causes: failures,
    });
  }
  try {
    return await readNetworkMetadata(opts);
  } catch (err) {
    if (failures.length === 0) throw err;
    const error = err instanceof Error ? err : new Error(String(err));
    throw new MetadataError(
      "unavailable",
      error instanceof MetadataError ? error.location : "",
      `no instance metadata: config drive candidates failed (${failures.map((f) => f.message).join("; ")}); network: ${error.message}`,
      { causes: [...failures, error], cause: error },
    );
  }
}
