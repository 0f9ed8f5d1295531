// user_data as text. cloud-init accepts it gzip-compressed (OpenStack limits user data to 64 KiB, so large
// cloud-configs are often gzipped) and decompresses it before use; so does this reader, bounded.
import * as zlib from "zlib";
import { MAX_DECOMPRESSED_USER_DATA_BYTES } from "./limits";
import { MetadataError } from "./types";

/** The text of user_data as read from `location`: gunzipped when it starts with gzip's magic bytes. */
export function userDataText(bytes: Buffer, location: string): string {
  if (bytes.length < 2 || bytes[0] !== 0x1f || bytes[1] !== 0x8b) return bytes.toString("utf8");
  try {
    return zlib.gunzipSync(bytes, { maxOutputLength: MAX_DECOMPRESSED_USER_DATA_BYTES }).toString("utf8");
  } catch (err) {
    throw new MetadataError(
      "invalid",
      location,
      `user_data at ${location} is gzip-compressed but does not decompress (${(err as Error).message}); check the user data the instance was launched with`,
    );
  }
}
