// scripts/pulumi-tools.sh builds with the user's GOFLAGS kept (a checkout owned by another user builds only with
// -buildvcs=false) and its own added after them, and with GOWORK=off (a go.work in any folder above would take the
// pins out of play). The real script runs under bash in a copy of the repository's layout, with a `go` first on PATH
// that asks the real Go what it sees at the build (`go env GOFLAGS GOWORK`, in the module folder, below a go.work).
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

const ROOT = path.join(__dirname, "..", "..");
/** The real Go's path (the fake one below calls it by path, not by name, which would be itself). */
const REAL_GO = [spawnSync("bash", ["-c", "command -v go"], { encoding: "utf8" }).stdout.trim(), "/usr/local/go/bin/go"].find(
  (g) => g && path.isAbsolute(g) && spawnSync(g, ["version"], { stdio: "ignore", timeout: 10_000 }).status === 0,
);

/** The script in a copy of the layout it reads (the pins), below a folder holding a go.work. */
function layout(top: string): string {
  fs.writeFileSync(path.join(top, "go.work"), "go 1.22\n");
  const repo = path.join(top, "repo");
  fs.mkdirSync(path.join(repo, "scripts"), { recursive: true });
  fs.copyFileSync(path.join(ROOT, "scripts", "pulumi-tools.sh"), path.join(repo, "scripts", "pulumi-tools.sh"));
  for (const dir of ["pulumi-cli", "pulumi-yaml", "pulumi-hosts"]) {
    fs.mkdirSync(path.join(repo, "tools", dir), { recursive: true });
    fs.copyFileSync(path.join(ROOT, "tools", dir, "go.mod"), path.join(repo, "tools", dir, "go.mod"));
  }
  return repo;
}

/** A `go` that answers `go env` and `go version` with the real one, and at `go build` records what Go sees there. */
function fakeGo(bin: string, log: string): void {
  fs.mkdirSync(bin);
  fs.writeFileSync(
    path.join(bin, "go"),
    `#!/bin/bash\nif [ "$1" = build ]; then "${REAL_GO}" env GOFLAGS GOWORK > "${log}"; exit 1; fi\nexec "${REAL_GO}" "$@"\n`,
    { mode: 0o755 },
  );
}

function runScript(repo: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; err: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn("bash", [path.join(repo, "scripts", "pulumi-tools.sh")], { cwd: repo, env, stdio: ["ignore", "ignore", "pipe"] });
    let err = "";
    child.stderr!.on("data", (c: Buffer) => (err += c.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, err });
    });
  });
}

describe("scripts/pulumi-tools.sh: the user's Go environment", function () {
  this.timeout(120_000);
  let top: string;
  before(function () {
    if (!REAL_GO) this.skip();
  });
  beforeEach(() => {
    top = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-tools-env-"));
  });
  afterEach(() => fs.rmSync(top, { recursive: true, force: true }));

  it("keeps GOFLAGS=-buildvcs=false and adds -mod=readonly after it; GOWORK=off below a go.work", async () => {
    const repo = layout(top);
    const log = path.join(top, "seen");
    fakeGo(path.join(top, "bin"), log);
    const home = path.join(top, "home");
    const env = {
      PATH: `${path.join(top, "bin")}:${process.env.PATH ?? ""}`,
      HOME: home,
      GOFLAGS: "-buildvcs=false",
      GOPATH: process.env.GOPATH ?? path.join(os.homedir(), "go"),
      GOCACHE: path.join(top, "cache"),
    };
    const r = await runScript(repo, env);
    assert.notEqual(r.code, 0, "the fake build fails, after recording what Go saw");
    assert.match(r.err, /go build in tools\/pulumi-cli failed/, r.err);
    assert.deepEqual(fs.readFileSync(log, "utf8").split("\n"), ["-buildvcs=false -mod=readonly", "off", ""]);
  });
});
