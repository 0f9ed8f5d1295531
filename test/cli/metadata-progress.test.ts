// `backup-portal metadata` waits up to --deadline (130 s by default) for a service that does not answer: it says
// so on stderr while it waits (what it waits for, how long at most), throttled, and nothing when the answer comes
// quickly. The real binary against a loopback server that accepts connections and never answers.
import assert from "node:assert/strict";
import * as net from "node:net";
import { startMetadataService, type MetadataService } from "../../emulator/metadata-service";
import { waitNotice } from "../../provider/cli/output";
import { backupPortal, mainInProcess } from "./process";

/** A server on 127.0.0.1 that takes every connection and never answers. */
async function silentServer(): Promise<{ url: string; close(): Promise<void> }> {
  const sockets: net.Socket[] = [];
  const server = net.createServer((s) => {
    sockets.push(s);
    s.on("error", () => undefined);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

describe("backup-portal metadata: says what it waits for while nothing answers", function () {
  this.timeout(60_000);
  let svc: MetadataService | undefined;
  afterEach(async () => {
    await svc?.close();
    svc = undefined;
  });

  it("a silent service: one line after 3 s naming the URL, each request's bound and the deadline, then the failure", async () => {
    const silent = await silentServer();
    try {
      const r = await backupPortal(
        ["metadata", "--url", silent.url, "--no-config-drive", "--timeout", "1500", "--attempts", "3", "--deadline", "4500"],
        { timeoutMs: 30_000 },
      );
      assert.equal(r.code, 1, r.err);
      assert.equal(r.out, "");
      const lines = r.err.trimEnd().split("\n");
      const waiting = lines.filter((l) => / waiting/.test(l));
      assert.deepEqual(waiting, [
        `backup-portal metadata: waiting for the metadata service at ${silent.url}/openstack/latest/meta_data.json ` +
          "(each request up to 1.5 s, 3 attempts); gives up after 4.5 s at most",
      ]);
      // Said while waiting, before the failure; the read gave up at its deadline.
      assert.ok(lines.indexOf(waiting[0]) < lines.findIndex((l) => /timed out/.test(l)), r.err);
      assert.ok(r.ms >= 4000, `ran ${r.ms} ms`);
    } finally {
      await silent.close();
    }
  });

  it("a URL with a password in it: a bad argument (exit 2) at once, the password in no line (fetch would never send it)", async () => {
    const password = "Md-pw-5e1f0a";
    const started = Date.now();
    const r = await mainInProcess(["metadata", "--url", `http://ops:${password}@127.0.0.1:1`, "--no-config-drive", "--verbose"], {});
    assert.equal(r.code, 2, r.text);
    assert.ok(!r.text.includes(password), r.text);
    assert.match(
      r.text.split("\n")[0],
      /^backup-portal metadata: metadata service URL must not carry a username or password.*"http:\/\/\*\*\*@127\.0\.0\.1:1"/,
    );
    assert.ok(Date.now() - started < 2000, `took ${Date.now() - started} ms`);
  });

  it("a service that answers at once: nothing on stderr", async () => {
    svc = await startMetadataService();
    const r = await backupPortal(["metadata", "--url", svc.url, "--no-config-drive"], { timeoutMs: 30_000 });
    assert.equal(r.code, 0, r.err);
    assert.equal(r.err, "");
    assert.equal(JSON.parse(r.out).source, "network");
  });

  it("the notice is throttled: a first line, then one per interval with the time so far and the last event; none after the end", async () => {
    const lines: string[] = [];
    const io = {
      out: () => undefined,
      err: (t: string) => {
        lines.push(t);
      },
    };
    const stop = waitNotice(
      io,
      "backup-portal metadata",
      { what: "the service", atMostMs: 130_000, status: () => "GET x: timed out (attempt 2)" },
      { firstAfterMs: 50, everyMs: 200 },
    );
    await new Promise((r) => setTimeout(r, 30));
    assert.deepEqual(lines, [], "nothing before the first interval");
    await new Promise((r) => setTimeout(r, 700));
    stop();
    const seen = lines.length;
    // 50 ms, then every 200 ms up to 730 ms: four lines, give or take a timer's lateness.
    assert.ok(seen >= 3 && seen <= 5, lines.join(""));
    assert.equal(lines[0], "backup-portal metadata: waiting for the service; gives up after 130 s at most\n");
    for (const l of lines.slice(1)) {
      assert.match(l, /^backup-portal metadata: still waiting, [\d.]+ s of at most 130 s; last: GET x: timed out \(attempt 2\)\n$/);
    }
    await new Promise((r) => setTimeout(r, 450));
    assert.equal(lines.length, seen, "stopped");
  });
});
