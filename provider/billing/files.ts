// Billing data on disk: one JSON file per billing period, `<out>/<bunit>/<YYYY-MM-DD>.json`,
// written atomically (temporary file in the same directory, fsync, rename, fsync of the
// directory), so a crash leaves either the old file or the new one, never half a file.
// A period whose content did not change is not rewritten.
import { randomBytes } from "crypto";
import { promises as fsp } from "fs";
import * as path from "path";
import { BillingData } from "../portal/types";

export type FileChange = "created" | "updated" | "unchanged";

export interface WrittenPeriod {
  period: string;
  /** Path relative to the output directory, e.g. `1/2025-01-01.json`. */
  file: string;
  change: FileChange;
}

const PERIOD = /^(\d{4}-\d{2}-\d{2})(?:$|T)/;
const TEMP_SUFFIX = ".tmp";

/** The `YYYY-MM-DD` of a billing data period; undefined when the period is missing or not a date. */
export function periodOf(data: Pick<BillingData, "period"> & { href?: unknown }): string | undefined {
  // The period field, or else the date that ends the entry's href (`.../billing/2025-04-01`), as the
  // portal addresses one period's data; the spec does not show the entries' fields.
  const text =
    typeof data.period === "string"
      ? data.period
      : typeof data.href === "string"
        ? /(\d{4}-\d{2}-\d{2})\/?$/.exec(data.href)?.[1]
        : undefined;
  const m = text ? PERIOD.exec(text) : null;
  if (!m) return undefined;
  const d = new Date(`${m[1]}T00:00:00Z`);
  // Rejects 2025-02-30 and the like: the date must survive a round trip.
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === m[1] ? m[1] : undefined;
}

/** The directory of one business unit's files. */
export function bunitDir(outDir: string, bunitId: number): string {
  if (!Number.isSafeInteger(bunitId) || bunitId < 0)
    throw new RangeError(`business unit id must be a non-negative integer, got ${bunitId}`);
  return path.join(outDir, String(bunitId));
}

/** The file content of a period: the portal's object as pretty JSON with a final newline. */
export function serialize(data: BillingData): string {
  return `${JSON.stringify(data, null, 2)}\n`;
}

async function readIfExists(file: string): Promise<Buffer | undefined> {
  try {
    return await fsp.readFile(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  }
}

async function fsyncDir(dir: string): Promise<void> {
  // Makes the rename durable. Some platforms cannot open a directory for fsync; that is not fatal.
  let handle: fsp.FileHandle | undefined;
  try {
    handle = await fsp.open(dir, "r");
    await handle.sync();
  } catch {
    /* best effort */
  } finally {
    await handle?.close().catch(() => undefined);
  }
}

/** Writes `content` to `file` atomically; the directory must exist. */
export async function writeFileAtomic(file: string, content: string | Buffer): Promise<void> {
  const dir = path.dirname(file);
  const temp = path.join(dir, `.${path.basename(file)}.${process.pid}.${randomBytes(6).toString("hex")}${TEMP_SUFFIX}`);
  const handle = await fsp.open(temp, "wx", 0o644);
  try {
    try {
      await handle.writeFile(content);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await fsp.rename(temp, file);
  } catch (err) {
    await fsp.rm(temp, { force: true }).catch(() => undefined);
    throw err;
  }
  await fsyncDir(dir);
}

/**
 * Writes one period's billing data to `<outDir>/<bunitId>/<period>.json`. Creates the
 * directories; leaves an identical file alone.
 */
export async function writePeriod(outDir: string, bunitId: number, data: BillingData): Promise<WrittenPeriod> {
  const period = periodOf(data);
  if (!period) throw new Error(`billing data without a YYYY-MM-DD period: ${JSON.stringify(data.period)}`);
  const dir = bunitDir(outDir, bunitId);
  await fsp.mkdir(dir, { recursive: true });
  const file = path.join(dir, `${period}.json`);
  const relative = path.join(String(bunitId), `${period}.json`);
  const content = Buffer.from(serialize(data), "utf8");
  const existing = await readIfExists(file);
  if (existing && existing.equals(content)) return { period, file: relative, change: "unchanged" };
  await writeFileAtomic(file, content);
  return { period, file: relative, change: existing ? "updated" : "created" };
}

/** The output directory cannot take the files; `code` is the file system's (ENOTDIR, EACCES, EROFS...). */
export class OutputDirError extends Error {
  constructor(
    readonly outDir: string,
    readonly code: string | undefined,
    cause: unknown,
  ) {
    super(
      `the output directory ${outDir} is not a directory this process can write to ` +
        `(${code ?? (cause instanceof Error ? cause.message : String(cause))}): give another --out`,
    );
    this.name = "OutputDirError";
  }
}

/**
 * Proves that files can be written where `writePeriod` writes them: creates the business unit's directory,
 * then writes, syncs and removes a temporary file in it (named like the atomic writes' temporary files, so a
 * crash leaves nothing `removeStaleTemps` would not remove). Throws OutputDirError.
 */
export async function checkWritable(outDir: string, bunitId: number): Promise<void> {
  const dir = bunitDir(outDir, bunitId);
  const probe = path.join(dir, `.write-check.${process.pid}.${randomBytes(6).toString("hex")}${TEMP_SUFFIX}`);
  try {
    await fsp.mkdir(dir, { recursive: true });
    const handle = await fsp.open(probe, "wx", 0o644);
    try {
      await handle.writeFile("write check\n");
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch (err) {
    throw new OutputDirError(outDir, (err as NodeJS.ErrnoException).code, err);
  } finally {
    await fsp.rm(probe, { force: true }).catch(() => undefined);
  }
}

/** Reads one period's file back; undefined when there is none. */
export async function readPeriod(outDir: string, bunitId: number, period: string): Promise<BillingData | undefined> {
  const buf = await readIfExists(path.join(bunitDir(outDir, bunitId), `${period}.json`));
  return buf ? (JSON.parse(buf.toString("utf8")) as BillingData) : undefined;
}

/** The periods on disk for a business unit, sorted. */
export async function listPeriods(outDir: string, bunitId: number): Promise<string[]> {
  let names: string[];
  try {
    names = await fsp.readdir(bunitDir(outDir, bunitId));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw err;
  }
  return names
    .filter((n) => /^\d{4}-\d{2}-\d{2}\.json$/.test(n))
    .map((n) => n.slice(0, 10))
    .sort();
}

/**
 * Removes temporary files a crash left behind in a business unit's directory (only those
 * older than `olderThanMs`, so a write in progress elsewhere is left alone); returns how many.
 */
export async function removeStaleTemps(outDir: string, bunitId: number, olderThanMs = 60_000): Promise<number> {
  let names: string[];
  try {
    names = await fsp.readdir(bunitDir(outDir, bunitId));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return 0;
    throw err;
  }
  let removed = 0;
  for (const n of names.filter((x) => x.startsWith(".") && x.endsWith(TEMP_SUFFIX))) {
    const file = path.join(bunitDir(outDir, bunitId), n);
    const stat = await fsp.stat(file).catch(() => undefined);
    if (!stat || Date.now() - stat.mtimeMs < olderThanMs) continue;
    await fsp.rm(file, { force: true });
    removed++;
  }
  return removed;
}
