// No user error prints a stack trace, in any command (issue 27.11): the real binary is run with a wrong argument
// for every command, then with a wrong environment and a portal that refuses; stderr never holds a trace. A bug
// (a TypeError from the code itself) prints its trace and a line asking to report it.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import * as http from "node:http";
import * as os from "node:os";
import * as path from "node:path";
import type { AddressInfo } from "node:net";
import { COMMAND_NAMES, main } from "../../provider/cli/main";
import { failureText, isBug } from "../../provider/cli/failure";
import type { PortalClient } from "../../provider/portal/client";
import { envFor, Emulator, startEmulator } from "../support/portal";

const BIN = path.join(__dirname, "..", "..", "bin", "backup-portal.js");
/** A line of a stack trace: `    at fn (file:line:col)` or `    at file:line:col`. */
const TRACE = /\n\s+at .*:\d+:\d+\)?$/m;

function backupPortal(args: string[], env: Record<string, string>, timeoutMs = 120_000): Promise<{ code: number | null; err: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: { PATH: process.env.PATH ?? "", HOME: os.tmpdir(), ...env },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let err = "";
    child.stderr.on("data", (c: Buffer) => {
      err += c.toString();
    });
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`backup-portal ${args.join(" ")} ran over ${timeoutMs} ms: ${err}`));
    }, timeoutMs);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, err });
    });
  });
}

async function inProcess(argv: string[], extra: Record<string, unknown> = {}): Promise<{ code: number; err: string; out: string }> {
  let err = "";
  let out = "";
  const code = await main(argv, {
    out: (t: string) => {
      out += t;
    },
    err: (t: string) => {
      err += t;
    },
    errIsTTY: false,
    ...extra,
  } as Parameters<typeof main>[1]);
  return { code, err, out };
}

describe("no stack trace for a user error (27.11)", function () {
  this.timeout(600_000);
  let emu: Emulator;
  let closed: string;
  before(async () => {
    emu = await startEmulator({ port: 0, quiet: true });
    const s = http.createServer();
    await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
    closed = `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
    await new Promise((r) => s.close(r));
  });
  after(async () => {
    await emu?.close();
  });

  // One wrong argument per command, each a different kind of mistake.
  const wrong: Record<string, string[]> = {
    doctor: ["--bunit", "-1"],
    metadata: ["--config-drive", "/no/such/drive"],
    register: ["--password-file", "/"],
    reports: ["--bunit", "1", "--consumer", "1", "--from", "99999999999d"],
    jobs: ["--bunit", "1", "--consumr", "1"],
    audit: ["--bunit", "1", "--consumer", "1", "--type", "nonsense"],
    invoices: ["--bunit", "1", "--upload", "/dev/zero"],
    billing: ["--bunit", "1", "--include-next", "99"],
    "billing-receiver": ["--port", "http"],
    export: ["--format", "xml"],
    validate: ["--offline=yes"],
    "registration-broker": ["--port", "-1"],
    "business-units": ["--depth", "deep"],
    consumers: ["--bunit", "0"],
    "plan-guard": ["--max-deletes", "-1"],
    "init-workflows": ["extra"],
  };

  it("the binary, every command with a wrong argument: exit 2, the message, no trace", async () => {
    assert.deepEqual(Object.keys(wrong).sort(), [...COMMAND_NAMES].sort());
    // Three at a time: each process compiles the sources with ts-node on a shared machine.
    const runs: Array<{ command: string; code: number | null; err: string }> = [];
    const queue = Object.entries(wrong);
    await Promise.all(
      [0, 1, 2].map(async () => {
        for (let next = queue.shift(); next; next = queue.shift()) {
          const [command, args] = next;
          runs.push({ command, ...(await backupPortal([command, ...args], envFor(emu))) });
        }
      }),
    );
    for (const r of runs) {
      assert.equal(r.code, 2, `${r.command}: ${r.err}`);
      assert.doesNotMatch(r.err, TRACE, r.command);
      assert.doesNotMatch(r.err, /internal error|bug in/, r.command);
    }
    const top = await backupPortal(["regster"], {});
    assert.equal(top.code, 2);
    assert.doesNotMatch(top.err, TRACE);
  });

  it("every command with a wrong environment or a refusing portal: one line, exit 1 or 2, no trace", async () => {
    const envs: Array<[string, Record<string, string>]> = [
      ["none", {}],
      ["not a URL", { ...envFor(emu), BACKUP_PORTAL_URL: "portal.example.com" }],
      ["closed port", { ...envFor(emu), BACKUP_PORTAL_URL: closed }],
      ["wrong password", { ...envFor(emu), BACKUP_PORTAL_PASSWORD: "Wr0ng-Pa55word" }],
      ["bad answer cap", { ...envFor(emu), BACKUP_PORTAL_MAX_ANSWER_BYTES: "lots" }],
    ];
    const args: Record<string, string[]> = {
      doctor: ["--timeout", "2"],
      reports: ["--bunit", "1", "--consumer", "999", "--timeout", "2"],
      jobs: ["--bunit", "1", "--consumer", "999", "--timeout", "2"],
      audit: ["--bunit", "1", "--consumer", "999", "--timeout", "2"],
      invoices: ["--bunit", "999", "--timeout", "2"],
      billing: ["--bunit", "2", "--timeout", "2"],
      "business-units": ["--bunit", "999", "--timeout", "2"],
      consumers: ["--bunit", "999", "--timeout", "2"],
      metadata: ["--url", closed, "--attempts", "1", "--timeout", "200", "--no-config-drive"],
      register: ["--url", closed, "--attempts", "1", "--timeout", "200", "--no-config-drive", "--dry-run", "--quiet"],
    };
    for (const [what, env] of envs) {
      for (const [command, argv] of Object.entries(args)) {
        // The doctor does not read the answer cap.
        if (what === "bad answer cap" && command === "doctor") continue;
        const r = await inProcess([command, ...argv], { env });
        assert.ok(r.code === 1 || r.code === 2, `${what}, ${command}: exit ${r.code}: ${r.err}`);
        // The doctor reports on stdout (a failed check per problem), the others on stderr.
        assert.ok(r.err.trim() !== "" || (command === "doctor" && /^failed /m.test(r.out)), `${what}, ${command}: silent`);
        assert.doesNotMatch(r.err + r.out, TRACE, `${what}, ${command}`);
        assert.doesNotMatch(r.err, /internal error|bug in/, `${what}, ${command}`);
      }
    }
  });

  it("a bug prints its trace and asks to report it", async () => {
    // A client without the parts the command uses: the TypeError is the code's fault, not the user's.
    const r = await inProcess(["jobs", "--bunit", "1", "--consumer", "1"], { env: envFor(emu), client: {} as PortalClient });
    assert.equal(r.code, 1);
    assert.match(r.err, /backup-portal jobs: internal error: TypeError: /);
    assert.match(r.err, TRACE);
    assert.match(r.err, /this is a bug in backup-portal-pulumi \d+\.\d+\.\d+.*please report it/);
    assert.equal(isBug(new RangeError("x")), false);
    assert.equal(isBug("thrown text"), true);
    assert.equal(failureText("x", new Error("one line")), "x: one line\n");
  });
});
