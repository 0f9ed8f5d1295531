/** TEST: the portal commands' `--timeout <seconds>` (a deadline over all tries) and their retry lines on a terminal. */
import * as assert from "assert";
import * as http from "http";
import { AddressInfo } from "net";
import { parseCommandArgs } from "../../provider/cli/args";
import { CliIo } from "../../provider/cli/output";
import { COMMAND as JOBS, run as jobs } from "../../provider/cli/jobs";
import { run as reports } from "../../provider/cli/reports";
import { closeServer } from "../support/loopback";

describe("portal commands: --timeout and retry lines", function () {
  this.timeout(20000);
  let server: http.Server;
  let env: NodeJS.ProcessEnv;
  let handler: (res: http.ServerResponse) => void;
  let requests = 0;

  before(async () => {
    server = http.createServer((req, res) => {
      requests++;
      req.resume();
      req.on("end", () => handler(res));
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    env = {
      BACKUP_PORTAL_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      BACKUP_PORTAL_ORIGIN: "http://localhost",
      BACKUP_PORTAL_CLIENT_ID: "c",
      BACKUP_PORTAL_USERNAME: "u",
      BACKUP_PORTAL_PASSWORD: "cli-timeout-password-6631",
    };
  });
  after(() => closeServer(server));
  beforeEach(() => (requests = 0));

  async function cli(argv: string[], extra: Partial<CliIo> = {}) {
    const c = { out: "", err: "" };
    const started = Date.now();
    const code = await jobs(argv, {
      out: (t) => {
        c.out += t;
      },
      err: (t) => {
        c.err += t;
      },
      env,
      errIsTTY: false,
      ...extra,
    });
    return { code, ...c, took: Date.now() - started };
  }
  const args = ["--bunit", "1", "--consumer", "1"];

  it("an unresponsive portal: the command gives up at --timeout and says so", async () => {
    handler = () => undefined; // never answers
    const r = await cli([...args, "--timeout", "0.8"]);
    assert.strictEqual(r.code, 1, r.err);
    assert.ok(r.took >= 750 && r.took < 2000, `took ${r.took} ms`);
    assert.match(
      r.err,
      /^backup-portal jobs: POST \/v1\/oauth failed \(no answer\): timed out after \d+ ms: .*the deadline of 0\.8 s over all tries passed/m,
    );
    assert.ok(!r.err.includes("cli-timeout-password-6631"));
  });

  it("on a terminal each retry is one line on stderr (what failed, when the next try comes); off a terminal none", async () => {
    handler = (res) => res.writeHead(503, { "Content-Type": "application/json" }).end('{"code":"Busy"}');
    const tty = await cli([...args, "--timeout", "1.5"], { errIsTTY: true });
    assert.strictEqual(tty.code, 1);
    const lines = tty.err.trimEnd().split("\n");
    const retries = lines.filter((l) => / try \d of 6 in /.test(l));
    assert.ok(retries.length >= 1 && retries.length === requests - 1, `${requests} tries:\n${tty.err}`);
    for (const l of retries) assert.match(l, /^backup-portal jobs: POST \/v1\/oauth: HTTP 503; try [2-6] of 6 in \d+\.\d s$/);
    assert.match(lines[lines.length - 1], /^backup-portal jobs: POST \/v1\/oauth failed \(HTTP 503\)/);
    assert.ok(tty.took < 2500, `took ${tty.took} ms`);

    const plain = await cli([...args, "--timeout", "1.5"], { errIsTTY: false });
    assert.strictEqual(plain.code, 1);
    assert.doesNotMatch(plain.err, / try \d of 6 in /);
  });

  it("--timeout takes seconds above 0 (a fraction allowed), on every portal command; anything else is a usage error (exit 2)", async () => {
    assert.deepStrictEqual(parseCommandArgs(JOBS, [...args, "--timeout", "1.5"]).timeout, 1500);
    assert.deepStrictEqual(parseCommandArgs(JOBS, [...args, "--timeout=90"]).timeout, 90_000);
    for (const bad of ["0", "-1", "abc", "1e3", "90000"]) {
      const r = await cli([...args, `--timeout=${bad}`]);
      assert.strictEqual(r.code, 2, bad);
      assert.match(r.err, /--timeout needs a number of seconds/);
    }
    let help = "";
    assert.strictEqual(
      await reports(["--help"], {
        out: (t) => {
          help += t;
        },
        err: () => undefined,
      }),
      0,
    );
    assert.match(help, /\n {2}--timeout <seconds> +give up after this long, retries included;[^]*\(default 60\)\n/);
  });
});
