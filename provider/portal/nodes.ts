// Backup nodes, their password, activation and proxy relations (spec 000 section 4).
import { PortalCore, consumerPath } from "./core";
import { deleteTolerant } from "./business-units";
import { itemsOf } from "./collections";
import { PortalError, unlessNotFound } from "./errors";
import { NODE_SETTABLE, wholeBody } from "./put";
import { Collection, Filespace, Node, NodeFields, ProxyPeer } from "./types";

/** The backup server's node naming rules: 1 to 64 of A-Z 0-9 _ . - + & (case-insensitive, stored upper-case). */
export const TSM_NAME_PATTERN = /^[A-Za-z0-9_.\-+&]{1,64}$/;

/** Why a tsmName breaks the naming rules, or undefined when it is valid. */
export function tsmNameProblem(name: string): string | undefined {
  if (name.length === 0) return "must not be empty";
  if (name.length > 64) return `is ${name.length} characters long; the backup server allows at most 64`;
  const bad = [...new Set([...name].filter((ch) => !/[A-Za-z0-9_.\-+&]/.test(ch)))];
  if (bad.length) return `contains ${bad.map((c) => JSON.stringify(c)).join(", ")}; allowed are letters, digits and _ . - + &`;
  return undefined;
}

/**
 * The hint of an activation refused for its name. The API has no way to ask which names are in use (the backup
 * server's, across every business unit), so a taken name is only found here, when the node already exists.
 */
export const TSM_NAME_TAKEN_HINT =
  "a tsmName is unique on the backup server and another node holds this one (the API cannot tell beforehand): choose another tsmName";

/**
 * An activation refused because of its name: a 409 (TsmNameTaken, or a code the client does not know), but not the
 * node's own state (AlreadyActivated: it carries another name, which its own message says).
 */
function isNameRefused(err: unknown): err is PortalError {
  return err instanceof PortalError && err.status === 409 && !err.notTheApi && err.code !== "AlreadyActivated";
}

/** The node's password is never kept from a portal answer (the real portal returns it). */
function scrub(node: Node): Node {
  if (!node || typeof node !== "object" || !("tsmPassword" in node)) return node;
  const { tsmPassword: _dropped, ...rest } = node;
  return rest as Node;
}

/**
 * The text of a name answer that is a JSON string (`"EMU-1"`) or the bare name (`EMU-1`, text): the
 * transport gives the first as the string and the second as its text; quotes left on text are removed.
 */
function unquoted(answer: unknown): string | undefined {
  if (typeof answer !== "string") return undefined;
  const text = answer.trim();
  if (!/^".*"$/.test(text)) return text;
  try {
    return String(JSON.parse(text)).trim();
  } catch {
    return text.slice(1, -1).trim();
  }
}

/** A node name from such an answer; an error naming `what` when it is none. */
export function nameOf(answer: unknown, what: string): string {
  const name = unquoted(answer);
  if (name === undefined) throw new Error(`${what} answered ${JSON.stringify(answer)?.slice(0, 80)}, not a node name`);
  const problem = tsmNameProblem(name);
  if (problem) throw new Error(`${what} answered ${JSON.stringify(name.slice(0, 80))}, which ${problem}`);
  return name;
}

export function proxyPeers(list: Node["proxyAgents"]): ProxyPeer[] {
  return itemsOf(list as Collection<ProxyPeer> | ProxyPeer[] | undefined);
}

export class Nodes {
  constructor(private readonly core: PortalCore) {}

  async get(bunitId: number, consumerId: number): Promise<Node> {
    return scrub(await this.core.get<Node>(consumerPath(bunitId, consumerId, "/node")));
  }

  /** The consumer's node, or undefined when the consumer has none (or is gone). */
  find(bunitId: number, consumerId: number): Promise<Node | undefined> {
    return unlessNotFound(this.get(bunitId, consumerId));
  }

  /**
   * Creates the consumer's node. A consumer holds one node, so when the answer
   * is lost the node is read back instead of posted again.
   */
  async create(bunitId: number, consumerId: number, fields: NodeFields): Promise<Node> {
    try {
      return scrub(
        await this.core.call<Node>({ method: "POST", path: consumerPath(bunitId, consumerId, "/node"), body: { json: fields } }),
      );
    } catch (err) {
      if (!(err instanceof PortalError) || !err.outcomeUnknown) throw err;
      const existing = await this.find(bunitId, consumerId);
      if (existing) return existing;
      try {
        return scrub(
          await this.core.call<Node>({
            method: "POST",
            path: consumerPath(bunitId, consumerId, "/node"),
            body: { json: fields },
            retry: "safe",
          }),
        );
      } catch (again) {
        // A repeated attempt whose answer was lost made the node: the repeat then finds it there (409).
        if (!(again instanceof PortalError) || again.status !== 409) throw again;
        const made = await this.find(bunitId, consumerId);
        if (made) return made;
        throw again;
      }
    }
  }

  /**
   * A PUT of `fields` as given: a portal whose PUT replaces clears what they leave out and wants the required
   * references, so give every field (the providers send all they declare), or use `change`.
   */
  async update(bunitId: number, consumerId: number, fields: NodeFields): Promise<Node> {
    return scrub(await this.core.call<Node>({ method: "PUT", path: consumerPath(bunitId, consumerId, "/node"), body: { json: fields } }));
  }

  /** Sets `fields` and keeps the others, whether the portal's PUT merges or replaces: reads, then PUTs it whole (./put.ts). */
  async change(bunitId: number, consumerId: number, fields: NodeFields): Promise<Node> {
    const current = await this.core.get<Node>(consumerPath(bunitId, consumerId, "/node"));
    return this.update(bunitId, consumerId, wholeBody(current, NODE_SETTABLE, fields));
  }

  /** Deletes the node, which removes its consumer too; false when it was already gone. */
  delete(bunitId: number, consumerId: number): Promise<boolean> {
    return deleteTolerant(this.core, { method: "DELETE", path: consumerPath(bunitId, consumerId, "/node"), body: { json: {} } });
  }

  /**
   * The password the portal chose for the node, when it hands one back: after activating a node whose password
   * was never set, the real portal returns a generated `tsmPassword` on the node (the published Go client's
   * ActivateNode reads it, cloutility/node.go at 3a29ec8). Every other read drops it (`scrub`); only a caller that
   * lets the portal choose asks for it, and keeps it as a secret.
   */
  async chosenPassword(bunitId: number, consumerId: number): Promise<string | undefined> {
    const node = await this.core.get<Node>(consumerPath(bunitId, consumerId, "/node"));
    return typeof node?.tsmPassword === "string" && node.tsmPassword !== "" ? node.tsmPassword : undefined;
  }

  /** Sets the node's password; the answer is the node, without the password. */
  async setPassword(bunitId: number, consumerId: number, tsmPassword: string): Promise<Node> {
    return scrub(
      await this.core.call<Node>({
        method: "POST",
        path: consumerPath(bunitId, consumerId, "/node/password"),
        body: { json: { tsmPassword } },
        retry: "safe",
        secrets: [tsmPassword],
      }),
    );
  }

  /** Activates the node under `tsmName`; answers the name the server stored (upper-case). */
  async activate(bunitId: number, consumerId: number, tsmName: string): Promise<string> {
    const problem = tsmNameProblem(tsmName);
    if (problem) throw new Error(`tsmName "${tsmName}" ${problem}`);
    const answer = await this.core.get<unknown>(consumerPath(bunitId, consumerId, "/node/activate"), { tsmName }).catch((err: unknown) => {
      throw isNameRefused(err) ? err.withHint(TSM_NAME_TAKEN_HINT) : err;
    });
    // The stored name, as a JSON string or bare; any other answer (none, a message) means the name as sent.
    const stored = unquoted(answer);
    return stored && !tsmNameProblem(stored) ? stored : tsmName.toUpperCase();
  }

  /**
   * A node name the portal proposes (`GET .../node/spname`; real portal, not in the spec). Most likely
   * answered as the bare name (the published Go client uses the body as it is); a JSON string works too.
   */
  async proposeName(bunitId: number, consumerId: number): Promise<string> {
    return nameOf(await this.core.get<unknown>(consumerPath(bunitId, consumerId, "/node/spname")), "spname");
  }

  async filespaces(bunitId: number, consumerId: number, tsmSync = false): Promise<Filespace[]> {
    return itemsOf(await this.core.get<Collection<Filespace>>(consumerPath(bunitId, consumerId, "/node/filespaces"), { tsmSync }));
  }

  async possibleProxyNodes(bunitId: number, consumerId: number): Promise<Node[]> {
    return itemsOf(await this.core.get<Collection<Node>>(consumerPath(bunitId, consumerId, "/node/possibleproxynodes"))).map(scrub);
  }

  /** Makes `agentConsumerId`'s node a proxy agent of `targetConsumerId`'s node (set from the target's side). */
  async addProxyAgent(bunitId: number, targetConsumerId: number, agentConsumerId: number): Promise<Node> {
    return this.addRelation(bunitId, targetConsumerId, agentConsumerId, "proxyagents", "proxyAgentId", (n) => n.proxyAgents);
  }

  /** The same relation, set from the agent's side. */
  async addProxyTarget(bunitId: number, agentConsumerId: number, targetConsumerId: number): Promise<Node> {
    return this.addRelation(bunitId, agentConsumerId, targetConsumerId, "proxytargets", "proxyTargetId", (n) => n.proxyTargets);
  }

  /**
   * Adds a proxy relation from `ownerId`'s side. Repeating it is safe, but a portal may answer a relation that
   * exists already (a repeat after a lost answer) with 409: the node is then read, and the relation being there
   * is success.
   */
  private async addRelation(
    bunitId: number,
    ownerId: number,
    otherId: number,
    list: string,
    param: string,
    peers: (n: Node) => Node["proxyAgents"],
  ): Promise<Node> {
    try {
      return scrub(
        await this.core.call<Node>({
          method: "POST",
          path: consumerPath(bunitId, ownerId, `/node/${list}`),
          query: { [param]: otherId },
          body: { json: {} },
          retry: "safe",
        }),
      );
    } catch (err) {
      if (!(err instanceof PortalError) || err.status !== 409) throw err;
      const node = await this.get(bunitId, ownerId);
      if (proxyPeers(peers(node)).some((p) => p.id === otherId)) return node;
      throw err;
    }
  }

  /** Severs the relation from the target's side; false when it did not exist. */
  removeProxyAgent(bunitId: number, targetConsumerId: number, agentConsumerId: number): Promise<boolean> {
    return deleteTolerant(this.core, {
      method: "DELETE",
      path: consumerPath(bunitId, targetConsumerId, `/node/proxyagents/${agentConsumerId}`),
      body: { json: {} },
    });
  }

  /** Severs the relation from the agent's side; false when it did not exist. */
  removeProxyTarget(bunitId: number, agentConsumerId: number, targetConsumerId: number): Promise<boolean> {
    return deleteTolerant(this.core, {
      method: "DELETE",
      path: consumerPath(bunitId, agentConsumerId, `/node/proxytargets/${targetConsumerId}`),
      body: { json: {} },
    });
  }
}
