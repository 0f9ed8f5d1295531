// What `export --merge` says of the file it leaves (issue 45 items 2 and 4): each connection key the file lacks,
// with the value to set (the file's first preview needs them), and its closing line counting what the file declares,
// as `backup-portal validate` counts it (the entries the portal no longer has included), not what the portal holds.
import * as path from "path";
import { missingConnectionLines } from "../export/connection";
import { readStackFile, STACK_FILE } from "../stack-config/file";
import { countsText, declaredCounts } from "../tenants/counts";

/** The stack a stack file is for (`Pulumi.prod.yaml`: prod), as the hints name it. */
export const stackOf = (file: string): string => STACK_FILE.exec(path.basename(file))?.[1] ?? "<stack>";

/**
 * The lines on stderr after a merge into `file` (shown as `shown`); `namespace` the project's name, `used` the
 * connection keys the export read the portal with (connection.ts).
 */
export async function mergedFileLines(
  file: string,
  shown: string,
  namespace: string | undefined,
  used: Record<string, string>,
): Promise<string[]> {
  const stackFile = readStackFile(file, namespace);
  const missing = missingConnectionLines(shown, stackOf(file), stackFile.source.config, used);
  // Deferred: loads the Pulumi SDK, as validate does.
  const { readStackConfig } = await import("../stack-config/read");
  const read = readStackConfig(stackFile.source);
  const count = read.config
    ? `${shown}: the file declares ${countsText(declaredCounts(read.config.tenants))}, as backup-portal validate counts them`
    : `${shown}: the stack program would refuse the file as it is (${read.problems.length} problem(s)): backup-portal validate ${shown} lists them`;
  return [...missing, count];
}
