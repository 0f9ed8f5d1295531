// Rendering records as the portal's JSON: absolute hrefs, `$type`, nested
// references, and no key at all for a field that was never set.
import type { Ctx } from "./context";
import type {
  BillingDataRec,
  BusinessUnitRec,
  ClientOptionSetRec,
  ConsumerRec,
  DomainRec,
  InvoiceFileRec,
  InvoiceRec,
  NodeRec,
  NodeTypeRec,
  OperatingSystemRec,
  ServerRec,
  TimeZoneRec,
  UserRec,
} from "./types";

type Json = Record<string, unknown>;

/** Drops keys whose value is undefined. */
export function compact(obj: Json): Json {
  for (const k of Object.keys(obj)) if (obj[k] === undefined) delete obj[k];
  return obj;
}

export function collection(href: string, items: unknown[], extra: Json = {}): Json {
  return { href, total: items.length, ...extra, items };
}

export const buHref = (ctx: Ctx, id: number): string => `${ctx.baseUrl}/v1/bunits/${id}`;
export const consumerHref = (ctx: Ctx, c: ConsumerRec): string => `${buHref(ctx, c.businessUnitId)}/consumers/${c.id}`;
export const nodeHref = (ctx: Ctx, c: ConsumerRec): string => `${consumerHref(ctx, c)}/node`;

function buRef(ctx: Ctx, id: number): Json {
  const bu = ctx.state.businessUnits.find((b) => b.id === id);
  return compact({ href: buHref(ctx, id), id, name: bu?.name });
}

export function renderTimeZone(ctx: Ctx, tz: TimeZoneRec): Json {
  const href = `${ctx.baseUrl}/v1/timezones/${tz.id}`;
  return {
    href,
    id: tz.id,
    createdDate: tz.createdDate,
    name: tz.name,
    windowsId: tz.windowsId,
    offset: tz.offset,
    actions: [{ name: "offset", method: "GET", href: `${href}/offset?date=` }],
  };
}

export function renderBu(ctx: Ctx, bu: BusinessUnitRec): Json {
  const tz = ctx.state.timeZones.find((t) => t.id === bu.timeZoneId);
  const named = (ids: number[] | undefined, list: Array<{ id: number; name: string }>) =>
    ids?.map((id) => compact({ id, name: list.find((x) => x.id === id)?.name }));
  return compact({
    href: buHref(ctx, bu.id),
    $type: "BusinessUnit",
    id: bu.id,
    createdDate: bu.createdDate,
    name: bu.name,
    registrationNumber: bu.registrationNumber,
    note: bu.note,
    parentBusinessUnit: bu.parentId !== undefined ? buRef(ctx, bu.parentId) : undefined,
    timeZone: tz ? renderTimeZone(ctx, tz) : { id: bu.timeZoneId },
    invoiceDay: bu.invoiceDay,
    storageLimit: bu.storageLimit,
    transferLimit: bu.transferLimit,
    nodeLimit: bu.nodeLimit,
    passwordExpirationDays: bu.passwordExpirationDays,
    supportResponsible: bu.supportResponsible,
    reportRemotely: bu.reportRemotely,
    useScheduleBindings: bu.useScheduleBindings,
    tags: bu.tags,
    domainFilter: named(bu.domainFilter, ctx.state.domains),
    clientOptionSetFilter: named(bu.clientOptionSetFilter, ctx.state.clientOptionSets),
    billingStorageTypeId: bu.billingStorageTypeId,
    billingStorageType: bu.billingStorageTypeId,
    requiredApproversOfDeleteRequest: bu.requiredApproversOfDeleteRequest,
    finalDeleteRequestApprover: bu.finalDeleteRequestApprover,
    usersCanApproveOwnRequests: bu.usersCanApproveOwnRequests,
  });
}

export function renderUser(ctx: Ctx, u: UserRec): Json {
  return compact({
    href: `${buHref(ctx, u.businessUnitId)}/users/${u.id}`,
    id: u.id,
    createdDate: u.createdDate,
    username: u.username,
    name: u.name,
    email: u.email,
    businessUnit: buRef(ctx, u.businessUnitId),
  });
}

export function dataSourceState(ctx: Ctx, consumerId: number): Json | undefined {
  const node = ctx.state.nodes.find((n) => n.consumerId === consumerId);
  if (!node) return undefined;
  return node.tsmName ? { id: 3, name: "Active" } : { id: 2, name: "Not activated" };
}

export function renderConsumer(ctx: Ctx, c: ConsumerRec): Json {
  return compact({
    href: consumerHref(ctx, c),
    $type: "Consumer",
    id: c.id,
    createdDate: c.createdDate,
    name: c.name,
    note: c.note,
    tags: c.tags,
    businessUnit: buRef(ctx, c.businessUnitId),
    dataSourceType: { id: 1, name: "SP Backup node" },
    dataSourceIsPotentialParent: false,
    dataSourceState: dataSourceState(ctx, c.id),
    billingStartDate: c.billingStartDate,
    limitHighStorage: c.limitHighStorage,
    allowNoActivity: c.allowNoActivity,
    comments: [],
    jobs: [],
  });
}

function proxySide(ctx: Ctx, consumerIds: number[]): Json[] {
  return consumerIds.map((id) => {
    const c = ctx.state.consumers.find((x) => x.id === id);
    const n = ctx.state.nodes.find((x) => x.consumerId === id);
    return compact({ id, name: c?.name, tsmName: n?.tsmName });
  });
}

export function renderNode(ctx: Ctx, n: NodeRec): Json {
  const s = ctx.state;
  const consumer = s.consumers.find((c) => c.id === n.consumerId);
  const os = s.operatingSystems.find((x) => x.id === n.operatingSystemId);
  const type = s.nodeTypes.find((x) => x.id === n.typeId);
  const domain = s.domains.find((x) => x.id === n.domainId);
  const cos = n.clientOptionSetId !== undefined ? s.clientOptionSets.find((x) => x.id === n.clientOptionSetId) : undefined;
  const server = s.servers.find((x) => x.id === n.serverId);
  const agents = s.proxies.filter((p) => p.targetConsumerId === n.consumerId).map((p) => p.agentConsumerId);
  const targets = s.proxies.filter((p) => p.agentConsumerId === n.consumerId).map((p) => p.targetConsumerId);
  return compact({
    href: consumer ? nodeHref(ctx, consumer) : undefined,
    $type: "Node",
    id: n.id,
    // A node read from the real portal carries a name (the Go client reads it): the consumer's.
    name: consumer?.name,
    createdDate: n.createdDate,
    contact: n.contact,
    cpuCount: n.cpuCount,
    operatingSystem: compact({ id: n.operatingSystemId, name: os?.name, shortName: os?.shortName }),
    type: compact({ id: n.typeId, name: type?.name }),
    domain: compact({ id: n.domainId, name: domain?.name }),
    clientOptionSet: n.clientOptionSetId !== undefined ? compact({ id: n.clientOptionSetId, name: cos?.name }) : undefined,
    server: compact({ id: n.serverId, name: server?.name }),
    tsmName: n.tsmName,
    tsmPassword: n.generatedPassword,
    activatedDate: n.activatedDate,
    locked: n.locked,
    decommissioned: n.decommissioned,
    proxyAgents: proxySide(ctx, agents),
    proxyTargets: proxySide(ctx, targets),
  });
}

export function renderOs(ctx: Ctx, os: OperatingSystemRec): Json {
  const types = ctx.state.nodeTypes;
  const supported = os.supportedNodeTypeIds ? types.filter((t) => os.supportedNodeTypeIds!.includes(t.id)) : types;
  return {
    href: `${ctx.baseUrl}/v1/nodeoperatingsystems/${os.id}`,
    id: os.id,
    createdDate: os.createdDate,
    name: os.name,
    shortName: os.shortName,
    // The node types as /v1/nodetypes answers them (the Go client reads createdDate, name, shortName and id of each).
    supportedNodeTypes: supported.map((t) => renderNodeType(ctx, t)),
  };
}

export function renderNodeType(ctx: Ctx, t: NodeTypeRec): Json {
  return { href: `${ctx.baseUrl}/v1/nodetypes/${t.id}`, id: t.id, createdDate: t.createdDate, name: t.name };
}

export function renderServer(ctx: Ctx, buId: number, s: ServerRec): Json {
  return {
    href: `${buHref(ctx, buId)}/defaultserver`,
    id: s.id,
    createdDate: s.createdDate,
    name: s.name,
    address: s.address,
    port: s.port,
  };
}

export function renderDomain(ctx: Ctx, buId: number, d: DomainRec): Json {
  return { href: `${buHref(ctx, buId)}/defaultserver/domains/${d.id}`, id: d.id, createdDate: d.createdDate, name: d.name };
}

export function renderClientOptionSet(ctx: Ctx, buId: number, c: ClientOptionSetRec): Json {
  return { href: `${buHref(ctx, buId)}/defaultserver/clientoptionsets/${c.id}`, id: c.id, createdDate: c.createdDate, name: c.name };
}

export function renderInvoice(ctx: Ctx, i: InvoiceRec): Json {
  return {
    href: `${buHref(ctx, i.businessUnitId)}/invoices/${i.date}`,
    id: i.id,
    createdDate: i.createdDate,
    date: i.date,
    amount: i.amount,
    currency: i.currency,
  };
}

export function renderInvoiceFile(f: InvoiceFileRec): Json {
  return compact({
    id: f.id,
    fileName: f.fileName,
    size: f.size,
    erpReference: f.erpReference,
    sendToBillingAddress: f.sendToBillingAddress,
    uploadedDate: f.uploadedDate,
  });
}

export function renderBillingData(
  ctx: Ctx,
  b: Omit<BillingDataRec, "id" | "generatedDate"> & { id?: number; generatedDate?: string },
): Json {
  return compact({
    href: `${buHref(ctx, b.businessUnitId)}/billing/${b.period}`,
    id: b.id,
    period: b.period,
    businessUnitId: b.businessUnitId,
    generatedDate: b.generatedDate,
    lines: b.lines.map((l) => ({ ...l })),
    total: b.total,
  });
}
