// `backup-portal billing`: billing data of a reseller business unit, per period or one period's lines.
import { getBillingData, getBillingDataFor } from "../data/billing";
import { BillingData } from "../portal/types";
import { CliIo, formatAmount, formatBytes, formatJson, formatTime, OptionSpec, printTable, processIo, required, runCommand, UNIT_SPEC, USAGE_END, UsageError } from "./output";

export const USAGE = `usage: backup-portal billing --bunit <id> [options]

Billing data of a reseller business unit: one row per period (oldest first), or with
--period (or --lines) one row per consumer line.

options:
  --bunit <id>          reseller business unit (required)
  --from <day>          first period (YYYY-MM-DD)
  --to <day>            last period
  --period <day>        only this period, line by line
  --include-next <n>    also the next n forecast periods (not generated yet)
  --lines               the lines of every period shown
  --limit <n>           at most n periods (the latest n)
  --json                JSON instead of a table
  -h, --help            show this help

${USAGE_END}`;

const SPEC: Record<string, OptionSpec> = { ...UNIT_SPEC, period: { kind: "string" }, "include-next": { kind: "int", min: 0 }, lines: { kind: "flag" } };

function printLines(io: CliIo, periods: BillingData[]): void {
  const right = "right" as const;
  const rows = periods.flatMap((p) => (p.lines ?? []).map((l) => [
    p.period?.slice(0, 10), l.consumerId, l.consumerName, formatBytes(l.storageBytes), formatBytes(l.transferBytes), formatAmount(l.amount),
  ]));
  printTable(io, ["PERIOD", { header: "CONSUMER", align: right }, "NAME", { header: "STORAGE", align: right }, { header: "TRANSFERRED", align: right }, { header: "AMOUNT", align: right }],
    rows, "no billing lines");
  for (const p of periods) if (p.total !== undefined) io.out(`total ${p.period?.slice(0, 10)}: ${formatAmount(p.total)}\n`);
}

export function run(argv: string[], io: CliIo = processIo): Promise<number> {
  return runCommand("billing", USAGE, SPEC, argv, io, async ({ client, options: o }) => {
    const b = required(o, "bunit");
    if (typeof o.period === "string") {
      if (o.from !== undefined || o.to !== undefined || o["include-next"] !== undefined) throw new UsageError("--period takes no --from, --to or --include-next");
      const one = await getBillingDataFor(client, b, o.period);
      if (o.json) io.out(formatJson(one));
      else printLines(io, [one]);
      return 0;
    }
    let periods = await getBillingData(client, b, { from: o.from as string | undefined, to: o.to as string | undefined, includeNext: o["include-next"] as number | undefined });
    if (typeof o.limit === "number") periods = o.limit === 0 ? [] : periods.slice(-o.limit);
    if (o.json) {
      io.out(formatJson(periods));
      return 0;
    }
    if (o.lines) {
      printLines(io, periods);
      return 0;
    }
    const right = "right" as const;
    printTable(io, ["PERIOD", "GENERATED", { header: "LINES", align: right }, { header: "TOTAL", align: right }],
      periods.map((p) => [p.period?.slice(0, 10), p.generatedDate ? formatTime(p.generatedDate) : "(forecast)", (p.lines ?? []).length, formatAmount(p.total)]),
      "no billing data");
    return 0;
  });
}
