// What happened on a consumer: node reports, jobs and the audit log.
import { PortalCore, consumerPath } from "./core";
import { itemsOf } from "./collections";
import { AuditLogEntry, Collection, Job, NodeReport } from "./types";

export interface ReportQuery {
  startDate?: string;
  endDate?: string;
  /** Include each report's status. */
  status?: boolean;
  /** Include each report's warnings. */
  warnings?: boolean;
}

export interface JobQuery {
  /** Not before the first job's `completed` (the portal refuses earlier). */
  startTime?: string;
  endTime?: string;
}

export interface AuditLogQuery {
  includeDescendants?: boolean;
  orderDesc?: boolean;
  startTime?: string;
  endTime?: string;
  /** 0 info, 100 create, 200 modify, 300 delete, 400 errors. */
  types?: number[];
}

export interface AuditLogPage {
  total?: number;
  offset: number;
  items: AuditLogEntry[];
}

export class Activity {
  constructor(private readonly core: PortalCore) {}

  async reports(bunitId: number, consumerId: number, q: ReportQuery = {}): Promise<NodeReport[]> {
    return itemsOf(await this.core.get<Collection<NodeReport>>(consumerPath(bunitId, consumerId, "/reports"), { ...q }));
  }

  latestReport(bunitId: number, consumerId: number, userId?: number): Promise<NodeReport> {
    return this.core.get(consumerPath(bunitId, consumerId, "/reports/latest"), { userId });
  }

  /** The first job; only its `completed` date is meaningful (other fields are placeholders). */
  firstJob(bunitId: number, consumerId: number): Promise<Job> {
    return this.core.get(consumerPath(bunitId, consumerId, "/jobs/first"));
  }

  /** Jobs in a range; without one the portal answers the latest 24 hours. */
  async jobs(bunitId: number, consumerId: number, q: JobQuery = {}): Promise<Job[]> {
    return itemsOf(await this.core.get<Collection<Job>>(consumerPath(bunitId, consumerId, "/jobs"), { ...q }));
  }

  /** One page of the audit log. */
  async auditLogPage(bunitId: number, consumerId: number, q: AuditLogQuery, offset: number, limit: number): Promise<AuditLogPage> {
    const page = await this.core.get<Collection<AuditLogEntry>>(consumerPath(bunitId, consumerId, "/auditlogs"), {
      includeDescendants: q.includeDescendants, orderDesc: q.orderDesc, startTime: q.startTime, endTime: q.endTime,
      types: q.types, offset, limit,
    });
    return { total: Array.isArray(page) ? undefined : page.total, offset, items: itemsOf(page) };
  }

  /**
   * Every audit log entry (or up to `max`), page by page. `onPage` sees the
   * progress (entries so far, total when the portal says it).
   */
  async auditLog(
    bunitId: number, consumerId: number, q: AuditLogQuery = {},
    opts: { pageSize?: number; max?: number; onPage?: (seen: number, total?: number) => void } = {},
  ): Promise<AuditLogEntry[]> {
    const pageSize = opts.pageSize ?? 200;
    const max = opts.max ?? Infinity;
    const out: AuditLogEntry[] = [];
    // Bounded: stops at the total, at an empty page, at `max`, and after 100000 pages at most.
    for (let offset = 0, pages = 0; out.length < max && pages < 100_000; pages++) {
      const page = await this.auditLogPage(bunitId, consumerId, q, offset, Math.min(pageSize, max - out.length));
      out.push(...page.items);
      // The portal may cap the page size: advance by what came, not by what was asked.
      offset += page.items.length;
      opts.onPage?.(out.length, page.total);
      if (page.items.length === 0) break;
      if (page.total !== undefined ? offset >= page.total : page.items.length < Math.min(pageSize, max - out.length + page.items.length)) break;
    }
    return out.slice(0, max === Infinity ? undefined : max);
  }
}
