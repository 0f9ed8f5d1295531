// Test support for `backup-portal export`: portal trees planted straight into the emulator's data model (fast
// enough for a property test), and the command run against an emulator as a user runs it (BACKUP_PORTAL_*).
import type { Emulator } from "../../emulator";
import type { BusinessUnitRec, ConsumerRec, NodeRec, State } from "../../emulator/types";
import { run } from "../../provider/cli/export";
import { envFor } from "../support/portal";

export interface NodeSpec {
  os: number;
  type: number;
  domain: number;
  cos?: number;
  contact?: string;
  cpuCount?: number;
  tsmName?: string;
}

export interface ConsumerSpec {
  name: string;
  note?: string;
  tags?: string[];
  limitHighStorage?: number;
  allowNoActivity?: boolean;
  node?: NodeSpec;
}

export type BuSettings = Partial<
  Pick<
    BusinessUnitRec,
    | "note"
    | "tags"
    | "invoiceDay"
    | "storageLimit"
    | "transferLimit"
    | "nodeLimit"
    | "passwordExpirationDays"
    | "supportResponsible"
    | "reportRemotely"
    | "useScheduleBindings"
    | "domainFilter"
    | "clientOptionSetFilter"
    | "billingStorageTypeId"
    | "requiredApproversOfDeleteRequest"
    | "finalDeleteRequestApprover"
    | "usersCanApproveOwnRequests"
  >
>;

export interface BuSpec {
  name: string;
  registrationNumber: string;
  timeZoneId: number;
  settings?: BuSettings;
  consumers?: ConsumerSpec[];
  /** Proxy relations between this business unit's consumers: [agent index, target index] (both with a node). */
  proxies?: Array<[number, number]>;
  children?: BuSpec[];
}

const DATE = "2024-01-01T00:00:00Z";

const nextOf = (list: Array<{ id: number }>, taken: number | undefined) => Math.max(0, taken ? taken - 1 : 0, ...list.map((x) => x.id)) + 1;

/** Plants `specs` below business unit `rootId`; returns the ids made, in the order planted. */
export function plant(emu: Emulator, specs: BuSpec[], rootId = 1): { businessUnits: number[]; consumers: number[] } {
  const made = { businessUnits: [] as number[], consumers: [] as number[] };
  emu.update((s: State) => {
    let buId = nextOf(s.businessUnits, s.nextIds.businessUnit);
    let cId = nextOf(s.consumers, s.nextIds.consumer);
    let nId = nextOf(s.nodes, s.nextIds.node);
    const add = (spec: BuSpec, parentId: number) => {
      const bu: BusinessUnitRec = {
        id: buId++,
        createdDate: DATE,
        name: spec.name,
        registrationNumber: spec.registrationNumber,
        parentId,
        timeZoneId: spec.timeZoneId,
        isReseller: false,
        ...spec.settings,
      };
      s.businessUnits.push(bu);
      made.businessUnits.push(bu.id);
      const ids: number[] = [];
      for (const c of spec.consumers ?? []) {
        const rec: ConsumerRec = {
          id: cId++,
          createdDate: DATE,
          name: c.name,
          businessUnitId: bu.id,
          billingStartDate: DATE,
          ...(c.note !== undefined && { note: c.note }),
          ...(c.tags !== undefined && { tags: c.tags }),
          ...(c.limitHighStorage !== undefined && { limitHighStorage: c.limitHighStorage }),
          ...(c.allowNoActivity !== undefined && { allowNoActivity: c.allowNoActivity }),
        };
        s.consumers.push(rec);
        made.consumers.push(rec.id);
        ids.push(rec.id);
        if (c.node) {
          const n: NodeRec = {
            id: nId++,
            createdDate: DATE,
            consumerId: rec.id,
            operatingSystemId: c.node.os,
            typeId: c.node.type,
            domainId: c.node.domain,
            serverId: 1,
            locked: false,
            decommissioned: false,
            ...(c.node.cos !== undefined && { clientOptionSetId: c.node.cos }),
            ...(c.node.contact !== undefined && { contact: c.node.contact }),
            ...(c.node.cpuCount !== undefined && { cpuCount: c.node.cpuCount }),
            ...(c.node.tsmName !== undefined && { tsmName: c.node.tsmName.toUpperCase(), activatedDate: DATE }),
          };
          s.nodes.push(n);
        }
      }
      for (const [a, t] of spec.proxies ?? []) s.proxies.push({ agentConsumerId: ids[a], targetConsumerId: ids[t], createdDate: DATE });
      for (const child of spec.children ?? []) add(child, bu.id);
    };
    for (const spec of specs) add(spec, rootId);
    s.nextIds.businessUnit = buId;
    s.nextIds.consumer = cId;
    s.nextIds.node = nId;
  });
  return made;
}

export interface Run {
  code: number;
  out: string;
  err: string;
}

/** `backup-portal export <argv>` with the emulator's BACKUP_PORTAL_* environment. */
export async function exportCli(emu: Emulator, argv: string[] = [], extra: { errIsTTY?: boolean } = {}): Promise<Run> {
  let out = "";
  let err = "";
  const code = await run(argv, { out: (t) => (out += t), err: (t) => (err += t), env: envFor(emu), ...extra });
  return { code, out, err };
}

/** The portal requests since `mark`, token requests left out. */
export function readsSince(emu: Emulator, mark: number) {
  return emu
    .requests()
    .slice(mark)
    .filter((r) => r.path !== "/v1/oauth");
}
