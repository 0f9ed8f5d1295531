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
  for (const script of ["pulumi-tools.sh", "go-tools.sh"])
    fs.copyFileSync(path.join(ROOT, "scripts", script), path.join(repo, "scripts", script));
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

/**
 * A `go` whose builds succeed slowly: each prints three package names (as `go build -v` does) `pause` seconds apart
 * and writes each command it was asked for into the -o folder; `go mod download -json` names `hosts` as the module's
 * folder. The rest goes to the real Go.
 */
function slowGo(bin: string, hosts: string, pause: number): void {
  fs.mkdirSync(bin);
  const script = [
    "#!/bin/bash",
    'if [ "$1" = build ]; then',
    '  args=("$@"); out=""',
    '  for ((i = 0; i < ${#args[@]}; i++)); do [ "${args[$i]}" = -o ] && out="${args[$((i + 1))]}"; done',
    '  for p in "$@"; do case "$p" in github.com/*|./*) n=$(basename "$p"); printf \'#!/bin/sh\\necho "%s v0"\\n\' "$n" >"$out/$n"; chmod +x "$out/$n";; esac; done',
    `  for i in 1 2 3; do echo "example.com/pkg$i"; sleep ${pause}; done`,
    "  exit 0",
    "fi",
    `if [ "$1" = mod ]; then echo '  "Dir": "${hosts}",'; exit 0; fi`,
    `exec "${REAL_GO}" "$@"`,
    "",
  ].join("\n");
  fs.writeFileSync(path.join(bin, "go"), script, { mode: 0o755 });
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

  it("says each step as it starts and ends, with the time, and every PULUMI_TOOLS_PROGRESS_SECONDS while one runs (issue 45 item 9)", async () => {
    const repo = layout(top);
    const hosts = path.join(top, "hosts");
    fs.mkdirSync(path.join(hosts, "python", "cmd"), { recursive: true });
    fs.writeFileSync(path.join(hosts, "python", "cmd", "pulumi-language-python-exec"), "#!/bin/sh\n");
    slowGo(path.join(top, "bin"), hosts, 1.2);
    const env = {
      PATH: `${path.join(top, "bin")}:${process.env.PATH ?? ""}`,
      HOME: path.join(top, "home"),
      GOPATH: process.env.GOPATH ?? path.join(os.homedir(), "go"),
      GOCACHE: path.join(top, "cache"),
      PULUMI_TOOLS_PROGRESS_SECONDS: "1",
    };
    const r = await runScript(repo, env);
    assert.equal(r.code, 0, r.err);
    const lines = r.err.split("\n").filter((l) => /^\[\d\/4\]|^building|^built/.test(l));
    assert.match(lines[0], /^building the Pulumi CLI v\S+ .*about 15 minutes on a quiet 2-core machine, 25 or more on a busy one/);
    const time = "\\d+ min \\d+ s";
    const steps = [
      "the Pulumi CLI v\\S+ and pulumi-gen-sdk \\(most of the time\\)",
      "the YAML language host v\\S+",
      "the Node.js and Python language hosts v\\S+",
    ];
    steps.forEach((what, i) => {
      const mine = lines.filter((l) => l.startsWith(`[${i + 1}/4]`));
      assert.match(mine[0], new RegExp(`^\\[${i + 1}/4\\] ${what} \\(tools/pulumi-\\w+\\)\\.\\.\\.$`));
      // The build takes over 3 s: at least one line while it runs, counting the packages -v named so far.
      assert.ok(mine.length >= 3, mine.join("\n"));
      for (const l of mine.slice(1, -1)) {
        assert.match(l, new RegExp(`^\\[${i + 1}/4\\] still building .*: [0-3] packages compiled, ${time} \\(all: ${time}\\)$`));
      }
      assert.match(mine[mine.length - 1], new RegExp(`^\\[${i + 1}/4\\] ${what}: done in ${time} \\(all: ${time}\\)$`));
    });
    assert.ok(lines.includes("[4/4] the Python host's executor script and the dynamic provider's plugin script"), lines.join("\n"));
    assert.match(lines[lines.length - 1], new RegExp(`^built in ${time}: pulumi v0$`));
    assert.ok(fs.existsSync(path.join(repo, ".tools", "bin", "pulumi-language-python-exec")));
  });

  it("a progress interval that is no whole number of seconds: one line, before any build", async () => {
    const repo = layout(top);
    const log = path.join(top, "seen");
    fakeGo(path.join(top, "bin"), log);
    const env = {
      PATH: `${path.join(top, "bin")}:${process.env.PATH ?? ""}`,
      HOME: path.join(top, "home"),
      PULUMI_TOOLS_PROGRESS_SECONDS: "0.5",
    };
    const r = await runScript(repo, env);
    assert.equal(r.code, 3);
    assert.match(r.err, /^scripts\/pulumi-tools\.sh: PULUMI_TOOLS_PROGRESS_SECONDS must be a whole number of seconds, got "0\.5"$/m);
    assert.ok(!fs.existsSync(log), "no build started");
  });
});
