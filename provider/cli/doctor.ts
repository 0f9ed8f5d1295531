// `backup-portal doctor`: the command line of provider/doctor (the checks live
// there; this file only reads arguments and prints the report).
import { packageRoot } from "../dynamic/specifier";
import { formatReport, runDoctor, DoctorOptions } from "../doctor";
import { CommandIo, CommandSpec, definedOnly, processIo, runCommand, UsageError, Values } from "./args";
import { formatJson, terminalIo, TIMEOUT_OPTION } from "./output";
import { stackSettings } from "./stack-settings";

export const COMMAND: CommandSpec = {
  label: "backup-portal doctor",
  usage: ["backup-portal doctor [--bunit <id>] [--write-test] [--json] [--timeout <seconds>] [--stack <name>]"],
  about: `Run it once against your own portal, before the first pulumi up. It reads the
settings (and says where each came from), logs in, and asks the portal every
question its API documentation leaves open: the token's lifetime, whether
refreshing is allowed, /v1/me and the business unit, the reference data and
default server, the error shape, which job list path and which audit log
spelling the portal answers. One line per check: ok, differs (the portal's
reading differs from the documented one, and the client handles it), failed
(with the fix), or skipped. A URL that does not answer as the Cloutility API
(an HTML page, a redirect, a web server, no token endpoint) fails with the fix.`,
  options: {
    bunit: { kind: "id", description: "business unit to check", default: "the account's own, from /v1/me" },
    "write-test": {
      kind: "flag",
      description:
        "also make a consumer and node named doctor-<random> in --bunit and check what the providers rely on when they write: PUT merges or replaces, the spname and activate answers, the password change, the DELETE answers, deleting the node removes its consumer; what it made is removed even after a failure (it says what it could not)",
    },
    json: { kind: "flag", description: "the report as JSON" },
    stack: {
      kind: "string",
      value: "name",
      description:
        "take the settings from this stack's file (its backup-portal: keys; its secrets through the Pulumi CLI when there is one), the environment for the rest",
    },
    // Each check is one question to the portal: the deadline is per question, retries included.
    timeout: { ...TIMEOUT_OPTION, default: 15, description: "give each check's request up after this long, retries included" },
  },
  epilog: `The portal connection comes from BACKUP_PORTAL_URL, _ORIGIN, _CLIENT_ID, _USERNAME
and _PASSWORD (docs/cli.md, "First run against your portal").
exit codes: 0 everything the providers rely on holds, 1 something does not, 2 bad arguments`,
};

export interface DoctorArgs {
  json: boolean;
  /** --stack: the settings from this stack's file. */
  stack?: string;
  options: DoctorOptions;
}

function prepare(v: Values): DoctorArgs {
  if (v["write-test"] && v.bunit === undefined) {
    throw new UsageError("--write-test needs --bunit <id>: the business unit where it may make and remove a consumer");
  }
  return {
    json: v.json === true,
    stack: v.stack as string | undefined,
    options: definedOnly({
      bunitId: v.bunit as number | undefined,
      writeTest: v["write-test"] as boolean | undefined,
      timeoutMs: v.timeout as number | undefined,
    }),
  };
}

export interface DoctorIo extends CommandIo {
  env?: NodeJS.ProcessEnv;
}

export function run(argv: string[], given: DoctorIo = processIo): Promise<number> {
  const io = terminalIo(given);
  return runCommand(COMMAND, argv, io, prepare, async (a) => {
    let env = io.env ?? process.env;
    let from: DoctorOptions["from"];
    if (a.stack !== undefined) {
      // Each setting's line says where it came from; a secret the Pulumi CLI could not decrypt is said here.
      const s = stackSettings(a.stack, process.cwd(), env, [packageRoot(__filename)]);
      env = s.env;
      from = s.from;
      for (const note of s.notes) io.err(`${COMMAND.label}: ${note}\n`);
    }
    const report = await runDoctor({ ...a.options, env, from });
    io.out(a.json ? formatJson(report) : formatReport(report));
    return report.ok ? 0 : 1;
  });
}
