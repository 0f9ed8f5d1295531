// `backup-portal register --broker <url> --token-file <file>`: the instance registers through the registration
// broker (provider/broker), which holds the portal account; the instance holds only a one-time token for its own
// business unit. The instance reads its metadata, checks it, chooses the node password (kept in a file prepared
// first and moved into place only once the broker says the portal took it), and writes the option file.
import * as os from "os";
import { BrokerAnswer } from "../broker/protocol";
import { prepareSecretFile, PendingWrite, DEFAULT_OPTION_FILE } from "./files";
import { parseRegistrationMetadata } from "./keys";
import { generateNodePassword } from "./password";
import {
  readForRegistration,
  RegisterOptions,
  RegistrationError,
  RegistrationErrorKind,
  RegistrationResult,
  writeOptionFile,
} from "./register";

export interface BrokerRegisterOptions extends Omit<
  RegisterOptions,
  "env" | "portal" | "lockFile" | "lockWaitMs" | "found" | "client" | "nodePassword"
> {
  /** The broker's base URL, e.g. https://broker.example.com:8443. */
  brokerUrl: string;
  /** The one-time registration token (from the token file). */
  token: string;
  /** Give up on the broker after this long, ms; default 120000 (it may wait for other registrations). */
  timeoutMs?: number;
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

const KINDS: RegistrationErrorKind[] = ["configuration", "metadata", "portal", "files", "locked", "usage"];

/** Registers this instance through the broker; throws RegistrationError (never with the token or a password). */
export async function registerThroughBroker(opts: BrokerRegisterOptions): Promise<RegistrationResult> {
  const progress = opts.progress ?? (() => undefined);
  const optionFile = opts.optionFile === false ? undefined : (opts.optionFile ?? DEFAULT_OPTION_FILE);
  if (opts.rotatePassword && !opts.passwordFile)
    throw new RegistrationError(
      "usage",
      "rotatePassword needs passwordFile: a new node password kept nowhere locks the backup client out; nothing was changed",
    );
  const found = await readForRegistration(opts, progress);
  const md = found.metadata;
  // The instance's own checks first: a broken key is reported without spending the token.
  const cpuCount = (opts.cpuCount ?? (() => os.cpus().length))();
  const parsed = parseRegistrationMetadata(md, { cpuCount: () => cpuCount });
  if (parsed.problems.length)
    throw new RegistrationError(
      "configuration",
      `cannot register this instance; nothing was changed:\n${parsed.problems.map((p) => `  - ${p.message}`).join("\n")}`,
      parsed.problems.map((p) => p.message),
    );

  const password = generateNodePassword();
  let pending: PendingWrite | undefined;
  if (opts.passwordFile && !opts.dryRun) {
    try {
      pending = await prepareSecretFile(opts.passwordFile, password);
    } catch (err) {
      throw new RegistrationError("files", `cannot write the password file ${opts.passwordFile}; nothing was changed: ${message(err)}`);
    }
  }
  const url = `${opts.brokerUrl.replace(/\/+$/, "")}/v1/register`;
  progress(`registering through the broker at ${opts.brokerUrl}`);
  let status: number;
  let body: BrokerAnswer;
  try {
    const res = await fetch(url, {
      method: "POST",
      headers: { Authorization: `Bearer ${opts.token.trim()}`, "Content-Type": "application/json" },
      body: JSON.stringify({
        instance: { uuid: md.uuid, name: md.name, hostname: md.hostname, meta: md.meta },
        cpuCount,
        nodePassword: password,
        rotatePassword: opts.rotatePassword === true,
        dryRun: opts.dryRun === true,
      }),
      signal: AbortSignal.timeout(opts.timeoutMs ?? 120_000),
    });
    status = res.status;
    body = (await res.json().catch(() => ({}))) as BrokerAnswer;
  } catch (err) {
    await pending?.abort();
    throw new RegistrationError(
      "portal",
      `the registration broker at ${opts.brokerUrl} did not answer (${message(err)}); nothing was changed here. Run again`,
    );
  }
  if (status !== 200 || !body.result) {
    await pending?.abort();
    const said = typeof body.error === "string" ? body.error : `status ${status}`;
    if (body.kind === "token")
      // Not retried: a refused token is refused every time.
      throw new RegistrationError("configuration", `the registration broker refused the token: ${said}`);
    const kind = KINDS.includes(body.kind as RegistrationErrorKind) ? (body.kind as RegistrationErrorKind) : "portal";
    throw new RegistrationError(kind, `registration through the broker failed: ${said}`, body.problems ?? [], body.done ?? []);
  }
  const result = body.result;
  if (result.passwordSet && pending) {
    try {
      await pending.commit();
    } catch (err) {
      throw new RegistrationError(
        "files",
        `the node password was set on the portal but the password file ${opts.passwordFile} could not be written (${message(err)}); ` +
          `run \`backup-portal register --rotate-password --password-file ${opts.passwordFile}\` (with the broker and a new token) once it can be written`,
        [],
        result.actions,
      );
    }
    result.passwordFile = { path: pending.path, written: true };
  } else await pending?.abort();
  if (result.passwordSet && !pending && !opts.dryRun)
    result.warnings.push(
      "the node password was set on the portal but kept nowhere (no --password-file): the backup client cannot log in " +
        "until you run again with --rotate-password --password-file <path>",
    );
  if (optionFile && result.status !== "planned") await writeOptionFile(optionFile, result, progress);
  return result;
}
