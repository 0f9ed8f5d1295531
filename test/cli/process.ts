// The real `backup-portal` binary as a user runs it: a child process, bounded in time, with only the environment
// given (the runner's BACKUP_PORTAL_* never leak in). Asynchronous, never spawnSync: an emulator in the test's own
// process must be free to answer it.
import { spawn } from "node:child_process";
import * as os from "node:os";
import * as path from "node:path";
import { main } from "../../provider/cli/main";

export const ROOT = path.join(__dirname, "..", "..");
export const BIN = path.join(ROOT, "bin", "backup-portal.js");

export interface Ran {
  code: number | null;
  out: string;
  err: string;
  /** How long it ran, ms. */
  ms: number;
}

export interface RunOptions {
  env?: Record<string, string>;
  /** The node that runs it (default: this test's). */
  node?: string;
  /** Options for that node before the binary, e.g. `--require <file>`. */
  nodeArgs?: string[];
  cwd?: string;
  timeoutMs?: number;
}

/** Runs `backup-portal <args>`; rejects when it runs over `timeoutMs` (killed). */
export function backupPortal(args: string[], o: RunOptions = {}): Promise<Ran> {
  const timeoutMs = o.timeoutMs ?? 60_000;
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(o.node ?? process.execPath, [...(o.nodeArgs ?? []), BIN, ...args], {
      cwd: o.cwd ?? ROOT,
      env: { PATH: process.env.PATH ?? "", HOME: os.tmpdir(), ...o.env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (c: Buffer) => {
      out += c.toString();
    });
    child.stderr.on("data", (c: Buffer) => {
      err += c.toString();
    });
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`backup-portal ${args.join(" ")} ran over ${timeoutMs} ms; stderr: ${err}`));
    }, timeoutMs);
    child.on("error", (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, out, err, ms: Date.now() - started });
    });
  });
}

/** `main` run in this process with only `env`, as a non-terminal: its exit code and stdout and stderr as one text. */
export async function mainInProcess(argv: string[], env: Record<string, string>): Promise<{ code: number; text: string }> {
  let text = "";
  const write = (t: string) => {
    text += t;
  };
  const code = await main(argv, { out: write, err: write, env, errIsTTY: false } as Parameters<typeof main>[1]);
  return { code, text };
}
