// A PUT that means the same whether the portal merges the body into the object (fields left out keep their
// value) or replaces the object with it (fields left out are cleared): spec 000 only says a PUT takes the object
// (docs/portal-contract.md; `backup-portal doctor --write-test` tells which one a portal does). The client reads
// the object, lays the caller's fields over its settable fields and sends them all, so an update of one field
// keeps the others under both readings. null still clears a field. It costs one GET per update; a change someone
// else makes between the read and the write is overwritten with what was read (last writer wins, as with any PUT).
import type { BusinessUnitFields, ConsumerFields, NodeFields } from "./types";

/** How a settable field is read back into a body: as it is, a reference (`{id}`), or a list of references. */
type Form = "value" | "ref" | "refs";

/** Every field a business unit's PUT sets (a key missing here fails to compile: the table covers the type). */
export const BUSINESS_UNIT_SETTABLE: Record<keyof BusinessUnitFields, Form> = {
  name: "value",
  note: "value",
  registrationNumber: "value",
  timeZone: "ref",
  supportResponsible: "value",
  invoiceDay: "value",
  useScheduleBindings: "value",
  storageLimit: "value",
  transferLimit: "value",
  nodeLimit: "value",
  passwordExpirationDays: "value",
  requiredApproversOfDeleteRequest: "value",
  finalDeleteRequestApprover: "value",
  usersCanApproveOwnRequests: "value",
  reportRemotely: "value",
  tags: "value",
  billingStorageTypeId: "value",
  domainFilter: "refs",
  clientOptionSetFilter: "refs",
};

export const CONSUMER_SETTABLE: Record<keyof ConsumerFields, Form> = {
  name: "value",
  note: "value",
  limitHighStorage: "value",
  allowNoActivity: "value",
  tags: "value",
};

/** A node's PUT: its server is chosen at create and not changed by a PUT (sent only when the caller gives it). */
export const NODE_SETTABLE: Record<Exclude<keyof NodeFields, "server">, Form> = {
  contact: "value",
  cpuCount: "value",
  operatingSystem: "ref",
  type: "ref",
  domain: "ref",
  clientOptionSet: "ref",
};

const idOf = (v: unknown): { id: number } | undefined =>
  typeof v === "object" && v !== null && typeof (v as { id?: unknown }).id === "number" ? { id: (v as { id: number }).id } : undefined;

/** The settable fields of `current` (an object as read) as a body, with `fields` laid over them. */
export function wholeBody<F extends object>(current: object, settable: Record<string, Form>, fields: F): F {
  const read = current as Record<string, unknown>;
  const body: Record<string, unknown> = {};
  for (const [key, form] of Object.entries(settable)) {
    const v = read[key];
    if (v === undefined || v === null) continue;
    if (form === "value") body[key] = v;
    else if (form === "ref") {
      const ref = idOf(v);
      if (ref) body[key] = ref;
    } else if (Array.isArray(v)) body[key] = v.map(idOf).filter((r) => r !== undefined);
  }
  for (const [key, v] of Object.entries(fields)) if (v !== undefined) body[key] = v;
  return body as F;
}
