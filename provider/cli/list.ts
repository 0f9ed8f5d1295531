// What `backup-portal business-units` and `backup-portal consumers` list: the business units below one (a tree
// walk, one list of children per business unit) and their consumers, with the ids the other commands take
// (`--bunit`, `--consumer`). Reads only.
import { PortalClient } from "../portal/client";
import { UsageError } from "./args";

/** A business unit as listed: its place in the tree below the start (the start itself is depth 0). */
export interface ListedUnit {
  id: number;
  name: string | null;
  parentId: number | null;
  depth: number;
}

/** A consumer as listed. */
export interface ListedConsumer {
  businessUnitId: number;
  id: number;
  name: string | null;
  /** The state of its node as the portal names it (`Active`, `Not activated`); null without a node. */
  state: string | null;
}

/** Reads at once while walking (the portal is asked by one account; a few at a time, not hundreds). */
const AT_ONCE = 8;

/** `work` for each item, AT_ONCE at a time, results in the items' order. */
async function inBatches<T, R>(items: T[], work: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += AT_ONCE) out.push(...(await Promise.all(items.slice(i, i + AT_ONCE).map(work))));
  return out;
}

/** --bunit, else the account's own business unit (`/v1/me`). */
export async function startUnit(client: PortalClient, bunit: number | undefined): Promise<number> {
  if (bunit !== undefined) return bunit;
  const own = (await client.reference.me()).businessUnit?.id;
  if (own === undefined) throw new UsageError("the portal does not say which business unit the account belongs to; give --bunit");
  return own;
}

/**
 * `rootId` and the business units below it, at most `maxDepth` levels down, each after its parent and in the
 * portal's order below it. A business unit listed twice (a cycle, or one moved during the walk) is listed once.
 */
export async function businessUnitTree(client: PortalClient, rootId: number, maxDepth = Infinity): Promise<ListedUnit[]> {
  const bu = await client.businessUnits.get(rootId);
  const root: ListedUnit = { id: bu.id, name: bu.name ?? null, parentId: bu.parentBusinessUnit?.id ?? null, depth: 0 };
  const seen = new Set<number>([root.id]);
  const childrenOf = new Map<number, ListedUnit[]>();
  let level = [root];
  for (let depth = 1; depth <= maxDepth && level.length > 0; depth++) {
    const lists = await inBatches(level, (u) => client.businessUnits.children(u.id));
    const next: ListedUnit[] = [];
    level.forEach((parent, i) => {
      const own = lists[i]
        .filter((c) => !seen.has(c.id) && seen.add(c.id))
        .map((c) => ({ id: c.id, name: c.name ?? null, parentId: parent.id, depth }));
      childrenOf.set(parent.id, own);
      next.push(...own);
    });
    level = next;
  }
  const ordered: ListedUnit[] = [];
  const visit = (u: ListedUnit): void => {
    ordered.push(u);
    for (const c of childrenOf.get(u.id) ?? []) visit(c);
  };
  visit(root);
  return ordered;
}

/** The consumers of each of `unitIds`, in that order (each business unit's in the portal's order). */
export async function consumersOf(client: PortalClient, unitIds: number[]): Promise<ListedConsumer[]> {
  const lists = await inBatches(unitIds, (id) => client.consumers.list(id));
  return lists.flatMap((list, i) =>
    list.map((c) => ({ businessUnitId: unitIds[i], id: c.id, name: c.name ?? null, state: c.dataSourceState?.name ?? null })),
  );
}
