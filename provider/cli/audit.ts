// `backup-portal audit`: the audit log of a consumer, every page (or up to --limit entries),
// with a progress indicator on stderr while paging.
import { DEFAULT_AUDIT_PAGE, getAuditLog, MAX_AUDIT_PAGE } from "../data/activity";
import { AuditLogType } from "../portal/types";
import { CliIo, CONSUMER_SPEC, formatJson, formatTime, OptionSpec, printTable, processIo, Progress, progressWanted, required, runCommand, USAGE_END } from "./output";

export const USAGE = `usage: backup-portal audit --bunit <id> --consumer <id> [options]

The audit log of a consumer, oldest first, read page by page.

options:
  --bunit <id>        business unit of the consumer (required)
  --consumer <id>     consumer (required)
  --from <date>       first moment: YYYY-MM-DD, ISO 8601, or ago (7d, 24h)
  --to <date>         last moment (a day includes all of it)
  --type <t,...>      only these types: info, create, modify, delete, error
                      (or 0, 100, 200, 300, 400); repeatable
  --descendants       include the entries of the consumer's node
  --desc              newest first
  --limit <n>         at most n entries (default: all)
  --page-size <n>     entries per request, 1 to ${MAX_AUDIT_PAGE} (default ${DEFAULT_AUDIT_PAGE})
  --progress          show progress on stderr (default: only when stderr is a terminal)
  --no-progress       never show progress
  --json              JSON instead of a table
  -h, --help          show this help

${USAGE_END}`;

const SPEC: Record<string, OptionSpec> = {
  ...CONSUMER_SPEC, type: { kind: "list" }, descendants: { kind: "flag" }, desc: { kind: "flag" },
  "page-size": { kind: "int", min: 1 }, progress: { kind: "flag" },
};

const TYPE_NAMES = new Map<number, string>(Object.entries(AuditLogType).map(([k, v]) => [v, k]));

export function run(argv: string[], io: CliIo = processIo): Promise<number> {
  return runCommand("audit", USAGE, SPEC, argv, io, async ({ client, options: o }) => {
    const b = required(o, "bunit");
    const c = required(o, "consumer");
    const want = progressWanted(o, io);
    const progress = new Progress(io, want.enabled, "audit log", want.tty);
    let entries;
    try {
      entries = await getAuditLog(client, b, c, {
        from: o.from as string | undefined, to: o.to as string | undefined, types: o.type as string[] | undefined,
        includeDescendants: o.descendants === true, orderDesc: o.desc === true,
        limit: o.limit as number | undefined, pageSize: o["page-size"] as number | undefined,
        onProgress: (seen, total) => progress.update(seen, total === undefined || o.limit === undefined ? total : Math.min(total, o.limit as number)),
      });
    } finally {
      progress.done();
    }
    if (o.json) {
      io.out(formatJson(entries));
      return 0;
    }
    printTable(io, ["TIME", "TYPE", "ACTION", "OBJECT", "USER", "MESSAGE"],
      entries.map((e) => [
        formatTime(e.time), e.type === undefined ? "" : TYPE_NAMES.get(e.type) ?? String(e.type), e.action,
        [e.objectType, e.objectId].filter((x) => x !== undefined).join(" "), e.user, e.message,
      ]),
      "no audit log entries");
    return 0;
  });
}
