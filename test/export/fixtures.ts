// A portal with most of what export must handle: every business-unit setting, filters, names that collide as
// slugs (in one business unit and across siblings), unicode names, a multi-line note, proxy relations, a node
// without activation, a consumer without a node, and values the rules refuse.
import { BuSpec } from "./support";

export const VARIED: BuSpec[] = [
  {
    name: "Acme AB",
    registrationNumber: "556000-0001",
    timeZoneId: 4,
    settings: {
      note: "first line\nsecond line\twith a tab",
      tags: ["gold", "eu"],
      invoiceDay: 5,
      storageLimit: 1.5,
      transferLimit: 0,
      nodeLimit: 10,
      passwordExpirationDays: 90,
      supportResponsible: true,
      reportRemotely: false,
      useScheduleBindings: true,
      domainFilter: [1, 2],
      clientOptionSetFilter: [2],
      billingStorageTypeId: 2,
      requiredApproversOfDeleteRequest: 1,
      finalDeleteRequestApprover: false,
      usersCanApproveOwnRequests: true,
    },
    consumers: [
      { name: "web", node: { os: 3, type: 1, domain: 1, cos: 2, contact: "ops@acme.example", cpuCount: 4, tsmName: "ACME-WEB" } },
      { name: "Web", tags: ["b"], limitHighStorage: 2.5, allowNoActivity: true, node: { os: 2, type: 3, domain: 6, cpuCount: 2 } },
      { name: "backup proxy", node: { os: 3, type: 1, domain: 1, cpuCount: 1, tsmName: "acme-proxy" } },
      { name: "no node", note: "billing only" },
    ],
    proxies: [
      [2, 0],
      [2, 1],
    ],
    children: [
      {
        name: "Acme Ölfabrik",
        registrationNumber: "X-1",
        timeZoneId: 1,
        settings: { domainFilter: [3] },
        consumers: [{ name: "東京", node: { os: 3, type: 2, domain: 3, cpuCount: 8, tsmName: "TOKYO-1" } }],
      },
      { name: "東京", registrationNumber: "JP-1", timeZoneId: 6, consumers: [{ name: "東京" }, { name: "大阪" }] },
    ],
  },
  { name: "acme ab", registrationNumber: "556000-0002", timeZoneId: 2 },
  {
    name: "Refused Values",
    registrationNumber: "R-1",
    timeZoneId: 1,
    settings: { invoiceDay: 30 },
    consumers: [{ name: "zero cpus", node: { os: 3, type: 1, domain: 1, cpuCount: 0, tsmName: "ZERO-1" } }],
  },
];
