// The benchmark's and the fault drills' workload: tenants of one business unit
// with consumers that each carry an activated node, declared the way the stack
// program declares them (provider/tenants/declare.ts): dependents take the
// parent's resource id, a consumer's nodeName is its node's tsmName, the node
// password is a secret. Plus the check that the portal holds every declared
// object exactly once.
import { DesiredResource, ref, secret } from "../test/engine/engine";
import { businessUnit, consumer, node } from "../test/resources/support";
import type { State } from "../emulator";

export interface WorkloadOptions {
  tenants: number;
  /** Consumers (each with a node) per tenant; default 4. */
  consumersPerTenant?: number;
  /** Set a node password through the password endpoint (default true). */
  passwords?: boolean;
  /** Prefix of business-unit names and node names (node names are unique on the backup server). */
  prefix?: string;
  /** The business unit the tenants are created under (default 1, the admin's root). */
  parentId?: number;
}

export interface DeclaredConsumer {
  resource: string;
  nodeResource: string;
  name: string;
  tsmName: string;
}
export interface DeclaredTenant {
  resource: string;
  name: string;
  consumers: DeclaredConsumer[];
}

export interface Workload {
  resources: DesiredResource[];
  tenants: DeclaredTenant[];
  parentId: number;
}

export function workload(o: WorkloadOptions): Workload {
  const per = o.consumersPerTenant ?? 4;
  const prefix = o.prefix ?? "t";
  const parentId = o.parentId ?? 1;
  const passwords = o.passwords ?? true;
  const resources: DesiredResource[] = [];
  const tenants: DeclaredTenant[] = [];
  for (let i = 0; i < o.tenants; i++) {
    const bu = `${prefix}${i}`;
    const t: DeclaredTenant = { resource: bu, name: bu, consumers: [] };
    resources.push(businessUnit(bu, { parentId, name: bu, registrationNumber: `R-${i}`, timeZone: "W. Europe Standard Time" }));
    for (let j = 0; j < per; j++) {
      const c = `${bu}/c${j}`;
      const tsmName = `${bu}-C${j}`.toUpperCase();
      t.consumers.push({ resource: c, nodeResource: `${c}/node`, name: `c${j}`, tsmName });
      resources.push(consumer(c, { businessUnitId: ref(bu, "id"), name: `c${j}`, nodeName: tsmName }));
      resources.push(
        node(`${c}/node`, {
          businessUnitId: ref(bu, "id"),
          consumerId: ref(c, "id"),
          operatingSystem: "Linux",
          type: "File server",
          domain: "STANDARD",
          clientOptionSet: "DEDUP_AND_COMPRESS",
          cpuCount: 2,
          tsmName,
          ...(passwords ? { tsmPassword: secret(`Pw-${tsmName}-x9`) } : {}),
        }),
      );
    }
    tenants.push(t);
  }
  return { resources, tenants, parentId };
}

export interface ExactlyOnceReport {
  /** Declared objects the portal lacks. */
  missing: string[];
  /** Declared objects the portal holds more than once (name within the business unit; nodes by tsmName). */
  duplicates: string[];
  /** Objects in the declared business units that nothing declares (e.g. nodes never activated). */
  unexpected: string[];
}

/** Compares the portal's objects with the declared workload. */
export function exactlyOnce(state: State, w: Workload): ExactlyOnceReport {
  const r: ExactlyOnceReport = { missing: [], duplicates: [], unexpected: [] };
  for (const t of w.tenants) {
    const bus = state.businessUnits.filter((b) => b.parentId === w.parentId && b.name === t.name);
    if (bus.length === 0) r.missing.push(`business unit ${t.name}`);
    if (bus.length > 1) r.duplicates.push(`business unit ${t.name} ×${bus.length} (ids ${bus.map((b) => b.id).join(", ")})`);
    const buIds = new Set(bus.map((b) => b.id));
    const inTenant = state.consumers.filter((c) => buIds.has(c.businessUnitId));
    const declared = new Set(t.consumers.map((c) => c.name));
    for (const c of t.consumers) {
      const cs = inTenant.filter((x) => x.name === c.name);
      if (cs.length === 0) r.missing.push(`consumer ${t.name}/${c.name}`);
      if (cs.length > 1) r.duplicates.push(`consumer ${t.name}/${c.name} ×${cs.length} (ids ${cs.map((x) => x.id).join(", ")})`);
      const ns = state.nodes.filter((n) => n.tsmName === c.tsmName);
      if (ns.length === 0) r.missing.push(`node ${c.tsmName}`);
      if (ns.length > 1) r.duplicates.push(`node ${c.tsmName} ×${ns.length}`);
    }
    for (const c of inTenant) if (!declared.has(c.name)) r.unexpected.push(`consumer ${t.name}/${c.name} (id ${c.id})`);
    const consumerIds = new Set(inTenant.map((c) => c.id));
    for (const n of state.nodes.filter((x) => consumerIds.has(x.consumerId) && !x.tsmName)) {
      r.unexpected.push(`node ${n.id} of consumer ${n.consumerId}, never activated`);
    }
  }
  return r;
}
