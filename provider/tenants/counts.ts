// What a tenants block declares, counted one way wherever it is said (`validate`, the closing line of
// `export --merge`): business units at every depth, their consumers, and the consumers' nodes.
import { TenantsConfig } from "./model";
import { walkBusinessUnits } from "./validate";

export interface DeclaredCounts {
  businessUnits: number;
  consumers: number;
  nodes: number;
}

export function declaredCounts(tenants: TenantsConfig): DeclaredCounts {
  const counts = { businessUnits: 0, consumers: 0, nodes: 0 };
  for (const { bu } of walkBusinessUnits(tenants)) {
    counts.businessUnits++;
    for (const c of Object.values(bu.consumers ?? {})) {
      counts.consumers++;
      if (c.node) counts.nodes++;
    }
  }
  return counts;
}

/** `6 business units, 4 consumers, 3 nodes`. */
export function countsText(c: DeclaredCounts): string {
  const n = (k: number, one: string) => `${k} ${one}${k === 1 ? "" : "s"}`;
  return `${n(c.businessUnits, "business unit")}, ${n(c.consumers, "consumer")}, ${n(c.nodes, "node")}`;
}
