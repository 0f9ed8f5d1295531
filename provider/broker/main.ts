// `backup-portal registration-broker --port <port> --ledger-file <path> [--host <addr>]`: runs the registration
// broker until SIGINT or SIGTERM. The portal account comes from the BACKUP_PORTAL_* variables and the token secret from
// REGISTRATION_BROKER_SECRET: both only from the environment, never from arguments (which every user of the
// machine can read in /proc/<pid>/cmdline).
import { CommandIo, CommandSpec, processIo, runCommand, UsageError, Values } from "../cli/args";
import { PortalClient } from "../portal/client";
import { resolveSettings } from "../portal/settings";
import { BrokerHandle, startRegistrationBroker } from "./server";
import { MIN_SECRET_BYTES } from "./token";

export const SECRET_ENV = "REGISTRATION_BROKER_SECRET";

export const COMMAND: CommandSpec = {
  label: "registration broker",
  usage: ["backup-portal registration-broker --port <port> --ledger-file <path> [options]"],
  about: `Registers instances that present a one-time registration token (minted by the stack with
the same secret) for their own business unit, with the portal account it alone holds.
Instances run \`backup-portal register --broker <url> --token-file <file>\`.`,
  options: {
    port: { kind: "int", min: 0, max: 65535, value: "port", required: true, description: "port to listen on; 0 picks a free one" },
    "ledger-file": {
      kind: "string",
      value: "path",
      required: true,
      description:
        "where the broker remembers which tokens were used, written before each answer: on storage that outlives the process, so that a restart does not take a spent token again",
    },
    host: { kind: "string", value: "addr", description: "address to bind; 0.0.0.0 for every interface", default: "127.0.0.1" },
    quiet: { kind: "flag", description: "no log lines on stderr" },
  },
  epilog: `environment: BACKUP_PORTAL_URL, BACKUP_PORTAL_ORIGIN, BACKUP_PORTAL_CLIENT_ID,
BACKUP_PORTAL_USERNAME, BACKUP_PORTAL_PASSWORD (the portal account), ${SECRET_ENV}
(at least ${MIN_SECRET_BYTES} bytes).
exit codes: 0 stopped by SIGINT/SIGTERM, 1 cannot start (the ledger file unreadable included), 2 bad arguments`,
};

interface Args {
  port: number;
  ledgerFile: string;
  host?: string;
  quiet: boolean;
  secret: string;
}

function brokerArgs(v: Values, env: NodeJS.ProcessEnv): Args {
  const secret = env[SECRET_ENV] ?? "";
  if (Buffer.byteLength(secret, "utf8") < MIN_SECRET_BYTES)
    throw new UsageError(`${SECRET_ENV} must hold at least ${MIN_SECRET_BYTES} bytes`);
  return {
    port: v.port as number,
    ledgerFile: v["ledger-file"] as string,
    host: v.host as string | undefined,
    quiet: v.quiet === true,
    secret,
  };
}

/** Starts the broker; resolves to it, or to an exit code. */
export function main(argv: string[], env: NodeJS.ProcessEnv = process.env, io: CommandIo = processIo): Promise<BrokerHandle | number> {
  return runCommand(
    COMMAND,
    argv,
    io,
    (v) => brokerArgs(v, env),
    async (a) => {
      const log = a.quiet ? undefined : (line: string) => io.err(`${new Date().toISOString()} registration broker: ${line}\n`);
      try {
        const client = new PortalClient(resolveSettings(undefined, env), { log });
        const broker = await startRegistrationBroker({
          secret: a.secret,
          client,
          port: a.port,
          host: a.host,
          ledgerFile: a.ledgerFile,
          log,
        });
        io.out(`registration broker listening on ${broker.url}\n`);
        return broker;
      } catch (err) {
        io.err(`registration broker: ${err instanceof Error ? err.message : String(err)}\n`);
        return 1;
      }
    },
  );
}

/** Runs the broker until SIGINT or SIGTERM; resolves to the exit code (the shape of a `backup-portal` command). */
export async function run(argv: string[], io: CommandIo = processIo, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const b = await main(argv, env, io);
  if (typeof b === "number") return b;
  return new Promise<number>((resolve) => {
    const stop = (): void => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      b.close().then(
        () => resolve(0),
        () => resolve(1),
      );
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
}
