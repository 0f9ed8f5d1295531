// Resolves named references (time zone, operating system, node type, domain,
// client option set) to portal ids. Reference data is read once per host
// process and shared by every resource, so a run of hundreds of nodes reads
// each list once (per business unit for the default server's lists).
import { PortalClient } from "../portal/client";
import { Failures, isUnknown, sameValue } from "./values";

export interface Named {
  id: number;
  name?: string;
  windowsId?: string;
}

export type ReferenceKind = "timeZone" | "operatingSystem" | "type" | "domain" | "clientOptionSet";

const DESCRIPTION: Record<ReferenceKind, string> = {
  timeZone: "time zone (a windowsId, a display name or an id)",
  operatingSystem: "operating system",
  type: "node type",
  domain: "policy domain of the default backup server",
  clientOptionSet: "client option set of the default backup server",
};

export class UnknownReferenceError extends Error {
  constructor(
    readonly kind: ReferenceKind,
    value: unknown,
    valid: string[],
  ) {
    super(`unknown ${DESCRIPTION[kind]} ${JSON.stringify(value)}; valid: ${valid.join(", ")}`);
    this.name = "UnknownReferenceError";
  }
}

/** The kinds the business unit's default server lists: read per business unit. */
const perBusinessUnit = (kind: ReferenceKind) => kind === "domain" || kind === "clientOptionSet";

export class References {
  private readonly cache = new Map<string, Promise<unknown>>();

  constructor(private readonly client: PortalClient) {}

  /** One read per key and host process; a failed read is forgotten so the next call tries again. */
  private memo<T>(key: string, read: () => Promise<T>): Promise<T> {
    let p = this.cache.get(key) as Promise<T> | undefined;
    if (!p) {
      p = read();
      this.cache.set(key, p);
      p.catch(() => this.cache.delete(key));
    }
    return p;
  }

  list(kind: ReferenceKind, bunitId?: number): Promise<Named[]> {
    const key = perBusinessUnit(kind) ? `${kind}:${bunitId}` : kind;
    return this.memo(key, () => this.fetch(kind, bunitId));
  }

  /** The business unit's default backup server (read once per business unit). */
  defaultServer(bunitId: number): Promise<Named> {
    return this.memo(`server:${bunitId}`, () => this.client.reference.defaultServer(bunitId));
  }

  /**
   * Starts reading what `resolve(kind, …, bunitId)` and `defaultServer(bunitId)` will need, without waiting. A
   * failed read is forgotten (see memo), so whoever needs it later reads again and reports the error.
   */
  warm(kinds: ReferenceKind[], bunitId: number): void {
    for (const kind of kinds) this.list(kind, bunitId).catch(() => undefined);
    this.defaultServer(bunitId).catch(() => undefined);
  }

  /** The id and name of a reference given by name (case-insensitive) or id. */
  async resolve(kind: ReferenceKind, value: string | number, bunitId?: number): Promise<Named> {
    const items = await this.list(kind, bunitId);
    const found = matchReference(items, value);
    if (!found) {
      // Only time zones have a windowsId, the name their inputs use.
      const valid = items.map((i) => i.windowsId ?? i.name ?? String(i.id));
      throw new UnknownReferenceError(kind, value, valid);
    }
    return found;
  }

  private async fetch(kind: ReferenceKind, bunitId?: number): Promise<Named[]> {
    const c = this.client;
    switch (kind) {
      case "timeZone":
        return c.timeZones.list();
      case "operatingSystem":
        return c.reference.operatingSystems();
      case "type":
        return c.reference.nodeTypes();
      case "domain":
        return c.reference.domains(bunitId!);
      case "clientOptionSet":
        return c.reference.clientOptionSets(bunitId!);
    }
  }
}

/**
 * The item a name (case-insensitive: a name or, for time zones, a windowsId) or an id (digits) stands for: the first
 * one that matches, as every resolution here takes it. `backup-portal export` writes a name only when it gives back
 * the same id this way.
 */
export function matchReference(items: Named[], value: string | number): Named | undefined {
  const text = String(value).trim();
  const lower = text.toLowerCase();
  return /^\d+$/.test(text)
    ? items.find((i) => i.id === Number(text))
    : items.find((i) => i.name?.toLowerCase() === lower || i.windowsId?.toLowerCase() === lower);
}

let shared: { client: PortalClient; refs: References } | undefined;

/** The host process's shared resolver for a client. */
export function referencesFor(client: PortalClient): References {
  if (!shared || shared.client !== client) shared = { client, refs: new References(client) };
  return shared.refs;
}

export interface ReferenceInput {
  /** The input property, e.g. "operatingSystem". */
  key: string;
  kind: ReferenceKind;
  required: boolean;
  /** The input holding the business unit whose default server lists the names (default businessUnitId). */
  scope?: string;
}

/**
 * Check's part for named references (one name or id, or a list of them): each must name something the portal
 * has. Lookups run in parallel; failures are added in `specs` order. A value equal to the old input (and, for
 * the default server's lists, in the same business unit) was checked when it was set and is not read again, so
 * an unchanged preview or update makes no request. Unknown values (preview) pass.
 */
export async function checkReferences(
  f: Failures,
  refs: () => References,
  olds: Record<string, unknown>,
  inputs: Record<string, any>,
  specs: ReferenceInput[],
): Promise<void> {
  const results = await Promise.all(
    specs.map(async (r): Promise<string | undefined> => {
      const v = inputs[r.key];
      if (v === undefined || v === null || v === "") {
        return r.required ? `${r.key} is required: a name or an id` : undefined;
      }
      const scope = r.scope ?? "businessUnitId";
      const scoped = perBusinessUnit(r.kind);
      if (isUnknown(v) || (scoped && typeof inputs[scope] !== "number")) return undefined;
      if (sameValue(olds[r.key], v) && (!scoped || sameValue(olds[scope], inputs[scope]))) return undefined;
      const items: unknown[] = Array.isArray(v) ? v : [v];
      try {
        for (const item of items) if (!isUnknown(item)) await refs().resolve(r.kind, item as string | number, inputs[scope]);
        return undefined;
      } catch (err) {
        if (!(err instanceof UnknownReferenceError)) throw err;
        return `${r.key}: ${err.message}`;
      }
    }),
  );
  results.forEach((reason, i) => reason && f.add(specs[i].key, reason));
}
