// Size caps of what the reader takes from any source (network answers, files of a config drive directory or
// image), checked before the bytes are held in memory: a source that is broken or hostile must not make the
// reader allocate without bound.
import { MetadataError } from "./types";

/**
 * meta_data.json. Nova's document stays far below this: 128 `meta` items of at most 255 + 255 characters,
 * a few keys and devices.
 */
export const MAX_METADATA_BYTES = 1024 * 1024;
/**
 * user_data as served (compressed or not). Nova refuses user data above 65535 bytes (a limit on its base64
 * form, so the bytes served are fewer), for the network service and the config drive alike.
 */
export const MAX_USER_DATA_BYTES = 65535;
/** What a gzip-compressed user_data may expand to. */
export const MAX_DECOMPRESSED_USER_DATA_BYTES = 16 * 1024 * 1024;
/** The versions list at `<url>/<platform>` (a few dozen short lines). */
export const MAX_VERSIONS_BYTES = 64 * 1024;

/** The error for `what` at `location` being larger than `max` bytes (`size` when known). Never quotes content. */
export function tooLarge(what: string, location: string, max: number, size?: number): MetadataError {
  const got = size === undefined ? "more than that" : `${size} bytes`;
  return new MetadataError(
    "too-large",
    location,
    `${what} at ${location} is larger than the reader's cap of ${max} bytes (${got}); refused`,
  );
}
