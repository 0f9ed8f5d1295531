// `backup-portal business-units`: the business units the account reaches, as a tree, with the ids the other
// commands take as --bunit. Reads only.
import { businessUnitTree, startUnit } from "./list";
import { CliIo, DATA_EPILOG, formatJson, printTable, processIo, runCommand, terminalIo, TIMEOUT_OPTION } from "./output";
import { escapeControls } from "../text/controls";
import { CommandSpec } from "./args";

export const COMMAND: CommandSpec = {
  label: "backup-portal business-units",
  usage: ["backup-portal business-units [--bunit <id>] [--depth <n>] [--json]"],
  about: `The business unit --bunit and every business unit below it, each under its parent, with their ids
(what --bunit of jobs, reports, audit, invoices, billing and export takes). Their consumers:
backup-portal consumers --bunit <id>. Reads only: one list of children per business unit.`,
  options: {
    bunit: { kind: "id", description: "start at this business unit", default: "the account's own, from /v1/me" },
    depth: { kind: "int", min: 0, description: "at most n levels below --bunit (0: --bunit alone)", default: "all" },
    json: { kind: "flag", description: "JSON instead of a table: [{id, name, parentId, depth}], each after its parent" },
    timeout: TIMEOUT_OPTION,
  },
  epilog: DATA_EPILOG,
};

export function run(argv: string[], given: CliIo = processIo): Promise<number> {
  const io = terminalIo(given);
  return runCommand(COMMAND, argv, io, async ({ client, options: o }) => {
    const rootId = await startUnit(client, o.bunit as number | undefined);
    const units = await businessUnitTree(client, rootId, (o.depth as number | undefined) ?? Infinity);
    if (o.json) {
      io.out(formatJson(units));
      return 0;
    }
    // A name is shown with its line breaks and other controls written out (\x0a), so that it stays in its row.
    printTable(
      io,
      [{ header: "ID", align: "right" }, { header: "PARENT", align: "right" }, "NAME"],
      units.map((u) => [u.id, u.parentId, `${"  ".repeat(u.depth)}${escapeControls(u.name ?? "")}`]),
      "no business units",
    );
    return 0;
  });
}
