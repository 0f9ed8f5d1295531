/**
 * TEST CODE — the real Pulumi CLI (built from the Go module proxy by scripts/pulumi-tools.sh) run as a user runs
 * it: a file backend in a temp folder, a passphrase, its own PULUMI_HOME, nothing from the caller's environment
 * that could reach another portal or account. Every run is asynchronous, so an emulator in the test's own
 * process keeps answering while the CLI works.
 */
import { spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

export const REPO = path.resolve(__dirname, "..", "..");

let toolsBin: string | undefined;

/**
 * The folder of the built CLI and language hosts. Builds them when missing (minutes on a fresh machine: .ci/run
 * builds them before the tests); without Go or the module proxy the script's one line is the error.
 */
export function pulumiTools(): string {
  if (toolsBin) return toolsBin;
  const built = spawnSync("bash", [path.join(REPO, "scripts/pulumi-tools.sh")], { encoding: "utf8", timeout: 60 * 60_000 });
  if (built.status !== 0) {
    throw new Error(
      `the real-engine tests need the Pulumi CLI: ${built.stderr.trim().split("\n").pop() ?? "scripts/pulumi-tools.sh failed"}`,
    );
  }
  toolsBin = built.stdout.trim().split("\n").pop()!;
  return toolsBin;
}

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  /** Extra environment for this run (wins over the workspace's). */
  env?: Record<string, string>;
  /** Kills the CLI (SIGKILL) once this returns true for the output so far (asked on output and every 100 ms). */
  killWhen?: (output: string) => boolean;
  timeoutMs?: number;
  cwd?: string;
  /** Written to the CLI's stdin, then closed (without it stdin is /dev/null). */
  input?: string;
  /** A command the CLI runs under (its arguments then the CLI's path and arguments follow): the bench's meter. */
  wrap?: string[];
  /** Called with the spawned process (the session leader: the CLI, or `wrap`), e.g. to sample its session. */
  onSpawn?: (pid: number) => void;
}

export interface Workspace {
  dir: string;
  /** The project folder the CLI runs in (holds Pulumi.yaml). */
  project: string;
  stack: string;
  /** The stack file (`Pulumi.<stack>.yaml` in the project folder). */
  stackFile: string;
  env: Record<string, string>;
  pulumi(args: string[], opts?: RunOptions): Promise<CliResult>;
  /** Runs the CLI and fails with its whole output unless it exits 0. */
  ok(args: string[], opts?: RunOptions): Promise<CliResult>;
  /** `pulumi config set --secret <key>` with the value on stdin, as a user's CI sets one: never on argv. */
  setSecret(key: string, value: string): Promise<CliResult>;
  remove(): void;
}

const PASSPHRASE = "real-engine-tests";

/**
 * A workspace for one stack, in a temp folder: its state, its PULUMI_HOME, and the project folder that
 * `project` makes in it (Pulumi.yaml and whatever the program needs), so tests never write into the repository.
 */
export function workspace(opts: { stack: string; project: (dir: string) => string; stackYaml?: string; backendUrl?: string }): Workspace {
  const bin = pulumiTools();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "real-engine-"));
  const home = path.join(dir, "home");
  const state = path.join(dir, "state");
  // The CLI's own temp files (a downloaded plugin's tarball folder, which it leaves) go with the workspace.
  const tmp = path.join(dir, "tmp");
  for (const d of [home, state, tmp]) fs.mkdirSync(d);
  const project = opts.project(dir);
  const stackFile = path.join(project, `Pulumi.${opts.stack}.yaml`);
  if (opts.stackYaml !== undefined) fs.writeFileSync(stackFile, opts.stackYaml);
  const env: Record<string, string> = {
    PATH: [bin, path.dirname(process.execPath), process.env.PATH ?? ""].join(path.delimiter),
    HOME: home,
    PULUMI_HOME: home,
    // `backendUrl`: another backend than the temp folder's (postgres://, test/real-engine/postgres-backend.test.ts).
    PULUMI_BACKEND_URL: opts.backendUrl ?? `file://${state}`,
    PULUMI_CONFIG_PASSPHRASE: PASSPHRASE,
    PULUMI_SKIP_UPDATE_CHECK: "true",
    PULUMI_SKIP_CONFIRMATIONS: "true",
    // Only what ships with the CLI and the project: nothing may be fetched from the web here.
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
    NO_COLOR: "1",
    // The runtime type-checks a TypeScript program on every run (ts-node), which `npm run build` and the lint
    // already do for this repository; transpiling only saves 10-20 s per command here.
    PULUMI_NODEJS_TRANSPILE_ONLY: "true",
    TMPDIR: tmp,
  };
  const run = (args: string[], o: RunOptions = {}): Promise<CliResult> =>
    new Promise((resolve, reject) => {
      // `pulumi plugin ...` takes no --stack.
      const stackArgs = args[0] === "plugin" ? [] : ["--stack", opts.stack];
      const cli = [path.join(bin, "pulumi"), ...args, ...stackArgs, "--non-interactive"];
      const argv = o.wrap ? [...o.wrap, ...cli] : cli;
      const child = spawn(argv[0], argv.slice(1), {
        cwd: o.cwd ?? project,
        env: { ...env, ...o.env },
        stdio: [o.input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
        // Its own session (detached is setsid): a kill takes the plugins it started too. A killed CLI leaves them
        // running, and it starts each in a process group of its own (cmdutil/child_unix.go, Setpgid), so only
        // the session holds them all.
        detached: true,
      });
      const kill = () => spawnSync("pkill", ["-KILL", "-s", String(child.pid)]);
      if (child.pid !== undefined) o.onSpawn?.(child.pid);
      if (o.input !== undefined) child.stdin!.end(o.input);
      let stdout = "";
      let stderr = "";
      const check = () => {
        if (o.killWhen?.(stdout + stderr)) kill();
      };
      child.stdout!.on("data", (d) => ((stdout += d), check()));
      child.stderr!.on("data", (d) => ((stderr += d), check()));
      const timer = setTimeout(kill, o.timeoutMs ?? 240_000);
      const poll = o.killWhen ? setInterval(check, 100) : undefined;
      child.on("error", reject);
      child.on("close", (code, signal) => {
        clearTimeout(timer);
        clearInterval(poll);
        resolve({ code, signal, stdout, stderr });
      });
    });
  const ws: Workspace = {
    dir,
    project,
    stack: opts.stack,
    stackFile,
    env,
    pulumi: (args, o) => run(args, o),
    async ok(args, o) {
      const r = await run(args, o);
      if (r.code !== 0) {
        throw new Error(`pulumi ${args.join(" ")} exited ${r.code ?? r.signal}:\n${r.stdout}\n${r.stderr}`);
      }
      return r;
    },
    setSecret: (key, value) => ws.ok(["config", "set", "--secret", key], { input: value }),
    remove: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
  return ws;
}
