// Types of the instance metadata reader (spec 001 part A, section 2).

/** Where the metadata came from. */
export type MetadataSource = "config-drive" | "network";

/** One entry of `keys` in meta_data.json. */
export interface MetadataKey {
  name: string;
  /** `ssh` for key pairs; kept as given. */
  type: string;
  /** The public key. */
  data: string;
}

/** meta_data.json with camelCase field names and defaults for what Nova leaves out. */
export interface InstanceMetadata {
  uuid: string;
  /** `""` when the document has no `name`. */
  name: string;
  /** `""` when the document has no `hostname`. */
  hostname: string;
  launchIndex?: number;
  availabilityZone?: string;
  projectId?: string;
  /**
   * Key name → public key, when `public_keys` is a map (Nova's form; a name holding a list has its keys joined by
   * newlines); `{}` when no key pair was given or `public_keys` is a list.
   */
  publicKeys: Record<string, string>;
  /**
   * Every public key, whatever form `public_keys` took (a map, a list, or one string of lines), empty entries dropped:
   * cloud-init's `normalize_pubkey_data` (cloudinit/sources/__init__.py).
   */
  sshKeys: string[];
  /** `[]` when no key pair was given. */
  keys: MetadataKey[];
  /** Element shape not fixed by the spec; kept as given. `[]` when absent. */
  devices: unknown[];
  /** Element shape not fixed by the spec; kept as given. `[]` when absent. */
  dedicatedCpus: unknown[];
  /**
   * Custom metadata; `{}` when `meta` is absent or null. Nova serves strings only; a number or boolean (which
   * cloud-init keeps, no type check) is turned into text as cloud-init's Python does: `str()` (`True`, `12`).
   */
  meta: Record<string, string>;
  /**
   * `meta.dsmode` when set: cloud-init's switch for the source (`local`, `net`, `pass`, `disabled`).
   * `disabled` means cloud-init does not use this metadata; the reader still returns it, and `register` refuses it.
   */
  dsmode?: string;
}

/** What {@link readInstanceMetadata} returns. */
export interface MetadataResult {
  source: MetadataSource;
  /** URL of meta_data.json (network), or the file / `image!path` / `device (mount point)` it was read from. */
  location: string;
  metadata: InstanceMetadata;
  /** The parsed meta_data.json as served, with its original field names. */
  raw: Record<string, unknown>;
  /** user_data as UTF-8 text; null when the instance has none (404 / no file). */
  userData: string | null;
  /** The version path segment read: `latest`, or the newest known dated version when `latest` is missing. */
  version: string;
  /** True when `meta.dsmode` is `disabled` (cloud-init turns the source off). */
  disabled: boolean;
  /**
   * What was passed over without failing the read, one line each: an optional document (user_data) that answered an
   * error or timed out and is treated as absent, a broken `latest` replaced by a dated version. Printed as warnings.
   */
  warnings: string[];
}

export type MetadataErrorKind =
  | "timeout" // a request did not answer in time (after all attempts)
  | "connection" // a request could not connect (after all attempts)
  | "http" // a status >= 400 (404 included), not retried or retried to exhaustion
  | "invalid" // meta_data.json was read but is not a valid document (or user_data does not decompress)
  | "not-found" // a config drive path / file does not exist
  | "io" // a local read failed
  | "too-large" // a document or the user data is larger than the reader's cap (limits.ts)
  | "unsafe" // a config drive file is a symlink that leads out of the drive
  | "unavailable"; // no source could be used; `causes` has why

/** Every failure of the reader is one of these; the message names the source and what is wrong. */
export class MetadataError extends Error {
  readonly kind: MetadataErrorKind;
  /** URL or file the error is about. */
  readonly location: string;
  /** HTTP status of the last answer, for kind "http". */
  readonly status?: number;
  /** Requests made, for network errors. */
  readonly attempts?: number;
  /** For kind "unavailable": what each source tried said. */
  readonly causes: Error[];
  /** True when the overall deadline (or a Retry-After beyond it) ended the attempts: nothing more is tried. */
  readonly deadlineReached: boolean;

  constructor(
    kind: MetadataErrorKind,
    location: string,
    message: string,
    extra: { status?: number; attempts?: number; causes?: Error[]; cause?: unknown; deadlineReached?: boolean } = {},
  ) {
    super(message, extra.cause === undefined ? undefined : { cause: extra.cause });
    this.name = "MetadataError";
    this.kind = kind;
    this.location = location;
    if (extra.status !== undefined) this.status = extra.status;
    if (extra.attempts !== undefined) this.attempts = extra.attempts;
    this.causes = extra.causes ?? [];
    this.deadlineReached = extra.deadlineReached === true;
  }
}
