// Opt-in CPU profiles of the bench's three processes: `BENCH_CPU_PROF=<dir> npm run bench -- ...` writes
// <dir>/host/*.cpuprofile (one per provider host, i.e. per deployment), <dir>/emulator/*.cpuprofile and
// <dir>/bench/bench.cpuprofile (the engine stand-in). `npx ts-node --transpile-only bench/profile-summary.ts
// <dir>` prints where the time went. Profiling costs CPU itself: figures of a profiled run are not results.
import * as fs from "fs";
import * as inspector from "inspector";
import * as path from "path";

export const PROFILE_ENV = "BENCH_CPU_PROF";

/** The folder profiles go to, or undefined when profiling is off. */
export function profileDir(): string | undefined {
  const dir = process.env[PROFILE_ENV];
  return dir ? path.resolve(dir) : undefined;
}

/** Node options that make a child process write its profile into `<dir>/<kind>` when it exits. */
export function profileNodeArgs(dir: string, kind: "host" | "emulator"): string[] {
  const out = path.join(dir, kind);
  fs.mkdirSync(out, { recursive: true });
  // The engine stops a host with SIGTERM, which it does not handle: a process killed by a signal writes no
  // profile, so the preload turns SIGTERM into an orderly exit (the emulator already exits on SIGTERM).
  const exitOnTerm = kind === "host" ? ["-r", path.join(__dirname, "profile-exit-on-term.js")] : [];
  return ["--cpu-prof", `--cpu-prof-dir=${out}`, ...exitOnTerm];
}

/** Profiles this process until the returned function is called, which writes `<dir>/bench/bench.cpuprofile`. */
export function profileSelf(dir: string): () => Promise<void> {
  const session = new inspector.Session();
  session.connect();
  const post = (method: string, params?: object) =>
    new Promise<unknown>((resolve, reject) => session.post(method, params ?? {}, (err, res) => (err ? reject(err) : resolve(res))));
  const started = post("Profiler.enable").then(() => post("Profiler.start"));
  return async () => {
    await started;
    const { profile } = (await post("Profiler.stop")) as { profile: unknown };
    const out = path.join(dir, "bench");
    fs.mkdirSync(out, { recursive: true });
    fs.writeFileSync(path.join(out, "bench.cpuprofile"), JSON.stringify(profile));
    session.disconnect();
  };
}
