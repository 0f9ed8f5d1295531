// `backup-portal billing`: billing data of a reseller business unit, per period or one period's lines.
import { getBillingData, getBillingDataFor, MAX_INCLUDE_NEXT } from "../data/billing";
import { BillingData } from "../portal/types";
import {
  CliIo,
  dataCommand,
  formatAmount,
  formatBytes,
  formatJson,
  formatTime,
  latestRows,
  printTable,
  processIo,
  runCommand,
  terminalIo,
  UNIT_OPTIONS,
  UsageError,
} from "./output";
import { Values } from "./args";

export const COMMAND = dataCommand(
  "billing",
  "--bunit <id> [options]",
  `Billing data of a reseller business unit: one row per period (oldest first), or with
--period (or --lines) one row per consumer line.`,
  {
    ...UNIT_OPTIONS,
    bunit: { ...UNIT_OPTIONS.bunit, description: "reseller business unit" },
    from: { ...UNIT_OPTIONS.from, kind: "day", value: "day", description: "first period (YYYY-MM-DD)" },
    to: { ...UNIT_OPTIONS.to, kind: "day", value: "day", description: "last period" },
    period: { kind: "day", value: "day", description: "only this period, line by line" },
    "include-next": {
      kind: "int",
      min: 0,
      max: MAX_INCLUDE_NEXT,
      description: `also the next n forecast periods (not generated yet), 0 to ${MAX_INCLUDE_NEXT}`,
    },
    lines: { kind: "flag", description: "the lines of every period shown" },
    limit: { ...UNIT_OPTIONS.limit, description: "at most n periods (the latest n)" },
  },
);

function printLines(io: CliIo, periods: BillingData[]): void {
  const right = "right" as const;
  const rows = periods.flatMap((p) =>
    (p.lines ?? []).map((l) => [
      p.period?.slice(0, 10),
      l.consumerId,
      l.consumerName,
      formatBytes(l.storageBytes),
      formatBytes(l.transferBytes),
      formatAmount(l.amount),
    ]),
  );
  printTable(
    io,
    [
      "PERIOD",
      { header: "CONSUMER", align: right },
      "NAME",
      { header: "STORAGE", align: right },
      { header: "TRANSFERRED", align: right },
      { header: "AMOUNT", align: right },
    ],
    rows,
    "no billing lines",
  );
  for (const p of periods) if (p.total !== undefined) io.out(`total ${p.period?.slice(0, 10)}: ${formatAmount(p.total)}\n`);
}

export function run(argv: string[], given: CliIo = processIo): Promise<number> {
  const io = terminalIo(given);
  return runCommand(
    COMMAND,
    argv,
    io,
    async ({ client, options: o }) => {
      const b = o.bunit as number;
      if (typeof o.period === "string") {
        const one = await getBillingDataFor(client, b, o.period);
        if (o.json) io.out(formatJson(one));
        else printLines(io, [one]);
        return 0;
      }
      let periods = await getBillingData(client, b, {
        from: o.from as string | undefined,
        to: o.to as string | undefined,
        includeNext: o["include-next"] as number | undefined,
      });
      periods = latestRows(periods, o.limit);
      if (o.json) {
        io.out(formatJson(periods));
        return 0;
      }
      if (o.lines) {
        printLines(io, periods);
        return 0;
      }
      const right = "right" as const;
      printTable(
        io,
        ["PERIOD", "GENERATED", { header: "LINES", align: right }, { header: "TOTAL", align: right }],
        periods.map((p) => [
          p.period?.slice(0, 10),
          p.generatedDate ? formatTime(p.generatedDate) : "(forecast)",
          (p.lines ?? []).length,
          formatAmount(p.total),
        ]),
        "no billing data",
      );
      return 0;
    },
    check,
  );
}

/** --period goes alone: it is one period's lines. */
function check(o: Values): void {
  if (typeof o.period === "string" && (o.from !== undefined || o.to !== undefined || o["include-next"] !== undefined))
    throw new UsageError("--period takes no --from, --to or --include-next");
}
