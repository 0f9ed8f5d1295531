// Node reports of a consumer: the list (optional status and warnings) and the latest one.
import type { Router } from "../router";
import type { ReportRec } from "../types";
import { ok } from "../context";
import { notFound } from "../errors";
import { qBool, qDate, qInt } from "../input";
import { pathConsumer } from "../access";
import { collection, compact, consumerHref } from "../views";

function render(r: ReportRec, status: boolean, warnings: boolean): Record<string, unknown> {
  return compact({
    id: r.id,
    date: r.date,
    storageUsedBytes: r.storageUsedBytes,
    transferredBytes: r.transferredBytes,
    status: status ? r.status : undefined,
    warnings: warnings ? r.warnings.map((w) => ({ ...w })) : undefined,
  });
}

export function register(r: Router): void {
  r.get("/v1/bunits/:bu/consumers/:consumer/reports", (ctx) => {
    const { consumer } = pathConsumer(ctx);
    const start = qDate(ctx.query, "startDate");
    const end = qDate(ctx.query, "endDate");
    const status = qBool(ctx.query, "status") ?? false;
    const warnings = qBool(ctx.query, "warnings") ?? false;
    const items = ctx.state.reports
      .filter((x) => x.consumerId === consumer.id)
      .filter((x) => {
        const t = Date.parse(x.date);
        return (start === undefined || t >= start) && (end === undefined || t <= end);
      })
      .sort((a, b) => a.date.localeCompare(b.date))
      .map((x) => render(x, status, warnings));
    return ok(collection(`${consumerHref(ctx, consumer)}/reports`, items));
  });

  r.get("/v1/bunits/:bu/consumers/:consumer/reports/latest", (ctx) => {
    const { consumer } = pathConsumer(ctx);
    const userId = qInt(ctx.query, "userId", 1, Number.MAX_SAFE_INTEGER);
    if (userId !== undefined && !ctx.state.users.some((u) => u.id === userId)) throw notFound(`User ${userId}`);
    const reports = ctx.state.reports.filter((x) => x.consumerId === consumer.id).sort((a, b) => a.date.localeCompare(b.date));
    const latest = reports[reports.length - 1];
    if (!latest) throw notFound(`A report of consumer ${consumer.id}`);
    return ok(render(latest, true, true));
  });
}
