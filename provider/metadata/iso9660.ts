// A small read-only ISO 9660 reader, so a config drive image (or an iso9660
// block device) can be read without mounting it. Enough for config drives:
// the primary volume with Rock Ridge names (genisoimage -R/-r), Joliet names
// (-J), or plain ISO names matched case-insensitively. Single-extent files
// only; every walk is bounded.
import * as fs from "fs";

const SECTOR = 2048;
const MAX_DESCRIPTORS = 64;
const MAX_DIR_BYTES = 16 * 1024 * 1024;
const MAX_FILE_BYTES = 64 * 1024 * 1024;
const MAX_CONTINUATIONS = 16;
const MAX_DEPTH = 32;

interface DirRecord {
  extent: number;
  size: number;
  isDir: boolean;
  /** Name as the tree spells it (Rock Ridge NM, Joliet, or ISO without ";1"). */
  name: string;
  /** True when `name` is a plain ISO name (compare case-insensitively). */
  isoName: boolean;
}

export interface IsoImage {
  /** Volume identifier, e.g. `config-2`. */
  readonly label: string;
  /**
   * Contents of the file at `path` ("/openstack/latest/meta_data.json"), or null when there is none.
   * A file larger than `maxBytes` (default 64 MiB) throws IsoFileTooLargeError before it is read.
   */
  readFile(path: string, maxBytes?: number): Buffer | null;
  /** Names in the directory at `path` ("/openstack"), or null when there is no such directory. */
  listDirectory(path: string): string[] | null;
  close(): void;
}

class IsoFormatError extends Error {}

/** A file in the image is larger than the cap its reader gave. */
export class IsoFileTooLargeError extends Error {
  constructor(
    readonly path: string,
    readonly size: number,
    readonly maxBytes: number,
  ) {
    super(`${path} is ${size} bytes, larger than the cap of ${maxBytes} bytes`);
    this.name = "IsoFileTooLargeError";
  }
}

/** Opens an ISO 9660 image file or device. Throws when it is not ISO 9660. */
export function openIsoImage(file: string): IsoImage {
  const fd = fs.openSync(file, "r");
  try {
    return new Reader(fd, file);
  } catch (err) {
    fs.closeSync(fd);
    throw err;
  }
}

/** Reads one file from an image: open, read, close. Null when the file is not in the image. */
export function readIsoFile(image: string, path: string): Buffer | null {
  const iso = openIsoImage(image);
  try {
    return iso.readFile(path);
  } finally {
    iso.close();
  }
}

class Reader implements IsoImage {
  readonly label: string;
  private readonly blockSize: number;
  private readonly pvdRoot: DirRecord;
  private readonly jolietRoot?: DirRecord;
  private closed = false;

  constructor(
    private readonly fd: number,
    private readonly file: string,
  ) {
    let pvd: Buffer | undefined;
    let joliet: Buffer | undefined;
    for (let i = 0; i < MAX_DESCRIPTORS; i++) {
      const vd = this.read((16 + i) * SECTOR, SECTOR);
      if (vd.length < SECTOR || vd.toString("latin1", 1, 6) !== "CD001") {
        if (i === 0) throw new IsoFormatError(`${file} is not an ISO 9660 image (no volume descriptor at sector 16)`);
        break;
      }
      const type = vd[0];
      if (type === 255) break;
      if (type === 1 && !pvd) pvd = vd;
      if (type === 2 && !joliet) {
        const escapes = vd.toString("latin1", 88, 120);
        if (escapes.includes("%/@") || escapes.includes("%/C") || escapes.includes("%/E")) joliet = vd;
      }
    }
    if (!pvd) throw new IsoFormatError(`${file} is not an ISO 9660 image (no primary volume descriptor)`);
    this.blockSize = pvd.readUInt16LE(128) || SECTOR;
    this.label = pvd.toString("latin1", 40, 72).trim();
    this.pvdRoot = rootRecord(pvd);
    if (joliet) this.jolietRoot = rootRecord(joliet);
  }

  close(): void {
    if (!this.closed) {
      this.closed = true;
      fs.closeSync(this.fd);
    }
  }

  readFile(path: string, maxBytes = MAX_FILE_BYTES): Buffer | null {
    const parts = path.split("/").filter((p) => p !== "" && p !== ".");
    if (parts.length === 0 || parts.length > MAX_DEPTH) return null;
    for (const [root, joliet] of this.roots()) {
      const rec = this.lookup(root, parts, joliet);
      if (rec && !rec.isDir) {
        if (rec.size > Math.min(maxBytes, MAX_FILE_BYTES))
          throw new IsoFileTooLargeError(path, rec.size, Math.min(maxBytes, MAX_FILE_BYTES));
        return this.read(rec.extent * this.blockSize, rec.size);
      }
    }
    return null;
  }

  listDirectory(path: string): string[] | null {
    const parts = path.split("/").filter((p) => p !== "" && p !== ".");
    if (parts.length > MAX_DEPTH) return null;
    for (const [root, joliet] of this.roots()) {
      const rec = this.lookup(root, parts, joliet);
      if (rec && rec.isDir) return this.list(rec, joliet).map((e) => e.name);
    }
    return null;
  }

  /** The primary tree, then the Joliet one (when there is one), each with its name encoding. */
  private roots(): Array<[DirRecord, boolean]> {
    return this.jolietRoot
      ? [
          [this.pvdRoot, false],
          [this.jolietRoot, true],
        ]
      : [[this.pvdRoot, false]];
  }

  private lookup(root: DirRecord, parts: string[], joliet: boolean): DirRecord | null {
    let dir = root;
    for (let i = 0; i < parts.length; i++) {
      if (!dir.isDir) return null;
      const want = parts[i];
      const entries = this.list(dir, joliet);
      const found = entries.find((e) => e.name === want) ?? entries.find((e) => e.isoName && e.name.toLowerCase() === want.toLowerCase());
      if (!found) return null;
      dir = found;
    }
    return dir;
  }

  private list(dir: DirRecord, joliet: boolean): DirRecord[] {
    if (dir.size > MAX_DIR_BYTES) throw new IsoFormatError(`${this.file}: directory too large`);
    const data = this.read(dir.extent * this.blockSize, dir.size);
    const out: DirRecord[] = [];
    let pos = 0;
    while (pos < data.length) {
      const len = data[pos];
      if (len === 0) {
        // records do not cross sectors: the rest of this one is padding
        pos = (Math.floor(pos / SECTOR) + 1) * SECTOR;
        continue;
      }
      if (len < 34 || pos + len > data.length) break;
      const rec = this.parseRecord(data, pos, joliet);
      if (rec) out.push(rec);
      pos += len;
    }
    return out;
  }

  /** A directory record at `off`; null for "." and "..". */
  private parseRecord(buf: Buffer, off: number, joliet: boolean): DirRecord | null {
    const len = buf[off];
    const extent = buf.readUInt32LE(off + 2);
    const size = buf.readUInt32LE(off + 10);
    const isDir = (buf[off + 25] & 0x02) !== 0;
    const idLen = buf[off + 32];
    const id = buf.subarray(off + 33, off + 33 + idLen);
    const special = idLen === 1 && (id[0] === 0 || id[0] === 1);
    if (special) return null;
    if (joliet) {
      // UCS-2 big-endian; an odd length (a broken record) must not break the directory: decode the even part.
      const swapped = Buffer.from(id.subarray(0, idLen - (idLen % 2)));
      swapped.swap16();
      return { extent, size, isDir, name: stripVersion(swapped.toString("utf16le"), false), isoName: false };
    }
    const suStart = off + 33 + idLen + (idLen % 2 === 0 ? 1 : 0);
    const rrName = suStart < off + len ? this.rockRidgeName(buf.subarray(suStart, off + len)) : undefined;
    if (rrName !== undefined) return { extent, size, isDir, name: rrName, isoName: false };
    return { extent, size, isDir, name: stripVersion(id.toString("latin1"), isDir), isoName: true };
  }

  /** The Rock Ridge NM name in a system use area (following CE continuations), if any. */
  private rockRidgeName(area: Buffer): string | undefined {
    let name: string | undefined;
    let current: Buffer | undefined = area;
    for (let hop = 0; current && hop <= MAX_CONTINUATIONS; hop++) {
      const su: Buffer = current;
      current = undefined;
      let p = 0;
      while (p + 4 <= su.length) {
        const sig = su.toString("latin1", p, p + 2);
        const len = su[p + 2];
        if (len < 4 || p + len > su.length) break;
        if (sig === "NM" && len >= 5) {
          const flags = su[p + 4];
          if ((flags & 0x06) === 0) name = (name ?? "") + su.toString("utf8", p + 5, p + len);
        } else if (sig === "CE" && len >= 28) {
          const block = su.readUInt32LE(p + 4);
          const offset = su.readUInt32LE(p + 12);
          const length = su.readUInt32LE(p + 20);
          if (length > 0 && length <= SECTOR) current = this.read(block * this.blockSize + offset, length);
        } else if (sig === "ST") {
          break;
        }
        p += len;
      }
    }
    return name;
  }

  private read(position: number, length: number): Buffer {
    const buf = Buffer.alloc(length);
    let done = 0;
    while (done < length) {
      const n = fs.readSync(this.fd, buf, done, length - done, position + done);
      if (n === 0) break;
      done += n;
    }
    return done === length ? buf : buf.subarray(0, done);
  }
}

/** The root directory record embedded at offset 156 of a volume descriptor. */
function rootRecord(vd: Buffer): DirRecord {
  return { extent: vd.readUInt32LE(156 + 2), size: vd.readUInt32LE(156 + 10), isDir: true, name: "", isoName: false };
}

function stripVersion(name: string, isDir: boolean): string {
  if (isDir) return name;
  const semi = name.lastIndexOf(";");
  const base = semi >= 0 ? name.slice(0, semi) : name;
  return base.endsWith(".") ? base.slice(0, -1) : base;
}

/** True when `file` starts like an ISO 9660 volume. */
export function isIsoImage(file: string): boolean {
  try {
    openIsoImage(file).close();
    return true;
  } catch {
    return false;
  }
}
