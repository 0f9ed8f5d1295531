// Resolves named references (time zone, operating system, node type, domain,
// client option set) to portal ids. Reference data is read once per host
// process and shared by every resource, so a run of hundreds of nodes reads
// each list once (per business unit for the default server's lists).
import { PortalClient } from "../portal/client";
import { PortalError } from "../portal/errors";
import { Failures, isUnknown, sameValue } from "./values";
import { nodePairProblem } from "../rules/node-pairs";

export interface Named {
  id: number;
  name?: string;
  windowsId?: string;
  /** An operating system's node types, as the portal lists them (rules/node-pairs.ts reads them). */
  supportedNodeTypes?: unknown;
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

/** At most this many existing objects are named in a MissingObjectError. */
const SHOWN = 10;

/** `1 "Reseller AB", 2 "Acme AB", ...`: the first SHOWN of a list, by id and name. */
function listing(items: Named[]): string {
  const shown = items.slice(0, SHOWN).map((i) => (i.name === undefined ? String(i.id) : `${i.id} ${JSON.stringify(i.name)}`));
  return items.length > SHOWN ? `${shown.join(", ")}, ...` : shown.join(", ");
}

/**
 * An id input that names no object this account can reach on the portal: which object, on which portal, and
 * the ones that do exist (a 403 and a 404 look alike to the user: a wrong id, or the wrong account).
 */
export class MissingObjectError extends Error {
  constructor(what: string, url: string, forbidden: boolean, seen: string) {
    super(`${what} ${forbidden ? "is outside what this account may reach" : "does not exist"} on ${url} (${seen})`);
    this.name = "MissingObjectError";
  }
}

/** An id input that names a business unit elsewhere in the tree than under the parent it is declared under. */
export class MisplacedObjectError extends Error {
  constructor(unit: Named & { parentId?: number }, expectedParentId: number) {
    const where = unit.parentId === undefined ? "it has no parent" : `it is under business unit ${unit.parentId}`;
    const fix = unit.parentId === undefined ? "" : `; adopt it under business unit ${unit.parentId}`;
    const named = unit.name === undefined ? "" : ` ${JSON.stringify(unit.name)}`;
    super(`business unit ${unit.id}${named} is not under business unit ${expectedParentId}: ${where}${fix}`);
    this.name = "MisplacedObjectError";
  }
}

/** Errors that are a wrong value in the input (a problem to report with its key), not a failed read. */
export function isReferenceProblem(err: unknown): err is UnknownReferenceError | MissingObjectError | MisplacedObjectError {
  return err instanceof UnknownReferenceError || err instanceof MissingObjectError || err instanceof MisplacedObjectError;
}

/** The portal said the object is not there (or not for this account); not an answer from something that is not the API. */
const isMissing = (err: unknown) => err instanceof PortalError && !err.notTheApi && (err.status === 404 || err.status === 403);

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

  /**
   * Why node type `type` cannot go with operating system `os` (rules/node-pairs.ts), or undefined: when it can, or
   * when either names nothing on the portal (its own lookup says so, once). From the two lists resolve reads anyway.
   */
  async nodePairProblem(os: string | number, type: string | number): Promise<string | undefined> {
    const found = (kind: ReferenceKind, value: string | number) =>
      this.resolve(kind, value).catch((err: unknown) => {
        if (isReferenceProblem(err)) return undefined;
        throw err;
      });
    const [o, t] = await Promise.all([found("operatingSystem", os), found("type", type)]);
    return o && t ? nodePairProblem(o, t) : undefined;
  }

  /** Business unit `id` as this account reads it; MissingObjectError (with what the account sees) when it cannot. */
  businessUnit(id: number): Promise<Named & { parentId?: number }> {
    return this.memo(`bunit:${id}`, async () => {
      try {
        const bu = await this.client.businessUnits.get(id);
        return { id: bu.id, name: bu.name, parentId: bu.parentBusinessUnit?.id };
      } catch (err) {
        if (!isMissing(err)) throw err;
        const seen = await this.visibleBusinessUnits();
        const sees = seen.length ? `this account sees ${listing(seen)}` : "this account sees no business unit";
        throw new MissingObjectError(`business unit ${id}`, this.client.url, (err as PortalError).status === 403, sees);
      }
    });
  }

  /** The children of business unit `id`, by id and name (one read). */
  children(id: number): Promise<Named[]> {
    return this.memo(`children:${id}`, async () => (await this.client.businessUnits.children(id)).map((c) => ({ id: c.id, name: c.name })));
  }

  /**
   * Business unit `id`, a child of `parentId`: found in the parent's children, so checking any number of them costs
   * one read. One that is not listed is read: it may be new since the list was read; else MissingObjectError, or
   * MisplacedObjectError naming its parent.
   */
  async childOf(parentId: number, id: number): Promise<Named> {
    const listed = (await this.byId(`children:${parentId}`, () => this.children(parentId))).get(id);
    if (listed) return listed;
    const unit = await this.businessUnit(id);
    if (unit.parentId !== parentId) throw new MisplacedObjectError(unit, parentId);
    return unit;
  }

  /** The consumers of business unit `bunitId`, by id and name (one read). */
  consumers(bunitId: number): Promise<Named[]> {
    return this.memo(`consumers:${bunitId}`, async () =>
      (await this.client.consumers.list(bunitId)).map((c) => ({ id: c.id, name: c.name })),
    );
  }

  /**
   * Consumer `id` of business unit `bunitId`: found in the business unit's consumers, so checking any number of
   * them costs one read. One that is not listed is read: it may be new since the list was read; else
   * MissingObjectError.
   */
  async consumerOf(bunitId: number, id: number): Promise<Named> {
    return (await this.byId(`consumers:${bunitId}`, () => this.consumers(bunitId))).get(id) ?? this.consumer(bunitId, id);
  }

  /**
   * The list `key` reads, by id (the first of an id, as a search of the list finds it): a stack of 1,500 tenants
   * asks for each of them in the one list of the root's children, and a search per tenant would grow with the
   * square of the tenants. Made once per list read, and forgotten with it.
   */
  private byId(key: string, list: () => Promise<Named[]>): Promise<Map<number, Named>> {
    return this.memo(`${key}:byId`, async () => {
      const index = new Map<number, Named>();
      for (const item of await list()) if (!index.has(item.id)) index.set(item.id, item);
      return index;
    });
  }

  /** Consumer `id` of business unit `bunitId`; MissingObjectError (with the consumers it has) when there is none. */
  consumer(bunitId: number, id: number): Promise<Named> {
    return this.memo(`consumer:${bunitId}:${id}`, async () => {
      try {
        const c = await this.client.consumers.get(bunitId, id);
        return { id: c.id, name: c.name };
      } catch (err) {
        if (!isMissing(err)) throw err;
        // The business unit itself may be the wrong one: then that is the problem to name.
        await this.businessUnit(bunitId);
        const has = await this.consumers(bunitId);
        const what = `consumer ${id} of business unit ${bunitId}`;
        const seen = has.length ? `business unit ${bunitId} has ${listing(has)}` : `business unit ${bunitId} has no consumer`;
        throw new MissingObjectError(what, this.client.url, (err as PortalError).status === 403, seen);
      }
    });
  }

  /** The account's own business unit and its children (one read each): what a MissingObjectError names. */
  private visibleBusinessUnits(): Promise<Named[]> {
    return this.memo("bunits:visible", async () => {
      const own = (await this.client.reference.me()).businessUnit;
      if (own?.id === undefined) return [];
      return [{ id: own.id, name: own.name }, ...(await this.children(own.id))];
    });
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
    specs.map(async (r): Promise<[string, string] | undefined> => {
      const v = inputs[r.key];
      if (v === undefined || v === null || v === "") {
        return r.required ? [r.key, `${r.key} is required: a name or an id`] : undefined;
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
        if (isReferenceProblem(err)) return [r.key, `${r.key}: ${err.message}`];
        // A list of a business unit that does not exist (404): that business unit's id is the problem.
        const named = scoped ? await explainMissing(err, refs(), [{ key: scope, kind: "businessUnit", id: inputs[scope] }]) : err;
        if (named === err) throw err;
        return [scope, (named as Error).message];
      }
    }),
  );
  // Several names under one missing business unit name it once (Failures keeps one per key and reason).
  for (const x of results) if (x) f.add(x[0], x[1]);
}

export interface IdInput {
  /** The input property, e.g. "parentId". */
  key: string;
  kind: "businessUnit" | "consumer";
  /** The id it holds. */
  id: number;
  /** For a consumer: its business unit's id. */
  bunitId?: number;
}

/**
 * A read or write refused with 404/403 under ids the caller was given: the error naming the first of `ids` that
 * points at nothing this account can reach (`parentId: business unit 1000 does not exist on <url> (this account
 * sees ...)`), else `err` itself. Reads only on this error path, so a run that goes well makes no extra request.
 */
export async function explainMissing(err: unknown, refs: References, ids: IdInput[]): Promise<unknown> {
  if (!isMissing(err)) return err;
  for (const r of ids) {
    if (typeof r.id !== "number" || (r.kind === "consumer" && typeof r.bunitId !== "number")) continue;
    try {
      await (r.kind === "businessUnit" ? refs.businessUnit(r.id) : refs.consumer(r.bunitId!, r.id));
    } catch (e) {
      if (e instanceof MissingObjectError) return new Error(`${r.key}: ${e.message}`);
      throw e;
    }
  }
  return err;
}
