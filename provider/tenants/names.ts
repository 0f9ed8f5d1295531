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
  const problems: Problem[] = [];
  /** Runs one lookup; a wrong value becomes a problem at `path`. Resolves to whether the value was found. */
  const lookup = (path: string, find: () => Promise<unknown>): Promise<boolean> =>
    find().then(
      () => true,
      (err) => {
        if (!isReferenceProblem(err)) throw err;
        problems.push({ path, message: err.message });
        return false;
      },
    );
  const checks: Array<Promise<unknown>> = [];
  const check = (path: string, kind: ReferenceKind, value: unknown): Promise<boolean> => {
    if (value === undefined) return Promise.resolve(false);
    const found = lookup(path, () => refs.resolve(kind, value as string | number, rootBusinessUnitId));
    checks.push(found);
    return found;
  };

  // The default server's lists are read under the root business unit: only worth it when it exists.
  const rootExists = await lookup("rootBusinessUnitId", () => refs.businessUnit(rootBusinessUnitId));
  // A tenant adopts a child of the root: one read of the root's children finds them all. A business unit further
  // down and a consumer would cost a read each, on every run: they are left to the resource's Check, which reads
  // an adoptId only while it is new to the state (dynamic/adoption.ts).
  const adoptingTenants = rootExists ? Object.entries(tenants).filter(([, bu]) => bu.adoptId !== undefined) : [];
  for (const [key, bu] of adoptingTenants) {
    checks.push(lookup(`tenants.${key}.adoptId`, () => refs.childOf(rootBusinessUnitId, bu.adoptId!)));
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
      const pair = [check(`${p}.node.operatingSystem`, "operatingSystem", n.operatingSystem), check(`${p}.node.type`, "type", n.type)];
      // The type must be one the operating system supports (rules/node-pairs.ts): asked once both are found.
      checks.push(
        Promise.all(pair).then(async ([os, type]) => {
          const problem = os && type ? await refs.nodePairProblem(n.operatingSystem, n.type) : undefined;
          if (problem) problems.push({ path: `${p}.node.type`, message: problem });
        }),
      );
      if (rootExists) {
        check(`${p}.node.domain`, "domain", n.domain);
        check(`${p}.node.clientOptionSet`, "clientOptionSet", n.clientOptionSet);
      }
    }
  }
  await Promise.all(checks);
  return problems.sort((a, b) => a.path.localeCompare(b.path));
}
