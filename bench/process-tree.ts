// Samples every process of one session (the CLI's: test/real-engine/cli.ts starts it with setsid) from /proc while
// a CLI command runs, and sums what each kind of process used: the CLI, the language host, the program it runs,
// and the provider processes. CPU is the last sample of each process (utime + stime), so a process's last
// interval (at most `intervalMs`) is missed and one that lives less than an interval may be missed whole; the
// meter (bench/meter.py) gives the exact total of the tree, against which the sum can be read. Peak RSS is each
// process's VmHWM at its last sample.
import * as fs from "fs";

export type ProcessKind = "cli" | "language host" | "program" | "provider" | "other";

export interface KindUsage {
  kind: ProcessKind;
  processes: number;
  cpuMs: number;
  /** The largest peak resident set of one process of this kind. */
  peakRssMb: number;
}

interface Seen {
  kind: ProcessKind;
  cpuTicks: number;
  hwmKb: number;
}

const TICKS_PER_SECOND = 100; // CLK_TCK on Linux

/** The kind of a process from its command line (argv joined by spaces). */
export function kindOf(cmdline: string[]): ProcessKind {
  const exe = cmdline[0]?.split("/").pop() ?? "";
  const all = cmdline.join(" ");
  if (exe === "pulumi") return "cli";
  if (exe.startsWith("pulumi-language-")) return "language host";
  if (/@pulumi\/pulumi\/cmd\/run(\/|\b)|cmd\/run\/index\.js/.test(all)) return "program";
  if (/pulumi-resource-|dynamic-provider|echo-provider\.js|bin\/backupportal|provider\/plugin\//.test(all)) return "provider";
  return "other";
}

function read(file: string): string | undefined {
  try {
    return fs.readFileSync(file, "utf8");
  } catch {
    return undefined; // gone between the listing and the read
  }
}

/** The session id and CPU ticks of /proc/<pid>/stat (fields after the command name, which may hold spaces). */
function stat(pid: string): { session: number; ticks: number } | undefined {
  const text = read(`/proc/${pid}/stat`);
  if (!text) return undefined;
  const f = text.slice(text.lastIndexOf(")") + 2).split(" ");
  // f[0] is field 3 (state): session is field 6, utime 14, stime 15.
  return { session: Number(f[3]), ticks: Number(f[11]) + Number(f[12]) };
}

export class SessionSampler {
  private readonly seen = new Map<string, Seen>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly session: number,
    intervalMs = 200,
  ) {
    this.sample();
    this.timer = setInterval(() => this.sample(), intervalMs);
  }

  private sample(): void {
    for (const pid of fs.readdirSync("/proc")) {
      if (!/^\d+$/.test(pid)) continue;
      const s = stat(pid);
      if (!s || s.session !== this.session) continue;
      let entry = this.seen.get(pid);
      if (!entry) {
        const cmdline = read(`/proc/${pid}/cmdline`)?.split("\0").filter(Boolean) ?? [];
        entry = { kind: kindOf(cmdline), cpuTicks: 0, hwmKb: 0 };
        // The meter itself is not part of what is measured.
        if (cmdline.some((a) => a.endsWith("meter.py"))) continue;
        this.seen.set(pid, entry);
      }
      entry.cpuTicks = s.ticks;
      const hwm = /VmHWM:\s+(\d+) kB/.exec(read(`/proc/${pid}/status`) ?? "");
      if (hwm) entry.hwmKb = Math.max(entry.hwmKb, Number(hwm[1]));
    }
  }

  /** Stops sampling; the usage per kind of process seen. */
  stop(): KindUsage[] {
    clearInterval(this.timer);
    const byKind = new Map<ProcessKind, KindUsage>();
    for (const s of this.seen.values()) {
      const u = byKind.get(s.kind) ?? { kind: s.kind, processes: 0, cpuMs: 0, peakRssMb: 0 };
      u.processes += 1;
      u.cpuMs += (s.cpuTicks * 1000) / TICKS_PER_SECOND;
      u.peakRssMb = Math.max(u.peakRssMb, s.hwmKb / 1024);
      byKind.set(s.kind, u);
    }
    return [...byKind.values()];
  }
}
