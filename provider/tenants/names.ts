// Checks what `backup-portal:tenants` points at on the portal, reading only: the business unit tenants go
// under (rootBusinessUnitId), the business units the tenants adopt (adoptId), and the names resolved to ids
// (time zones, operating systems, node types, and the default server's domains and client option sets), and that
// each node's type is one its operating system supports (rules/node-pairs.ts).
// Each wrong one is a problem at its key path, naming what the portal does have. Every check reads a list,
// once per kind, so a stack costs the same few reads on every run however many objects it holds.
import { isReferenceProblem, ReferenceKind, References } from "../dynamic/references";
import { Problem, TenantsConfig } from "./model";
import { walkBusinessUnits } from "./validate";

export async function validateNames(tenants: TenantsConfig, refs: References, rootBusinessUnitId: number): Promise<Problem[]> {
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
