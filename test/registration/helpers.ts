// Test support for self-registration: a metadata service per run, the CLI with
// captured output, and temp dirs.
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { MetadataService, startMetadataService } from "../../emulator/metadata-service";
import { run } from "../../provider/cli/register";

export const UUID = "1a2b3c4d-5e6f-4a1b-8c9d-0e1f2a3b4c5d";
export const TSM_NAME = "WEB01-1A2B3C";
export const CPU_COUNT = 6;

export function instanceDocument(meta: Record<string, string> | undefined, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    uuid: UUID, name: "web01", hostname: "web01.novalocal", launch_index: 0, availability_zone: "nova",
    ...(meta ? { meta } : {}), ...extra,
  };
}

export interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
  /** Requests the metadata service saw. */
  metadataRequests: number;
}

const dirs: string[] = [];

export function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "registration-test-"));
  dirs.push(dir);
  return dir;
}

export function removeTempDirs(): void {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
}

/** Runs `backup-portal register` against a fresh metadata service serving `doc` and `userData`. */
export async function register(
  args: string[], opts: { doc: Record<string, unknown> | string; userData?: string | null; env: NodeJS.ProcessEnv },
): Promise<Outcome> {
  const svc: MetadataService = await startMetadataService({ metadata: opts.doc, userData: opts.userData ?? null });
  const out = { stdout: "", stderr: "" };
  try {
    const code = await run(["--url", svc.url, "--no-config-drive", ...args], {
      out: (t) => { out.stdout += t; },
      err: (t) => { out.stderr += t; },
      env: opts.env,
      cpuCount: () => CPU_COUNT,
    });
    return { code, ...out, metadataRequests: svc.requests.length };
  } finally {
    await svc.close();
  }
}

export function modeOf(file: string): number {
  return fs.statSync(file).mode & 0o777;
}
