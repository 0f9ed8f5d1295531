// Types of the Backup Portal REST API (spec 000, section 2). The portal returns
// incomplete objects: any field may be absent, so every field but `id` is
// optional. Reference fields are sent as objects resolved by `id`.

export interface Ref {
  id: number;
  name?: string;
  href?: string;
}

export interface Collection<T> {
  href?: string;
  total?: number;
  offset?: number;
  limit?: number;
  items: T[];
}

export interface Action {
  name?: string;
  method?: string;
  href?: string;
}

export interface TimeZone {
  href?: string;
  id: number;
  createdDate?: string;
  name?: string;
  windowsId?: string;
  offset?: number;
  actions?: Action[];
}

export interface User {
  href?: string;
  id: number;
  username?: string;
  name?: string;
  email?: string;
  businessUnit?: Ref;
}

export interface Address {
  href?: string;
  id: number;
  [field: string]: unknown;
}

export interface BusinessUnit {
  href?: string;
  $type?: string;
  id: number;
  createdDate?: string;
  name?: string;
  note?: string;
  registrationNumber?: string;
  parentBusinessUnit?: Ref;
  timeZone?: TimeZone;
  users?: Collection<User>;
  addresses?: Collection<Address>;
  /**
   * The children: a collection by spec 000, a plain array in the answer to `GET /v1/bunits?bunitID=` (what the
   * published Go client decodes, cloutility/businessunit.go at 3a29ec8). Read it with `itemsOf`.
   */
  businessUnits?: BusinessUnit[] | Collection<BusinessUnit>;
  /** In the Go client's reading of a business unit and its children (what it holds is not public). */
  groupName?: string;
  ancestors?: Collection<Ref>;
  /** The policy domains the business unit may use (the emulator answers `{id, name}` items). */
  domainFilter?: Ref[];
  /** The client option sets the business unit may use. */
  clientOptionSetFilter?: Ref[];
  supportResponsible?: boolean;
  invoiceDay?: number;
  billingStorageTypeId?: number;
  billingStorageType?: number;
  useScheduleBindings?: boolean;
  consumers?: unknown[];
  storageLimit?: number;
  transferLimit?: number;
  nodeLimit?: number;
  passwordExpirationDays?: number;
  requiredApproversOfDeleteRequest?: number;
  finalDeleteRequestApprover?: boolean;
  usersCanApproveOwnRequests?: boolean;
  reportRemotely?: boolean;
  tags?: string[];
}

/** What a caller may set on a business unit (create needs name, registrationNumber, timeZone). */
export type BusinessUnitFields = Partial<
  Pick<
    BusinessUnit,
    | "name"
    | "note"
    | "registrationNumber"
    | "supportResponsible"
    | "invoiceDay"
    | "useScheduleBindings"
    | "storageLimit"
    | "transferLimit"
    | "nodeLimit"
    | "passwordExpirationDays"
    | "requiredApproversOfDeleteRequest"
    | "finalDeleteRequestApprover"
    | "usersCanApproveOwnRequests"
    | "reportRemotely"
    | "tags"
    | "billingStorageTypeId"
  >
> & {
  timeZone?: Ref;
  domainFilter?: Ref[] | null;
  clientOptionSetFilter?: Ref[] | null;
};

export interface IdName {
  id: number;
  name?: string;
}

export interface Consumer {
  href?: string;
  $type?: string;
  id: number;
  createdDate?: string;
  name?: string;
  note?: string;
  dataSourceType?: IdName;
  dataSourceIsPotentialParent?: boolean;
  dataSourceState?: IdName;
  billingStartDate?: string;
  businessUnit?: Ref;
  lastCommentTime?: string;
  lastCommentTypeId?: number;
  comments?: unknown[];
  limitHighStorage?: number;
  allowNoActivity?: boolean;
  tags?: string[];
  jobs?: unknown[];
}

export type ConsumerFields = Partial<Pick<Consumer, "name" | "note" | "limitHighStorage" | "allowNoActivity" | "tags">>;

export interface NodeOperatingSystem {
  href?: string;
  id: number;
  name?: string;
  shortName?: string;
  /** The node types a node of this system may be (the published Go client's field; a portal may leave it out). */
  supportedNodeTypes?: NodeType[];
}

export interface NodeType {
  href?: string;
  id: number;
  name?: string;
}

export interface Domain {
  href?: string;
  id: number;
  name?: string;
}

export interface ClientOptionSet {
  href?: string;
  id: number;
  name?: string;
}

export interface BackupServer {
  href?: string;
  id: number;
  name?: string;
  address?: string;
  port?: number;
}

/** The other side of a proxy relation: the consumer that owns that node. */
export interface ProxyPeer {
  id: number;
  name?: string;
  tsmName?: string;
}

export interface Node {
  href?: string;
  $type?: string;
  id: number;
  /** A node read from the real portal carries a name (the Go client reads it); spec 000 does not list it. */
  name?: string;
  createdDate?: string;
  contact?: string;
  cpuCount?: number;
  operatingSystem?: NodeOperatingSystem;
  type?: NodeType;
  domain?: Domain;
  clientOptionSet?: ClientOptionSet;
  server?: BackupServer;
  tsmName?: string;
  activatedDate?: string;
  locked?: boolean;
  decommissioned?: boolean;
  proxyAgents?: ProxyPeer[] | Collection<ProxyPeer>;
  proxyTargets?: ProxyPeer[] | Collection<ProxyPeer>;
  [field: string]: unknown;
}

/** The body of a node create or update: references by id. */
export interface NodeFields {
  contact?: string;
  cpuCount?: number;
  operatingSystem?: Ref;
  type?: Ref;
  domain?: Ref;
  clientOptionSet?: Ref;
  server?: Ref;
}

export interface Filespace {
  id: number;
  name?: string;
  type?: string;
  capacity?: number;
  used?: number;
  lastBackupDate?: string;
}

export interface NodeReport {
  id?: number;
  date?: string;
  storageUsedBytes?: number;
  transferredBytes?: number;
  status?: unknown;
  warnings?: unknown[];
  [field: string]: unknown;
}

export interface NodeWarningType {
  id: number;
  name?: string;
  description?: string;
}

export interface Job {
  id?: number;
  type?: string;
  status?: string;
  started?: string;
  completed?: string;
  bytesTransferred?: number;
  objects?: number;
  [field: string]: unknown;
}

export interface AuditLogEntry {
  id: number;
  time?: string;
  type?: number;
  action?: string;
  objectType?: string;
  objectId?: number;
  businessUnitId?: number;
  consumerId?: number;
  user?: string;
  message?: string;
}

/** Audit log types (spec 000, audit log query). */
export const AuditLogType = { info: 0, create: 100, modify: 200, delete: 300, error: 400 } as const;

export interface Contract {
  id?: number;
  name?: string;
  startDate?: string;
  currency?: string;
  [field: string]: unknown;
}

export interface Invoice {
  href?: string;
  id?: number;
  date?: string;
  amount?: number;
  currency?: string;
  [field: string]: unknown;
}

export interface InvoiceFile {
  id?: number;
  fileName?: string;
  size?: number;
  erpReference?: string;
  sendToBillingAddress?: boolean;
  uploadedDate?: string;
  [field: string]: unknown;
}

export interface BillingLine {
  consumerId?: number;
  consumerName?: string;
  storageBytes?: number;
  transferBytes?: number;
  amount?: number;
}

export interface BillingData {
  period?: string;
  businessUnitId?: number;
  generatedDate?: string;
  lines?: BillingLine[];
  total?: number;
  [field: string]: unknown;
}

export interface Me {
  id?: number;
  /** Spec-era emulators and this project's stand-in answer `username`; the real portal (as the Go client reads it) `name`. */
  username?: string;
  name?: string;
  businessUnit?: Ref;
}

/** What a portal's action list holds (`GET /v1/actions`; not in spec 000, read by the Go client). */
export interface PortalAction {
  id: number;
  name?: string;
  href?: string;
  createdDate?: string;
}

export interface AccessToken {
  access_token: string;
  token_type?: string;
  expires_in: number;
  refresh_token?: string;
}
