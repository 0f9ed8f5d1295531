// `backup-portal doctor` reports whether a portal serves the reads the published Go client
// (safespring-community/cloutility-api-client at 3a29ec8) makes beyond spec 000 — GetBusinessUnit's
// `GET /v1/bunits?bunitID=` (cloutility/businessunit.go) and GetActions/GetAction's `/v1/actions`
// (cloutility/action.go) — against the emulator serving them and not, over real HTTP. Neither fails the run.
import assert from "node:assert/strict";
import { startEmulator, type EmulatorOptions } from "../../emulator";
import { run } from "../../provider/cli/doctor";
import type { DoctorReport } from "../../provider/doctor";
import { envFor } from "../support/portal";

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
      assert.match(c.detail, /is not served \(not in spec 000; the published Go client reads it/);
    }
    assert.match(line(report, "go-bunit-read").detail, /bunitID=2 /);
  });
});
