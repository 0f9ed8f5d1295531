// Creates that survive a lost answer. The portal allows duplicate names, so a
// create repeated after a dropped connection would make a second object. Each
// create therefore carries a unique tag; when its outcome is unknown the client
// looks for that tag before creating again (with the same tag).
import { randomUUID } from "crypto";
import { PortalError } from "./errors";

const PREFIX = "create-request:";

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

/**
 * Runs `post` with a marker; when the answer is lost, `find` looks for an object
 * carrying the marker, and the post is repeated (bounded) only when none exists.
 */
export async function createOnce<T>(
  post: (marker: string) => Promise<T>,
  find: (marker: string) => Promise<T | undefined>,
  marker: string = newMarker(),
  attempts = 4,
): Promise<T> {
  let lastError: unknown;
  for (let i = 0; i < attempts; i++) {
    try {
      return await post(marker);
    } catch (err) {
      if (!(err instanceof PortalError) || !err.outcomeUnknown) throw err;
      lastError = err;
      const found = await find(marker);
      if (found) return found;
      await new Promise((r) => setTimeout(r, 100 * 2 ** i));
    }
  }
  throw lastError;
}

/**
 * Finds the object carrying `marker` among `items` of the same name. List items
 * may come without tags (incomplete objects): those are read one by one.
 */
export async function findMarked<T extends { id: number; name?: string; tags?: string[] }>(
  items: T[], name: string | undefined, marker: string, read: (id: number) => Promise<T>,
): Promise<T | undefined> {
  for (const item of items.filter((i) => i.name === name)) {
    const full = item.tags ? item : await read(item.id);
    if (full.tags?.includes(marker)) return full;
  }
  return undefined;
}
