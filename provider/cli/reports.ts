// `backup-portal reports`: node reports of a consumer, or its latest report.
import { getLatestReport, getReports } from "../data/activity";
import { NodeReport } from "../portal/types";
import {
  CliIo,
  CONSUMER_OPTIONS,
  dataCommand,
  formatBytes,
  formatJson,
  formatTime,
  latestRows,
  printTable,
  processIo,
  runCommand,
  terminalIo,
  UsageError,
} from "./output";
import { Values } from "./args";

export const COMMAND = dataCommand(
  "reports",
  "--bunit <id> --consumer <id> [options]",
  "Node reports of a consumer (storage used, data transferred), oldest first.",
  {
    ...CONSUMER_OPTIONS,
    from: { ...CONSUMER_OPTIONS.from, description: "first day or moment: YYYY-MM-DD, ISO 8601, or ago (7d, 24h)" },
    to: { ...CONSUMER_OPTIONS.to, description: "last day or moment (a day includes all of it)" },
    status: { kind: "flag", description: "include each report's status" },
    warnings: { kind: "flag", description: "include each report's warnings" },
    latest: { kind: "flag", description: "only the latest report (with status and warnings)" },
    limit: { ...CONSUMER_OPTIONS.limit, description: "at most n reports (the latest n)" },
  },
);

function warningText(r: NodeReport): string {
  if (!Array.isArray(r.warnings)) return "";
  return r.warnings
    .map((w) => (w && typeof w === "object" && "message" in w ? String((w as { message: unknown }).message) : JSON.stringify(w)))
    .join("; ");
}

export function run(argv: string[], given: CliIo = processIo): Promise<number> {
  const io = terminalIo(given);
  return runCommand(
    COMMAND,
    argv,
    io,
    async ({ client, options: o }) => {
      const b = o.bunit as number;
      const c = o.consumer as number;
      let reports: NodeReport[];
      let status = o.status === true;
      let warnings = o.warnings === true;
      if (o.latest) {
        const latest = await getLatestReport(client, b, c);
        if (o.json) {
          io.out(formatJson(latest ?? null));
          return 0;
        }
        reports = latest ? [latest] : [];
        status = warnings = true;
      } else {
        reports = await getReports(client, b, c, { from: o.from as string | undefined, to: o.to as string | undefined, status, warnings });
        reports = latestRows(reports, o.limit);
        if (o.json) {
          io.out(formatJson(reports));
          return 0;
        }
      }
      const columns = [
        { header: "DATE" },
        { header: "STORAGE USED", align: "right" as const },
        { header: "TRANSFERRED", align: "right" as const },
        ...(status ? [{ header: "STATUS" }] : []),
        ...(warnings ? [{ header: "WARNINGS" }] : []),
      ];
      const rows = reports.map((r) => [
        formatTime(r.date),
        formatBytes(r.storageUsedBytes),
        formatBytes(r.transferredBytes),
        ...(status ? [r.status === undefined ? "" : String(r.status)] : []),
        ...(warnings ? [warningText(r)] : []),
      ]);
      printTable(io, columns, rows, "no reports");
      return 0;
    },
    check,
  );
}

function check(o: Values): void {
  if (o.latest && (o.from !== undefined || o.to !== undefined)) throw new UsageError("--latest takes no --from/--to");
}
