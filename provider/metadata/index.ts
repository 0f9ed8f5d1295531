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
import { DEFAULT_VERSION, fetchMetadataText, fetchUserData, listMetadataVersions, NetworkOptions, withDeadline } from "./network";
import { MetadataError, MetadataResult } from "./types";
import { parseMetadataDocument, resultOf } from "./validate";
import { knownVersionsNewestFirst } from "./versions";

export * from "./types";
export { parseMetadataDocument } from "./validate";
export {
  DEFAULT_ATTEMPTS,
  DEFAULT_BACKOFF_MS,
  DEFAULT_DEADLINE_MS,
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
export { KNOWN_VERSIONS, knownVersionsNewestFirst, LATEST_VERSION, newestKnownVersion } from "./versions";
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
 * True when `latest` is broken in a way a dated version may not be: missing (404), failing on the server's side
 * (5xx after the retries) or not a valid document. Not for a timeout or a refused connection (the service itself
 * is not there) nor a 403 (something else answers on that address).
 */
function latestIsBroken(err: unknown): err is MetadataError {
  if (err instanceof MetadataError && err.deadlineReached) return false; // no time left to try another version
  return (
    err instanceof MetadataError && (err.kind === "invalid" || (err.kind === "http" && (err.status === 404 || (err.status ?? 0) >= 500)))
  );
}

/**
 * `latest` is broken (`broken`): walk the dated versions the service lists that the reader knows, newest first,
 * and read the first whose meta_data.json is a valid document. cloud-init (helpers/openstack.py
 * `_find_working_version`) reads the newest listed version it knows; this reader reads `latest` first (spec 001)
 * and the listed ones after it, each in turn. Throws `broken`, with why, when none can be read.
 */
async function readDatedVersion(
  opts: NetworkOptions,
  broken: MetadataError,
  warnings: string[],
): Promise<{ version: string; url: string; parsed: ReturnType<typeof parseMetadataDocument> }> {
  const fail = (why: string, cause: unknown): never => {
    throw new MetadataError(broken.kind, broken.location, `${broken.message}; ${why}`, {
      status: broken.status,
      attempts: broken.attempts,
      cause,
    });
  };
  let offered: string[] = [];
  try {
    offered = await listMetadataVersions(opts);
  } catch (err) {
    fail(`the versions list could not be read either: ${(err as Error).message}`, err);
  }
  const dated = knownVersionsNewestFirst(offered);
  if (dated.length === 0) {
    fail(`the versions list offers ${offered.length} version${offered.length === 1 ? "" : "s"}, none of them one the reader knows`, broken);
  }
  const passed: string[] = [];
  for (const version of dated) {
    try {
      const fetched = await fetchMetadataText({ ...opts, version });
      const parsed = parseMetadataDocument(fetched.text, fetched.url);
      const warning =
        broken.status === 404
          ? `${broken.location} is missing; using version ${version}, the newest the service lists that the reader knows`
          : `${broken.message}; using version ${version} instead, the newest listed version the reader knows that reads`;
      opts.log?.(warning);
      if (broken.status !== 404) warnings.push(warning);
      warnings.push(...passed);
      return { version, url: fetched.url, parsed };
    } catch (err) {
      if (!latestIsBroken(err)) throw err;
      passed.push(`version ${version} passed over: ${err.message}`);
      opts.log?.(passed[passed.length - 1]);
    }
  }
  return fail(`no dated version read either (${passed.join("; ")})`, broken);
}

/**
 * Reads meta_data.json and user_data from the network service: under `latest`, or when that is broken (missing,
 * a 5xx, not a valid document) and no version was given, under the dated versions listed at <url>/<platform> that
 * the reader knows, newest first. Only meta_data.json is required: a user_data that cannot be read is null, with a
 * warning. The whole read keeps within `deadlineMs`.
 */
export async function readNetworkMetadata(opts: NetworkOptions & { userData?: boolean } = {}): Promise<MetadataResult> {
  opts = withDeadline(opts);
  const warnings: string[] = [];
  let version = opts.version ?? DEFAULT_VERSION;
  let url: string;
  let parsed: ReturnType<typeof parseMetadataDocument>;
  try {
    const fetched = await fetchMetadataText({ ...opts, version });
    url = fetched.url;
    parsed = parseMetadataDocument(fetched.text, fetched.url);
  } catch (err) {
    if (opts.version !== undefined || !latestIsBroken(err)) throw err;
    ({ version, url, parsed } = await readDatedVersion(opts, err, warnings));
  }
  const userData = opts.userData === false ? null : await fetchUserData({ ...opts, version }, warnings);
  return resultOf("network", url, version, parsed, userData, warnings);
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
