// Checks what `backup-portal:tenants` points at on the portal, reading only: the business unit tenants go
// under (rootBusinessUnitId), the business units the tenants adopt (adoptId), and the names resolved to ids
// (time zones, operating systems, node types, and the default server's domains and client option sets), and that
// each node's type is one its operating system supports (rules/node-pairs.ts).
// Each wrong one is a problem at its key path, naming what the portal does have. Every check reads a list,
// once per kind, so a check costs the same few reads however many objects the stack holds. The stack program
// does not run it on every run: its NameCheck resource (resources/name-check.ts) runs it when what it reads
// (namesOf) changed; `backup-portal validate` runs it on every call.
import { isReferenceProblem, ReferenceKind, References } from "../dynamic/references";
import { BusinessUnitConfig, NodeConfig, Problem, TenantsConfig } from "./model";
import { walkBusinessUnits } from "./validate";

/** What validateNames reads of a node. */
export type NodeNames = Pick<NodeConfig, "operatingSystem" | "type" | "domain" | "clientOptionSet">;

/** What validateNames reads of a business unit (adoptId: of a tenant only), under the same keys. */
export interface UnitNames extends Pick<BusinessUnitConfig, "timeZone" | "adoptId" | "domainFilter" | "clientOptionSetFilter"> {
  consumers?: Record<string, { node?: NodeNames }>;
  businessUnits?: Record<string, UnitNames>;
}

/** The tenants block as validateNames reads it: keyed as the block is, so its problems have the block's key paths. */
export type TenantNames = Record<string, UnitNames>;

/**
 * `tenants` reduced to what validateNames reads, with the same keys and paths: the same problems come out of it, and
 * nothing else of the block (names, notes, limits, secret names) goes into it. The NameCheck's input.
 */
export function namesOf(tenants: TenantsConfig): TenantNames {
  const unit = (bu: BusinessUnitConfig, top: boolean): UnitNames => {
    const out: UnitNames = { timeZone: bu.timeZone };
    if (top && bu.adoptId !== undefined) out.adoptId = bu.adoptId;
    if (bu.domainFilter !== undefined) out.domainFilter = bu.domainFilter;
    if (bu.clientOptionSetFilter !== undefined) out.clientOptionSetFilter = bu.clientOptionSetFilter;
    const consumers: Record<string, { node: NodeNames }> = {};
    for (const [key, c] of Object.entries(bu.consumers ?? {})) {
      if (!c.node) continue;
      const { operatingSystem, type, domain, clientOptionSet } = c.node;
      consumers[key] = {
        node: clientOptionSet === undefined ? { operatingSystem, type, domain } : { operatingSystem, type, domain, clientOptionSet },
      };
    }
    if (Object.keys(consumers).length) out.consumers = consumers;
    if (bu.businessUnits) out.businessUnits = Object.fromEntries(Object.entries(bu.businessUnits).map(([k, b]) => [k, unit(b, false)]));
    return out;
  };
  return Object.fromEntries(Object.entries(tenants).map(([k, bu]) => [k, unit(bu, true)]));
}

/**
 * What validateNames' verdict depends on, without the key paths: each distinct value it looks up, by kind (a node's
 * operating system and type also as the pair it checks), sorted. Two blocks with the same facts pass or fail
 * alike under the same root on the same portal; only the paths in the problems differ. So a key renamed, or an
 * object added or removed whose names others use too, changes nothing here. Keep it with the lookups below.
 */
export function nameFacts(tenants: TenantNames): string[] {
  const facts = new Set<string>();
  const add = (kind: string, ...values: unknown[]) => {
    if (values.every((v) => v !== undefined)) facts.add(JSON.stringify([kind, ...values]));
  };
  for (const bu of Object.values(tenants)) add("adoptId", bu.adoptId);
  for (const { bu } of walkBusinessUnits(tenants)) {
    add("timeZone", bu.timeZone);
    for (const v of bu.domainFilter ?? []) add("domain", v);
    for (const v of bu.clientOptionSetFilter ?? []) add("clientOptionSet", v);
    for (const c of Object.values(bu.consumers ?? {})) {
      const n = c.node;
      if (!n) continue;
      add("operatingSystem", n.operatingSystem);
      add("type", n.type);
      add("pair", n.operatingSystem, n.type);
      add("domain", n.domain);
      add("clientOptionSet", n.clientOptionSet);
    }
  }
  return [...facts].sort();
}

export async function validateNames(tenants: TenantNames, refs: References, rootBusinessUnitId: number): Promise<Problem[]> {
  /** The portal's verdict on one lookup: undefined when it found the value, else the problem's message. */
  const verdictOf = (find: () => Promise<unknown>): Promise<string | undefined> =>
    find().then(
      () => undefined,
      (err) => {
        if (!isReferenceProblem(err)) throw err;
        return err.message;
      },
    );

  // The default server's lists are read under the root business unit: only worth it when it exists.
  const rootProblem = await verdictOf(() => refs.businessUnit(rootBusinessUnitId));
  const rootExists = rootProblem === undefined;

  // Thousands of objects name a few distinct values: each is looked up once, and each object's path is only noted
  // against it (a promise per object kept every one alive until the last settled, which the collector paid for).
  const lookups = new Map<string, Promise<string | undefined>>();
  const uses: Array<{ path: string; lookup: string }> = [];
  const use = (path: string, lookup: string, find: () => Promise<unknown>): void => {
    if (!lookups.has(lookup)) lookups.set(lookup, verdictOf(find));
    uses.push({ path, lookup });
  };
  const check = (path: string, kind: ReferenceKind, value: unknown): string | undefined => {
    if (value === undefined) return undefined;
    const lookup = JSON.stringify([kind, value]);
    use(path, lookup, () => refs.resolve(kind, value as string | number, rootBusinessUnitId));
    return lookup;
  };
  // A node's operating system and type, each found, must be a pair the portal supports (rules/node-pairs.ts).
  const pairs: Array<{ path: string; os: string; type: string; node: NodeNames }> = [];

  // A tenant adopts a child of the root: one read of the root's children finds them all. A business unit further
  // down and a consumer would cost a read each, on every run: they are left to the resource's Check, which reads
  // an adoptId only while it is new to the state (dynamic/adoption.ts).
  if (rootExists) {
    for (const [key, bu] of Object.entries(tenants)) {
      if (bu.adoptId === undefined) continue;
      use(`tenants.${key}.adoptId`, JSON.stringify(["adoptId", bu.adoptId]), () => refs.childOf(rootBusinessUnitId, bu.adoptId!));
    }
  }
  for (const { path, bu } of walkBusinessUnits(tenants)) {
    check(`${path}.timeZone`, "timeZone", bu.timeZone);
    if (rootExists) {
      // The filters name the default server's lists, as a node's domain and option set do.
      (bu.domainFilter ?? []).forEach((v, i) => check(`${path}.domainFilter[${i}]`, "domain", v));
      (bu.clientOptionSetFilter ?? []).forEach((v, i) => check(`${path}.clientOptionSetFilter[${i}]`, "clientOptionSet", v));
    }
    for (const [key, c] of Object.entries(bu.consumers ?? {})) {
      const p = `${path}.consumers.${key}`;
      const n = c.node;
      if (!n) continue;
      const os = check(`${p}.node.operatingSystem`, "operatingSystem", n.operatingSystem);
      const type = check(`${p}.node.type`, "type", n.type);
      if (os !== undefined && type !== undefined) pairs.push({ path: `${p}.node.type`, os, type, node: n });
      if (rootExists) {
        check(`${p}.node.domain`, "domain", n.domain);
        check(`${p}.node.clientOptionSet`, "clientOptionSet", n.clientOptionSet);
      }
    }
  }

  const verdicts = new Map<string, string | undefined>();
  await Promise.all([...lookups].map(async ([lookup, verdict]) => verdicts.set(lookup, await verdict)));
  const pairProblems = new Map<string, Promise<string | undefined>>();
  for (const { os, type, node } of pairs) {
    const pair = JSON.stringify([os, type]);
    if (pairProblems.has(pair) || verdicts.get(os) !== undefined || verdicts.get(type) !== undefined) continue;
    pairProblems.set(pair, refs.nodePairProblem(node.operatingSystem, node.type));
  }
  const pairVerdicts = new Map<string, string | undefined>();
  await Promise.all([...pairProblems].map(async ([pair, problem]) => pairVerdicts.set(pair, await problem)));

  const problems: Problem[] = [];
  if (rootProblem !== undefined) problems.push({ path: "rootBusinessUnitId", message: rootProblem });
  for (const { path, lookup } of uses) {
    const message = verdicts.get(lookup);
    if (message !== undefined) problems.push({ path, message });
  }
  for (const { path, os, type } of pairs) {
    const message = pairVerdicts.get(JSON.stringify([os, type]));
    if (message !== undefined) problems.push({ path, message });
  }
  return problems.sort((a, b) => a.path.localeCompare(b.path));
}
