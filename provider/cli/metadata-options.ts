// The metadata reader's options, shared by `backup-portal metadata` and `backup-portal register`.
import { metadataUrl, ReadMetadataOptions } from "../metadata";
import { Arg, httpUrl, integer, UsageError } from "./args";

/** Takes `a` into `o` when it is one of the metadata reader's options; false when it is none. */
export function metadataOption(a: Arg, o: ReadMetadataOptions): boolean {
  switch (a.flag) {
    case "--url": o.url = a.value(); break;
    case "--platform": o.platform = a.value(); break;
    case "--api-version": o.version = a.value(); break;
    case "--config-drive": o.configDrive = a.value(); break;
    case "--no-config-drive": a.noValue(); o.discoverConfigDrive = false; break;
    case "--no-network": a.noValue(); o.network = false; break;
    case "--timeout": o.timeoutMs = integer(a.flag, a.value(), 1); break;
    case "--attempts": o.attempts = integer(a.flag, a.value(), 1); break;
    default: return false;
  }
  return true;
}

/** The reader's names for its options, as the command line spells them. */
const FLAGS: Record<string, string> = { platform: "--platform", version: "--api-version", timeoutMs: "--timeout", attempts: "--attempts" };

/**
 * Checks what needs all the arguments read first (the URL, after every option is known), and every
 * option by the reader's own rules: a bad one is a UsageError (exit 2), never a failure to read.
 */
export function checkMetadataOptions(o: ReadMetadataOptions): void {
  if (o.url !== undefined) httpUrl("--url", o.url);
  try {
    metadataUrl(o);
  } catch (err) {
    if (!(err instanceof RangeError)) throw err;
    throw new UsageError(err.message.replace(/^\w+/, (name) => FLAGS[name] ?? name));
  }
}
