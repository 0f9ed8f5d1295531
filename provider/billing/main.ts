// `npm run billing-receiver -- --port <port> --out <dir> --bunit <id> [--secret <s>] [--host <addr>] [--path <p>]`
// Starts the billing notification receiver and prints
// `billing receiver listening on http://<host>:<port>` and the Post URL to register (the secret in it
// URL-encoded, and shown only when stdout is a terminal); SIGINT/SIGTERM finish the requests in
// progress and stop it. The portal connection comes from the BACKUP_PORTAL_* environment
// variables; the secret may also come from BILLING_RECEIVER_SECRET (better than the command
// line, where other users of the machine can read it).
import * as fs from "fs";
import { CommandIo, CommandSpec, formatHelp, parseCommandArgs, processIo, runCommand, UsageError, Values } from "../cli/args";
import { PortalClient } from "../portal/client";
import { resolveSettings } from "../portal/settings";
import { cliHints } from "../portal/hints";
import { BillingReceiverHandle, BillingReceiverOptions, DEFAULT_NOTIFY_PATH, startBillingReceiver } from "./receiver";
import { receiverSecretProblem } from "./secret";

export const SECRET_ENV = "BILLING_RECEIVER_SECRET";

export const COMMAND: CommandSpec = {
  label: "billing receiver",
  usage: [
    "npm run billing-receiver -- --port <port> --out <dir> --bunit <id> [options]",
    "backup-portal billing-receiver --port <port> --out <dir> --bunit <id> [options]",
  ],
  about: `Receives the portal's "new billing data available" notification and writes the
business unit's billing data to <dir>/<bunit>/<YYYY-MM-DD>.json (one file per period).
Register the Post URL http://<host>:<port>${DEFAULT_NOTIFY_PATH}?bunit=<id>[&secret=<s>] in the portal,
the secret URL-encoded (+ & = as %2B %26 %3D); printed at start, the secret shown only
when stdout is a terminal.`,
  options: {
    port: { kind: "int", min: 0, max: 65535, value: "port", required: true, description: "port to listen on; 0 picks a free one" },
    out: { kind: "string", value: "dir", required: true, description: "output directory" },
    bunit: { kind: "id", required: true, description: "the reseller business unit; the Post URL's bunit must match" },
    secret: { kind: "string", value: "s", description: `shared secret the Post URL must carry (or set ${SECRET_ENV})` },
    host: { kind: "string", value: "addr", description: "address to bind; 0.0.0.0 for every interface", default: "127.0.0.1" },
    path: { kind: "string", value: "p", description: "path of the Post URL", default: DEFAULT_NOTIFY_PATH },
    quiet: { kind: "flag", description: "no log lines on stderr" },
  },
  epilog: `environment: BACKUP_PORTAL_URL, BACKUP_PORTAL_ORIGIN, BACKUP_PORTAL_CLIENT_ID,
BACKUP_PORTAL_USERNAME, BACKUP_PORTAL_PASSWORD (the portal connection), ${SECRET_ENV}.
exit codes: 0 stopped by SIGINT/SIGTERM, 1 cannot start (no portal settings, --out not
writable, port in use), 2 bad arguments`,
};

/** The help text (kept for the package's `RECEIVER_USAGE`). */
export const USAGE = formatHelp(COMMAND);

export { UsageError };

export interface ReceiverArgs {
  help: boolean;
  quiet: boolean;
  port?: number;
  outDir?: string;
  businessUnitId?: number;
  secret?: string;
  host?: string;
  path?: string;
}

/** The receiver's arguments from the values read; the secret may come from the environment. */
function receiverArgs(v: Values, env: NodeJS.ProcessEnv): ReceiverArgs {
  const a: ReceiverArgs = { help: v.help === true, quiet: v.quiet === true };
  if (a.help) return a;
  Object.assign(a, {
    port: v.port,
    outDir: v.out,
    businessUnitId: v.bunit,
    // Set but empty is still set: refused below, never taken as "no secret" (which would accept anyone).
    secret: (v.secret as string | undefined) ?? env[SECRET_ENV],
  });
  if (v.host !== undefined) a.host = v.host as string;
  if (v.path !== undefined) a.path = v.path as string;
  const out = a.outDir === undefined ? undefined : fs.statSync(a.outDir as string, { throwIfNoEntry: false });
  if (out && !out.isDirectory()) throw new UsageError(`--out ${JSON.stringify(a.outDir)} is not a directory`);
  const secretProblem = a.secret !== undefined ? receiverSecretProblem(a.secret) : undefined;
  if (secretProblem) throw new UsageError(`${v.secret !== undefined ? "--secret" : SECRET_ENV}: ${secretProblem}`);
  if (a.path !== undefined && (!a.path.startsWith("/") || a.path.includes("?")))
    throw new UsageError("--path must start with / and carry no query");
  return a;
}

export function parseArgs(argv: string[], env: NodeJS.ProcessEnv = process.env): ReceiverArgs {
  return receiverArgs(parseCommandArgs(COMMAND, argv), env);
}

/**
 * A portal client for the receiver: the BACKUP_PORTAL_* settings with a 3 s timeout and no retries of its own.
 * The receiver retries within its 8 s deadline; retries here too stacked up (3 × 4 s for the token, then the
 * same for the read) past the 10 s the portal waits for an answer.
 */
export function receiverClient(env: NodeJS.ProcessEnv = process.env, log?: (line: string) => void): PortalClient {
  return new PortalClient(
    { timeoutMs: 3000, maxAttempts: 1, ...resolveSettings(undefined, env, "cli"), hintContext: cliHints(["--bunit"]) },
    { log },
  );
}

export interface MainIo extends CommandIo {
  /** Whether stdout is a terminal (the Post URL is printed with its secret only then); default: process.stdout's. */
  outIsTerminal?: boolean;
}

/**
 * The Post URL line printed at start. The secret in it is URL-encoded (a raw `+ & =` would change the query), and
 * shown only when stdout is a terminal: the operator's own screen. Anywhere else (a log file, the journal,
 * `kubectl logs`) it is masked; build it there from the secret with encodeURIComponent.
 */
export function postUrlLine(
  receiver: Pick<BillingReceiverHandle, "notifyUrl" | "postUrl">,
  secret: string | undefined,
  terminal: boolean,
): string {
  if (secret === undefined) return `post URL: ${receiver.notifyUrl}`;
  if (terminal) return `post URL: ${receiver.postUrl(secret)}`;
  return `post URL: ${receiver.notifyUrl}&secret=*** (the secret URL-encoded; shown only when stdout is a terminal)`;
}

/** Starts the receiver from command-line arguments; resolves to the receiver, or to an exit code on error. */
export function main(
  argv: string[],
  env: NodeJS.ProcessEnv = process.env,
  io: MainIo = processIo,
): Promise<BillingReceiverHandle | number> {
  const terminal = io.outIsTerminal ?? (io === processIo && process.stdout.isTTY === true);
  return runCommand(
    COMMAND,
    argv,
    io,
    (values) => receiverArgs(values, env),
    async (a) => {
      const log = a.quiet ? undefined : (line: string) => io.err(`${new Date().toISOString()} billing receiver: ${line}\n`);
      try {
        const client = receiverClient(env, log);
        const opts: BillingReceiverOptions = {
          outDir: a.outDir!,
          businessUnitId: a.businessUnitId!,
          secret: a.secret,
          client,
          port: a.port,
          host: a.host,
          path: a.path,
          log,
        };
        const receiver = await startBillingReceiver(opts);
        io.out(`billing receiver listening on ${receiver.url}\n`);
        io.out(`${postUrlLine(receiver, a.secret, terminal)}\n`);
        return receiver;
      } catch (err) {
        io.err(`billing receiver: ${err instanceof Error ? err.message : String(err)}\n`);
        return 1;
      }
    },
  );
}

/**
 * Runs the receiver until SIGINT or SIGTERM; resolves to the exit code. The shape of a
 * `backup-portal` subcommand, so the dispatcher can offer it as `backup-portal billing-receiver`.
 */
export async function run(argv: string[], io: MainIo = processIo, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const r = await main(argv, env, io);
  if (typeof r === "number") return r;
  return new Promise<number>((resolve) => {
    let stopping = false;
    const stop = (): void => {
      if (stopping) return;
      stopping = true;
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      r.close().then(
        () => resolve(0),
        () => resolve(1),
      );
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
}

if (require.main === module) {
  run(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      console.error(`billing receiver: ${err instanceof Error ? err.message : String(err)}`);
      process.exit(1);
    },
  );
}
