// `backup-portal doctor` reports whether a portal serves the reads the published Go client
// (safespring-community/cloutility-api-client at 3a29ec8) makes beyond spec 000 — GetBusinessUnit's
// `GET /v1/bunits?bunitID=` (cloutility/businessunit.go) and GetActions/GetAction's `/v1/actions`
// (cloutility/action.go) — against the emulator serving them and not, over real HTTP. Neither fails the run.
import assert from "node:assert/strict";
import { startEmulator, type Emulator, type EmulatorOptions, type FaultConfig } from "../../emulator";
import { run } from "../../provider/cli/doctor";
import type { DoctorReport } from "../../provider/doctor";
import { checkGoClientReads } from "../../provider/doctor/go-client-reads";
import { Probe } from "../../provider/doctor/probe";
import { Checks } from "../../provider/doctor/report";
import { clientFor, envFor } from "../support/portal";
import { proxiedEmulatorSuite, type Rule } from "../support/proxy";

async function doctorOn(opts: EmulatorOptions, args: string[] = []): Promise<{ code: number; report: DoctorReport }> {
  const em = await startEmulator({ quiet: true, ...opts });
  try {
    let out = "";
    const code = await run(["--json", ...args], { out: (t) => (out += t), err: () => undefined, env: envFor(em) });
    return { code, report: JSON.parse(out) as DoctorReport };
  } finally {
    await em.close();
  }
}

const line = (r: DoctorReport, id: string) => {
  const found = r.checks.find((c) => c.id === id);
  assert.ok(found, `no check ${id}: ${r.checks.map((c) => c.id).join(", ")}`);
  return found;
};

describe("doctor: the Go client's reads beyond spec 000", function () {
  this.timeout(30000);

  it("a portal that serves them: ok, with what it answered", async () => {
    const { code, report } = await doctorOn({});
    assert.equal(code, 0);
    const bunit = line(report, "go-bunit-read");
    assert.deepEqual([bunit.status, bunit.reading], ["ok", "served"]);
    // The account's own business unit (the seed's reseller, 1) has two children, answered as a plain array.
    assert.match(bunit.detail, /bunitID=1 is served .*: 2 child business unit\(s\), businessUnits a plain array/);
    const actions = line(report, "go-actions");
    assert.deepEqual([actions.status, actions.reading], ["ok", "served"]);
    assert.match(actions.detail, /GET \/v1\/actions is served .*: \d+ action\(s\), \/v1\/actions\/1 too/);
  });

  it("a portal that keeps to spec 000: both differ, the run still passes", async () => {
    const { code, report } = await doctorOn({ goClientReads: "absent" }, ["--bunit", "2"]);
    assert.equal(code, 0);
    assert.equal(report.ok, true);
    for (const id of ["go-bunit-read", "go-actions"]) {
      const c = line(report, id);
      assert.deepEqual([c.status, c.reading], ["differs", "not served"], c.detail);
      assert.match(c.detail, /is not served \(not in the API documentation; the published Go client reads it/);
    }
    assert.match(line(report, "go-bunit-read").detail, /bunitID=2 /);
  });
  describe("the check alone, through a proxy that answers in the portal's place", () => {
    const suite = proxiedEmulatorSuite();

    /** The two lines for business unit 1 with `r` deciding each request. */
    async function through(r: Rule): Promise<Checks["list"]> {
      const client = clientFor(suite.em, "admin", { url: suite.proxy.url, maxAttempts: 1 });
      const checks = new Checks();
      const probe = new Probe({ url: suite.proxy.url, origin: "o", timeoutMs: 5000, secrets: () => [] });
      suite.rule = r;
      try {
        await checkGoClientReads({ client, probe, checks, username: "admin", clientId: "emulator", password: "admin" }, 1);
      } finally {
        suite.rule = () => "pass";
        client.close();
      }
      return checks.list;
    }
    const WHY = "not in the API documentation; the published Go client reads it; nothing the providers do needs it";

    it("405 is 'not served' too", async () => {
      const refused = { status: 405, json: { code: "MethodNotAllowed", message: "no" } };
      const [bunit, actions] = await through((req) => (/^\/v1\/(bunits\?|actions)/.test(req.path) ? refused : "pass"));
      assert.deepEqual(bunit, {
        id: "go-bunit-read",
        status: "differs",
        detail: `GET /v1/bunits?bunitID=1 is not served (${WHY})`,
        reading: "not served",
      });
      assert.deepEqual(actions, {
        id: "go-actions",
        status: "differs",
        detail: `GET /v1/actions is not served (${WHY})`,
        reading: "not served",
      });
    });

    it("the children as a collection, or none; no actions listed: none read by id", async () => {
      const unit = (businessUnits: unknown) => ({ status: 200, json: { id: 1, name: "Reseller", businessUnits } });
      const cases: Array<[unknown, string]> = [
        [{ items: [{ id: 2 }, { id: 3 }, { id: 4 }], total: 3 }, "3 child business unit(s), businessUnits a collection"],
        [undefined, "0 child business unit(s), businessUnits absent"],
      ];
      for (const [children, said] of cases) {
        const [bunit, actions] = await through((req) =>
          req.path.startsWith("/v1/bunits?") ? unit(children) : req.path === "/v1/actions" ? { status: 200, json: [] } : "pass",
        );
        assert.deepEqual(bunit, {
          id: "go-bunit-read",
          status: "ok",
          detail: `GET /v1/bunits?bunitID=1 is served (${WHY}): ${said}`,
          reading: "served",
        });
        assert.deepEqual(actions, {
          id: "go-actions",
          status: "ok",
          detail: `GET /v1/actions is served (${WHY}): 0 action(s)`,
          reading: "served",
        });
      }
      assert.ok(!suite.proxy.seen.some((s) => /^\/v1\/actions\/\d/.test(s.path)), "no action read by id");
    });
  });

  describe("the check alone, on one emulator", () => {
    let em: Emulator;
    before(async () => {
      em = await startEmulator({ quiet: true });
    });
    after(() => em.close());

    /** The two lines of checkGoClientReads for business unit 1, with `fault` set on the emulator meanwhile. */
    async function lines(fault?: FaultConfig): Promise<Checks["list"]> {
      const client = clientFor(em);
      const checks = new Checks();
      const probe = new Probe({ url: em.url, origin: "o", timeoutMs: 5000, secrets: () => [] });
      em.setFaults(fault ?? {});
      try {
        await checkGoClientReads({ client, probe, checks, username: "admin", clientId: "emulator", password: "admin" }, 1);
      } finally {
        em.setFaults({});
        client.close();
      }
      return checks.list;
    }

    it("reads the first listed action by its id, as GetAction does", async () => {
      em.clearRequests();
      const [, actions] = await lines();
      assert.equal(actions.status, "ok");
      const reads = em.requests().filter((r) => r.path.startsWith("/v1/actions"));
      assert.deepEqual(
        reads.map((r) => `${r.method} ${r.path} ${r.status}`),
        ["GET /v1/actions 200", "GET /v1/actions/1 200"],
      );
    });

    it("a read that fails otherwise than 404 is skipped with the portal's reason, not taken for 'not served'", async () => {
      const failing = { errorRate: 1, statuses: [500 as const], count: 10 };
      const [bunit, actions] = await lines({ ...failing, match: { path: "/v1/actions" } });
      assert.equal(bunit.status, "ok");
      assert.deepEqual([actions.id, actions.status], ["go-actions", "skipped"]);
      assert.match(actions.detail, /^GET \/v1\/actions: .*500/);
      const [bunit2, actions2] = await lines({ ...failing, match: { method: "GET", path: "/v1/bunits" } });
      assert.equal(bunit2.status, "skipped");
      assert.match(bunit2.detail, /^GET \/v1\/bunits\?bunitID=1: .*500/);
      assert.deepEqual([bunit2.id, actions2.id, actions2.status], ["go-bunit-read", "go-actions", "ok"]);
    });
  });
});
