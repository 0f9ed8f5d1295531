// Reads the business-unit tree below one business unit, with only the reads the API requires: one list of
// children and one of consumers per business unit (the root's own consumers included, to say they are left out),
// one node read per consumer below the root (the API has no list of nodes), and each reference list once (see
// minimumReads). Reads only: never a write.
import { Named, ReferenceKind, References } from "../dynamic/references";
import { PortalClient } from "../portal/client";
import { BusinessUnit, Consumer, Node } from "../portal/types";

export interface ConsumerRead {
  consumer: Consumer;
  /** Undefined when the consumer has no node. */
  node?: Node;
}

export interface BusinessUnitRead {
  bu: BusinessUnit;
  /** Its parent's id (the export's root for the top level). */
  parentId: number;
  consumers: ConsumerRead[];
  children: BusinessUnitRead[];
}

/** The lists names are looked up in: by kind, the root's, and a business unit's where it differs. */
export interface ReferenceLists {
  list(kind: ReferenceKind, bunitId: number): Named[];
}

export interface PortalTree {
  rootId: number;
  businessUnits: BusinessUnitRead[];
  /**
   * The root's own consumers: a stack file cannot declare them (it declares the business units below
   * rootBusinessUnitId), so they are read only to say that they are left out (none: a tree not read from a portal).
   */
  rootConsumers?: Consumer[];
  references: ReferenceLists;
}

/**
 * Reads done so far, and their total once it is known: the walk finds reads as it goes (each business unit's
 * children and consumers), so `total` is undefined until the last read has started.
 */
export type ProgressListener = (done: number, total?: number) => void;

/** The portal listed a business unit twice during one export: nothing is written. */
export class TreeError extends Error {
  constructor(id: number, parentId: number, before: number | undefined, rootId: number) {
    super(
      `the portal lists business unit ${id} below ${parentId}, but ${before === undefined ? `it is the export's root` : `it was listed below ${before} already`}` +
        ` (rootId ${rootId}): its tree has a cycle, or the unit moved while the export read it; nothing was written. Export again; ` +
        "if it repeats, check that business unit's parent on the portal",
    );
  }
}

/** Runs at most `limit` reads at once. */
function limiter(limit: number) {
  let active = 0;
  // A queue read from `head` on: every read of the tree waits here at first, and a shift would move the rest of
  // the queue each time once the array is large.
  let waiting: Array<(() => void) | undefined> = [];
  let head = 0;
  return async <T>(work: () => Promise<T>): Promise<T> => {
    if (active >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
    active++;
    try {
      return await work();
    } finally {
      active--;
      const next = waiting[head];
      if (next) waiting[head++] = undefined;
      if (head === waiting.length) {
        waiting = [];
        head = 0;
      }
      next?.();
    }
  };
}

/** Every business unit of the tree, depth first. */
export function* allBusinessUnits(list: BusinessUnitRead[]): Generator<BusinessUnitRead> {
  for (const b of list) {
    yield b;
    yield* allBusinessUnits(b.children);
  }
}

const SERVER_KINDS: ReferenceKind[] = ["domain", "clientOptionSet"];

/** The reference kinds (and ids) the tree names: what the lists must hold. */
function wanted(tree: BusinessUnitRead[]): Array<{ kind: ReferenceKind; id: number; scope: number }> {
  const out: Array<{ kind: ReferenceKind; id: number; scope: number }> = [];
  for (const b of allBusinessUnits(tree)) {
    if (b.bu.timeZone?.id !== undefined) out.push({ kind: "timeZone", id: b.bu.timeZone.id, scope: b.parentId });
    // A filter names the parent's default server's lists, a node its own business unit's.
    for (const r of b.bu.domainFilter ?? []) out.push({ kind: "domain", id: r.id, scope: b.parentId });
    for (const r of b.bu.clientOptionSetFilter ?? []) out.push({ kind: "clientOptionSet", id: r.id, scope: b.parentId });
    for (const { node } of b.consumers) {
      if (!node) continue;
      for (const kind of ["operatingSystem", "type", "domain", "clientOptionSet"] as const) {
        const id = node[kind]?.id;
        if (id !== undefined) out.push({ kind, id, scope: b.bu.id });
      }
    }
  }
  return out;
}

/**
 * Reads the tree below `rootId`. Reference lists: each kind once, the default server's lists from the root (the
 * stack's name check reads them there too); a business unit's own only for an id the root's list lacks (a
 * business unit on another default server). Ids are the portal's, one per object, so an id found in the root's
 * list is the same object.
 */
export async function readPortalTree(
  client: PortalClient,
  rootId: number,
  opts: { concurrency?: number; onProgress?: ProgressListener } = {},
): Promise<PortalTree> {
  const run = limiter(opts.concurrency ?? 16);
  let done = 0;
  let started = 0;
  let known = false;
  const report = () => opts.onProgress?.(done, known ? started : undefined);
  const read = <T>(work: () => Promise<T>): Promise<T> => {
    started++;
    report();
    return run(work).finally(() => {
      done++;
      report();
    });
  };

  async function consumersOf(bu: BusinessUnit): Promise<ConsumerRead[]> {
    const consumers = await read(() => client.consumers.list(bu.id));
    return Promise.all(consumers.map(async (consumer) => ({ consumer, node: await read(() => client.nodes.find(bu.id, consumer.id)) })));
  }

  // Where each business unit was listed: a portal that lists one twice (a cycle, or a unit moved while the
  // walk went on) would otherwise be read without end, or exported twice.
  const listedBelow = new Map<number, number | undefined>([[rootId, undefined]]);
  async function below(parentId: number): Promise<BusinessUnitRead[]> {
    const children = await read(() => client.businessUnits.children(parentId));
    for (const bu of children) {
      if (listedBelow.has(bu.id)) throw new TreeError(bu.id, parentId, listedBelow.get(bu.id), rootId);
      listedBelow.set(bu.id, parentId);
    }
    return Promise.all(
      children.map(async (bu) => {
        const [consumers, grandChildren] = await Promise.all([consumersOf(bu), below(bu.id)]);
        return { bu, parentId, consumers, children: grandChildren };
      }),
    );
  }

  const [businessUnits, rootConsumers] = await Promise.all([below(rootId), read(() => client.consumers.list(rootId))]);
  const refs = new References(client);
  const need = wanted(businessUnits);
  const kinds = [...new Set(need.map((n) => n.kind))];
  const lists = new Map<string, Named[]>();
  const keyOf = (kind: ReferenceKind, scope: number) => (SERVER_KINDS.includes(kind) ? `${kind}:${scope}` : kind);
  await Promise.all(kinds.map(async (kind) => lists.set(keyOf(kind, rootId), await read(() => refs.list(kind, rootId)))));
  const missing = need.filter((n) => SERVER_KINDS.includes(n.kind) && !lists.get(keyOf(n.kind, rootId))!.some((i) => i.id === n.id));
  const scopes = [...new Map(missing.map((n) => [keyOf(n.kind, n.scope), n])).values()];
  const last = scopes.map(async (n) => lists.set(keyOf(n.kind, n.scope), await read(() => refs.list(n.kind, n.scope))));
  // Every read has started: from here on the total is what it will be.
  known = true;
  report();
  await Promise.all(last);
  return {
    rootId,
    businessUnits,
    rootConsumers,
    references: { list: (kind, bunitId) => lists.get(keyOf(kind, bunitId)) ?? lists.get(keyOf(kind, rootId)) ?? [] },
  };
}

/**
 * The fewest reads the API allows for this tree: a list of children and one of consumers for the root and each
 * business unit, a node read for each consumer below the root, and each reference list the names need.
 */
export function minimumReads(tree: PortalTree): number {
  // The root's children and its own consumers.
  let n = 2;
  for (const b of allBusinessUnits(tree.businessUnits)) n += 2 + b.consumers.length;
  const need = wanted(tree.businessUnits);
  const lists = new Set(need.map((x) => x.kind));
  // A business unit's own server list is needed for an id the root's list lacks.
  const own = new Set(
    need
      .filter((x) => SERVER_KINDS.includes(x.kind) && !tree.references.list(x.kind, tree.rootId).some((i) => i.id === x.id))
      .map((x) => `${x.kind}:${x.scope}`),
  );
  return n + lists.size + own.size;
}
