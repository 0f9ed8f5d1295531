// The config drive: a directory (a mount point), an ISO 9660 image file, or
// block devices found by label `config-2`/`CONFIG-2` or filesystem type
// iso9660/vfat, mounted read-only to a temp dir and unmounted afterwards.
// Discovery follows cloud-init's DataSourceConfigDrive: label matches first,
// a type-only match must be a whole disk, a failing device moves on.
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { IsoFileTooLargeError, isIsoImage, openIsoImage } from "./iso9660";
import { MAX_METADATA_BYTES, MAX_USER_DATA_BYTES, tooLarge } from "./limits";
import { DEFAULT_PLATFORM, DEFAULT_VERSION } from "./network";
import { CommandRunner, defaultCommandRunner } from "./runner";
import { MetadataError, MetadataResult } from "./types";
import { parseMetadataDocument, resultOf } from "./validate";
import { userDataText } from "./user-data";
import { knownVersionsNewestFirst } from "./versions";

export const CONFIG_DRIVE_LABELS = ["config-2", "CONFIG-2"] as const;
export const CONFIG_DRIVE_TYPES = ["iso9660", "vfat"] as const;

export interface ConfigDriveOptions {
  /** Platform path segment. Default `openstack`. */
  platform?: string;
  /**
   * Version path segment. Default `latest`, or when the drive has no `latest/meta_data.json`, the newest dated
   * folder under `<platform>/` that the reader knows (as cloud-init). A version given here has no fallback.
   */
  version?: string;
  /** Read user_data too (default true); when false `userData` is null. */
  userData?: boolean;
  /** Runs blkid, lsblk, mount and umount. Default: child_process.execFile. */
  runner?: CommandRunner;
  /** Where partitions are told from disks when lsblk fails. Default `/sys/class/block`. */
  sysBlockDir?: string;
  /** Where existing mounts are looked up. Default `/proc/mounts`. */
  procMounts?: string;
  /** Parent of the temporary mount points. Default os.tmpdir(). */
  tmpDir?: string;
  /**
   * When mounting a device fails (no permission, no iso9660 module), read it
   * directly if it is ISO 9660. Default true.
   */
  isoFallback?: boolean;
  log?: (message: string) => void;
}

export interface DriveCandidate {
  device: string;
  /** How it was found: by label (may be a partition) or by filesystem type only (whole disks only). */
  match: "label" | "type";
}

function layout(opts: ConfigDriveOptions): { platform: string; version: string } {
  return { platform: opts.platform ?? DEFAULT_PLATFORM, version: opts.version ?? DEFAULT_VERSION };
}

function notADrive(location: string, what: string): MetadataError {
  return new MetadataError("not-found", location, `config drive ${location}: ${what}`);
}

/**
 * The real path of `<root>/<segments>`, or null when it does not exist. A path that leads out of the drive
 * (a symlink to /etc/shadow, to `..`) is refused: only what is on the drive is read.
 */
function insideDrive(root: string, rootReal: string, segments: string[]): string | null {
  const target = path.join(root, ...segments);
  let real: string;
  try {
    real = fs.realpathSync(target);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return null;
    throw new MetadataError("io", target, `config drive: cannot resolve ${target}: ${(err as Error).message}`, { cause: err });
  }
  if (real !== rootReal && !real.startsWith(rootReal.endsWith(path.sep) ? rootReal : rootReal + path.sep)) {
    throw new MetadataError("unsafe", target, `config drive: ${target} leads out of the drive ${root} (a symbolic link); refused`);
  }
  return real;
}

/**
 * Reads the regular file `<root>/<segments>` (inside the drive, see insideDrive), refusing one larger than
 * `maxBytes` before reading it. Null when it does not exist.
 */
function readDriveFile(root: string, rootReal: string, segments: string[], what: string, maxBytes: number): Buffer | null {
  const file = path.join(root, ...segments);
  const real = insideDrive(root, rootReal, segments);
  if (real === null) return null;
  let fd: number;
  try {
    // O_NOFOLLOW: the resolved path must not have become a symlink since; O_NONBLOCK: a FIFO does not block the open.
    fd = fs.openSync(real, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
  } catch (err) {
    throw new MetadataError("io", file, `config drive: cannot read ${file}: ${(err as Error).message}`, { cause: err });
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) throw new MetadataError("invalid", file, `config drive: ${file} is not a regular file`);
    if (st.size > maxBytes) throw tooLarge(what, file, maxBytes, st.size);
    // Read at most maxBytes + 1: a file that grows meanwhile is still refused, not read without bound.
    const buf = Buffer.alloc(Math.min(st.size, maxBytes) + 1);
    let got = 0;
    for (let n = -1; n !== 0 && got < buf.length;) {
      n = fs.readSync(fd, buf, got, buf.length - got, got);
      got += n;
    }
    if (got > maxBytes) throw tooLarge(what, file, maxBytes);
    return buf.subarray(0, got);
  } catch (err) {
    if (err instanceof MetadataError) throw err;
    throw new MetadataError("io", file, `config drive: cannot read ${file}: ${(err as Error).message}`, { cause: err });
  } finally {
    fs.closeSync(fd);
  }
}

/** Names of the entries of `<root>/<platform>` (inside the drive), or [] when there is no such directory. */
function driveVersions(root: string, rootReal: string, platform: string): string[] {
  const real = insideDrive(root, rootReal, [platform]);
  if (real === null) return [];
  try {
    return fs.readdirSync(real);
  } catch {
    return [];
  }
}

/**
 * Reads a config drive laid out under directory `dir` (a mount point). Files are read only inside `dir`
 * (a symlink out of it is refused) and within the caps of limits.ts.
 */
export function readConfigDriveDirectory(dir: string, opts: ConfigDriveOptions = {}): MetadataResult {
  const { platform } = layout(opts);
  let st: fs.Stats;
  try {
    st = fs.statSync(dir);
  } catch {
    throw notADrive(dir, "no such directory");
  }
  if (!st.isDirectory()) throw notADrive(dir, "not a directory");
  const rootReal = fs.realpathSync(dir);
  const read = readLayout({
    opts,
    platform,
    metaAt: (v) => readDriveFile(dir, rootReal, [platform, v, "meta_data.json"], "meta_data.json", MAX_METADATA_BYTES),
    metaLocation: (v) => path.join(dir, platform, v, "meta_data.json"),
    versions: () => driveVersions(dir, rootReal, platform),
    userAt: (v) => readDriveFile(dir, rootReal, [platform, v, "user_data"], "user_data", MAX_USER_DATA_BYTES),
    userLocation: (v) => path.join(dir, platform, v, "user_data"),
    where: dir,
    missing: (v) =>
      notADrive(
        path.join(dir, platform, v, "meta_data.json"),
        `no ${platform}/${v}/meta_data.json in ${dir}${opts.version === undefined ? " (nor a dated version the reader knows)" : ""}`,
      ),
  });
  return resultOf("config-drive", read.location, read.version, read.parsed, read.userData, read.warnings);
}

interface Layout {
  opts: ConfigDriveOptions;
  platform: string;
  /** meta_data.json of a version, null when it is not there. */
  metaAt: (version: string) => Buffer | null;
  metaLocation: (version: string) => string;
  /** The entries under <platform>/. */
  versions: () => string[];
  userAt: (version: string) => Buffer | null;
  userLocation: (version: string) => string;
  /** The drive, for messages. */
  where: string;
  /** The error for a missing meta_data.json of `version` (the one asked for, or latest). */
  missing: (version: string) => MetadataError;
}

/**
 * The version to read on a drive and what it holds: `latest` (or the version asked for); when `latest` is missing
 * or its meta_data.json is not a valid document and no version was asked for, the dated folders the reader knows,
 * newest first, the first valid one winning (as over the network; cloud-init reads the newest known folder). Only
 * meta_data.json is required: a user_data that cannot be read (EIO) is absent, with a warning (helpers/openstack.py
 * `read_v2`, optional files).
 */
function readLayout(l: Layout): {
  version: string;
  location: string;
  parsed: ReturnType<typeof parseMetadataDocument>;
  userData: string | null;
  warnings: string[];
} {
  const log = l.opts.log ?? (() => undefined);
  const warnings: string[] = [];
  const attempt = (v: string): ReturnType<typeof parseMetadataDocument> | null => {
    const meta = l.metaAt(v);
    return meta === null ? null : parseMetadataDocument(meta.toString("utf8"), l.metaLocation(v));
  };
  const first = layout(l.opts).version;
  let version = first;
  let parsed: ReturnType<typeof parseMetadataDocument> | null = null;
  let broken: MetadataError | undefined;
  try {
    parsed = attempt(first);
  } catch (err) {
    if (!(err instanceof MetadataError) || err.kind !== "invalid" || l.opts.version !== undefined) throw err;
    broken = err;
  }
  if (parsed === null && l.opts.version === undefined) {
    const passed: string[] = [];
    for (const dated of knownVersionsNewestFirst(l.versions())) {
      try {
        parsed = attempt(dated);
      } catch (err) {
        if (!(err instanceof MetadataError) || err.kind !== "invalid") throw err;
        passed.push(`version ${dated} passed over: ${err.message}`);
        continue;
      }
      if (parsed === null) continue;
      version = dated;
      const note = broken
        ? `${broken.message}; using ${l.platform}/${dated} instead, the newest version on the drive the reader knows that reads`
        : `config drive ${l.where}: no ${l.platform}/${first}/meta_data.json; using ${l.platform}/${dated}, the newest version the reader knows`;
      log(note);
      if (broken) warnings.push(note);
      warnings.push(...passed);
      break;
    }
    if (parsed === null && broken) {
      throw new MetadataError(
        "invalid",
        broken.location,
        `${broken.message}; no dated version on the drive read either${passed.length ? ` (${passed.join("; ")})` : ""}`,
      );
    }
  }
  if (parsed === null) throw l.missing(first);
  let userData: string | null = null;
  if (l.opts.userData !== false) {
    let bytes: Buffer | null = null;
    try {
      bytes = l.userAt(version);
    } catch (err) {
      if (!(err instanceof MetadataError) || err.kind !== "io") throw err;
      const warning = `user_data treated as absent (only meta_data.json is required, as for cloud-init): ${err.message}`;
      log(warning);
      warnings.push(warning);
    }
    if (bytes) userData = userDataText(bytes, l.userLocation(version));
  }
  return { version, location: l.metaLocation(version), parsed, userData, warnings };
}

/** Reads a config drive from an ISO 9660 image file (or iso9660 device) without mounting it. */
export function readConfigDriveImage(image: string, opts: ConfigDriveOptions = {}): MetadataResult {
  const { platform } = layout(opts);
  let iso;
  try {
    iso = openIsoImage(image);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT") throw notADrive(image, "no such file");
    throw new MetadataError("io", image, `config drive ${image}: ${(err as Error).message}`, { cause: err });
  }
  // Any other failure of a read (a broken directory or file record, EIO) is a MetadataError naming the image.
  const readFile = (file: string, what: string, maxBytes: number): Buffer | null => {
    try {
      return iso.readFile(file, maxBytes);
    } catch (err) {
      if (err instanceof IsoFileTooLargeError) throw tooLarge(what, `${image}:${file}`, err.maxBytes, err.size);
      throw new MetadataError(
        "io",
        `${image}:${file}`,
        `config drive ${image}: cannot read ${file.slice(1)} from the image: ${(err as Error).message}`,
        { cause: err },
      );
    }
  };
  try {
    const read = readLayout({
      opts,
      platform,
      metaAt: (v) => readFile(`/${platform}/${v}/meta_data.json`, "meta_data.json", MAX_METADATA_BYTES),
      metaLocation: (v) => `${image}:/${platform}/${v}/meta_data.json`,
      versions: () => iso.listDirectory(`/${platform}`) ?? [],
      userAt: (v) => readFile(`/${platform}/${v}/user_data`, "user_data", MAX_USER_DATA_BYTES),
      userLocation: (v) => `${image}:/${platform}/${v}/user_data`,
      where: image,
      missing: (v) =>
        notADrive(
          `${image}:/${platform}/${v}/meta_data.json`,
          `no ${platform}/${v}/meta_data.json in the image (label ${JSON.stringify(iso.label)})`,
        ),
    });
    return resultOf("config-drive", read.location, read.version, read.parsed, read.userData, read.warnings);
  } finally {
    iso.close();
  }
}

/** Reads an explicitly given config drive: a directory, or an ISO 9660 image file / block device. */
export async function readConfigDrivePath(target: string, opts: ConfigDriveOptions = {}): Promise<MetadataResult> {
  let st: fs.Stats;
  try {
    st = fs.statSync(target);
  } catch {
    throw notADrive(target, "no such file or directory");
  }
  if (st.isDirectory()) return readConfigDriveDirectory(target, opts);
  if (st.isBlockDevice()) return readConfigDriveDevice(target, opts);
  if (st.isFile()) return readConfigDriveImage(target, opts);
  throw notADrive(target, "not a directory, image file or block device");
}

function lines(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== "");
}

async function blkid(runner: CommandRunner, token: string, log: (m: string) => void): Promise<string[]> {
  // `-c /dev/null`: no blkid cache, probe the devices now (as cloud-init does).
  const res = await runner("blkid", ["-c", "/dev/null", "-t", token, "-o", "device"]);
  if (res.code === 0) return lines(res.stdout);
  // 2: nothing matched. Anything else (not installed, no permission) is worth a note.
  const stderr = res.stderr.replace(/\s+/g, " ").trim();
  if (res.code !== 2) log(`blkid -t ${token}: exit ${res.code}${stderr ? `: ${stderr}` : ""}`);
  return [];
}

/** True when `device` is a partition: lsblk's TYPE, else /sys/class/block/<name>/partition. */
export async function isPartition(device: string, opts: Pick<ConfigDriveOptions, "runner" | "sysBlockDir"> = {}): Promise<boolean> {
  const runner = opts.runner ?? defaultCommandRunner;
  const res = await runner("lsblk", ["-d", "-n", "-o", "TYPE", device]);
  if (res.code === 0) {
    const type = lines(res.stdout)[0];
    if (type) return type === "part";
  }
  let name = path.basename(device);
  try {
    name = path.basename(fs.realpathSync(device));
  } catch {
    // not resolvable here: use the name as given
  }
  return fs.existsSync(path.join(opts.sysBlockDir ?? "/sys/class/block", name, "partition"));
}

/**
 * Block devices that may be a config drive, best first: label matches
 * (`config-2`, `CONFIG-2`), then whole disks with filesystem type iso9660 or
 * vfat. Within each group the last device comes first (vdb before vda).
 */
export async function findConfigDriveDevices(opts: ConfigDriveOptions = {}): Promise<DriveCandidate[]> {
  const runner = opts.runner ?? defaultCommandRunner;
  const log = opts.log ?? (() => undefined);
  const byLabel: string[] = [];
  for (const label of CONFIG_DRIVE_LABELS) byLabel.push(...(await blkid(runner, `LABEL=${label}`, log)));
  const byType: string[] = [];
  for (const type of CONFIG_DRIVE_TYPES) byType.push(...(await blkid(runner, `TYPE=${type}`, log)));
  const desc = (a: string, b: string): number => (a < b ? 1 : a > b ? -1 : 0);
  const labelled = [...new Set(byLabel)].sort(desc);
  const out: DriveCandidate[] = labelled.map((device) => ({ device, match: "label" as const }));
  for (const device of [...new Set(byType)].sort(desc)) {
    if (labelled.includes(device)) continue;
    if (await isPartition(device, opts)) {
      log(`${device}: filesystem type matches but it is a partition; skipped`);
      continue;
    }
    out.push({ device, match: "type" });
  }
  return out;
}

/** Mount point of `device` in /proc/mounts, if it is mounted already. */
export function findMountPoint(device: string, procMounts = "/proc/mounts"): string | undefined {
  let text: string;
  try {
    text = fs.readFileSync(procMounts, "utf8");
  } catch {
    return undefined;
  }
  const unescape = (s: string): string => s.replace(/\\([0-7]{3})/g, (_, oct: string) => String.fromCharCode(parseInt(oct, 8)));
  for (const line of lines(text)) {
    const [dev, mountPoint] = line.split(/\s+/);
    if (dev && mountPoint && unescape(dev) === device) return unescape(mountPoint);
  }
  return undefined;
}

/**
 * Reads a config drive block device: from its existing mount point if it is
 * mounted, else mounted read-only (`mount -o ro`) on a temp dir that is
 * unmounted and removed afterwards.
 */
export async function readConfigDriveDevice(device: string, opts: ConfigDriveOptions = {}): Promise<MetadataResult> {
  const runner = opts.runner ?? defaultCommandRunner;
  const log = opts.log ?? (() => undefined);
  // Read the mounted tree; locations and errors name the device, not the temp dir.
  const readMounted = (root: string): MetadataResult => {
    try {
      const result = readConfigDriveDirectory(root, opts);
      const inner = "/" + path.relative(root, result.location).split(path.sep).join("/");
      return { ...result, location: `${device}:${inner}` };
    } catch (err) {
      if (!(err instanceof MetadataError)) throw err;
      throw new MetadataError(err.kind, device, `${err.message} (config drive ${device} mounted at ${root})`, { cause: err });
    }
  };
  const mounted = findMountPoint(device, opts.procMounts);
  if (mounted) {
    log(`${device}: already mounted at ${mounted}`);
    return readMounted(mounted);
  }
  const mountPoint = fs.mkdtempSync(path.join(opts.tmpDir ?? os.tmpdir(), "config-drive-"));
  let isMounted = false;
  try {
    const res = await runner("mount", ["-o", "ro", device, mountPoint]);
    if (res.code !== 0) {
      const stderr = res.stderr.replace(/\s+/g, " ").trim();
      const why = `mount -o ro failed (exit ${res.code})${stderr ? `: ${stderr}` : ""}`;
      if (opts.isoFallback !== false && isIsoImage(device)) {
        log(`${device}: ${why}; reading it as an ISO 9660 image without mounting`);
        return readConfigDriveImage(device, opts);
      }
      throw new MetadataError("io", device, `config drive ${device}: ${why}`);
    }
    isMounted = true;
    log(`${device}: mounted read-only at ${mountPoint}`);
    return readMounted(mountPoint);
  } finally {
    let removable = true;
    if (isMounted) {
      const un = await runner("umount", [mountPoint]);
      if (un.code !== 0) {
        log(`${device}: umount ${mountPoint} failed (exit ${un.code}): ${un.stderr.replace(/\s+/g, " ").trim()}; trying a lazy unmount`);
        const lazy = await runner("umount", ["-l", mountPoint]);
        removable = lazy.code === 0;
        if (!removable) log(`${device}: could not unmount ${mountPoint}; left in place`);
      }
    }
    if (removable) {
      try {
        fs.rmdirSync(mountPoint);
      } catch (err) {
        log(`${device}: could not remove ${mountPoint}: ${(err as Error).message}`);
      }
    }
  }
}

/**
 * Finds and reads the first usable config drive among the block devices.
 * Returns null when there is none; `failures` collects why candidates were
 * passed over (mount failed, no meta_data.json, broken document).
 */
export async function discoverConfigDrive(opts: ConfigDriveOptions = {}, failures: Error[] = []): Promise<MetadataResult | null> {
  const log = opts.log ?? (() => undefined);
  const candidates = await findConfigDriveDevices(opts);
  if (candidates.length === 0) log("config drive: no candidate block device");
  for (const { device, match } of candidates) {
    try {
      return await readConfigDriveDevice(device, opts);
    } catch (err) {
      const error = err instanceof Error ? err : new Error(String(err));
      log(`config drive: ${device} (${match} match) passed over: ${error.message}`);
      failures.push(error);
    }
  }
  return null;
}
