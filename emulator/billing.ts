// Billing data: computing a period's lines from the consumers of a reseller's
// subtree, generating a new period (and its invoice), and forecasts.
import type { BillingDataRec, BillingLine, State } from "./types";
import { subtreeIds } from "./tree";
import { isDateString, iso } from "./util";

const PRICE_PER_GB_STORED = 0.02;
const PRICE_PER_GB_TRANSFERRED = 0.01;

const round2 = (n: number): number => Math.round(n * 100) / 100;

/** One line per consumer under `businessUnitId` (itself included), from its latest report. */
export function computeBillingLines(state: State, businessUnitId: number, factor = 1): BillingLine[] {
  const units = subtreeIds(state, businessUnitId);
  return state.consumers
    .filter((c) => units.has(c.businessUnitId))
    .sort((a, b) => a.id - b.id)
    .map((c) => {
      const reports = state.reports.filter((r) => r.consumerId === c.id).sort((a, b) => a.date.localeCompare(b.date));
      const latest = reports[reports.length - 1];
      const storageBytes = Math.round((latest?.storageUsedBytes ?? 0) * factor);
      const transferBytes = Math.round(reports.reduce((sum, r) => sum + r.transferredBytes, 0) * factor);
      const amount = round2((storageBytes / 1e9) * PRICE_PER_GB_STORED + (transferBytes / 1e9) * PRICE_PER_GB_TRANSFERRED);
      return { consumerId: c.id, consumerName: c.name, storageBytes, transferBytes, amount };
    });
}

export function totalOf(lines: BillingLine[]): number {
  return round2(lines.reduce((sum, l) => sum + l.amount, 0));
}

/** `YYYY-MM-DD` of the first day of the month `months` after the month of `period`. */
export function addMonths(period: string, months: number): string {
  const d = new Date(`${period}T00:00:00Z`);
  const m = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + months, 1));
  return m.toISOString().slice(0, 10);
}

export function latestPeriod(state: State, businessUnitId: number): string | undefined {
  const periods = state.billingData
    .filter((b) => b.businessUnitId === businessUnitId)
    .map((b) => b.period)
    .sort();
  return periods[periods.length - 1];
}

/** The period a generation without an explicit one creates: the month after the latest, else this month. */
export function nextPeriod(state: State, businessUnitId: number, now = Date.now()): string {
  const latest = latestPeriod(state, businessUnitId);
  if (latest) return addMonths(latest, 1);
  return `${iso(now).slice(0, 7)}-01`;
}

/** Forecasts of the `count` periods after the latest one (no generatedDate: not generated yet). */
export function forecasts(
  state: State,
  businessUnitId: number,
  count: number,
  now = Date.now(),
): Array<Omit<BillingDataRec, "id" | "generatedDate">> {
  const out: Array<Omit<BillingDataRec, "id" | "generatedDate">> = [];
  const start = nextPeriod(state, businessUnitId, now);
  const lines = computeBillingLines(state, businessUnitId);
  for (let i = 0; i < count; i++) {
    out.push({ businessUnitId, period: addMonths(start, i), lines, total: totalOf(lines) });
  }
  return out;
}

/**
 * Generates (or regenerates) the billing data of `period` for a reseller and
 * the matching invoice. The caller checks that the unit is a reseller and
 * allocates ids through `nextId`.
 */
export function generateBilling(
  state: State,
  businessUnitId: number,
  period: string | undefined,
  nextId: (kind: string) => number,
  currency: string,
  now = Date.now(),
): BillingDataRec {
  const p = period ?? nextPeriod(state, businessUnitId, now);
  if (!isDateString(p)) throw new Error(`period must be YYYY-MM-DD`);
  const lines = computeBillingLines(state, businessUnitId);
  const total = totalOf(lines);
  const existing = state.billingData.find((b) => b.businessUnitId === businessUnitId && b.period === p);
  let rec: BillingDataRec;
  if (existing) {
    Object.assign(existing, { generatedDate: iso(now), lines, total });
    rec = existing;
  } else {
    rec = { id: nextId("billingData"), businessUnitId, period: p, generatedDate: iso(now), lines, total };
    state.billingData.push(rec);
  }
  const invoice = state.invoices.find((i) => i.businessUnitId === businessUnitId && i.date === p);
  if (invoice) invoice.amount = total;
  else state.invoices.push({ id: nextId("invoice"), createdDate: iso(now), businessUnitId, date: p, amount: total, currency });
  return rec;
}
