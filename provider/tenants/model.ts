// The shape of `backup-portal:tenants` in a stack's config: business units
// (nested), their consumers and nodes, and proxy relations, keyed by stable keys.

export interface NodeConfig {
  operatingSystem: string | number;
  type: string | number;
  domain: string | number;
  clientOptionSet?: string | number;
  contact?: string;
  cpuCount: number;
  tsmName?: string;
  /** Name of a secret config key holding the node's password (`pulumi config set --secret backup-portal:<key>`). */
  passwordSecret?: string;
  /** Manage the node the consumer already has instead of creating one. */
  adopt?: boolean;
}

export interface ConsumerConfig {
  /** Defaults to the key. */
  name?: string;
  note?: string;
  tags?: string[];
  limitHighStorage?: number;
  allowNoActivity?: boolean;
  deleteAssociations?: boolean;
  deletionComment?: string;
  adoptId?: number;
  /** Earlier keys of this entry, so that renaming the key does not replace it. */
  aliases?: string[];
  node?: NodeConfig;
}

export interface ProxyConfig {
  /** Consumer key (in this business unit) whose node becomes the agent. */
  agent: string;
  /** Consumer key (in this business unit) whose node the agent acts for. */
  target: string;
  /** The relation may already exist on the portal: read it first, make it only when missing. */
  adopt?: boolean;
}

export interface BusinessUnitConfig {
  /** Defaults to the key. */
  name?: string;
  registrationNumber: string;
  timeZone: string | number;
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
  /** Names or ids of the default server's policy domains the business unit may use. */
  domainFilter?: Array<string | number>;
  /** Names or ids of the default server's client option sets the business unit may use. */
  clientOptionSetFilter?: Array<string | number>;
  billingStorageTypeId?: number;
  requiredApproversOfDeleteRequest?: number;
  finalDeleteRequestApprover?: boolean;
  usersCanApproveOwnRequests?: boolean;
  adoptId?: number;
  aliases?: string[];
  /** Overrides the stack's protectBusinessUnits for this business unit. */
  protect?: boolean;
  businessUnits?: Record<string, BusinessUnitConfig>;
  consumers?: Record<string, ConsumerConfig>;
  proxies?: ProxyConfig[];
}

export type TenantsConfig = Record<string, BusinessUnitConfig>;

/** One problem in the config: where, and what to do. */
export interface Problem {
  path: string;
  message: string;
}

export function formatProblems(problems: Problem[]): string {
  return problems.map((p) => `${p.path}: ${p.message}`).join("\n");
}

export class ConfigError extends Error {
  constructor(readonly problems: Problem[]) {
    super(
      `the stack config has ${problems.length} problem${problems.length === 1 ? "" : "s"}; nothing was changed:\n${formatProblems(problems)}`,
    );
    this.name = "ConfigError";
  }
}
