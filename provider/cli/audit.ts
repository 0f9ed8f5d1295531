// `backup-portal audit`: the audit log of a consumer, every page (or up to --limit entries),
// with a progress indicator on stderr while paging.
import { auditTypes, DEFAULT_AUDIT_PAGE, getAuditLog, MAX_AUDIT_PAGE } from "../data/activity";
import { AuditLogType } from "../portal/types";
import {
  CliIo,
  CONSUMER_OPTIONS,
  dataCommand,
  formatJson,
  formatTime,
  printTable,
  processIo,
  Progress,
  progressWanted,
  runCommand,
  terminalIo,
  UsageError,
} from "./output";
import { Values } from "./args";

export const COMMAND = dataCommand(
  "audit",
  "--bunit <id> --consumer <id> [options]",
  "The audit log of a consumer, oldest first, read page by page.",
  {
    ...CONSUMER_OPTIONS,
    to: { ...CONSUMER_OPTIONS.to, description: "last moment (a day includes all of it)" },
    type: { kind: "list", value: "t", description: "only these types: info, create, modify, delete, error (or 0, 100, 200, 300, 400)" },
    descendants: { kind: "flag", description: "include the entries of the consumer's node" },
    desc: { kind: "flag", description: "newest first" },
    limit: { ...CONSUMER_OPTIONS.limit, description: "at most n entries", default: "all" },
    "page-size": {
      kind: "int",
      min: 1,
      max: MAX_AUDIT_PAGE,
      description: `entries per request, 1 to ${MAX_AUDIT_PAGE}`,
      default: DEFAULT_AUDIT_PAGE,
    },
    progress: {
      kind: "flag",
      description: "show progress on stderr",
      default: "only when stderr is a terminal",
      negation: "never show progress",
    },
  },
);

const TYPE_NAMES = new Map<number, string>(Object.entries(AuditLogType).map(([k, v]) => [v, k]));

export function run(argv: string[], given: CliIo = processIo): Promise<number> {
  const io = terminalIo(given);
  return runCommand(
    COMMAND,
    argv,
    io,
    async ({ client, options: o }) => {
      const b = o.bunit as number;
      const c = o.consumer as number;
      const want = progressWanted(o, io);
      const progress = new Progress(io, want.enabled, "audit log", want.tty);
      let entries;
      try {
        entries = await getAuditLog(client, b, c, {
          from: o.from as string | undefined,
          to: o.to as string | undefined,
          types: o.type as string[] | undefined,
          includeDescendants: o.descendants === true,
          orderDesc: o.desc === true,
          limit: o.limit as number | undefined,
          pageSize: o["page-size"] as number | undefined,
          // The total is capped at --limit by getAuditLog.
          onProgress: (seen, total) => progress.update(seen, total),
        });
      } finally {
        progress.done();
      }
      if (o.json) {
        io.out(formatJson(entries));
        return 0;
      }
      printTable(
        io,
        ["TIME", "TYPE", "ACTION", "OBJECT", "USER", "MESSAGE"],
        entries.map((e) => [
          formatTime(e.time),
          e.type === undefined ? "" : (TYPE_NAMES.get(e.type) ?? String(e.type)),
          e.action,
          [e.objectType, e.objectId].filter((x) => x !== undefined).join(" "),
          e.user,
          e.message,
        ]),
        "no audit log entries",
      );
      return 0;
    },
    check,
  );
}

function check(o: Values): void {
  if (!Array.isArray(o.type)) return;
  try {
    auditTypes(o.type);
  } catch (err) {
    if (!(err instanceof RangeError)) throw err;
    throw new UsageError(`--type: ${err.message}`);
  }
}
