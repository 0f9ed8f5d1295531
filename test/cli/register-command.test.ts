// `backup-portal register` as a command, in the mocha process: what it refuses before reading anything (exit 2,
// the exact words), where the broker's one-time token comes from and what each way of lacking it answers (the exit
// code the boot loop decides on, the JSON failure report), with no metadata service and no portal reachable.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as http from "node:http";
import * as os from "node:os";
import * as path from "node:path";
import type { AddressInfo } from "node:net";
import { usageErrorText } from "../../provider/cli/args";
import { COMMAND, run, TOKEN_ENV } from "../../provider/cli/register";

interface Outcome {
  code: number;
  out: string;
  err: string;
}

describe("backup-portal register: the command's own checks", function () {
  this.timeout(30_000);
  let dir: string;
  let closed: string;
  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "bp-register-cli-"));
    const s = http.createServer();
    await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
    closed = `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
    await new Promise((r) => s.close(r));
  });
  after(() => {
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** The command with a metadata service and a broker that cannot answer, a lock file in the temp dir. */
  async function register(argv: string[], env: NodeJS.ProcessEnv = {}): Promise<Outcome> {
    const c = { out: "", err: "" };
    const code = await run(["--url", closed, "--no-config-drive", "--attempts", "1", "--lock-file", path.join(dir, "lock"), ...argv], {
      out: (t) => {
        c.out += t;
      },
      err: (t) => {
        c.err += t;
      },
      env,
      cpuCount: () => 2,
    });
    return { code, ...c };
  }

  const usage = (message: string) => usageErrorText(COMMAND, message);

  it("refuses conflicting or unusable flags before anything is read: exit 2, the message and the usage", async () => {
    const sub = path.join(dir, "sub");
    fs.mkdirSync(sub);
    const cases: Array<[string[], string]> = [
      [
        ["--rotate-password"],
        "--rotate-password needs --password-file <path>: the new node password must be kept where the backup client reads it",
      ],
      [["--option-file", sub], `--option-file ${JSON.stringify(sub)} is a directory, not a file`],
      [["--password-file", sub], `--password-file ${JSON.stringify(sub)} is a directory, not a file`],
      [["--lock-file", sub], `--lock-file ${JSON.stringify(sub)} is a directory, not a file`],
      [["--token-file", path.join(dir, "token")], "--token-file goes with --broker <url>"],
      [["--broker", "ftp://broker"], '--broker needs an http(s) URL, got "ftp://broker"'],
      [["--portal-timeout", "0"], '--portal-timeout needs a number of seconds above 0 and at most 86400, got "0"'],
    ];
    for (const [argv, message] of cases) {
      const r = await register(argv);
      assert.deepEqual(r, { code: 2, out: "", err: usage(message) }, argv.join(" "));
    }
  });

  it("--broker without a token: exit 2 (the boot loop does not retry it), one line, the JSON failure report", async () => {
    const message = `--broker needs the registration token: --token-file <path> or ${TOKEN_ENV}; nothing was changed`;
    const blank = await register(["--broker", closed], { [TOKEN_ENV]: "  \n" });
    assert.deepEqual(blank, { code: 2, out: "", err: `backup-portal register: ${message}\n` });
    const json = await register(["--broker", closed, "--json"]);
    assert.equal(json.code, 2);
    assert.equal(json.err, `backup-portal register: ${message}\n`);
    assert.deepEqual(JSON.parse(json.out), { status: "failed", kind: "usage", error: message, problems: [], done: [] });
  });

  it("a token file that cannot be read or is empty: exit 3 (configuration to fix), saying which file and why", async () => {
    const missing = path.join(dir, "no-token");
    const r = await register(["--broker", closed, "--token-file", missing, "--json"], { [TOKEN_ENV]: "ignored-when-a-file-is-named" });
    const message = `cannot read the token file ${missing} (ENOENT); nothing was changed`;
    assert.equal(r.code, 3);
    assert.equal(r.err, `backup-portal register: ${message}\n`);
    assert.deepEqual(JSON.parse(r.out), { status: "failed", kind: "configuration", error: message, problems: [], done: [] });

    const empty = path.join(dir, "empty-token");
    fs.writeFileSync(empty, " \n\t\n");
    const e = await register(["--broker", closed, "--token-file", empty]);
    assert.deepEqual(e, { code: 3, out: "", err: `backup-portal register: the token file ${empty} is empty; nothing was changed\n` });
  });

  it("with a token (file or environment), it goes on to read the metadata: unreadable metadata is exit 1", async () => {
    const file = path.join(dir, "token");
    fs.writeFileSync(file, "  a-token\n");
    for (const [argv, env] of [
      [["--token-file", file], {}],
      [[], { [TOKEN_ENV]: " a-token " }],
    ] as Array<[string[], NodeJS.ProcessEnv]>) {
      const r = await register(["--broker", closed, "--timeout", "200", "--quiet", ...argv], env);
      assert.equal(r.code, 1, r.err);
      assert.equal(r.out, "");
      assert.match(r.err, /^backup-portal register: cannot read the instance metadata/);
      assert.doesNotMatch(r.err, /token/);
    }
  });

  it("its Ctrl-C and SIGTERM handlers live only while a run goes on, also one that fails", async () => {
    const before = [process.listenerCount("SIGINT"), process.listenerCount("SIGTERM")];
    const r = await register(["--broker", closed, "--timeout", "200", "--quiet"], { [TOKEN_ENV]: "a-token" });
    assert.equal(r.code, 1, r.err);
    assert.deepEqual([process.listenerCount("SIGINT"), process.listenerCount("SIGTERM")], before);
  });

  it("--rotate-password with --password-file is accepted: it goes on to read the metadata", async () => {
    const r = await register(["--rotate-password", "--password-file", path.join(dir, "pw"), "--timeout", "200"]);
    assert.equal(r.code, 1, r.err);
    assert.match(r.err, /cannot read the instance metadata/);
  });

  it("progress lines unless --quiet; details only with --verbose", async () => {
    const plain = await register(["--timeout", "200"]);
    assert.equal(plain.code, 1);
    assert.match(plain.err, /^register: \S/m);
    assert.doesNotMatch(plain.err, /^register \(detail\): /m);
    const quiet = await register(["--timeout", "200", "--quiet"]);
    assert.doesNotMatch(quiet.err, /^register: /m);
    const verbose = await register(["--timeout", "200", "--verbose"]);
    assert.match(verbose.err, /^register \(detail\): \S/m);
  });
});
