// Checks what `backup-portal:tenants` points at on the portal, reading only: the business unit tenants go
// under (rootBusinessUnitId), adopted business units and consumers (adoptId), and the names resolved to ids
// (time zones, operating systems, node types, and the default server's domains and client option sets).
// Each wrong one is a problem at its key path, naming what the portal does have.
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
  const check = (path: string, kind: ReferenceKind, value: unknown) => {
    if (value !== undefined) checks.push(lookup(path, () => refs.resolve(kind, value as string | number, rootBusinessUnitId)));
  };

  // The default server's lists are read under the root business unit: only worth it when it exists.
  const rootExists = await lookup("rootBusinessUnitId", () => refs.businessUnit(rootBusinessUnitId));
  for (const { path, bu } of walkBusinessUnits(tenants)) {
    check(`${path}.timeZone`, "timeZone", bu.timeZone);
    if (rootExists) {
      // The filters name the default server's lists, as a node's domain and option set do.
      (bu.domainFilter ?? []).forEach((v, i) => check(`${path}.domainFilter[${i}]`, "domain", v));
      (bu.clientOptionSetFilter ?? []).forEach((v, i) => check(`${path}.clientOptionSetFilter[${i}]`, "clientOptionSet", v));
    }
    // An adopted business unit's id is known here, and so are the consumers it is to adopt; any other business
    // unit's id is not (it is in the state): its consumers' adoptId is checked by the Consumer's own Check.
    const adopted = bu.adoptId === undefined ? Promise.resolve(false) : lookup(`${path}.adoptId`, () => refs.businessUnit(bu.adoptId!));
    checks.push(adopted);
    for (const [key, c] of Object.entries(bu.consumers ?? {})) {
      const p = `${path}.consumers.${key}`;
      if (c.adoptId !== undefined && bu.adoptId !== undefined) {
        checks.push(adopted.then((ok) => ok && lookup(`${p}.adoptId`, () => refs.consumer(bu.adoptId!, c.adoptId!))));
      }
      const n = c.node;
      if (!n) continue;
      check(`${p}.node.operatingSystem`, "operatingSystem", n.operatingSystem);
      check(`${p}.node.type`, "type", n.type);
      if (rootExists) {
        check(`${p}.node.domain`, "domain", n.domain);
        check(`${p}.node.clientOptionSet`, "clientOptionSet", n.clientOptionSet);
      }
    }
  }
  await Promise.all(checks);
  return problems.sort((a, b) => a.path.localeCompare(b.path));
}
