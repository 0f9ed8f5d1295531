// Where the CPU went, from the .cpuprofile files `BENCH_CPU_PROF=<dir> npm run bench` wrote (bench/profile.ts):
//
//   npx ts-node --transpile-only bench/profile-summary.ts <dir> [--top 25]
//
// Per process kind (host, emulator, bench): the CPU time sampled (idle left out), the share of each area (our
// files, each package, Node's internals, the garbage collector) and the functions with the most self time. A
// host profile is counted from its first Configure call on, as the bench counts host CPU (start-up left out).
import * as fs from "fs";
import * as path from "path";

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const ROOT = path.resolve(__dirname, "..");

/** The area a frame belongs to: a package, a file of ours, Node's internals, or the VM's own work. */
function area(url: string, name: string): string {
  if (!url) return name.startsWith("(") ? name : "(native)";
  if (url.startsWith("node:")) return `node:${url.slice(5).split("/").slice(0, 3).join("/")}`;
  const file = url.replace(/^file:\/\//, "");
  const nm = file.lastIndexOf("node_modules/");
  if (nm >= 0) {
    const parts = file.slice(nm + 13).split("/");
    return parts[0].startsWith("@") ? `${parts[0]}/${parts[1]}` : parts[0];
  }
  return path.relative(ROOT, file);
}

/** Node's generic machinery: its time is charged to whoever called it (HTTP, HTTP/2 and the loaders are owners). */
function generic(a: string): boolean {
  if (a === "(native)" || a === "(root)") return true;
  return a.startsWith("node:") && !/^node:(_http|https?$|internal\/http2|internal\/modules)/.test(a);
}

function frameKey(f: CallFrame): string {
  const where = f.url ? `${area(f.url, f.functionName)}:${f.lineNumber + 1}` : "";
  return `${f.functionName || "(anonymous)"} ${where}`.trim();
}

interface Tally {
  totalUs: number;
  byArea: Map<string, number>;
  /** Time of the samples with a frame of the area anywhere on their stack. */
  inArea: Map<string, number>;
  byFunction: Map<string, number>;
  /** Time by the innermost frame that is not Node's generic machinery (streams, events, sockets, timers, natives). */
  byOwner: Map<string, number>;
  /** For `--callers NAME`: the stacks (innermost first, a few frames) that called a function of that name. */
  callers: Map<string, number>;
}

/**
 * Where counting starts in each kind of profile: the first sample inside one of these functions of this file
 * (a host's RPC handlers; any of them, since a short call may fall between two samples).
 */
const FROM: Record<string, { names: string[]; file: string } | undefined> = {
  host: { names: ["configure", "check", "diff", "create", "read", "update", "delete"], file: "dynamic-provider" },
  emulator: { names: ["handle"], file: "emulator/server" },
};

function add(m: Map<string, number>, k: string, v: number): void {
  m.set(k, (m.get(k) ?? 0) + v);
}

/** Adds one profile's samples; `from`: count only from the first sample whose stack holds that function. */
function tally(p: Profile, t: Tally, from?: { names: string[]; file: string }, callersOf?: string): void {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const hasFrame = (id: number) => {
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const f = byId.get(cur)!.callFrame;
      if (from?.names.includes(f.functionName) && f.url.includes(from.file)) return true;
    }
    return false;
  };
  let counting = !from;
  for (let i = 0; i < p.samples.length; i++) {
    const node = byId.get(p.samples[i])!;
    // A sample's time is the delta to the next sample (the last one gets none).
    const us = p.timeDeltas[i + 1] ?? 0;
    if (!counting && hasFrame(node.id)) counting = true;
    if (!counting || node.callFrame.functionName === "(idle)") continue;
    t.totalUs += us;
    add(t.byArea, area(node.callFrame.url, node.callFrame.functionName), us);
    add(t.byFunction, frameKey(node.callFrame), us);
    const areas = new Set<string>();
    const stack: CallFrame[] = [];
    for (let cur: number | undefined = node.id; cur !== undefined; cur = parent.get(cur)) {
      const f = byId.get(cur)!.callFrame;
      areas.add(area(f.url, f.functionName));
      stack.push(f);
    }
    for (const a of areas) add(t.inArea, a, us);
    const owner = stack.map((f) => area(f.url, f.functionName)).find((a) => !generic(a));
    add(t.byOwner, owner ?? area(node.callFrame.url, node.callFrame.functionName), us);
    if (callersOf) {
      const at = stack.findIndex((f) => f.functionName === callersOf);
      if (at >= 0)
        add(
          t.callers,
          stack
            .slice(at, at + 6)
            .map(frameKey)
            .join(" < "),
          us,
        );
    }
  }
}

function top(m: Map<string, number>, total: number, n: number): string[] {
  return [...m]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([k, us]) => `  ${(us / 1000).toFixed(0).padStart(7)} ms ${((100 * us) / total).toFixed(1).padStart(5)} %  ${k}`);
}

function main(): void {
  const args = process.argv.slice(2);
  const dir = args.find((a) => !a.startsWith("--"));
  const topAt = args.indexOf("--top");
  const n = topAt >= 0 ? Number(args[topAt + 1]) : 25;
  const callersAt = args.indexOf("--callers");
  const callersOf = callersAt >= 0 ? args[callersAt + 1] : undefined;
  const kindAt = args.indexOf("--kind");
  const kinds = kindAt >= 0 ? [args[kindAt + 1]] : ["host", "emulator", "bench"];
  if (!dir || dir !== args[0]) {
    console.error("usage: bench/profile-summary.ts <dir> [--top 25] [--kind host|emulator|bench] [--callers FUNCTION]");
    process.exit(2);
  }
  for (const kind of kinds) {
    const folder = path.join(dir, kind);
    if (!fs.existsSync(folder)) continue;
    const files = fs.readdirSync(folder).filter((f) => f.endsWith(".cpuprofile"));
    const t: Tally = { totalUs: 0, byArea: new Map(), inArea: new Map(), byFunction: new Map(), byOwner: new Map(), callers: new Map() };
    const from = FROM[kind];
    for (const f of files) tally(JSON.parse(fs.readFileSync(path.join(folder, f), "utf8")) as Profile, t, from, callersOf);
    const since = from ? ` (from the first sample in ${from.names.join("/")} of ${from.file} on)` : "";
    console.log(`${kind}: ${files.length} profile(s), ${(t.totalUs / 1000).toFixed(0)} ms of CPU sampled${since}`);
    console.log(" by area (self time):");
    for (const line of top(t.byArea, t.totalUs, n)) console.log(line);
    console.log(" by owner (Node's generic work charged to its caller):");
    for (const line of top(t.byOwner, t.totalUs, n)) console.log(line);
    console.log(" by area (on the stack):");
    for (const line of top(t.inArea, t.totalUs, n)) console.log(line);
    console.log(" by function (self time):");
    for (const line of top(t.byFunction, t.totalUs, n)) console.log(line);
    if (callersOf) {
      console.log(` callers of ${callersOf}:`);
      for (const line of top(t.callers, t.totalUs, n)) console.log(line);
    }
    console.log("");
  }
}

main();
