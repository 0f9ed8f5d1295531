// Who used which registration token (token.ts), in memory, and kept in a file across restarts of the broker.
import { promises as fsp } from "fs";
import { prepareSecretFile, writeSecretFile } from "../registration/files";
import { TokenClaims, TokenRefused } from "./token";

/** One token the broker has seen: the instance that claimed it, whether that one registered, and its expiry. */
export interface LedgerEntry {
  nonce: string;
  uuid: string;
  complete: boolean;
  /** Seconds since the epoch. */
  expiresAt: number;
}

/**
 * Who used which token. A token is claimed by the first instance (uuid) that presents it; that instance may
 * present it again until its registration is complete (a boot retries after a portal failure), nobody else
 * may. Entries are forgotten once their token has expired, so the table stays bounded by the tokens of an hour.
 */
export class TokenLedger {
  private readonly entries = new Map<string, Omit<LedgerEntry, "nonce">>();
  private changes = 0;

  constructor(
    private readonly maxEntries = 100_000,
    from: LedgerEntry[] = [],
    now = Date.now(),
  ) {
    for (const { nonce, ...e } of from) this.entries.set(nonce, e);
    this.prune(now);
  }

  /** Claims the token for `uuid`, or TokenRefused("replayed"). */
  claim(claims: TokenClaims, uuid: string, now = Date.now()): void {
    this.prune(now);
    const e = this.entries.get(claims.nonce);
    if (e && (e.complete || e.uuid !== uuid)) throw new TokenRefused("replayed");
    if (!e) {
      if (this.entries.size >= this.maxEntries) throw new Error("too many registration tokens in the last hour");
      this.entries.set(claims.nonce, { uuid, complete: false, expiresAt: claims.expiresAt });
      this.changes++;
    }
  }

  /** The registration went through: the token is spent. */
  complete(claims: TokenClaims): void {
    const e = this.entries.get(claims.nonce);
    if (e && !e.complete) {
      e.complete = true;
      this.changes++;
    }
  }

  get size(): number {
    return this.entries.size;
  }

  /** Counts the claims and completions so far: a store writes when it differs from what it wrote last. */
  get version(): number {
    return this.changes;
  }

  list(): LedgerEntry[] {
    return [...this.entries].map(([nonce, e]) => ({ nonce, ...e }));
  }

  private prune(now: number): void {
    const s = Math.floor(now / 1000);
    for (const [nonce, e] of this.entries) if (e.expiresAt <= s) this.entries.delete(nonce);
  }
}

/** The ledger and how its changes are kept: `save` resolves once they are (a no-op when only in memory). */
export interface LedgerStore {
  readonly ledger: TokenLedger;
  save(): Promise<void>;
}

export function memoryLedger(ledger = new TokenLedger()): LedgerStore {
  return { ledger, save: async () => undefined };
}

const FORMAT = 1;

function isEntry(v: unknown): v is LedgerEntry {
  const e = v as Partial<LedgerEntry> | null;
  return (
    typeof e === "object" &&
    e !== null &&
    typeof e.nonce === "string" &&
    typeof e.uuid === "string" &&
    typeof e.complete === "boolean" &&
    Number.isSafeInteger(e.expiresAt)
  );
}

/** The file cannot be read as a ledger: the broker does not start, rather than forget which tokens are spent. */
export class LedgerFileError extends Error {
  constructor(file: string, why: string, fix = "restore it, or move it away if no token of the last hour may have been used") {
    super(`the spent-token ledger ${file} ${why}; ${fix}`);
    this.name = "LedgerFileError";
  }
}

const ledgerText = (ledger: TokenLedger) => `${JSON.stringify({ format: FORMAT, tokens: ledger.list() })}\n`;

/**
 * Writes the ledger as it is, as every later write does (a temp file beside it, renamed over it): a file the broker
 * can read and not write (a volume that ignores fsGroup, a directory it may not create files in) would fail every
 * registration with a 500, so it stops the start instead.
 */
async function probeWrite(file: string, ledger: TokenLedger): Promise<void> {
  try {
    await (await prepareSecretFile(file, ledgerText(ledger))).commit();
  } catch (err) {
    throw new LedgerFileError(
      file,
      `cannot be written (${(err as NodeJS.ErrnoException).code ?? "error"})`,
      "let the broker's user write it and create files in its folder (a volume that ignores fsGroup needs its owner or mode set)",
    );
  }
}

/**
 * The ledger in `file` (JSON, mode 0600; tokens are never in it, only their nonces): read at start, expired
 * entries dropped, and written back at once (a file it cannot write stops the start); each change written whole to a
 * temp file, fsync'd and renamed over it, one write at a time, and a write that fails is a line on `log`. An absent
 * file is an empty ledger.
 */
export async function fileLedger(file: string, now = Date.now(), log: (line: string) => void = () => undefined): Promise<LedgerStore> {
  let text: string | undefined;
  try {
    text = await fsp.readFile(file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT")
      throw new LedgerFileError(file, `cannot be read (${(err as NodeJS.ErrnoException).code ?? "error"})`);
  }
  let entries: LedgerEntry[] = [];
  if (text !== undefined) {
    let doc: { format?: unknown; tokens?: unknown } | null;
    try {
      doc = JSON.parse(text) as typeof doc;
    } catch {
      throw new LedgerFileError(file, "is not JSON");
    }
    if (doc?.format !== FORMAT || !Array.isArray(doc.tokens) || !doc.tokens.every(isEntry))
      throw new LedgerFileError(file, `is not a ledger of this broker (format ${FORMAT})`);
    entries = doc.tokens;
  }
  const ledger = new TokenLedger(undefined, entries, now);
  await probeWrite(file, ledger);
  let written = ledger.version;
  let queue: Promise<void> = Promise.resolve();
  const write = async (): Promise<void> => {
    const version = ledger.version;
    if (version === written) return;
    try {
      await writeSecretFile(file, ledgerText(ledger));
    } catch (err) {
      log(`the ledger file ${file} could not be written (${(err as NodeJS.ErrnoException).code ?? (err as Error).name})`);
      throw err;
    }
    written = version;
  };
  return {
    ledger,
    save() {
      // One write at a time, each of the ledger as it is then: a later write never lands under an earlier one.
      const done = queue.then(write);
      queue = done.catch(() => undefined);
      return done;
    },
  };
}
