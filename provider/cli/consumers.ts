// `backup-portal consumers`: the consumers of a business unit (and with --below, of every business unit below
// it), with the ids jobs, reports and audit take as --bunit and --consumer. Reads only.
import { businessUnitTree, consumersOf, startUnit } from "./list";
import { CliIo, DATA_EPILOG, formatJson, printTable, processIo, runCommand, terminalIo, TIMEOUT_OPTION } from "./output";
import { escapeControls } from "../text/controls";
import { CommandSpec } from "./args";

export const COMMAND: CommandSpec = {
  label: "backup-portal consumers",
  usage: ["backup-portal consumers [--bunit <id>] [--below] [--json]"],
  about: `The consumers (consumption units) of business unit --bunit, with their ids and their node's state:
what jobs, reports and audit take as --bunit and --consumer. With --below, also those of every business unit
below it (backup-portal business-units lists them). Reads only.`,
  options: {
    bunit: { kind: "id", description: "business unit", default: "the account's own, from /v1/me" },
    below: { kind: "flag", description: "also the consumers of every business unit below --bunit" },
    json: { kind: "flag", description: "JSON instead of a table: [{businessUnitId, id, name, state}]" },
    timeout: TIMEOUT_OPTION,
  },
  epilog: DATA_EPILOG,
};

export function run(argv: string[], given: CliIo = processIo): Promise<number> {
  const io = terminalIo(given);
  return runCommand(COMMAND, argv, io, async ({ client, options: o }) => {
    const rootId = await startUnit(client, o.bunit as number | undefined);
    const units = o.below ? (await businessUnitTree(client, rootId)).map((u) => u.id) : [rootId];
    const consumers = await consumersOf(client, units);
    if (o.json) {
      io.out(formatJson(consumers));
      return 0;
    }
    // A name is shown with its line breaks and other controls written out (\x0a), so that it stays in its row.
    printTable(
      io,
      [{ header: "BUNIT", align: "right" }, { header: "ID", align: "right" }, "NAME", "STATE"],
      consumers.map((c) => [c.businessUnitId, c.id, escapeControls(c.name ?? ""), escapeControls(c.state ?? "")]),
      "no consumers",
    );
    return 0;
  });
}
