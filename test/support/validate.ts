// `backup-portal validate --offline <file>` in this process, in `cwd`, with an empty environment: what a user sees
// of a stack file without a portal. stdout and stderr apart.
import { run } from "../../provider/cli/validate";

export async function validateOffline(cwd: string, file: string): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const code = await run(["--offline", file], { out: (t) => (out += t), err: (t) => (err += t), env: {}, cwd, errIsTTY: false });
  return { code, out, err };
}
