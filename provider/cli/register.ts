// `backup-portal register`: run on an instance, makes sure it is registered as
// a backup node (see provider/registration/register.ts and docs/registration.md).
import { ReadMetadataOptions } from "../metadata";
import { DEFAULT_OPTION_FILE } from "../registration/files";
import { constants } from "os";
import { DEFAULT_LOCK_WAIT_MS, releaseHeldLocks } from "../registration/lock";
import { META_KEYS, REGISTRATION_DEFAULTS } from "../registration/keys";
import { RegisterOptions, RegistrationError, registerInstance, summarize } from "../registration/register";
import { registerThroughBroker } from "../registration/through-broker";
import { readFile } from "fs/promises";
import { CommandIo, CommandSpec, definedOnly, fileToWrite, processIo, runCommand, UsageError, Values } from "./args";
import { metadataOptions, metadataOptionSpecs } from "./metadata-options";
import { failureText } from "./failure";
import { cliHints } from "../portal/hints";
import { formatJson, terminalIo, TIMEOUT_OPTION } from "./output";

/** The one-time registration token for --broker, when not in a file. */
export const TOKEN_ENV = "BACKUP_PORTAL_REGISTRATION_TOKEN";

export const COMMAND: CommandSpec = {
  label: "backup-portal register",
  usage: ["backup-portal register [options]"],
  about: `Registers this instance for backup: reads its metadata, finds or creates its
consumer and node in the business unit given by the metadata key
${META_KEYS.businessUnit}, activates the node and writes the backup client's option
file. Running it again changes nothing once the instance is registered.

metadata keys (openstack server set --property KEY=VALUE <instance>):
  ${META_KEYS.businessUnit.padEnd(18)} business unit id (required)
  ${META_KEYS.operatingSystem.padEnd(18)} operating system name or id (default ${REGISTRATION_DEFAULTS.operatingSystem})
  ${META_KEYS.nodeType.padEnd(18)} node type (default ${REGISTRATION_DEFAULTS.nodeType})
  ${META_KEYS.domain.padEnd(18)} policy domain (default ${REGISTRATION_DEFAULTS.domain})
  ${META_KEYS.clientOptionSet.padEnd(18)} client option set (default ${REGISTRATION_DEFAULTS.clientOptionSet})
  ${META_KEYS.contact.padEnd(18)} contact information
  ${META_KEYS.cpuCount.padEnd(18)} CPU count (default: this machine's)
  ${META_KEYS.tsmName.padEnd(18)} node name (default: from the instance name and uuid)

portal account: with --broker, none on the instance (the broker holds it; the
instance presents a one-time token from --token-file or ${TOKEN_ENV});
else BACKUP_PORTAL_URL, _ORIGIN, _CLIENT_ID, _USERNAME, _PASSWORD in the
environment, else JSON user data {"backupPortal": {url, origin, clientId,
username, password}}; a variable set in the environment wins. Never the
reseller's account on an instance: see docs/security.md.`,
  options: {
    "option-file": {
      kind: "string",
      value: "path",
      description: "backup client option file",
      default: DEFAULT_OPTION_FILE,
      negation: "do not write an option file",
    },
    "password-file": { kind: "string", value: "path", description: "keep the node password in this 0600 file when one is set" },
    "rotate-password": { kind: "flag", description: "set a new node password even if the node is registered" },
    "dry-run": { kind: "flag", description: "check everything and print what would be done" },
    broker: {
      kind: "url",
      value: "url",
      description: `register through this registration broker, which holds the portal account; needs --token-file (or ${TOKEN_ENV})`,
    },
    "token-file": { kind: "string", value: "path", description: "file holding the one-time registration token for --broker" },
    "lock-file": {
      kind: "string",
      value: "path",
      description: `lock file that keeps two runs from registering at once (default /run/backup-portal-register-bunit-<id>.lock when /run is writable, else in the temp dir); a run waits for it up to ${DEFAULT_LOCK_WAIT_MS / 1000} s`,
    },
    json: { kind: "flag", description: "print the result as JSON" },
    // `--timeout` is the metadata reader's (ms, below), as it was before portal commands had one.
    "portal-timeout": { ...TIMEOUT_OPTION, description: "give up a portal request after this long, retries included" },
    quiet: { kind: "flag", short: "q", description: "no progress lines on stderr" },
    verbose: { kind: "flag", short: "v", description: "also report metadata and portal details on stderr" },
    ...metadataOptionSpecs("metadata reader (as for `backup-portal metadata`)"),
  },
  epilog: `exit codes: 0 registered (or nothing to do), 1 failed (metadata unreadable, portal
error: running again may help), 2 bad arguments, 3 configuration to fix (metadata
keys, credentials, names unknown to the portal, meta.dsmode "disabled"), 130 / 143
stopped by SIGINT (Ctrl-C) / SIGTERM (the lock file is removed; running again continues
where it stopped); the registration user data retries every failure but 2 and 3`,
};

export interface RegisterIo extends CommandIo {
  /** The environment for BACKUP_PORTAL_*; default process.env. */
  env?: NodeJS.ProcessEnv;
  /** CPU count used when backup_cpu_count is absent (tests). */
  cpuCount?: () => number;
}

interface Parsed {
  json: boolean;
  quiet: boolean;
  verbose: boolean;
  metadata: ReadMetadataOptions;
  register: Pick<RegisterOptions, "optionFile" | "passwordFile" | "rotatePassword" | "dryRun" | "lockFile" | "portal">;
  broker?: { url: string; tokenFile?: string };
}

function prepare(v: Values): Parsed {
  // A new password kept nowhere locks the working backup client out: refused before any request.
  if (v["rotate-password"] === true && v["password-file"] === undefined)
    throw new UsageError(
      "--rotate-password needs --password-file <path>: the new node password must be kept where the backup client reads it",
    );
  for (const flag of ["option-file", "password-file", "lock-file"]) {
    if (typeof v[flag] === "string") fileToWrite(`--${flag}`, v[flag] as string);
  }
  const register: Parsed["register"] = definedOnly({
    optionFile: v["option-file"] as string | false | undefined,
    passwordFile: v["password-file"] as string | undefined,
    rotatePassword: v["rotate-password"] as boolean | undefined,
    dryRun: v["dry-run"] as boolean | undefined,
    lockFile: v["lock-file"] as string | undefined,
    portal: {
      deadlineMs: v["portal-timeout"] as number,
      // The command's own words: no stack config, no `pulumi refresh`.
      hintContext: cliHints([], "--portal-timeout", "BACKUP_PORTAL_URL (or the user data's backupPortal.url)"),
    },
  });
  if (v["token-file"] !== undefined && v.broker === undefined) throw new UsageError("--token-file goes with --broker <url>");
  const broker = v.broker !== undefined ? { url: v.broker as string, tokenFile: v["token-file"] as string | undefined } : undefined;
  return { json: v.json === true, quiet: v.quiet === true, verbose: v.verbose === true, metadata: metadataOptions(v), register, broker };
}

/** The token from --token-file, else from the environment; RegistrationError (usage) when neither has one. */
async function brokerToken(file: string | undefined, env: NodeJS.ProcessEnv): Promise<string> {
  if (file === undefined) {
    const t = env[TOKEN_ENV]?.trim();
    if (t) return t;
    throw new RegistrationError("usage", `--broker needs the registration token: --token-file <path> or ${TOKEN_ENV}; nothing was changed`);
  }
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (err) {
    throw new RegistrationError(
      "configuration",
      `cannot read the token file ${file} (${(err as NodeJS.ErrnoException).code ?? "error"}); nothing was changed`,
    );
  }
  if (!text.trim()) throw new RegistrationError("configuration", `the token file ${file} is empty; nothing was changed`);
  return text.trim();
}

const STOP_SIGNALS = ["SIGINT", "SIGTERM"] as const;

/**
 * While a run goes on, SIGINT (Ctrl-C) and SIGTERM end the process with 128 + the signal's number, as a shell
 * reports a process killed by it, after removing the lock file: exiting from a signal skips the run's `finally`,
 * and a lock left behind makes the next run (the next boot's) wait for it and fail. Returns the uninstaller.
 */
function exitOnStopSignals(io: CommandIo): () => void {
  const handlers = STOP_SIGNALS.map((signal) => {
    const handler = (): void => {
      releaseHeldLocks();
      io.err(`backup-portal register: stopped by ${signal}; the lock file is removed. Run it again: it continues where it stopped\n`);
      process.exit(128 + constants.signals[signal]);
    };
    process.on(signal, handler);
    return { signal, handler };
  });
  return () => {
    for (const { signal, handler } of handlers) process.off(signal, handler);
  };
}

export function run(argv: string[], given: RegisterIo = processIo): Promise<number> {
  const io = terminalIo(given);
  return runCommand(COMMAND, argv, io, prepare, async (parsed) => {
    const line =
      (prefix: string) =>
      (text: string): void =>
        io.err(`${prefix}: ${text}\n`);
    const uninstall = exitOnStopSignals(io);
    try {
      const common = {
        ...parsed.register,
        metadata: parsed.metadata,
        cpuCount: io.cpuCount,
        progress: parsed.quiet ? undefined : line("register"),
        log: parsed.verbose ? line("register (detail)") : undefined,
      };
      const result = parsed.broker
        ? await registerThroughBroker({
            ...common,
            brokerUrl: parsed.broker.url,
            token: await brokerToken(parsed.broker.tokenFile, io.env ?? process.env),
          })
        : await registerInstance({ ...common, env: io.env ?? process.env });
      for (const w of result.warnings) io.err(`backup-portal register: warning: ${w}\n`);
      if (parsed.json) io.out(formatJson(result));
      else io.out(`${summarize(result)}\n`);
      return 0;
    } catch (err) {
      const msg = err instanceof Error ? err.message : String(err);
      io.err(failureText("backup-portal register", err));
      if (parsed.json) {
        const e = err instanceof RegistrationError ? err : undefined;
        io.out(formatJson({ status: "failed", kind: e?.kind ?? "internal", error: msg, problems: e?.problems ?? [], done: e?.done ?? [] }));
      }
      if (err instanceof RegistrationError && err.kind === "configuration") return 3;
      if (err instanceof RegistrationError && err.kind === "usage") return 2;
      return 1;
    } finally {
      uninstall();
    }
  });
}
