// The business unit tree: who reaches what.
import type { State } from "./types";

/** True when `buId` is `rootId` or one of its descendants. */
export function isWithin(state: State, buId: number, rootId: number): boolean {
  let current: number | undefined = buId;
  // Bounded by the number of business units: a broken parent chain cannot loop forever.
  for (let i = 0; i <= state.businessUnits.length && current !== undefined; i++) {
    if (current === rootId) return true;
    const id: number = current;
    current = state.businessUnits.find((b) => b.id === id)?.parentId;
  }
  return false;
}

/** Ids of `rootId` and all its descendants. */
export function subtreeIds(state: State, rootId: number): Set<number> {
  return new Set(state.businessUnits.filter((b) => isWithin(state, b.id, rootId)).map((b) => b.id));
}
