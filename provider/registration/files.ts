// Files written on the instance: the backup client's option file and the
// optional node password file. Both are written atomically (a temp file in the
// same directory, fsync, rename) with mode 0600, so a reader never sees a half
// written file and nobody but the owner can read either.
import { randomBytes } from "crypto";
import { promises as fsp } from "fs";
import * as path from "path";

export const DEFAULT_OPTION_FILE = "/opt/tivoli/tsm/client/ba/bin/dsm.opt";
export const SECRET_FILE_MODE = 0o600;

/** A write prepared in a temp file: `commit` moves it in place, `abort` removes it. */
export interface PendingWrite {
  readonly path: string;
  commit(): Promise<void>;
  abort(): Promise<void>;
}

/** Writes `content` to a 0600 temp file beside `file` (creating the directory when needed). */
export async function prepareSecretFile(file: string, content: string): Promise<PendingWrite> {
  const target = path.resolve(file);
  const dir = path.dirname(target);
  await fsp.mkdir(dir, { recursive: true, mode: 0o755 });
  const tmp = path.join(dir, `.${path.basename(target)}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`);
  const fh = await fsp.open(tmp, "wx", SECRET_FILE_MODE);
  try {
    await fh.chmod(SECRET_FILE_MODE); // whatever the umask
    await fh.writeFile(content, "utf8");
    await fh.sync();
  } catch (err) {
    await fh.close().catch(() => undefined);
    await fsp.rm(tmp, { force: true });
    throw err;
  }
  await fh.close();
  let done = false;
  return {
    path: target,
    async commit() {
      if (done) return;
      done = true;
      try {
        await fsp.rename(tmp, target);
      } catch (err) {
        await fsp.rm(tmp, { force: true });
        throw err;
      }
      // Make the rename durable; not every filesystem lets a directory be synced.
      const d = await fsp.open(dir, "r").catch(() => undefined);
      if (d)
        await d
          .sync()
          .catch(() => undefined)
          .finally(() => d.close());
    },
    async abort() {
      if (done) return;
      done = true;
      await fsp.rm(tmp, { force: true });
    },
  };
}

/**
 * Writes a 0600 file atomically unless it already holds exactly `content` with
 * mode 0600. Answers whether it wrote.
 */
export async function writeSecretFile(file: string, content: string): Promise<boolean> {
  try {
    const [current, st] = await Promise.all([fsp.readFile(file, "utf8"), fsp.stat(file)]);
    if (current === content && (st.mode & 0o777) === SECRET_FILE_MODE) return false;
  } catch {
    // absent or unreadable: write it
  }
  const pending = await prepareSecretFile(file, content);
  await pending.commit();
  return true;
}

export interface OptionFileValues {
  /** The backup server's name (SERVERNAME). */
  serverName: string;
  /** Its address (TCPSERVERADDRESS). */
  serverAddress: string;
  /** Its port (TCPPORT); 1500 when the portal does not say. */
  serverPort?: number;
  /** The activated node name (NODENAME). */
  nodeName: string;
  /** Comment lines put at the top (`*` comments). */
  comments?: string[];
}

function optionValue(name: string, value: string): string {
  if (!value || /[\r\n\0]/.test(value)) throw new Error(`option file: ${name} must be one non-empty line, got ${JSON.stringify(value)}`);
  return /\s/.test(value) ? `"${value}"` : value;
}

/** The backup client's options for this node, in dsm.opt syntax (also a valid dsm.sys server stanza). */
export function renderOptionFile(v: OptionFileValues): string {
  const rows: Array<[string, string]> = [
    ["SERVERNAME", optionValue("SERVERNAME", v.serverName)],
    ["TCPSERVERADDRESS", optionValue("TCPSERVERADDRESS", v.serverAddress)],
    ["TCPPORT", String(v.serverPort ?? 1500)],
    ["NODENAME", optionValue("NODENAME", v.nodeName)],
    ["PASSWORDACCESS", "GENERATE"],
  ];
  const comments = (v.comments ?? []).map((c) => `* ${c.replace(/[\r\n]+/g, " ")}`);
  return [...comments, ...rows.map(([k, val]) => `${k.padEnd(18)}${val}`), ""].join("\n");
}
