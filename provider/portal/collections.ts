// Lists come as `{href, total, items}`; tolerate a bare array too.
import { Collection } from "./types";

export function itemsOf<T>(list: Collection<T> | T[] | undefined | null): T[] {
  if (!list) return [];
  return Array.isArray(list) ? list : Array.isArray(list.items) ? list.items : [];
}
