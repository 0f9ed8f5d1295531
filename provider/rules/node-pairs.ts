// The portal's rule for a node's operating system and type together: `/v1/nodeoperatingsystems` lists, for each
// operating system, the node types it supports (`supportedNodeTypes`), and a node's type must be one of its
// operating system's. The one place the rule is decided: the resource's Check (the dynamic providers and the
// plugin), the name checks of `validate`, the stack program and the plugin's tenants component, and the doctor's
// write test all ask it. The emulator enforces the same rule (emulator/routes/nodes.ts), as a portal that
// enforces the pairs it lists would.

/** An operating system or node type as the portal lists it: an id, and a name when it has one. */
export interface PairItem {
  id: number;
  name?: string;
}

/** An operating system as `/v1/nodeoperatingsystems` answers it. */
export interface PairOperatingSystem extends PairItem {
  supportedNodeTypes?: unknown;
}

/** What the rule says in the docs and the reference pages. */
export const NODE_PAIR_RULE =
  "the node type must be one the operating system supports: `/v1/nodeoperatingsystems` lists each system's `supportedNodeTypes`";

const shown = (i: PairItem) => (i.name === undefined ? String(i.id) : JSON.stringify(i.name));

/**
 * The node types `os` supports, by id; undefined when it lists none (a portal that does not list them, or an empty
 * list): then every type goes, as the portal has said nothing against any.
 */
export function supportedTypes(os: PairOperatingSystem): PairItem[] | undefined {
  const list = os.supportedNodeTypes;
  if (!Array.isArray(list)) return undefined;
  const items = list.filter((t): t is PairItem => typeof t === "object" && t !== null && typeof (t as PairItem).id === "number");
  return items.length ? items : undefined;
}

/**
 * Why node type `type` cannot go with operating system `os`, without a key in front (each caller names the key its
 * way), or undefined when it can. Names the types the system supports and the way out.
 */
export function nodePairProblem(os: PairOperatingSystem, type: PairItem): string | undefined {
  const supported = supportedTypes(os);
  if (!supported || supported.some((t) => t.id === type.id)) return undefined;
  const names = supported.map((t) => t.name ?? String(t.id));
  return (
    `node type ${shown(type)} is not one operating system ${shown(os)} supports; the portal lists for it: ${names.join(", ")}: ` +
    `set type to one of them, or choose another operatingSystem`
  );
}

/**
 * The first pair the portal lists that goes together, trying the operating systems in their order and each one's
 * supported types in the order of `types` (a portal that lists none for a system: its first type). Undefined when
 * there is none.
 */
export function firstValidPair<O extends PairOperatingSystem, T extends PairItem>(oses: O[], types: T[]): { os: O; type: T } | undefined {
  for (const os of oses) {
    const type = types.find((t) => nodePairProblem(os, t) === undefined);
    if (type) return { os, type };
  }
  return undefined;
}
