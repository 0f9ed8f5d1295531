// `backup-portal doctor` as a command, in the mocha process: the report as text or JSON (the same checks), the exit
// code from the report, --bunit, --write-test and --timeout reaching the checks.
import assert from "node:assert/strict";
import * as net from "node:net";
import { startEmulator, type Emulator } from "../../emulator";
import { run } from "../../provider/cli/doctor";
import { formatReport, type DoctorReport } from "../../provider/doctor";
import { captured } from "../support/captured";
import { envFor } from "../support/portal";

const doctor = (argv: string[], env: Record<string, string>) => captured((io) => run(argv, { ...io, env }));

describe("backup-portal doctor: the command", function () {
  this.timeout(60_000);
  let emu: Emulator;
  before(async () => {
    emu = await startEmulator({ quiet: true });
  });
  after(async () => {
    await emu?.close();
  });

  it("the report as text (exit 0 when everything holds), and the same checks as JSON", async () => {
    const json = await doctor(["--json"], envFor(emu));
    assert.equal(json.code, 0, json.out + json.err);
    const report = JSON.parse(json.out) as DoctorReport;
    assert.equal(report.ok, true);
    const text = await doctor([], envFor(emu));
    assert.equal(text.code, 0, text.out);
    assert.equal(text.err, "");
    // The text is the JSON report formatted: the same ids in the same order, the same result line.
    const ids = (t: string) => t.split("\n").flatMap((l) => /^(ok|differs|failed|skipped) +(\S+)/.exec(l)?.[2] ?? []);
    assert.deepEqual(ids(text.out), ids(formatReport(report)));
    assert.match(text.out, /\nresult: everything the providers rely on holds/);
  });

  it("--bunit is the business unit checked; one the account cannot read fails (exit 1)", async () => {
    const ok = await doctor(["--json", "--bunit", "1"], envFor(emu));
    assert.equal(ok.code, 0, ok.out);
    const missing = await doctor(["--json", "--bunit", "999"], envFor(emu));
    assert.equal(missing.code, 1);
    const report = JSON.parse(missing.out) as DoctorReport;
    assert.equal(report.ok, false);
    assert.ok(
      report.checks.some((c) => c.status === "failed" && /999/.test(`${c.id} ${c.detail}`)),
      JSON.stringify(report.checks),
    );
  });

  it("--write-test runs the write checks in --bunit; without it none is made", async () => {
    const before = emu.requests().length;
    const plain = JSON.parse((await doctor(["--json", "--bunit", "1"], envFor(emu))).out) as DoctorReport;
    assert.ok(
      emu
        .requests()
        .slice(before)
        .every((r) => r.method === "GET" || r.path === "/v1/oauth"),
      "reads only",
    );
    const write = await doctor(["--json", "--bunit", "1", "--write-test"], envFor(emu));
    assert.equal(write.code, 0, write.out);
    const report = JSON.parse(write.out) as DoctorReport;
    const plainIds = new Set(plain.checks.map((c) => c.id));
    assert.ok(
      report.checks.some((c) => !plainIds.has(c.id)),
      "the write test adds checks",
    );
    assert.deepEqual(report.leftBehind, []);
  });

  it("--timeout bounds each check's request: a portal that never answers fails within it", async () => {
    const sockets: net.Socket[] = [];
    const silent = net.createServer((s) => {
      sockets.push(s);
    });
    await new Promise<void>((r) => silent.listen(0, "127.0.0.1", r));
    try {
      const url = `http://127.0.0.1:${(silent.address() as net.AddressInfo).port}`;
      const started = Date.now();
      const r = await doctor(["--timeout", "0.3"], { ...envFor(emu), BACKUP_PORTAL_URL: url });
      const took = Date.now() - started;
      assert.equal(r.code, 1, r.out);
      assert.match(r.out, /^failed /m);
      assert.match(r.out, /\nresult: \d+ checks? failed; fix (it|them) before the first pulumi up\n$/);
      // The default (15 s per check) would take far longer.
      assert.ok(took < 10_000, `took ${took} ms`);
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise((r) => silent.close(r));
    }
  });
});
