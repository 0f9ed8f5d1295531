// What happened on a consumer: node reports, jobs and the audit log, for programs and scripts.
import { PortalClient } from "../portal/client";
import { isNotFound } from "../portal/errors";
import { AuditLogEntry, AuditLogType, Job, NodeReport } from "../portal/types";
import { DateInput, toTimestamp } from "./dates";

function ids(bunitId: number, consumerId: number): void {
  for (const [what, v] of [
    ["business unit", bunitId],
    ["consumer", consumerId],
  ] as const) {
    if (!Number.isSafeInteger(v) || v < 1) throw new RangeError(`${what} id must be a positive integer, got ${v}`);
  }
}

function checkRange(from: string | undefined, to: string | undefined): void {
  if (from && to && Date.parse(from) > Date.parse(to)) throw new RangeError(`the range starts (${from}) after it ends (${to})`);
}

// ---------------------------------------------------------------------------------------------
// Reports

export interface ReportRange {
  /** First day or moment (inclusive). */
  from?: DateInput;
  /** Last day or moment (inclusive; a bare day includes the whole day). */
  to?: DateInput;
  /** Include each report's status. */
  status?: boolean;
  /** Include each report's warnings. */
  warnings?: boolean;
}

/** Node reports of a consumer in a date range (all when no range), oldest first. */
export async function getReports(
  client: PortalClient,
  bunitId: number,
  consumerId: number,
  range: ReportRange = {},
): Promise<NodeReport[]> {
  ids(bunitId, consumerId);
  const startDate = range.from !== undefined ? toTimestamp(range.from, "start") : undefined;
  const endDate = range.to !== undefined ? toTimestamp(range.to, "end") : undefined;
  checkRange(startDate, endDate);
  return client.activity.reports(bunitId, consumerId, {
    startDate,
    endDate,
    status: range.status || undefined,
    warnings: range.warnings || undefined,
  });
}

/** The latest report of a consumer (with status and warnings); undefined when it has none. */
export async function getLatestReport(
  client: PortalClient,
  bunitId: number,
  consumerId: number,
  opts: { userId?: number } = {},
): Promise<NodeReport | undefined> {
  ids(bunitId, consumerId);
  try {
    return await client.activity.latestReport(bunitId, consumerId, opts.userId);
  } catch (err) {
    // 404 for an unknown consumer too: tell the two apart by reading the consumer.
    if (isNotFound(err)) {
      await client.consumers.get(bunitId, consumerId);
      return undefined;
    }
    throw err;
  }
}

// ---------------------------------------------------------------------------------------------
// Jobs

/**
 * The `completed` time of the consumer's first job, or undefined when it has no job. Only that
 * field of `jobs/first` is meaningful; the others are placeholders.
 */
export async function getFirstJobDate(client: PortalClient, bunitId: number, consumerId: number): Promise<string | undefined> {
  ids(bunitId, consumerId);
  try {
    const first = await client.activity.firstJob(bunitId, consumerId);
    return typeof first.completed === "string" && first.completed !== "" ? first.completed : undefined;
  } catch (err) {
    if (isNotFound(err)) {
      await client.consumers.get(bunitId, consumerId); // an unknown consumer stays an error
      return undefined;
    }
    throw err;
  }
}

/** Jobs of the latest 24 hours (the portal's default window). */
export async function getRecentJobs(client: PortalClient, bunitId: number, consumerId: number): Promise<Job[]> {
  ids(bunitId, consumerId);
  return client.activity.jobs(bunitId, consumerId);
}

export interface JobsResult {
  jobs: Job[];
  /** The startTime sent (after clamping); undefined when no job exists. */
  startTime?: string;
  endTime?: string;
  /** True when the requested start lay before the first job and was moved to it. */
  clamped: boolean;
  firstJob?: string;
}

/**
 * Jobs from `since` (default: the first job) to `until` (default: now and later). The portal refuses
 * a startTime before the first job's `completed`, so an earlier `since` is clamped to it.
 */
export async function jobsSinceDetailed(
  client: PortalClient,
  bunitId: number,
  consumerId: number,
  since?: DateInput,
  until?: DateInput,
): Promise<JobsResult> {
  ids(bunitId, consumerId);
  const endTime = until !== undefined ? toTimestamp(until, "end") : undefined;
  let startTime = since !== undefined ? toTimestamp(since, "start") : undefined;
  checkRange(startTime, endTime);
  const firstJob = await getFirstJobDate(client, bunitId, consumerId);
  if (!firstJob) return { jobs: [], startTime: undefined, endTime, clamped: false };
  let clamped = false;
  if (startTime === undefined || Date.parse(startTime) < Date.parse(firstJob)) {
    clamped = startTime !== undefined;
    startTime = firstJob; // sent as the portal wrote it, so rounding never lands before it
  }
  if (endTime !== undefined && Date.parse(endTime) < Date.parse(startTime)) return { jobs: [], startTime, endTime, clamped, firstJob };
  const jobs = await client.activity.jobs(bunitId, consumerId, { startTime, endTime });
  return { jobs, startTime, endTime, clamped, firstJob };
}

/** {@link jobsSinceDetailed}, jobs only. */
export async function jobsSince(
  client: PortalClient,
  bunitId: number,
  consumerId: number,
  since?: DateInput,
  until?: DateInput,
): Promise<Job[]> {
  return (await jobsSinceDetailed(client, bunitId, consumerId, since, until)).jobs;
}

/**
 * Jobs in a range: with neither bound the latest 24 hours (the portal's default); otherwise
 * {@link jobsSince} (a missing `from` means from the first job).
 */
export async function getJobs(
  client: PortalClient,
  bunitId: number,
  consumerId: number,
  range: { from?: DateInput; to?: DateInput } = {},
): Promise<Job[]> {
  if (range.from === undefined && range.to === undefined) return getRecentJobs(client, bunitId, consumerId);
  return jobsSince(client, bunitId, consumerId, range.from, range.to);
}

// ---------------------------------------------------------------------------------------------
// Audit log

export type AuditTypeName = keyof typeof AuditLogType;

/** The portal's largest page (our contract: limit at most 500). */
export const MAX_AUDIT_PAGE = 500;
export const DEFAULT_AUDIT_PAGE = 200;

export interface AuditQuery {
  from?: DateInput;
  to?: DateInput;
  /** Entry types by number (0, 100, 200, 300, 400) or name (info, create, modify, delete, error). */
  types?: Array<number | AuditTypeName | string>;
  /** Include the entries of the consumer's node too. */
  includeDescendants?: boolean;
  /** Newest first. */
  orderDesc?: boolean;
  /** At most this many entries; default all. */
  limit?: number;
  /** Entries per request (1 to 500, default 200). */
  pageSize?: number;
  /** Called after each page with the entries read so far and the total when the portal gives it. */
  onProgress?: (seen: number, total?: number) => void;
}

/** Audit log type numbers from numbers or names; throws RangeError for an unknown one. */
export function auditTypes(types: Array<number | string>): number[] {
  const valid = Object.values(AuditLogType) as number[];
  return types.map((t) => {
    const n =
      typeof t === "number" ? t : /^\d+$/.test(t.trim()) ? Number(t) : (AuditLogType as Record<string, number>)[t.trim().toLowerCase()];
    if (n === undefined || !valid.includes(n)) {
      throw new RangeError(
        `unknown audit log type ${JSON.stringify(t)}; valid: ${Object.entries(AuditLogType)
          .map(([k, v]) => `${k} (${v})`)
          .join(", ")}`,
      );
    }
    return n;
  });
}

/**
 * The audit log of a consumer, every page (or up to `limit` entries). Pages advance by the entries
 * that arrived (a portal that caps the page size still yields everything) and stop at the total;
 * an entry that shows up on two pages (the log grew while paging) is kept once (entries with a
 * numeric id only; entries without one are all kept). Bounded: stops on
 * an empty page, on a short page when the portal gives no total, and on a page with nothing new.
 */
export async function getAuditLog(client: PortalClient, bunitId: number, consumerId: number, q: AuditQuery = {}): Promise<AuditLogEntry[]> {
  ids(bunitId, consumerId);
  if (q.limit !== undefined && (!Number.isSafeInteger(q.limit) || q.limit < 0))
    throw new RangeError(`limit must be a non-negative integer, got ${q.limit}`);
  const pageSize = q.pageSize ?? DEFAULT_AUDIT_PAGE;
  if (!Number.isSafeInteger(pageSize) || pageSize < 1 || pageSize > MAX_AUDIT_PAGE)
    throw new RangeError(`pageSize must be from 1 to ${MAX_AUDIT_PAGE}, got ${pageSize}`);
  const max = q.limit ?? Infinity;
  if (max === 0) return [];
  const startTime = q.from !== undefined ? toTimestamp(q.from, "start") : undefined;
  const endTime = q.to !== undefined ? toTimestamp(q.to, "end") : undefined;
  checkRange(startTime, endTime);
  const query = {
    includeDescendants: q.includeDescendants || undefined,
    orderDesc: q.orderDesc || undefined,
    startTime,
    endTime,
    types: q.types?.length ? auditTypes(q.types) : undefined,
  };
  const out: AuditLogEntry[] = [];
  const seen = new Set<number>();
  let offset = 0;
  for (;;) {
    const want = Math.min(pageSize, max - out.length);
    const page = await client.activity.auditLogPage(bunitId, consumerId, query, offset, want);
    let fresh = 0;
    for (const e of page.items) {
      if (out.length >= max) break;
      // Only a numeric id identifies an entry; entries without one are never taken for duplicates.
      if (typeof e.id === "number") {
        if (seen.has(e.id)) continue;
        seen.add(e.id);
      }
      out.push(e);
      fresh++;
    }
    offset += page.items.length;
    const total = page.total;
    q.onProgress?.(out.length, total === undefined ? undefined : Math.min(total, max));
    if (out.length >= max || page.items.length === 0 || fresh === 0) break;
    if (total !== undefined ? offset >= total : page.items.length < want) break;
  }
  return out;
}
