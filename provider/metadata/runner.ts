// Command execution behind an injectable function, so block-device discovery
// and mounting can be tested with a fake.
import { execFile } from "child_process";

export interface CommandResult {
  /** Exit code; 127 when the command could not be started (e.g. not installed), 124 on timeout. */
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `command` with `args` (no shell). Must not throw: failures are a non-zero `code`. */
export type CommandRunner = (command: string, args: readonly string[]) => Promise<CommandResult>;

export const DEFAULT_COMMAND_TIMEOUT_MS = 15_000;

/** The real runner: child_process.execFile, no shell, a timeout, output capped at 1 MiB. */
export function createCommandRunner(timeoutMs = DEFAULT_COMMAND_TIMEOUT_MS): CommandRunner {
  return (command, args) =>
    new Promise((done) => {
      execFile(command, [...args], { timeout: timeoutMs, maxBuffer: 1024 * 1024, encoding: "utf8" }, (err, stdout, stderr) => {
        if (!err) return done({ code: 0, stdout, stderr });
        const e = err as NodeJS.ErrnoException & { code?: string | number; killed?: boolean };
        let code: number;
        if (typeof e.code === "number") code = e.code;
        else if (e.killed) code = 124;
        else code = 127;
        done({ code, stdout: stdout ?? "", stderr: stderr || e.message });
      });
    });
}

export const defaultCommandRunner: CommandRunner = createCommandRunner();
