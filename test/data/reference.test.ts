import assert from "node:assert/strict";
import { clientFor, clientSuite } from "../support/portal";
import {
  getClientOptionSet,
  getClientOptionSets,
  getDefaultServer,
  getDomain,
  getDomains,
  getNodeType,
  getNodeTypes,
  getNodeWarningTypes,
  getOperatingSystem,
  getOperatingSystems,
  getTimeZone,
  getTimeZones,
  UnknownReferenceError,
} from "../../provider/data";

describe("data: reference data by name", function () {
  this.timeout(30000);
  const p = clientSuite();

  it("time zones: the list, and one by Windows id, display name or id", async () => {
    const all = await getTimeZones(p.client);
    assert.equal(all.length, 8);
    assert.equal((await getTimeZone(p.client, "W. Europe Standard Time")).id, 4);
    assert.equal((await getTimeZone(p.client, "w. europe standard time")).id, 4);
    assert.equal((await getTimeZone(p.client, "(GMT) Coordinated Universal Time")).windowsId, "UTC");
    assert.equal((await getTimeZone(p.client, 6)).windowsId, "Tokyo Standard Time");
    await assert.rejects(getTimeZone(p.client, "Mars/Olympus"), (err: unknown) => {
      assert.ok(err instanceof UnknownReferenceError);
      assert.match(err.message, /unknown time zone .*"Mars\/Olympus"; valid: UTC, GMT Standard Time, .*Tokyo Standard Time/);
      return true;
    });
  });

  it("operating systems and node types by name, case-insensitive, with an error listing the valid names", async () => {
    assert.deepEqual(
      (await getOperatingSystems(p.client)).map((o) => o.name),
      ["Windows workstation", "Windows server", "Linux", "macOS"],
    );
    const linux = await getOperatingSystem(p.client, "Linux");
    assert.deepEqual({ id: linux.id, name: linux.name, shortName: linux.shortName }, { id: 3, name: "Linux", shortName: "Linux" });
    assert.equal((await getOperatingSystem(p.client, "windows SERVER")).id, 2);
    await assert.rejects(
      getOperatingSystem(p.client, "Plan 9"),
      /unknown operating system "Plan 9"; valid: Windows workstation, Windows server, Linux, macOS/,
    );
    assert.deepEqual(
      (await getNodeTypes(p.client)).map((t) => t.id),
      [1, 2, 3],
    );
    assert.equal((await getNodeType(p.client, "File server")).id, 1);
    await assert.rejects(getNodeType(p.client, "Toaster"), /valid: File server, Workstation, Application server/);
  });

  it("the default server, its domains and client option sets", async () => {
    const server = await getDefaultServer(p.client, 2);
    assert.equal(server.id, 1);
    assert.equal(server.name, "SP01");
    assert.equal((await getDomains(p.client, 2)).length, 7);
    assert.equal((await getDomain(p.client, 2, "STANDARD")).id, 1);
    assert.equal((await getDomain(p.client, 2, "1year")).name, "1YEAR");
    await assert.rejects(getDomain(p.client, 2, "FOREVER"), /policy domain .*valid: STANDARD, 30DAYS/);
    assert.deepEqual(
      (await getClientOptionSets(p.client, 2)).map((c) => c.name),
      ["None", "DEDUP_AND_COMPRESS", "FORCE_ENCRYPT"],
    );
    assert.equal((await getClientOptionSet(p.client, 2, "DEDUP_AND_COMPRESS")).id, 2);
    await assert.rejects(getClientOptionSet(p.client, 2, "ZIP"), /client option set .*valid: None, DEDUP_AND_COMPRESS, FORCE_ENCRYPT/);
    await assert.rejects(getDomains(p.client, 0), RangeError);
  });

  it("node warning types", async () => {
    const types = await getNodeWarningTypes(p.client);
    assert.equal(types.length, 6);
    assert.equal(types.find((t) => t.id === 2)?.name, "FailedObjects");
  });

  it("reads each list once per client", async () => {
    p.emu.clearRequests();
    await getOperatingSystem(p.client, "Linux");
    await getOperatingSystem(p.client, "macOS");
    await getOperatingSystems(p.client);
    await getDomain(p.client, 2, "STANDARD");
    await getDomain(p.client, 2, "30DAYS");
    const reads = p.emu
      .requests()
      .filter((r) => r.method === "GET")
      .map((r) => r.path);
    assert.deepEqual(reads, ["/v1/nodeoperatingsystems", "/v1/bunits/2/defaultserver/domains"]);
    // Another client reads again.
    const other = clientFor(p.emu);
    await getOperatingSystem(other, "Linux");
    assert.equal(p.emu.requests().filter((r) => r.path === "/v1/nodeoperatingsystems").length, 2);
    other.close();
  });
});
