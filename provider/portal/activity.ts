// What happened on a consumer: node reports, jobs and the audit log.
import { PortalCore, consumerPath } from "./core";
import { itemsOf } from "./collections";
import { isNotFound } from "./errors";
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

/**
 * Where the portal answers the job list: "first" is spec 000's table (`.../jobs/first?startTime&endTime`),
 * "jobs" is `.../jobs` (a portal whose `jobs/first` answers the first job whatever the query).
 */
export type JobsPath = "first" | "jobs";

/** The portal's default job window when no range is given. */
const DAY_MS = 24 * 3600_000;

export interface AuditLogPage {
  total?: number;
  offset: number;
  items: AuditLogEntry[];
}

export class Activity {
  /** Which job list path answered; kept for the rest of the client's life. */
  #jobsPath?: JobsPath;

  constructor(private readonly core: PortalCore) {}

  /** The job list path the portal answered (undefined until a job list was read). */
  get jobsPath(): JobsPath | undefined {
    return this.#jobsPath;
  }

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

  /**
   * Jobs in a range; without one, those of the latest 24 hours. Asks spec 000's path first
   * (`.../jobs/first?startTime&endTime`); when that answers a single Job rather than a list, or 404, asks
   * `.../jobs`, and keeps asking the path that answered.
   */
  async jobs(bunitId: number, consumerId: number, q: JobQuery = {}): Promise<Job[]> {
    const ranged = q.startTime !== undefined || q.endTime !== undefined;
    const fromJobs = async (): Promise<Job[]> => {
      const items = itemsOf(await this.core.get<Collection<Job>>(consumerPath(bunitId, consumerId, "/jobs"), { ...q }));
      this.#jobsPath = "jobs"; // only once it answered: a 404 for an unknown consumer decides nothing
      return items;
    };
    if (this.#jobsPath === "jobs") return fromJobs();
    // Without a query `jobs/first` is the first job, so the default window is asked as "until tomorrow" and
    // cut to the latest 24 hours here, whatever start the portal then assumes.
    const now = Date.now();
    const query = ranged ? { ...q } : { endTime: new Date(now + DAY_MS).toISOString() };
    let answer: Collection<Job> | Job[] | Job;
    try {
      answer = await this.core.get<Collection<Job> | Job[] | Job>(consumerPath(bunitId, consumerId, "/jobs/first"), query);
    } catch (err) {
      if (!isNotFound(err) || this.#jobsPath === "first") throw err;
      // 404: no list here (or no such consumer, which `.../jobs` then says too).
      return fromJobs();
    }
    if (!isList(answer)) return fromJobs();
    this.#jobsPath = "first";
    const items = itemsOf(answer);
    return ranged ? items : items.filter((j) => !j.completed || Date.parse(j.completed) >= now - DAY_MS);
  }

  /** One page of the audit log. */
  async auditLogPage(bunitId: number, consumerId: number, q: AuditLogQuery, offset: number, limit: number): Promise<AuditLogPage> {
    // Spec 000's table spells the range startTime/endTime, its prose startDate/endDate: both are sent, so a
    // portal that takes only one spelling (and ignores the other, as ASP.NET does) filters all the same.
    const page = await this.core.get<Collection<AuditLogEntry>>(consumerPath(bunitId, consumerId, "/auditlogs"), {
      includeDescendants: q.includeDescendants,
      orderDesc: q.orderDesc,
      startTime: q.startTime,
      endTime: q.endTime,
      startDate: q.startTime,
      endDate: q.endTime,
      types: q.types,
      offset,
      limit,
    });
    return { total: Array.isArray(page) ? undefined : page.total, offset, items: itemsOf(page) };
  }

  /**
   * Every audit log entry (or up to `max`), page by page. `onPage` sees the
   * progress (entries so far, total when the portal says it).
   */
  async auditLog(
    bunitId: number,
    consumerId: number,
    q: AuditLogQuery = {},
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
      if (page.total !== undefined ? offset >= page.total : page.items.length < Math.min(pageSize, max - out.length + page.items.length))
        break;
    }
    return out.slice(0, max === Infinity ? undefined : max);
  }
}

/** A job list (a collection or an array), not a single Job. */
function isList(answer: unknown): answer is Collection<Job> | Job[] {
  return Array.isArray(answer) || (!!answer && typeof answer === "object" && Array.isArray((answer as Collection<Job>).items));
}
