// Seed data: what a fresh (or reset) emulator holds. `SEED` names the ids so
// tests elsewhere can refer to them; `seedState()` builds the full state.
// Activity (jobs, reports, audit entries) is placed relative to `now`, so the
// 24-hour job window always has something in it; billing periods are fixed.
import type { State, AuditRec, JobRec, ReportRec, BillingDataRec, InvoiceRec, FilespaceRec } from "./types";
import { DAY, HOUR, hashSecret, iso } from "./util";
import { computeBillingLines } from "./billing";

export const REF_DATE = "2020-01-01T00:00:00Z";

export const SEED = {
  fullVersion: "1.0.4480.0",
  origin: "http://localhost",
  clients: {
    emulator: { clientId: "emulator", origin: "http://localhost", allowRefresh: true },
    norefresh: { clientId: "norefresh", origin: "http://localhost", allowRefresh: false },
  },
  users: {
    admin: { id: 1, username: "admin", password: "admin", businessUnitId: 1 },
    tenant: { id: 2, username: "tenant", password: "tenant", businessUnitId: 2 },
  },
  businessUnits: {
    reseller: { id: 1, name: "Reseller" },
    tenantA: { id: 2, name: "Tenant A", parentId: 1 },
    tenantB: { id: 3, name: "Tenant B", parentId: 1 },
  },
  consumers: {
    /** Tenant A, activated node with jobs, reports, filespaces and audit entries. */
    web: { id: 1, name: "web-01", businessUnitId: 2, nodeId: 1, tsmName: "WEB-01" },
    /** Tenant A, node not activated. */
    db: { id: 2, name: "db-01", businessUnitId: 2, nodeId: 2 },
    /** Tenant B (outside the tenant account), activated node. */
    erp: { id: 3, name: "erp-01", businessUnitId: 3, nodeId: 3, tsmName: "ERP-01" },
  },
  timeZones: {
    utc: { id: 1, windowsId: "UTC", name: "(GMT) Coordinated Universal Time" },
    amsterdam: { id: 4, windowsId: "W. Europe Standard Time", name: "(GMT+01:00) Amsterdam, Berlin, Bern, Rome, Stockholm, Vienna" },
  },
  operatingSystems: {
    windowsServer: { id: 2, name: "Windows server" },
    linux: { id: 3, name: "Linux" },
  },
  nodeTypes: {
    fileServer: { id: 1, name: "File server" },
    workstation: { id: 2, name: "Workstation" },
    applicationServer: { id: 3, name: "Application server" },
  },
  server: { id: 1, name: "SP01" },
  domains: {
    STANDARD: { id: 1, name: "STANDARD" },
    "30DAYS": { id: 2, name: "30DAYS" },
    "60DAYS": { id: 3, name: "60DAYS" },
    "90DAYS": { id: 4, name: "90DAYS" },
    "180DAYS": { id: 5, name: "180DAYS" },
    "1YEAR": { id: 6, name: "1YEAR" },
    "2YEAR": { id: 7, name: "2YEAR" },
  },
  clientOptionSets: {
    None: { id: 1, name: "None" },
    DEDUP_AND_COMPRESS: { id: 2, name: "DEDUP_AND_COMPRESS" },
    FORCE_ENCRYPT: { id: 3, name: "FORCE_ENCRYPT" },
  },
  billing: {
    resellerId: 1,
    contractId: 1,
    currency: "EUR",
    /** Billing periods (and invoice dates) present at start. */
    periods: ["2025-01-01", "2025-02-01", "2025-03-01"],
    invoiceFileId: 1,
  },
} as const;

const TIME_ZONES: Array<[number, string, string, string, number]> = [
  [1, SEED.timeZones.utc.name, "UTC", "UTC", 0],
  [2, "(GMT+00:00) Dublin, Edinburgh, Lisbon, London", "GMT Standard Time", "Europe/London", 0],
  [3, "(GMT-05:00) Eastern Time (US & Canada)", "Eastern Standard Time", "America/New_York", -300],
  [4, SEED.timeZones.amsterdam.name, SEED.timeZones.amsterdam.windowsId, "Europe/Amsterdam", 60],
  [5, "(GMT+02:00) Helsinki, Kyiv, Riga, Sofia, Tallinn, Vilnius", "FLE Standard Time", "Europe/Helsinki", 120],
  [6, "(GMT+09:00) Osaka, Sapporo, Tokyo", "Tokyo Standard Time", "Asia/Tokyo", 540],
  [7, "(GMT-08:00) Pacific Time (US & Canada)", "Pacific Standard Time", "America/Los_Angeles", -480],
  [8, "(GMT+05:30) Chennai, Kolkata, Mumbai, New Delhi", "India Standard Time", "Asia/Kolkata", 330],
];

export function seedState(now: number = Date.now()): State {
  const at = (msAgo: number): string => iso(now - msAgo);
  const { web, db, erp } = SEED.consumers;
  const [fileServer, workstation, applicationServer] = [
    SEED.nodeTypes.fileServer.id,
    SEED.nodeTypes.workstation.id,
    SEED.nodeTypes.applicationServer.id,
  ];
  const s: State = {
    schemaVersion: 1,
    fullVersion: SEED.fullVersion,
    nextIds: {},
    clients: [
      { ...SEED.clients.emulator, name: "Emulator", businessUnitId: 1 },
      { ...SEED.clients.norefresh, name: "No refresh", businessUnitId: 1 },
    ],
    users: Object.values(SEED.users).map((u) => ({
      id: u.id,
      createdDate: REF_DATE,
      username: u.username,
      name: u.username === "admin" ? "Administrator" : "Tenant A operator",
      email: `${u.username}@portal.example`,
      passwordSalt: `seed-${u.username}`,
      passwordHash: hashSecret(u.password, `seed-${u.username}`),
      businessUnitId: u.businessUnitId,
    })),
    sessions: [],
    accessTokens: [],
    timeZones: TIME_ZONES.map(([id, name, windowsId, ianaName, offset]) => ({
      id,
      createdDate: REF_DATE,
      name,
      windowsId,
      iana: ianaName,
      offset,
    })),
    operatingSystems: [
      { id: 1, createdDate: REF_DATE, name: "Windows workstation", shortName: "WinWS", supportedNodeTypeIds: [workstation] },
      { id: 2, createdDate: REF_DATE, name: "Windows server", shortName: "WinSrv", supportedNodeTypeIds: [fileServer, applicationServer] },
      {
        id: 3,
        createdDate: REF_DATE,
        name: "Linux",
        shortName: "Linux",
        supportedNodeTypeIds: [fileServer, workstation, applicationServer],
      },
      { id: 4, createdDate: REF_DATE, name: "macOS", shortName: "Mac", supportedNodeTypeIds: [workstation] },
    ],
    nodeTypes: Object.values(SEED.nodeTypes).map((t) => ({ ...t, createdDate: REF_DATE })),
    servers: [{ ...SEED.server, createdDate: REF_DATE, address: "sp01.backup.example", port: 1500, isDefault: true }],
    domains: Object.values(SEED.domains).map((d) => ({ ...d, createdDate: REF_DATE, serverId: 1 })),
    clientOptionSets: Object.values(SEED.clientOptionSets).map((c) => ({ ...c, createdDate: REF_DATE, serverId: 1 })),
    warningTypes: [
      { id: 1, name: "NoRecentBackup", description: "No successful backup in the last 24 hours" },
      { id: 2, name: "FailedObjects", description: "Some objects could not be backed up" },
      { id: 3, name: "StorageAboveLimit", description: "Storage used is above the consumer's high storage limit" },
      { id: 4, name: "MissedSchedule", description: "A scheduled backup was missed" },
      { id: 5, name: "NodeLocked", description: "The node is locked on the backup server" },
      { id: 6, name: "OldClientVersion", description: "The backup client is older than the supported version" },
    ],
    businessUnits: [
      {
        id: 1,
        createdDate: REF_DATE,
        name: "Reseller",
        registrationNumber: "RES-0001",
        timeZoneId: 4,
        isReseller: true,
        invoiceDay: 1,
        supportResponsible: true,
        note: "Seeded reseller",
      },
      {
        id: 2,
        createdDate: "2021-03-01T09:00:00Z",
        name: "Tenant A",
        registrationNumber: "TA-0001",
        parentId: 1,
        timeZoneId: 4,
        isReseller: false,
        tags: ["tenant"],
      },
      {
        id: 3,
        createdDate: "2021-06-01T09:00:00Z",
        name: "Tenant B",
        registrationNumber: "TB-0001",
        parentId: 1,
        timeZoneId: 1,
        isReseller: false,
      },
    ],
    consumers: [
      {
        id: web.id,
        createdDate: at(12 * DAY),
        name: web.name,
        businessUnitId: web.businessUnitId,
        billingStartDate: at(12 * DAY),
        note: "Web server",
        tags: ["web"],
      },
      { id: db.id, createdDate: at(3 * DAY), name: db.name, businessUnitId: db.businessUnitId, billingStartDate: at(3 * DAY) },
      {
        id: erp.id,
        createdDate: at(30 * DAY),
        name: erp.name,
        businessUnitId: erp.businessUnitId,
        billingStartDate: at(30 * DAY),
        allowNoActivity: false,
        limitHighStorage: 500e9,
      },
    ],
    nodes: [
      {
        id: web.nodeId,
        createdDate: at(12 * DAY - 60_000),
        consumerId: web.id,
        operatingSystemId: 3,
        typeId: 1,
        domainId: 1,
        serverId: 1,
        clientOptionSetId: 2,
        contact: "ops@tenant-a.example",
        cpuCount: 4,
        tsmName: web.tsmName,
        activatedDate: at(11 * DAY),
        locked: false,
        decommissioned: false,
      },
      {
        id: db.nodeId,
        createdDate: at(3 * DAY - 60_000),
        consumerId: db.id,
        operatingSystemId: 3,
        typeId: 3,
        domainId: 2,
        serverId: 1,
        locked: false,
        decommissioned: false,
      },
      {
        id: erp.nodeId,
        createdDate: at(30 * DAY - 60_000),
        consumerId: erp.id,
        operatingSystemId: 2,
        typeId: 1,
        domainId: 6,
        serverId: 1,
        clientOptionSetId: 3,
        contact: "it@tenant-b.example",
        cpuCount: 8,
        tsmName: erp.tsmName,
        activatedDate: at(29 * DAY),
        locked: false,
        decommissioned: false,
      },
    ],
    proxies: [],
    auditLogs: [],
    jobs: [],
    reports: [],
    filespaces: [],
    contracts: [
      {
        id: SEED.billing.contractId,
        createdDate: "2024-01-01T00:00:00Z",
        businessUnitId: 1,
        name: "Reseller agreement",
        startDate: "2024-01-01T00:00:00Z",
        currency: SEED.billing.currency,
      },
    ],
    invoices: [],
    invoiceFiles: [],
    billingData: [],
    subscribers: [],
  };

  // Audit log of web-01 (consumer 1) and erp-01 (consumer 3).
  const audit: Array<Omit<AuditRec, "id">> = [];
  const entry = (
    msAgo: number,
    type: number,
    action: string,
    objectType: "Consumer" | "Node",
    c: { id: number; nodeId: number; businessUnitId: number },
    message: string,
    user = "admin",
  ) =>
    audit.push({
      time: at(msAgo),
      type,
      action,
      objectType,
      objectId: objectType === "Consumer" ? c.id : c.nodeId,
      businessUnitId: c.businessUnitId,
      consumerId: c.id,
      user,
      message,
    });
  entry(12 * DAY, 100, "Create", "Consumer", web, `Consumer "${web.name}" created`);
  entry(12 * DAY - 60_000, 100, "Create", "Node", web, "Node created");
  entry(11 * DAY, 200, "Activate", "Node", web, `Node activated as ${web.tsmName}`);
  for (let d = 10; d >= 1; d--) entry(d * DAY - 2 * HOUR, 0, "Info", "Node", web, "Scheduled backup completed", "system");
  entry(5 * DAY - HOUR, 400, "Error", "Node", web, "Scheduled backup failed: 3 objects could not be read", "system");
  entry(2 * DAY, 200, "Modify", "Consumer", web, "Consumer modified: note", "tenant");
  entry(30 * DAY, 100, "Create", "Consumer", erp, `Consumer "${erp.name}" created`);
  entry(30 * DAY - 60_000, 100, "Create", "Node", erp, "Node created");
  entry(29 * DAY, 200, "Activate", "Node", erp, `Node activated as ${erp.tsmName}`);
  entry(3 * DAY, 100, "Create", "Consumer", db, `Consumer "${db.name}" created`, "tenant");
  entry(3 * DAY - 60_000, 100, "Create", "Node", db, "Node created", "tenant");
  audit.sort((a, b) => a.time.localeCompare(b.time));
  s.auditLogs = audit.map((a, i) => ({ id: i + 1, ...a }));

  // Jobs: web-01's first job 10 days ago, one a day, and four in the last 24 hours.
  const jobs: Array<Omit<JobRec, "id">> = [];
  const job = (consumerId: number, completedAgo: number, type: "Backup" | "Restore", status: string, bytes: number, objects: number) =>
    jobs.push({
      consumerId,
      type,
      status,
      started: at(completedAgo + 20 * 60_000),
      completed: at(completedAgo),
      bytesTransferred: bytes,
      objects,
    });
  for (let d = 10; d >= 2; d--)
    job(web.id, d * DAY - 2 * HOUR, "Backup", d === 5 ? "Failed" : "Completed", 1_200_000_000 + d * 10_000_000, 1500 + d);
  job(web.id, 22 * HOUR, "Backup", "Completed", 1_150_000_000, 1432);
  job(web.id, 16 * HOUR, "Restore", "Completed", 52_000_000, 12);
  job(web.id, 9 * HOUR, "Backup", "Completed with warnings", 980_000_000, 1210);
  job(web.id, 3 * HOUR, "Backup", "Completed", 1_010_000_000, 1302);
  for (let d = 28; d >= 1; d--) job(erp.id, d * DAY - 1 * HOUR, "Backup", "Completed", 5_000_000_000, 20_000);
  job(erp.id, 1 * HOUR, "Backup", "Completed", 5_100_000_000, 20_100);
  jobs.sort((a, b) => a.completed.localeCompare(b.completed));
  s.jobs = jobs.map((j, i) => ({ id: i + 1, ...j }));

  // Reports: one a day (at midnight UTC), 14 for web-01 and 7 for erp-01.
  const reports: Array<Omit<ReportRec, "id">> = [];
  const midnight = Math.floor(now / DAY) * DAY;
  for (let d = 13; d >= 0; d--) {
    const warnings =
      d === 5
        ? [{ warningTypeId: 2, message: "3 objects failed" }]
        : d === 0
          ? [{ warningTypeId: 4, message: "Schedule DAILY missed once" }]
          : [];
    reports.push({
      consumerId: web.id,
      date: iso(midnight - d * DAY),
      storageUsedBytes: 40_000_000_000 + (13 - d) * 1_000_000_000,
      transferredBytes: 1_100_000_000 + d * 5_000_000,
      status: warnings.length ? "Warning" : "Successful",
      warnings,
    });
  }
  for (let d = 6; d >= 0; d--) {
    reports.push({
      consumerId: erp.id,
      date: iso(midnight - d * DAY),
      storageUsedBytes: 400_000_000_000 + (6 - d) * 5_000_000_000,
      transferredBytes: 5_000_000_000,
      status: "Successful",
      warnings: [],
    });
  }
  s.reports = reports.map((r, i) => ({ id: i + 1, ...r }));

  const fs: Array<Omit<FilespaceRec, "id">> = [
    { consumerId: web.id, name: "/", type: "EXT4", capacity: 64_000_000_000, used: 12_500_000_000, lastBackupDate: at(3 * HOUR) },
    { consumerId: web.id, name: "/home", type: "EXT4", capacity: 128_000_000_000, used: 20_000_000_000, lastBackupDate: at(3 * HOUR) },
    {
      consumerId: web.id,
      name: "/var/lib/data",
      type: "XFS",
      capacity: 256_000_000_000,
      used: 9_000_000_000,
      lastBackupDate: at(3 * HOUR),
    },
    {
      consumerId: erp.id,
      name: "\\\\erp-01\\c$",
      type: "NTFS",
      capacity: 200_000_000_000,
      used: 150_000_000_000,
      lastBackupDate: at(1 * HOUR),
    },
    {
      consumerId: erp.id,
      name: "\\\\erp-01\\d$",
      type: "NTFS",
      capacity: 1_000_000_000_000,
      used: 260_000_000_000,
      lastBackupDate: at(1 * HOUR),
    },
  ];
  s.filespaces = fs.map((f, i) => ({ id: i + 1, ...f }));

  // Billing of the reseller: one billing data set and one invoice per period.
  const invoices: InvoiceRec[] = [];
  const billing: BillingDataRec[] = [];
  SEED.billing.periods.forEach((period, i) => {
    const lines = computeBillingLines(s, 1, 1 + i * 0.1);
    const total = Math.round(lines.reduce((sum, l) => sum + l.amount, 0) * 100) / 100;
    billing.push({ id: i + 1, businessUnitId: 1, period, generatedDate: `${period}T01:00:00Z`, lines, total });
    invoices.push({
      id: i + 1,
      createdDate: `${period}T02:00:00Z`,
      businessUnitId: 1,
      date: period,
      amount: total,
      currency: SEED.billing.currency,
    });
  });
  s.billingData = billing;
  s.invoices = invoices;
  s.invoiceFiles = [
    {
      id: SEED.billing.invoiceFileId,
      businessUnitId: 1,
      fileName: "invoice-2025-03-01.pdf",
      contentType: "application/pdf",
      size: 0,
      erpReference: "ERP-2025-03",
      sendToBillingAddress: true,
      uploadedDate: "2025-03-02T08:00:00Z",
      contentBase64: Buffer.from("%PDF-1.4\n% emulator invoice 2025-03-01\n%%EOF\n").toString("base64"),
    },
  ];
  s.invoiceFiles[0].size = Buffer.from(s.invoiceFiles[0].contentBase64, "base64").length;

  s.nextIds = {
    businessUnit: 4,
    user: 3,
    consumer: 4,
    node: 4,
    audit: s.auditLogs.length + 1,
    job: s.jobs.length + 1,
    report: s.reports.length + 1,
    filespace: s.filespaces.length + 1,
    contract: 2,
    invoice: invoices.length + 1,
    invoiceFile: 2,
    billingData: billing.length + 1,
    subscriber: 1,
  };
  return s;
}
