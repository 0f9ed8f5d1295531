// The emulator's data model: what the store keeps (and persists) and what
// `GET /_emulator/state` dumps. Records hold ids, never nested objects; the
// JSON the portal answers is rendered from them by views.ts.

/** ISO 8601 UTC timestamp with second precision, e.g. `2025-01-01T00:00:00Z`. */
export type Iso = string;

export interface ClientRec {
  clientId: string;
  name: string;
  origin: string;
  allowRefresh: boolean;
  businessUnitId: number;
}

export interface UserRec {
  id: number;
  createdDate: Iso;
  username: string;
  name?: string;
  email?: string;
  passwordSalt: string;
  passwordHash: string;
  businessUnitId: number;
}

/** One login: a password grant starts it, refresh grants continue it. */
export interface SessionRec {
  id: string;
  clientId: string;
  userId: number;
  createdDate: Iso;
  /** SHA-256 of the refresh token; absent when the client ID may not refresh. */
  refreshTokenHash?: string;
}

export interface AccessTokenRec {
  /** SHA-256 of the access token (the token itself is never stored). */
  hash: string;
  sessionId: string;
  issuedAt: number;
  expiresAt: number;
}

export interface TimeZoneRec {
  id: number;
  createdDate: Iso;
  name: string;
  windowsId: string;
  /** IANA name used to compute the offset for a date. */
  iana: string;
  /** Standard (non-DST) offset from UTC in minutes. */
  offset: number;
}

export interface OperatingSystemRec {
  id: number;
  createdDate: Iso;
  name: string;
  shortName: string;
  /**
   * The node types offered for this operating system, answered as `supportedNodeTypes` (a field of the published
   * Go client's NodeOperatingSystem), and enforced: a node of another type is refused (400 UnsupportedNodeType), as
   * a portal that enforces the pairs it lists would. Absent in a data file an older emulator wrote: every node type.
   */
  supportedNodeTypeIds?: number[];
}
export interface NodeTypeRec {
  id: number;
  createdDate: Iso;
  name: string;
}
export interface ServerRec {
  id: number;
  createdDate: Iso;
  name: string;
  address: string;
  port: number;
  isDefault: boolean;
}
export interface DomainRec {
  id: number;
  createdDate: Iso;
  name: string;
  serverId: number;
}
export interface ClientOptionSetRec {
  id: number;
  createdDate: Iso;
  name: string;
  serverId: number;
}
export interface WarningTypeRec {
  id: number;
  name: string;
  description: string;
}

export interface BusinessUnitRec {
  id: number;
  createdDate: Iso;
  name: string;
  registrationNumber: string;
  parentId?: number;
  timeZoneId: number;
  /** Only a reseller has billing data (seed: business unit 1). Not rendered. */
  isReseller: boolean;
  note?: string;
  invoiceDay?: number;
  storageLimit?: number;
  transferLimit?: number;
  nodeLimit?: number;
  passwordExpirationDays?: number;
  supportResponsible?: boolean;
  reportRemotely?: boolean;
  useScheduleBindings?: boolean;
  tags?: string[];
  domainFilter?: number[];
  clientOptionSetFilter?: number[];
  billingStorageTypeId?: number;
  requiredApproversOfDeleteRequest?: number;
  finalDeleteRequestApprover?: boolean;
  usersCanApproveOwnRequests?: boolean;
}

export interface ConsumerRec {
  id: number;
  createdDate: Iso;
  name: string;
  businessUnitId: number;
  billingStartDate: Iso;
  note?: string;
  tags?: string[];
  limitHighStorage?: number;
  allowNoActivity?: boolean;
}

export interface NodeRec {
  id: number;
  createdDate: Iso;
  consumerId: number;
  operatingSystemId: number;
  typeId: number;
  domainId: number;
  serverId: number;
  clientOptionSetId?: number;
  contact?: string;
  cpuCount?: number;
  tsmName?: string;
  activatedDate?: Iso;
  /** SHA-256 (salted) of the last password set through the API. */
  passwordHash?: string;
  passwordChangedDate?: Iso;
  /**
   * The password the portal chose at activation when none had been set (the published Go client reads it
   * as the node's tsmPassword after ActivateNode); answered as `tsmPassword` until one is set through the API.
   */
  generatedPassword?: string;
  locked: boolean;
  decommissioned: boolean;
}

/** The agent may act for the target (e.g. restore the target's files). Consumer ids. */
export interface ProxyRec {
  agentConsumerId: number;
  targetConsumerId: number;
  createdDate: Iso;
}

export type AuditObjectType = "BusinessUnit" | "Consumer" | "Node";

export interface AuditRec {
  id: number;
  time: Iso;
  /** 0 info, 100 create, 200 modify, 300 delete, 400 error. */
  type: number;
  action: string;
  objectType: AuditObjectType;
  objectId: number;
  businessUnitId: number;
  consumerId?: number;
  user: string;
  message: string;
}

export interface JobRec {
  id: number;
  consumerId: number;
  type: "Backup" | "Restore";
  status: string;
  started: Iso;
  completed: Iso;
  bytesTransferred: number;
  objects: number;
}

export interface ReportWarning {
  warningTypeId: number;
  message: string;
}

export interface ReportRec {
  id: number;
  consumerId: number;
  date: Iso;
  storageUsedBytes: number;
  transferredBytes: number;
  status: string;
  warnings: ReportWarning[];
}

export interface FilespaceRec {
  id: number;
  consumerId: number;
  name: string;
  type: string;
  capacity: number;
  used: number;
  lastBackupDate: Iso;
}

export interface ContractRec {
  id: number;
  createdDate: Iso;
  businessUnitId: number;
  name: string;
  startDate: Iso;
  currency: string;
}
export interface InvoiceRec {
  id: number;
  createdDate: Iso;
  businessUnitId: number;
  date: string;
  amount: number;
  currency: string;
}

export interface InvoiceFileRec {
  id: number;
  businessUnitId: number;
  fileName: string;
  contentType: string;
  size: number;
  erpReference?: string;
  sendToBillingAddress: boolean;
  uploadedDate: Iso;
  contentBase64: string;
}

export interface BillingLine {
  consumerId: number;
  consumerName: string;
  storageBytes: number;
  transferBytes: number;
  amount: number;
}

export interface BillingDataRec {
  id: number;
  businessUnitId: number;
  /** First day of the billing period, YYYY-MM-DD. */
  period: string;
  generatedDate: Iso;
  lines: BillingLine[];
  total: number;
}

export interface SubscriberRec {
  id: number;
  createdDate: Iso;
  businessUnitId: number;
  url: string;
}

export interface State {
  schemaVersion: 1;
  fullVersion: string;
  /** Next id per kind of record (see Store.nextId). */
  nextIds: Record<string, number>;
  clients: ClientRec[];
  users: UserRec[];
  sessions: SessionRec[];
  accessTokens: AccessTokenRec[];
  timeZones: TimeZoneRec[];
  operatingSystems: OperatingSystemRec[];
  nodeTypes: NodeTypeRec[];
  servers: ServerRec[];
  domains: DomainRec[];
  clientOptionSets: ClientOptionSetRec[];
  warningTypes: WarningTypeRec[];
  businessUnits: BusinessUnitRec[];
  consumers: ConsumerRec[];
  nodes: NodeRec[];
  proxies: ProxyRec[];
  auditLogs: AuditRec[];
  jobs: JobRec[];
  reports: ReportRec[];
  filespaces: FilespaceRec[];
  contracts: ContractRec[];
  invoices: InvoiceRec[];
  invoiceFiles: InvoiceFileRec[];
  billingData: BillingDataRec[];
  subscribers: SubscriberRec[];
}

/** One line of the request log: every /v1 request, in the order answered. Status 0 = dropped. */
export interface RequestLogEntry {
  method: string;
  path: string;
  status: number;
}
