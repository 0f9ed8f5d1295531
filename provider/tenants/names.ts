// Checks the names in `backup-portal:tenants` against the portal's reference
// data (time zones, operating systems, node types, and the default server's
// domains and client option sets). Reads only.
import { ReferenceKind, References, UnknownReferenceError } from "../dynamic/references";
import { Problem, TenantsConfig } from "./model";
import { walkBusinessUnits } from "./validate";

export async function validateNames(tenants: TenantsConfig, refs: References, rootBusinessUnitId: number): Promise<Problem[]> {
  const problems: Problem[] = [];
  const checks: Array<Promise<void>> = [];
  const check = (path: string, kind: ReferenceKind, value: unknown) => {
    if (value === undefined) return;
    checks.push(
      refs.resolve(kind, value as string | number, rootBusinessUnitId).then(
        () => undefined,
        (err) => {
          if (err instanceof UnknownReferenceError) problems.push({ path, message: err.message });
          else throw err;
        },
      ),
    );
  };
  for (const { path, bu } of walkBusinessUnits(tenants)) {
    check(`${path}.timeZone`, "timeZone", bu.timeZone);
    // The filters name the default server's lists, as a node's domain and option set do.
    (bu.domainFilter ?? []).forEach((v, i) => check(`${path}.domainFilter[${i}]`, "domain", v));
    (bu.clientOptionSetFilter ?? []).forEach((v, i) => check(`${path}.clientOptionSetFilter[${i}]`, "clientOptionSet", v));
    for (const [key, c] of Object.entries(bu.consumers ?? {})) {
      const n = c.node;
      if (!n) continue;
      const p = `${path}.consumers.${key}.node`;
      check(`${p}.operatingSystem`, "operatingSystem", n.operatingSystem);
      check(`${p}.type`, "type", n.type);
      check(`${p}.domain`, "domain", n.domain);
      check(`${p}.clientOptionSet`, "clientOptionSet", n.clientOptionSet);
    }
  }
  await Promise.all(checks);
  return problems.sort((a, b) => a.path.localeCompare(b.path));
}
