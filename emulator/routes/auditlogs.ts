// The audit log of a consumer: filters (types, time range, descendants),
// ordering and paging.
import type { Router } from "../router";
import type { Ctx } from "../context";
import { ok } from "../context";
import { validation } from "../errors";
import { qBool, qDate, qInt } from "../input";
import { pathConsumer } from "../access";
import { consumerHref } from "../views";

export const AUDIT_TYPES = [0, 100, 200, 300, 400];
export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 500;

function typesParam(ctx: Ctx): Set<number> | undefined {
  const raw = ctx.query
    .getAll("types")
    .flatMap((v) => v.split(","))
    .map((v) => v.trim())
    .filter((v) => v !== "");
  if (raw.length === 0) return undefined;
  const out = new Set<number>();
  for (const v of raw) {
    const n = Number(v);
    if (!/^\d+$/.test(v) || !AUDIT_TYPES.includes(n)) throw validation(`Query parameter types must be one of ${AUDIT_TYPES.join(", ")}`);
    out.add(n);
  }
  return out;
}

export function register(r: Router): void {
  r.get("/v1/bunits/:bu/consumers/:consumer/auditlogs", (ctx) => {
    const { consumer } = pathConsumer(ctx);
    const q = ctx.query;
    const includeDescendants = qBool(q, "includeDescendants") ?? false;
    const orderDesc = qBool(q, "orderDesc") ?? false;
    const limit = Math.min(qInt(q, "limit", 0, Number.MAX_SAFE_INTEGER) ?? DEFAULT_LIMIT, MAX_LIMIT);
    const offset = qInt(q, "offset", 0, Number.MAX_SAFE_INTEGER) ?? 0;
    // A portal that takes one spelling ignores the other, as ASP.NET ignores unknown query parameters.
    const spelling = ctx.app.readings.auditDates;
    const time = spelling !== "date" ? { start: qDate(q, "startTime"), end: qDate(q, "endTime") } : {};
    const date = spelling !== "time" ? { start: qDate(q, "startDate"), end: qDate(q, "endDate") } : {};
    const start = time.start ?? date.start;
    const end = time.end ?? date.end;
    const types = typesParam(ctx);

    const entries = ctx.state.auditLogs
      .filter((e) => e.consumerId === consumer.id && (e.objectType === "Consumer" || (includeDescendants && e.objectType === "Node")))
      .filter((e) => !types || types.has(e.type))
      .filter((e) => {
        const t = Date.parse(e.time);
        return (start === undefined || t >= start) && (end === undefined || t <= end);
      })
      .sort((a, b) => a.time.localeCompare(b.time) || a.id - b.id);
    if (orderDesc) entries.reverse();
    const items = entries.slice(offset, offset + limit).map((e) => ({ ...e }));
    return ok({ href: `${consumerHref(ctx, consumer)}/auditlogs`, total: entries.length, offset, limit, items });
  });
}
