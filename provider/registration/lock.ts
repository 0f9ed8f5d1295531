// An exclusive lock file, so that two `backup-portal register` runs at the same time (cloud-init and a
// person, two cron jobs...) never register the same instance twice: created with O_EXCL, removed when the
// run ends. A run that finds it waits a bounded time, then gives up naming the file (a run that was
// killed leaves it behind: remove it by hand). A run stopped by a signal does not reach its `finally`:
// its signal handler calls releaseHeldLocks() before it exits.
//
//   const lock = await acquireLock(defaultLockFile(2), { waitMs: 120_000 });
//   try { ... } finally { lock.release(); }
import { randomBytes } from "crypto";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";

/** How long a run waits for another one's lock by default, ms. */
export const DEFAULT_LOCK_WAIT_MS = 120_000;
const POLL_MS = 100;

/** `/run` when this process may write there (emptied at boot, so no stale lock survives a reboot), else os.tmpdir(). */
export function defaultLockDir(): string {
  try {
    fs.accessSync("/run", fs.constants.W_OK);
    return "/run";
  } catch {
    return os.tmpdir();
  }
}

/** The lock file of the registrations into one business unit: `<dir>/backup-portal-register-bunit-<id>.lock`. */
export function defaultLockFile(businessUnitId: number, dir = defaultLockDir()): string {
  return path.join(dir, `backup-portal-register-bunit-${businessUnitId}.lock`);
}

/** Another run held the lock for the whole wait. */
export class LockBusyError extends Error {
  constructor(
    readonly file: string,
    readonly holder: string | undefined,
    readonly waitedMs: number,
  ) {
    super(`lock file ${file} is held${holder ? ` by ${holder}` : ""}`);
    this.name = "LockBusyError";
  }
}

export interface HeldLock {
  readonly file: string;
  /** Removes the lock file if it is still this run's; never throws. */
  release(): void;
}

const sleep = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));

/** The lock files this process holds, with the content that proves them its own. */
const held = new Map<string, string>();

/** Who holds the lock, as its file says (first line, bounded), if it can be read. */
function holderOf(file: string): string | undefined {
  try {
    const text = fs.readFileSync(file, "utf8").split("\n")[0].trim().slice(0, 200);
    return text || undefined;
  } catch {
    return undefined;
  }
}

/**
 * Creates `file` exclusively, waiting up to `waitMs` (polling) while another run holds it.
 * Throws LockBusyError after the wait, the file system's error when the file cannot be created
 * (no such directory, no permission), RangeError for a bad `waitMs`.
 */
export async function acquireLock(
  file: string,
  opts: { waitMs?: number; onWait?: (holder: string | undefined) => void } = {},
): Promise<HeldLock> {
  const waitMs = opts.waitMs ?? DEFAULT_LOCK_WAIT_MS;
  if (!Number.isFinite(waitMs) || waitMs < 0) throw new RangeError(`lock wait must be a number of ms >= 0, got ${waitMs}`);
  const content = `pid ${process.pid} on ${os.hostname()} since ${new Date().toISOString()} (${randomBytes(6).toString("hex")})\n`;
  const started = Date.now();
  let announced = false;
  for (;;) {
    let fd: number | undefined;
    try {
      fd = fs.openSync(file, "wx", 0o600);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
    if (fd !== undefined) {
      try {
        fs.writeSync(fd, content);
      } catch (err) {
        fs.closeSync(fd);
        fs.rmSync(file, { force: true });
        throw err;
      }
      fs.closeSync(fd);
      held.set(file, content);
      return { file, release: () => release(file, content) };
    }
    const holder = holderOf(file);
    const left = started + waitMs - Date.now();
    if (left <= 0) throw new LockBusyError(file, holder, Date.now() - started);
    if (!announced) {
      announced = true;
      opts.onWait?.(holder);
    }
    await sleep(Math.min(POLL_MS, left));
  }
}

/**
 * Releases every lock this process holds; synchronous, never throws. For a signal handler: the run's `finally`
 * never runs when the process exits from one.
 */
export function releaseHeldLocks(): void {
  for (const [file, content] of [...held]) release(file, content);
}

/** Removes the lock only when it still holds this run's content (it may have been removed by hand and taken since). */
function release(file: string, content: string): void {
  if (held.get(file) === content) held.delete(file);
  try {
    if (fs.readFileSync(file, "utf8") === content) fs.rmSync(file, { force: true });
  } catch {
    // gone already, or unreadable: nothing of ours to remove
  }
}
