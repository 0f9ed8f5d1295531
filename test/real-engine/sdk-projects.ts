/**
 * TEST CODE — what a project on the plugin's SDKs needs, shared by the SDK tests: node_modules as `npm install`
 * leaves it for a TypeScript program, the tests' Python virtualenv, and a program run without blocking the emulator.
 */
import { spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { REPO } from "./cli";

/**
 * node_modules as `npm install` would leave it in `project`: @pulumi/pulumi and TypeScript from the repository's own
 * install (the lockfile's versions), and the SDK package built from sdk/nodejs as its `npm run build` does.
 */
export function typescriptSdkModules(project: string): void {
  const modules = path.join(project, "node_modules");
  for (const dep of ["@pulumi/pulumi", "typescript"]) {
    fs.mkdirSync(path.dirname(path.join(modules, dep)), { recursive: true });
    fs.symlinkSync(path.join(REPO, "node_modules", dep), path.join(modules, dep), "dir");
  }
  const sdk = path.join(modules, "@backup-portal", "backupportal");
  fs.mkdirSync(sdk, { recursive: true });
  fs.copyFileSync(path.join(REPO, "sdk", "nodejs", "package.json"), path.join(sdk, "package.json"));
  const tsc = path.join(REPO, "node_modules", "typescript", "bin", "tsc");
  const r = spawnSync(process.execPath, [tsc, "-p", path.join(REPO, "sdk", "nodejs"), "--outDir", path.join(sdk, "bin")], {
    encoding: "utf8",
    timeout: 240_000,
  });
  if (r.error || r.status !== 0) {
    const last = `${r.stderr ?? ""}${r.stdout ?? ""}`.trim().split("\n").slice(-15).join("\n");
    throw new Error(`tsc -p sdk/nodejs failed (${r.error?.message ?? `exit ${r.status}`}):\n${last}`);
  }
}

/** The tests' Python virtualenv (.tools/python-venv, made once by scripts/python-venv.sh); its one line when it cannot be made. */
export function pythonVenv(): string {
  const r = spawnSync("bash", [path.join(REPO, "scripts/python-venv.sh")], { encoding: "utf8", timeout: 20 * 60_000 });
  if (r.status !== 0) {
    throw new Error(`the Python case needs its virtualenv: ${r.stderr.trim().split("\n").pop() ?? "scripts/python-venv.sh failed"}`);
  }
  return r.stdout.trim().split("\n").pop()!;
}

/** Runs a command to its end without blocking the event loop (the emulator answers from this process). */
export function runAsync(
  command: string,
  args: string[],
  opts: { cwd: string; env: Record<string, string>; timeoutMs: number },
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: opts.cwd, env: opts.env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), opts.timeoutMs);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
