// A port already taken, as a user meets it: `npm run emulator -- --port <p>` and `npm run local` with the emulator of
// docs/emulator.md still running there (here: one in this process, so its pid is this test's) say in one line on
// stderr what holds the port and what to do, instead of "EADDRINUSE"; `npm run local` says it before it builds
// or looks for the Pulumi CLI.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as http from "node:http";
import * as os from "node:os";
import * as path from "node:path";
import { startEmulator, type Emulator } from "../../emulator";

const ROOT = path.resolve(__dirname, "..", "..");
/** The port of `npm run local` (scripts/local-up.sh; the url of stacks/Pulumi.local.yaml). */
const LOCAL_PORT = 18787;

/** `npm run <args>` in the repository, bounded (killed after `timeoutMs`). */
function npmRun(args: string[], timeoutMs = 60_000): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn("npm", ["run", ...args], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("error", reject);
    child.on("close", (code) => (clearTimeout(timer), resolve({ code, stdout, stderr })));
  });
}

describe("emulator: a port already in use", function () {
  this.timeout(120_000);
  let dir: string;
  let emu: Emulator | undefined;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "port-in-use-"));
  });
  afterEach(async () => {
    await emu?.close();
    emu = undefined;
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("npm run emulator on a running emulator's port: its pid and data file, and what to do", async () => {
    const data = path.join(dir, "portal.json");
    emu = await startEmulator({ port: 0, dataFile: data, quiet: true });
    const r = await npmRun(["emulator", "--", "--port", String(emu.port)]);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.equal(
      r.stderr,
      `portal emulator: 127.0.0.1:${emu.port} is in use by a portal emulator already running (pid ${process.pid}, data file ${data}): ` +
        `stop it (kill ${process.pid}), or give another --port (--port 0 takes a free one)\n`,
    );
  });

  it("npm run emulator on a port another program holds: says so, and no pid", async () => {
    const other = http.createServer((_req, res) => res.writeHead(404).end("not here"));
    await new Promise<void>((resolve) => other.listen(0, "127.0.0.1", resolve));
    const port = (other.address() as { port: number }).port;
    try {
      const r = await npmRun(["emulator", "--", "--port", String(port)]);
      assert.equal(r.code, 1, r.stdout + r.stderr);
      assert.equal(
        r.stderr,
        `portal emulator: 127.0.0.1:${port} is in use by another program (it does not answer GET /_emulator/process as the portal ` +
          "emulator does): stop it, or give another --port (--port 0 takes a free one)\n",
      );
    } finally {
      await new Promise((resolve) => other.close(resolve));
    }
  });

  it("npm run local with the emulator still running on its port: one line, before anything is built", async function () {
    const data = path.join(dir, "portal.json");
    try {
      emu = await startEmulator({ port: LOCAL_PORT, dataFile: data, quiet: true });
    } catch (err) {
      // Held by something else on this machine: the line must still name it; which one, this test cannot know.
      if ((err as NodeJS.ErrnoException).code !== "EADDRINUSE") throw err;
    }
    const started = Date.now();
    const r = await npmRun(["local"]);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    const line = emu
      ? `npm run local: 127.0.0.1:${LOCAL_PORT} is in use by a portal emulator already running (pid ${process.pid}, data file ${data}): ` +
        `stop it (kill ${process.pid}), then run npm run local again (it starts its own emulator on that port)\n`
      : undefined;
    if (line) assert.equal(r.stderr, line);
    else assert.match(r.stderr, new RegExp(`^npm run local: 127\\.0\\.0\\.1:${LOCAL_PORT} is in use by [^\\n]+: stop it[^\\n]*\\n$`));
    // Only npm's own header (`> backup-portal-pulumi@… local`, `> bash scripts/local-up.sh`): nothing built or run.
    assert.deepEqual(
      r.stdout.split("\n").filter((l) => l.trim() !== "" && !l.startsWith("> ")),
      [],
      r.stdout,
    );
    assert.ok(Date.now() - started < 30_000, "said before the build");
    if (emu) assert.deepEqual(emu.requests(), [], "the running emulator was sent no portal request");
  });
});
