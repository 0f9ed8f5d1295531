// Named references (time zone, operating system, node type, domain, client option set) resolved to portal ids,
// in process against the emulator: what a name matches, what an unknown one is told, and how many reads a run
// costs (each list once per host process; the default server's lists once per business unit).
import assert from "node:assert/strict";
import { checkReferences, ReferenceInput, References, referencesFor, UnknownReferenceError } from "../../provider/dynamic/references";
import { Failures, UNKNOWN } from "../../provider/dynamic/values";
import { PortalClient } from "../../provider/portal/client";
import { PortalError } from "../../provider/portal/errors";
import { clientFor, clientSuite } from "../support/portal";

describe("named references", function () {
  this.timeout(20_000);
  const s = clientSuite();
  let client: PortalClient;
  let refs: References;
  beforeEach(() => {
    // One try per request: a failure the test injects is seen at once.
    client = clientFor(s.emu, "admin", { maxAttempts: 1 });
    refs = new References(client);
  });
  afterEach(() => client.close());

  /** How many GETs of exactly `path` the portal answered (the token request aside). */
  const reads = (path: string) => s.emu.requests().filter((r) => r.method === "GET" && r.path.split("?")[0] === path).length;
  const referenceReads = () => s.emu.requests().filter((r) => r.path !== "/v1/oauth").length;
  const rejection = (p: Promise<unknown>) =>
    p.then(
      () => assert.fail("expected a rejection"),
      (e: unknown) => e,
    );

  describe("resolve", () => {
    it("by name (case-blind, spaces around ignored), by a time zone's windowsId or display name, or by id", async () => {
      assert.equal((await refs.resolve("timeZone", "w. europe standard time")).id, 4);
      assert.equal((await refs.resolve("timeZone", "(GMT) Coordinated Universal Time")).id, 1);
      assert.equal((await refs.resolve("timeZone", 4)).windowsId, "W. Europe Standard Time");
      assert.equal((await refs.resolve("timeZone", " 1 ")).windowsId, "UTC");
      assert.equal((await refs.resolve("operatingSystem", "  LINUX ")).id, 3);
      assert.equal((await refs.resolve("type", 2)).name, "Workstation");
      assert.equal(reads("/v1/timezones"), 1, "one read of the time zones");
      assert.equal(reads("/v1/nodeoperatingsystems"), 1);
    });

    it("a name that ends or starts with digits is a name; an id may have several digits", async () => {
      s.emu.update((st) => {
        st.operatingSystems.push({ ...st.operatingSystems[0], id: 12, name: "Ubuntu 22", shortName: "U22" });
        st.operatingSystems.push({ ...st.operatingSystems[0], id: 13, name: "2025 Server", shortName: "S25" });
      });
      assert.equal((await refs.resolve("operatingSystem", "ubuntu 22")).id, 12);
      assert.equal((await refs.resolve("operatingSystem", "2025 server")).id, 13);
      assert.equal((await refs.resolve("operatingSystem", "12")).name, "Ubuntu 22");
      assert.equal((await refs.resolve("domain", "30days", 2)).id, 2);
    });

    it("an item the portal lists without a name is still matched by windowsId, and does not stop the search", async () => {
      s.emu.update((st) => {
        st.timeZones.unshift({ ...st.timeZones[0], id: 40, windowsId: "Nameless Standard Time", name: undefined as unknown as string });
      });
      assert.equal((await refs.resolve("timeZone", "nameless standard time")).id, 40);
      assert.equal((await refs.resolve("timeZone", "Tokyo Standard Time")).id, 6);
    });

    it("an unknown name or id names the kind and lists what is valid (time zones by windowsId)", async () => {
      const os = await rejection(refs.resolve("operatingSystem", "Solaris"));
      assert.ok(os instanceof UnknownReferenceError);
      assert.equal(os.name, "UnknownReferenceError");
      assert.equal(os.kind, "operatingSystem");
      assert.equal(os.message, 'unknown operating system "Solaris"; valid: Windows workstation, Windows server, Linux, macOS');
      const tz = (await rejection(refs.resolve("timeZone", 99))) as Error;
      assert.match(
        tz.message,
        /^unknown time zone \(a windowsId, a display name or an id\) 99; valid: UTC, GMT Standard Time, Eastern Standard Time, /,
      );
      const domain = (await rejection(refs.resolve("domain", "7DAYS", 2))) as Error;
      assert.equal(
        domain.message,
        'unknown policy domain of the default backup server "7DAYS"; valid: STANDARD, 30DAYS, 60DAYS, 90DAYS, 180DAYS, 1YEAR, 2YEAR',
      );
      const set = (await rejection(refs.resolve("clientOptionSet", "x", 2))) as Error;
      assert.equal(
        set.message,
        'unknown client option set of the default backup server "x"; valid: None, DEDUP_AND_COMPRESS, FORCE_ENCRYPT',
      );
      const type = (await rejection(refs.resolve("type", "Mainframe"))) as Error;
      assert.equal(type.message, 'unknown node type "Mainframe"; valid: File server, Workstation, Application server');
    });
  });

  describe("reads", () => {
    it("the default server and its lists once per business unit; the other lists once, whatever the business unit", async () => {
      await refs.resolve("domain", "30days", 2);
      await refs.resolve("domain", "STANDARD", 3);
      await refs.resolve("domain", "1year", 2);
      await refs.resolve("clientOptionSet", "None", 2);
      await refs.resolve("clientOptionSet", "None", 3);
      await refs.resolve("clientOptionSet", "FORCE_ENCRYPT", 3);
      await refs.resolve("timeZone", "UTC", 2);
      await refs.resolve("timeZone", "UTC", 3);
      assert.equal((await refs.defaultServer(2)).name, "SP01");
      await refs.defaultServer(2);
      await refs.defaultServer(3);
      assert.deepEqual(
        [
          reads("/v1/bunits/2/defaultserver/domains"),
          reads("/v1/bunits/3/defaultserver/domains"),
          reads("/v1/bunits/2/defaultserver/clientoptionsets"),
          reads("/v1/bunits/3/defaultserver/clientoptionsets"),
          reads("/v1/timezones"),
          reads("/v1/bunits/2/defaultserver"),
          reads("/v1/bunits/3/defaultserver"),
        ],
        [1, 1, 1, 1, 1, 1, 1],
      );
    });

    it("a failed read is forgotten: the next call reads again and succeeds", async () => {
      s.emu.setFaults({ errorRate: 1, statuses: [500], count: 1, match: { pathPrefix: "/v1/nodetypes" } });
      const err = await rejection(refs.resolve("type", "File server"));
      assert.ok(err instanceof PortalError && err.status === 500, String(err));
      assert.equal((await refs.resolve("type", "File server")).id, 1);
      assert.equal(reads("/v1/nodetypes"), 2);
    });

    it("warm starts the reads at once without waiting; what it failed to read is read again by whoever needs it", async () => {
      s.emu.setFaults({ errorRate: 1, statuses: [500], count: 1, match: { pathPrefix: "/v1/bunits/2/defaultserver/domains" } });
      refs.warm(["operatingSystem", "domain"], 2);
      // Short enough to fail before the mutation run's timeout when warm reads nothing; the reads take milliseconds.
      const deadline = Date.now() + 2_000;
      while (reads("/v1/bunits/2/defaultserver") + reads("/v1/nodeoperatingsystems") + reads("/v1/bunits/2/defaultserver/domains") < 3) {
        assert.ok(Date.now() < deadline, "warm did not read the lists and the default server");
        await new Promise((r) => setTimeout(r, 5));
      }
      const before = referenceReads();
      assert.equal((await refs.resolve("operatingSystem", "Linux", 2)).id, 3);
      assert.equal((await refs.defaultServer(2)).id, 1);
      assert.equal(referenceReads(), before, "read once, by warm");
      assert.equal((await refs.resolve("domain", "STANDARD", 2)).id, 1, "the failed read was forgotten");
      assert.equal(reads("/v1/bunits/2/defaultserver/domains"), 2);
    });

    it("the host process shares one resolver per client", () => {
      const other = clientFor(s.emu);
      try {
        const shared = referencesFor(client);
        assert.equal(referencesFor(client), shared);
        assert.notEqual(referencesFor(other), shared, "another portal connection has its own");
      } finally {
        other.close();
      }
    });
  });

  describe("checkReferences", () => {
    const NODE: ReferenceInput[] = [
      { key: "operatingSystem", kind: "operatingSystem", required: true },
      { key: "type", kind: "type", required: true },
      { key: "domain", kind: "domain", required: false },
      { key: "clientOptionSet", kind: "clientOptionSet", required: false },
    ];
    const check = async (olds: Record<string, unknown>, inputs: Record<string, unknown>, specs: ReferenceInput[] = NODE) => {
      const f = new Failures();
      await checkReferences(f, () => refs, olds, inputs, specs);
      return f.list;
    };

    it("names a missing required reference and each unknown one, in the order of the inputs", async () => {
      for (const missing of [undefined, null, ""]) {
        assert.deepEqual(await check({}, { businessUnitId: 2, operatingSystem: missing, type: "Workstation", domain: missing }), [
          { property: "operatingSystem", reason: "operatingSystem is required: a name or an id" },
        ]);
      }
      assert.deepEqual(
        await check({}, { businessUnitId: 2, operatingSystem: "BeOS", type: "x", domain: "STANDARD", clientOptionSet: "y" }),
        [
          {
            property: "operatingSystem",
            reason: 'operatingSystem: unknown operating system "BeOS"; valid: Windows workstation, Windows server, Linux, macOS',
          },
          { property: "type", reason: 'type: unknown node type "x"; valid: File server, Workstation, Application server' },
          {
            property: "clientOptionSet",
            reason:
              'clientOptionSet: unknown client option set of the default backup server "y"; valid: None, DEDUP_AND_COMPRESS, FORCE_ENCRYPT',
          },
        ],
      );
      assert.deepEqual(await check({}, { businessUnitId: 2, operatingSystem: 3, type: "file server", domain: "30DAYS" }), []);
    });

    it("a list is checked item by item; unknown values (preview) pass without a read", async () => {
      const filters: ReferenceInput[] = [{ key: "domainFilter", kind: "domain", required: false, scope: "parentId" }];
      assert.deepEqual(await check({}, { parentId: 1, domainFilter: ["STANDARD", UNKNOWN, "bogus"] }, filters), [
        {
          property: "domainFilter",
          reason:
            'domainFilter: unknown policy domain of the default backup server "bogus"; valid: STANDARD, 30DAYS, 60DAYS, 90DAYS, 180DAYS, 1YEAR, 2YEAR',
        },
      ]);
      assert.equal(reads("/v1/bunits/1/defaultserver/domains"), 1, "read in the business unit its scope names");
      assert.deepEqual(await check({}, { parentId: 1, domainFilter: ["30DAYS", UNKNOWN] }, filters), []);
      const before = referenceReads();
      assert.deepEqual(await check({}, { businessUnitId: 2, operatingSystem: UNKNOWN, type: UNKNOWN }), []);
      assert.deepEqual(await check({}, { businessUnitId: UNKNOWN, operatingSystem: UNKNOWN, type: UNKNOWN, domain: "bogus" }), []);
      assert.deepEqual(await check({}, { parentId: UNKNOWN, domainFilter: ["bogus"] }, filters), []);
      assert.equal(referenceReads(), before, "nothing read");
    });

    it("a value unchanged since it was set is not read again, unless the business unit of its list changed", async () => {
      const olds = { businessUnitId: 2, operatingSystem: "Linux", type: "Workstation", domain: "STANDARD" };
      const before = s.emu.requests().length;
      assert.deepEqual(await check(olds, { ...olds }), []);
      assert.equal(s.emu.requests().length, before, "an unchanged update makes no request");
      assert.deepEqual(await check(olds, { ...olds, businessUnitId: 3 }), []);
      assert.deepEqual(
        s.emu
          .requests()
          .slice(before)
          .filter((r) => r.path !== "/v1/oauth")
          .map((r) => `${r.method} ${r.path}`),
        ["GET /v1/bunits/3/defaultserver/domains"],
        "only the domain, in its new business unit",
      );
    });

    it("a portal failure is not taken for an unknown name: it fails the check", async () => {
      s.emu.setFaults({ errorRate: 1, statuses: [500], count: 1, match: { pathPrefix: "/v1/nodeoperatingsystems" } });
      await assert.rejects(check({}, { businessUnitId: 2, operatingSystem: "Linux", type: "Workstation" }), (e) => {
        return e instanceof PortalError && e.status === 500 && e.path === "/v1/nodeoperatingsystems";
      });
    });
  });
});
