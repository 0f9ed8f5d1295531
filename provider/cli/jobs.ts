// `backup-portal jobs`: backup and restore jobs of a consumer.
import { getFirstJobDate, getRecentJobs, jobsSinceDetailed } from "../data/activity";
import { Job } from "../portal/types";
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
  "jobs",
  "--bunit <id> --consumer <id> [options]",
  `Backup and restore jobs of a consumer, oldest first. Without --from, --to or --all:
the jobs of the latest 24 hours (the portal's default). The portal refuses a start
before the consumer's first job, so an earlier --from starts at the first job.`,
  {
    ...CONSUMER_OPTIONS,
    from: { ...CONSUMER_OPTIONS.from, description: "start: YYYY-MM-DD, ISO 8601, or ago (7d, 24h)" },
    to: { ...CONSUMER_OPTIONS.to, description: "end (a day includes all of it)" },
    all: { kind: "flag", description: "every job since the first one" },
    first: { kind: "flag", description: "only the date of the first job" },
    limit: { ...CONSUMER_OPTIONS.limit, description: "at most n jobs (the latest n)" },
  },
);

export function run(argv: string[], given: CliIo = processIo): Promise<number> {
  const io = terminalIo(given);
  return runCommand(
    COMMAND,
    argv,
    io,
    async ({ client, options: o }) => {
      const b = o.bunit as number;
      const c = o.consumer as number;
      const from = o.from as string | undefined;
      const to = o.to as string | undefined;
      if (o.first) {
        const first = await getFirstJobDate(client, b, c);
        if (o.json) io.out(formatJson({ firstJobCompleted: first ?? null }));
        else io.out(first ? `first job completed: ${first}\n` : "(no jobs)\n");
        return 0;
      }
      let jobs: Job[];
      if (from === undefined && to === undefined && !o.all) {
        jobs = await getRecentJobs(client, b, c);
        if (!o.json) io.err("jobs of the latest 24 hours (use --from, --to or --all for others)\n");
      } else {
        const r = await jobsSinceDetailed(client, b, c, from, to);
        if (r.clamped) io.err(`--from lies before the first job; starting at the first job (${r.firstJob})\n`);
        jobs = r.jobs;
      }
      jobs = latestRows(jobs, o.limit);
      if (o.json) {
        io.out(formatJson(jobs));
        return 0;
      }
      const right = "right" as const;
      printTable(
        io,
        [
          { header: "ID", align: right },
          "TYPE",
          "STATUS",
          "STARTED",
          "COMPLETED",
          { header: "TRANSFERRED", align: right },
          { header: "OBJECTS", align: right },
        ],
        jobs.map((j) => [
          j.id,
          j.type,
          j.status,
          formatTime(j.started),
          formatTime(j.completed),
          formatBytes(j.bytesTransferred),
          j.objects,
        ]),
        "no jobs",
      );
      return 0;
    },
    check,
  );
}

function check(o: Values): void {
  if (o.first && (o.from !== undefined || o.to !== undefined || o.all)) throw new UsageError("--first takes no --from, --to or --all");
  if (o.all && o.from !== undefined) throw new UsageError("--all and --from exclude each other");
}
