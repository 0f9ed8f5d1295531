// Creates that survive a lost answer. The portal allows duplicate names, so a
// create repeated after a dropped connection would make a second object. Each
// create therefore carries a unique tag; when its outcome is unknown the client
// looks for that tag before creating again (with the same tag).
import { randomUUID } from "crypto";
import { PortalError } from "./errors";

/** The prefix of the tags that mark creates; a user's tag must not start with it (rules/fields.ts refuses one). */
export const MARKER_PREFIX = "create-request:";
const PREFIX = MARKER_PREFIX;

export function newMarker(): string {
  return PREFIX + randomUUID();
}

/** A marker derived from a caller's stable key (the same key gives the same marker). */
export function markerFor(key: string): string {
  return PREFIX + key;
}

export function isMarker(tag: unknown): boolean {
  return typeof tag === "string" && tag.startsWith(PREFIX);
}

/** Removes create markers from an object's tags, leaving the user's tags. */
export function withoutMarkers<T extends { tags?: string[] }>(obj: T): T {
  if (!Array.isArray(obj.tags) || !obj.tags.some(isMarker)) return obj;
  const { tags: all, ...rest } = obj;
  const tags = all.filter((t) => !isMarker(t));
  return (tags.length ? { ...rest, tags } : rest) as T;
}

export interface CreateOnceOptions {
  /** Posts at most this often (default 4). */
  attempts?: number;
  /**
   * After a post that timed out, how long to keep looking for its object before giving up (the portal may
   * still be working on it; posting again then could make a second one). Default 60000.
   */
  settleMs?: number;
}

/**
 * Runs `post` with a marker; when the answer is lost, `find` looks for an object carrying the marker. The post
 * is repeated (bounded) only when none exists and the request cannot still be in progress: after a timeout the
 * object is looked for during `settleMs`, and the create fails rather than post again.
 */
export async function createOnce<T>(
  post: (marker: string) => Promise<T>,
  find: (marker: string) => Promise<T | undefined>,
  marker: string = newMarker(),
  opts: CreateOnceOptions = {},
): Promise<T> {
  const attempts = opts.attempts ?? 4;
  const settleMs = opts.settleMs ?? 60_000;
  let lastError: unknown;
  for (let i = 0; i < attempts; i++) {
    try {
      return await post(marker);
    } catch (err) {
      if (!(err instanceof PortalError) || !err.outcomeUnknown) throw err;
      lastError = err;
      if (err.timedOut) return settle(err, find, marker, settleMs);
      const found = await find(marker);
      if (found) return found;
      await sleep(100 * 2 ** i);
    }
  }
  throw lastError;
}

/**
 * Creates an object whose body carries tags: each call adds a marker of its own, by which `find` looks for the
 * object after a lost answer, and `stable` (a resource's marker from `markerFor`), by which the run after a crash
 * finds it. Looking up the stable one within the call could find the object a forced replacement replaces.
 */
export function createTagged<T, F extends { tags?: string[] }>(
  post: (body: F) => Promise<T>,
  find: (own: string) => Promise<T | undefined>,
  fields: F,
  stable: string | undefined,
  opts: CreateOnceOptions = {},
): Promise<T> {
  return createOnce(
    (own) => post({ ...fields, tags: [...(fields.tags ?? []), ...(stable ? [stable] : []), own] }),
    find,
    newMarker(),
    opts,
  );
}

/** After a timed-out create: the object, once it appears within `settleMs`; else an error that says what to do. */
async function settle<T>(err: PortalError, find: (marker: string) => Promise<T | undefined>, marker: string, settleMs: number): Promise<T> {
  const looks = 4;
  for (let i = 1; i <= looks; i++) {
    await sleep(settleMs / looks);
    const found = await find(marker);
    if (found) return found;
  }
  throw new Error(
    `${err.message}. Nothing carrying its create marker appeared within ${Math.round(settleMs / 1000)} s more, and ` +
      "it was not sent again: the portal may still make it, and a second request would make a duplicate. Look for it on the " +
      "portal; with Pulumi, run `pulumi up` again with backup-portal:recoverInterruptedCreates: true (or " +
      "BACKUP_PORTAL_RECOVER_INTERRUPTED=true) and the create takes it over if it exists",
  );
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/**
 * Finds the object carrying `marker` among `items` of the same name. List items
 * may come without tags (incomplete objects): those are read one by one.
 */
export async function findMarked<T extends { id: number; name?: string; tags?: string[] }>(
  items: T[],
  name: string | undefined,
  marker: string,
  read: (id: number) => Promise<T>,
): Promise<T | undefined> {
  for (const item of items.filter((i) => i.name === name)) {
    const full = item.tags ? item : await read(item.id);
    if (full.tags?.includes(marker)) return full;
  }
  return undefined;
}
