// `backup-portal doctor` against the emulator over real HTTP: every reading of the emulator is reported as
// that reading, the write test leaves nothing behind (also after a failure, and says what it could not
// remove), and a closed port, an HTML page and wrong credentials fail with the fix.
import assert from "node:assert/strict";
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import { startEmulator, type Emulator, type EmulatorOptions, type State } from "../../emulator";
import { run } from "../../provider/cli/doctor";
import type { DoctorReport } from "../../provider/doctor";
import { captured } from "../support/captured";
import { envFor } from "../support/portal";

interface Outcome {
  code: number;
  out: string;
  err: string;
  report?: DoctorReport;
}

const doctorText = (env: Record<string, string>, args: string[] = []): Promise<Outcome> => captured((io) => run(args, { ...io, env }));

async function doctor(env: Record<string, string>, args: string[] = []): Promise<Outcome> {
  const c = await doctorText(env, ["--json", ...args]);
  return { ...c, report: c.code === 2 ? undefined : (JSON.parse(c.out) as DoctorReport) };
}

const check = (o: Outcome, id: string) => {
  const found = o.report?.checks.find((c) => c.id === id);
  assert.ok(found, `no check ${id} in ${o.out}`);
  return found;
};

/** What a run may leave on a portal: its objects, not the log of what happened or the sessions. */
function objects(s: State): unknown {
  const { auditLogs: _a, sessions: _s, accessTokens: _t, nextIds: _n, ...rest } = s;
  return rest;
}

async function withEmulator<T>(opts: EmulatorOptions, body: (em: Emulator) => Promise<T>): Promise<T> {
  const em = await startEmulator({ quiet: true, ...opts });
  try {
    return await body(em);
  } finally {
    await em.close();
  }
}

describe("backup-portal doctor", function () {
  this.timeout(60000);

  it("against the emulator: exit 0; --write-test --bunit 1 exits 0 too and leaves nothing behind", async () => {
    await withEmulator({}, async (em) => {
      const before = objects(em.state());
      const read = await doctor(envFor(em));
      assert.equal(read.code, 0, read.out);
      assert.deepEqual(
        read.report!.checks.filter((c) => c.status === "failed"),
        [],
      );
      for (const id of ["setting-url", "version", "login", "refresh", "origin", "me", "bunit", "reference", "default-server", "errors"]) {
        assert.equal(check(read, id).status, "ok", id);
      }
      assert.match(check(read, "setting-url").detail, /from BACKUP_PORTAL_URL/);
      assert.match(check(read, "login").detail, /lifetime 299 s/);
      assert.deepEqual(
        em.requests().filter((r) => r.method !== "GET" && r.path !== "/v1/oauth"),
        [],
        "read-only",
      );
      // No token (the emulator's are long random strings) in what it prints.
      assert.doesNotMatch(read.out, /[A-Za-z0-9_-]{32,}/);
      assert.deepEqual(objects(em.state()), before);

      for (const bunit of ["1", "2"]) {
        const write = await doctor(envFor(em), ["--write-test", "--bunit", bunit]);
        assert.equal(write.code, 0, write.out);
        assert.deepEqual(write.report!.leftBehind, []);
        for (const id of [
          "create",
          "node-create",
          "put",
          "spname",
          "activate",
          "activate-again",
          "password",
          "node-delete",
          "consumer-removed",
          "delete-again",
          "cleanup",
        ]) {
          assert.equal(check(write, id).status, "ok", `${id}: ${check(write, id).detail}`);
        }
        assert.deepEqual(objects(em.state()), before, "nothing left behind");
      }
    });
  });

  it("reports each reading of the emulator as that reading, and still exits 0", async () => {
    const cases: Array<[EmulatorOptions, Record<string, string>, Record<string, string>?]> = [
      [
        {},
        {
          put: "merge",
          spname: "bare",
          "node-delete": "200 with the node",
          "jobs-path": "jobs/first",
          "audit-dates": "both",
          refresh: "refresh allowed",
        },
      ],
      [{ putReplaces: true }, { put: "replace" }],
      [{ auditDates: "time" }, { "audit-dates": "startTime/endTime" }],
      [{ auditDates: "date" }, { "audit-dates": "startDate/endDate" }],
      [{ jobsList: "first" }, { "jobs-path": "jobs/first" }],
      [{ jobsList: "jobs" }, { "jobs-path": "jobs" }],
      [{ spname: "json" }, { spname: "json" }],
      [{ nodeDelete: "empty" }, { "node-delete": "200 empty" }],
      [{ nodeDelete: "204" }, { "node-delete": "204" }],
      [{}, { refresh: "refresh not allowed" }, { BACKUP_PORTAL_CLIENT_ID: "norefresh" }],
      [{ refresh: "none" }, { refresh: "refresh not allowed" }],
      [{ refresh: "refused" }, { refresh: "refresh refused" }],
    ];
    for (const [opts, readings, env] of cases) {
      await withEmulator(opts, async (em) => {
        const before = objects(em.state());
        const o = await doctor({ ...envFor(em), ...(env ?? {}) }, ["--write-test", "--bunit", "2"]);
        assert.equal(o.code, 0, o.out);
        for (const [id, reading] of Object.entries(readings)) {
          assert.equal(check(o, id).reading, reading, `${JSON.stringify(opts)} ${id}: ${check(o, id).detail}`);
        }
        assert.deepEqual(objects(em.state()), before, `${JSON.stringify(opts)}: nothing left behind`);
      });
    }
  });

  it("removes what it made after a failure, and says what it could not remove", async () => {
    await withEmulator({}, async (em) => {
      const before = objects(em.state());
      // The node's DELETE fails once: the check fails, the cleanup still removes the consumer.
      em.setFaults({ errorRate: 1, statuses: [500], match: { method: "DELETE" }, count: 1 });
      const once = await doctor(envFor(em), ["--write-test", "--bunit", "2"]);
      assert.equal(once.code, 1);
      assert.equal(check(once, "node-delete").status, "failed");
      assert.equal(check(once, "cleanup").status, "ok");
      assert.deepEqual(once.report!.leftBehind, []);
      assert.deepEqual(objects(em.state()), before);

      // Every DELETE fails: it says what is left, by id and name.
      em.setFaults({ errorRate: 1, statuses: [500], match: { method: "DELETE" } });
      const stuck = await doctorText(envFor(em), ["--write-test", "--bunit", "2"]);
      em.clearFaults();
      assert.equal(stuck.code, 1);
      const left = em.state().consumers.filter((c) => c.name.startsWith("doctor-"));
      assert.equal(left.length, 1);
      assert.match(stuck.out, new RegExp(`left behind: consumer ${left[0].id} "${left[0].name}" in business unit 2`));
      assert.match(stuck.out, /failed +cleanup .*fix: delete it in the portal .*DELETE \/v1\/bunits\/2\/consumers\/\d+/);
    });
  });

  it("--timeout bounds each check's request: a portal that never answers fails in seconds, not minutes", async () => {
    const silent = http.createServer(() => {
      /* accepts the request and never answers */
    });
    await new Promise<void>((r) => silent.listen(0, "127.0.0.1", r));
    const started = Date.now();
    try {
      const env = {
        BACKUP_PORTAL_URL: `http://127.0.0.1:${(silent.address() as AddressInfo).port}`,
        BACKUP_PORTAL_ORIGIN: "http://localhost",
        BACKUP_PORTAL_CLIENT_ID: "emulator",
        BACKUP_PORTAL_USERNAME: "admin",
        BACKUP_PORTAL_PASSWORD: "Sil3nt-Doctor-Pa55word",
      };
      const r = await doctor(env, ["--timeout", "1"]);
      assert.equal(r.code, 1);
      assert.equal(check(r, "version").status, "failed");
      // One failed check stops the run; with the default of 15 s it would take 15 s or more.
      assert.ok(Date.now() - started < 10_000, `took ${Date.now() - started} ms`);
      assert.equal((await doctor(env, ["--timeout", "0"])).code, 2, "a zero deadline is refused");
    } finally {
      silent.closeAllConnections();
      await new Promise((r) => silent.close(r));
    }
  });

  it("a closed port, an HTML page and wrong credentials exit 1 with the fix", async () => {
    // A port that was just free: nothing listens.
    const closed = await new Promise<number>((resolve) => {
      const s = http.createServer().listen(0, "127.0.0.1", () => {
        const port = (s.address() as AddressInfo).port;
        s.close(() => resolve(port));
      });
    });
    const base = {
      BACKUP_PORTAL_ORIGIN: "http://localhost",
      BACKUP_PORTAL_CLIENT_ID: "emulator",
      BACKUP_PORTAL_USERNAME: "admin",
      BACKUP_PORTAL_PASSWORD: "Wr0ng-Doctor-Pa55word",
    };
    const noPort = await doctor({ ...base, BACKUP_PORTAL_URL: `http://127.0.0.1:${closed}` });
    assert.equal(noPort.code, 1);
    assert.equal(check(noPort, "version").status, "failed");
    assert.match(check(noPort, "version").fix!, /BACKUP_PORTAL_URL/);

    const html = http.createServer((_req, res) =>
      res.writeHead(200, { "Content-Type": "text/html" }).end("<!DOCTYPE html><title>Sign in</title>"),
    );
    await new Promise<void>((r) => html.listen(0, "127.0.0.1", r));
    try {
      const page = await doctorText({ ...base, BACKUP_PORTAL_URL: `http://127.0.0.1:${(html.address() as AddressInfo).port}` });
      assert.equal(page.code, 1);
      assert.match(page.out, /failed +version +.*HTML page.*fix: set BACKUP_PORTAL_URL to the portal API's base address/);
    } finally {
      await new Promise((r) => html.close(r));
    }

    await withEmulator({}, async (em) => {
      const wrong = await doctorText({ ...envFor(em), BACKUP_PORTAL_PASSWORD: "Wr0ng-Doctor-Pa55word" });
      assert.equal(wrong.code, 1);
      assert.match(
        wrong.out,
        /failed +login +the portal refused the login \(HTTP 400: invalid_grant.*fix: check .*BACKUP_PORTAL_USERNAME.*BACKUP_PORTAL_PASSWORD/,
      );
      assert.ok(!wrong.out.includes("Wr0ng-Doctor-Pa55word"));
      const client = await doctor({ ...envFor(em), BACKUP_PORTAL_CLIENT_ID: "no-such-client" });
      assert.equal(client.code, 1);
      assert.match(check(client, "login").detail, /invalid_client.*client ID is not known/);
    });
  });

  it("a business unit the account cannot reach fails with the account's own as the fix", async () => {
    await withEmulator({}, async (em) => {
      const o = await doctor(envFor(em, "tenant"), ["--bunit", "1"]);
      assert.equal(o.code, 1);
      assert.equal(check(o, "bunit").status, "failed");
      assert.match(check(o, "bunit").fix!, /reaches \(its own is 2, or one below it\)/);
      const write = await doctorText(envFor(em, "tenant"), ["--bunit", "1", "--write-test"]);
      assert.equal(write.code, 1);
      assert.doesNotMatch(write.out, /create/, "no write test after a failed check");
      assert.equal(
        em.state().consumers.some((c) => c.name.startsWith("doctor-")),
        false,
      );
    });
  });

  it("missing settings fail one by one, naming the variable; bad arguments exit 2", async () => {
    const missing = await doctor({ BACKUP_PORTAL_URL: "http://127.0.0.1:9" });
    assert.equal(missing.code, 1);
    assert.deepEqual(
      missing.report!.checks.filter((c) => c.status === "failed").map((c) => c.id),
      ["setting-origin", "setting-clientId", "setting-username", "setting-password"],
    );
    assert.match(check(missing, "setting-password").fix!, /export BACKUP_PORTAL_PASSWORD=.*backup-portal:password/);
    for (const args of [["--write-test"], ["--bogus"], ["--bunit", "x"], ["--bunit", "0"], ["--json=1"]]) {
      const o = await doctorText({}, args);
      assert.equal(o.code, 2, args.join(" "));
      assert.match(o.err, /usage: backup-portal doctor/);
    }
  });
});
