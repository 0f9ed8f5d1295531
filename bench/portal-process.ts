// The emulator in its own process (as a real portal is remote): the engine
// stand-in then does not share its event loop with the portal, and each
// process's CPU time can be read apart. Controlled through its /_emulator API.
import { ChildProcess, spawn } from "child_process";
import * as fs from "fs";
import * as path from "path";
import type { FaultConfig, RequestLogEntry, State } from "../emulator";

export interface PortalHandle {
  readonly url: string;
  /** Process id when the portal runs in its own process. */
  readonly pid?: number;
  requests(): Promise<RequestLogEntry[]>;
  setFaults(f: FaultConfig): Promise<void>;
  state(): Promise<State>;
  close(): Promise<void>;
}

const ROOT = path.resolve(__dirname, "..");

async function control<T>(url: string, method: string, p: string, body?: unknown): Promise<T> {
  const res = await fetch(`${url}/_emulator/${p}`, {
    method,
    headers: body ? { "Content-Type": "application/json" } : {},
    body: body ? JSON.stringify(body) : undefined,
    signal: AbortSignal.timeout(30_000),
  });
  if (!res.ok) throw new Error(`emulator control ${method} ${p}: HTTP ${res.status} ${await res.text()}`);
  return (res.status === 204 ? undefined : await res.json()) as T;
}

/** Starts `emulator/main.ts` in a child process on a free loopback port. */
export async function startPortalProcess(
  opts: { tokenTtlSeconds?: number; startTimeoutMs?: number; nodeArgs?: string[]; dataFile?: string } = {},
): Promise<PortalHandle> {
  const args = [
    ...(opts.nodeArgs ?? []),
    "-r",
    "ts-node/register/transpile-only",
    path.join(ROOT, "emulator", "main.ts"),
    "--port",
    "0",
    "--quiet",
  ];
  if (opts.tokenTtlSeconds) args.push("--token-ttl", String(opts.tokenTtlSeconds));
  // The emulator's state from a file (emulator --data): a world made before the process starts.
  if (opts.dataFile) args.push("--data", opts.dataFile);
  const child: ChildProcess = spawn(process.execPath, args, { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`the emulator process printed no address within ${opts.startTimeoutMs ?? 60_000} ms:\n${output}`));
    }, opts.startTimeoutMs ?? 60_000);
    const onData = (d: Buffer) => {
      output += d.toString();
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`the emulator process exited (${code}) before listening:\n${output}`));
    });
  });
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  return {
    url,
    pid: child.pid,
    requests: () => control<RequestLogEntry[]>(url, "GET", "requests"),
    setFaults: (f) => control<unknown>(url, "POST", "faults", f).then(() => undefined),
    state: () => control<State>(url, "GET", "state"),
    async close() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** CPU time (user + system) of a process in milliseconds, from /proc (Linux); undefined elsewhere. */
export function processCpuMs(pid: number | undefined): number | undefined {
  if (!pid) return undefined;
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // Fields 14 and 15 of stat (utime, stime), counted after the command name: indexes 11 and 12.
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return undefined;
  }
}
