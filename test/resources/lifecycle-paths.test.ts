// The lifecycle paths lifecycle-in-process.test.ts leaves out, called in this process against the emulator on
// loopback: business-unit filters from create to drift, names resolved once and then taken from state, the
// take-over of an interrupted create, the node's password and name rules, and NodeProxy's Diff and Read.
import assert from "node:assert/strict";
import { configure, portal, resetConnection } from "../../provider/dynamic/connection";
import { UNKNOWN } from "../../provider/dynamic/values";
import { createKeyFor } from "../../provider/dynamic/recovery";
import { referencesFor } from "../../provider/dynamic/references";
import { businessUnitLifecycle as bu } from "../../provider/resources/business-unit";
import { consumerLifecycle as consumer } from "../../provider/resources/consumer";
import { nodeLifecycle as node } from "../../provider/resources/node";
import { nodeProxyLifecycle as proxy } from "../../provider/resources/node-proxy";
import { PortalError } from "../../provider/portal";
import { clientSuite, stackConfigFor } from "../support/portal";

type Failure = { property: string; reason: string };

/** What `run` writes to stderr through console.error (the engine's log of the provider host), and its result. */
async function logged<T>(run: () => Promise<T>): Promise<{ result: T; lines: string[] }> {
  const lines: string[] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => void lines.push(args.map(String).join(" "));
  try {
    return { result: await run(), lines };
  } finally {
    console.error = original;
  }
}
const props = (failures: Failure[] | undefined) => (failures ?? []).map((f) => f.property).sort();

describe("resource lifecycles in process: the less travelled paths", function () {
  this.timeout(30_000);
  const s = clientSuite();
  let config: Record<string, string> = {};
  beforeEach(() => {
    resetConnection();
    config = stackConfigFor(s.emu.url);
    configure({ get: (k) => config[k] });
  });
  after(() => resetConnection());

  /** Requests since `from`, login left out, as "METHOD /path" without the query. */
  const since = (from: number, method?: string) =>
    s.emu
      .requests()
      .slice(from)
      .filter((r) => r.path !== "/v1/oauth" && (method === undefined || r.method === method))
      .map((r) => `${r.method} ${r.path.replace(/\?.*/, "")}`);
  /** The JSON body of the last request to `method path` since `from`. */
  const bodyOf = (from: number, method: string, path: string) =>
    s.emu
      .requestDetails()
      .slice(from)
      .filter((r) => r.method === method && r.path.replace(/\?.*/, "") === path)
      .pop()?.body as Record<string, unknown>;
  /** Reads of reference data (time zones, a server's domains and option sets, operating systems, node types). */
  const referenceReads = (from: number) =>
    since(from, "GET").filter((p) => /timezones|defaultserver|operatingsystems|nodetypes|domains|clientoptionsets/i.test(p));

  describe("BusinessUnit", () => {
    const valid = { parentId: 1, name: "Acme", registrationNumber: "556-1", timeZone: "W. Europe Standard Time" };

    it("filters: names resolved to ids on create, kept as written on read, drift shown by name, a cleared one gone", async () => {
      const plain = await bu.create({ ...valid });
      assert.ok(!("domainFilterIds" in plain.outs) && !("clientOptionSetFilterIds" in plain.outs), "no filter declared, no ids");
      const inputs = { ...valid, domainFilter: ["standard", 2], clientOptionSetFilter: ["FORCE_ENCRYPT"] };
      const made = await bu.create(inputs);
      const id = Number(made.id);
      assert.deepEqual([made.outs.domainFilterIds, made.outs.clientOptionSetFilterIds], [[1, 2], [3]]);
      const stored = await s.client.businessUnits.get(id);
      assert.deepEqual(
        (stored.domainFilter ?? []).map((d) => d.id),
        [1, 2],
      );
      assert.deepEqual(
        (stored.clientOptionSetFilter ?? []).map((d) => d.id),
        [3],
      );

      const same = await bu.read(made.id, made.outs);
      assert.deepEqual([same.inputs!.domainFilter, same.inputs!.clientOptionSetFilter], [["standard", 2], ["FORCE_ENCRYPT"]]);

      await s.client.businessUnits.update(id, { domainFilter: [{ id: 3 }], clientOptionSetFilter: [] });
      const drift = await bu.read(made.id, made.outs);
      assert.deepEqual(drift.inputs!.domainFilter, ["60DAYS"], "the portal's name for what it holds now");
      assert.ok(!("clientOptionSetFilter" in drift.inputs!), "cleared on the portal: no longer among the inputs");
      assert.deepEqual(drift.props!.domainFilterIds, [3]);
      assert.ok(!("clientOptionSetFilterIds" in drift.props!), "nor its ids among the outputs");
    });

    it("update: unchanged names keep their stored ids without a read; a filter no longer declared is cleared", async () => {
      const inputs = { ...valid, domainFilter: ["STANDARD"], clientOptionSetFilter: ["FORCE_ENCRYPT"] };
      const made = await bu.create(inputs);
      const id = Number(made.id);
      resetConnection();
      configure({ get: (k) => config[k] });
      let mark = s.emu.requests().length;
      const noted = await bu.update(made.id, made.outs, { ...inputs, note: "changed" });
      assert.deepEqual(since(mark), [`PUT /v1/bunits/${id}`], "time zone and filters from state: no reads");
      assert.deepEqual([noted.outs!.domainFilterIds, noted.outs!.clientOptionSetFilterIds, noted.outs!.timeZoneId], [[1], [3], 4]);

      mark = s.emu.requests().length;
      const { clientOptionSetFilter: _dropped, ...rest } = inputs;
      const changed = await bu.update(made.id, noted.outs!, { ...rest, domainFilter: ["STANDARD", "1YEAR"] });
      assert.ok(referenceReads(mark).length > 0, "a changed filter is resolved again");
      const now = await s.client.businessUnits.get(id);
      assert.deepEqual(
        (now.domainFilter ?? []).map((d) => d.id),
        [1, 6],
      );
      assert.deepEqual(now.clientOptionSetFilter ?? [], [], "no longer declared: cleared on the portal");
      assert.deepEqual(changed.outs!.domainFilterIds, [1, 6]);
      assert.ok(!("clientOptionSetFilterIds" in changed.outs!));
    });

    it("read: the time zone keeps the user's spelling while it names the same zone; another one shows by windowsId", async () => {
      const made = await bu.create({ ...valid, timeZone: 4 });
      const id = Number(made.id);
      assert.equal((await bu.read(made.id, made.outs)).inputs!.timeZone, 4);
      const adopted = await bu.read(made.id, { ...made.outs, adoptId: Number(made.id), createKey: "k" });
      assert.deepEqual([adopted.inputs!.adoptId, adopted.inputs!.createKey], [Number(made.id), "k"], "kept by a refresh");
      await s.client.businessUnits.update(id, { timeZone: { id: 2 } });
      const drift = await bu.read(made.id, made.outs);
      assert.equal(drift.inputs!.timeZone, "GMT Standard Time");
      assert.equal(drift.props!.timeZoneId, 2);
      assert.equal(drift.inputs!.parentId, 1);
    });

    it("filters: an empty list declared is an empty list of ids; one never declared stays out of a refresh", async () => {
      const made = await bu.create({ ...valid, clientOptionSetFilter: [] });
      assert.deepEqual(made.outs.clientOptionSetFilterIds, []);
      await s.client.businessUnits.update(Number(made.id), { domainFilter: [{ id: 1 }] });
      const read = await bu.read(made.id, made.outs);
      assert.ok(!("domainFilter" in read.inputs!), JSON.stringify(read.inputs));
    });

    it("read: a filter declared empty stays empty when the state holds no ids for it", async () => {
      const made = await bu.create({ ...valid });
      assert.deepEqual((await bu.read(made.id, { ...made.outs, domainFilter: [] })).inputs!.domainFilter, []);
    });

    it("update: a state without the time zone's id resolves the name again; read shows the portal's parent", async () => {
      const made = await bu.create({ ...valid, timeZone: "UTC" });
      const { timeZoneId: _tz, ...old } = made.outs;
      const mark = s.emu.requests().length;
      const upd = await bu.update(made.id, old, { ...valid, timeZone: "UTC", note: "n" });
      assert.deepEqual(bodyOf(mark, "PUT", `/v1/bunits/${made.id}`).timeZone, { id: 1 });
      assert.equal(upd.outs!.timeZoneId, 1);
      // Imported with the wrong parent: the refresh shows the real one (and the next up replaces).
      assert.equal((await bu.read(made.id, { ...made.outs, parentId: 2 })).inputs!.parentId, 1);
    });

    it("adopt: a time zone that differs is brought to the inputs", async () => {
      const mark = s.emu.requests().length;
      await bu.create({ parentId: 1, adoptId: 3, name: "Tenant B", registrationNumber: "TB-0001", timeZone: "Tokyo Standard Time" });
      assert.deepEqual(since(mark, "PUT"), ["PUT /v1/bunits/3"]);
      assert.equal((await s.client.businessUnits.get(3)).timeZone?.id, 6);
    });

    it("delete of a business unit with children: the whole message, with the fix and the portal's words", async () => {
      await assert.rejects(bu.delete("2", {}), (e: Error) =>
        e.message.startsWith(
          "business unit 2 still has child business units or consumers, so the portal keeps it. Delete them first (resources in " +
            "this stack are deleted children-first), or keep the business unit with `protect` or `retainOnDelete`. Portal said: ",
        ),
      );
    });

    it("adopting the account's top business unit (it has no parent) is not refused for its parentId", async () => {
      const top = await s.client.businessUnits.get(1);
      const adopted = await bu.create({
        parentId: 2,
        adoptId: 1,
        name: top.name,
        registrationNumber: top.registrationNumber,
        timeZone: top.timeZone!.id,
      });
      assert.equal(adopted.id, "1");
    });

    it("an interrupted create is taken over when recovery is on, and only then; not under a parent made in this run", async () => {
      const inputs = { ...valid, createKey: createKeyFor("BusinessUnit", "acme", "p", "recovery") };
      const first = await bu.create(inputs);
      // The engine never learnt of `first` (its host died); the next up creates the same resource again.
      let mark = s.emu.requests().length;
      const again = await bu.create(inputs);
      assert.notEqual(again.id, first.id, "recovery off: a second business unit");
      assert.deepEqual(since(mark, "POST"), ["POST /v1/bunits/1/bunits"]);
      await bu.delete(again.id, again.outs);

      config["backup-portal:recoverInterruptedCreates"] = "true";
      mark = s.emu.requests().length;
      const { result: recovered, lines } = await logged(() => bu.create({ ...inputs, note: "declared since" }));
      assert.deepEqual(lines, [
        `backup-portal: business unit ${first.id} was made by an interrupted create of this resource; taking it over`,
      ]);
      assert.equal(recovered.id, first.id);
      assert.deepEqual(since(mark, "POST"), [], "taken over, not created");
      assert.deepEqual(since(mark, "PUT"), [`PUT /v1/bunits/${first.id}`], "and brought to the inputs");
      assert.equal((await s.client.businessUnits.get(Number(first.id))).note, "declared since");
      assert.equal(recovered.outs.businessUnitId, Number(first.id));

      const child = { ...valid, parentId: 3, createKey: createKeyFor("BusinessUnit", "child", "p", "recovery") };
      mark = s.emu.requests().length;
      await bu.create(child);
      assert.ok(since(mark, "GET").includes("GET /v1/bunits/3/bunits"), "looked for a leftover under a parent of before");
      const parent = await bu.create({ ...valid, createKey: createKeyFor("BusinessUnit", "new-parent", "p", "recovery") });
      mark = s.emu.requests().length;
      await bu.create({ ...child, parentId: Number(parent.id) });
      assert.deepEqual(since(mark, "GET"), [], "nothing can be left over under a parent this run created");
    });

    it("delete: a refusal other than 'still has children' is passed on as the portal said it", async () => {
      config["backup-portal:username"] = "tenant";
      config["backup-portal:password"] = "tenant";
      const err = await bu.delete("3", {}).then(
        () => undefined,
        (e: unknown) => e,
      );
      assert.ok(err instanceof PortalError, String(err));
      assert.doesNotMatch(err.message, /still has child business units/);
    });
  });

  describe("the bodies sent: declared fields only; a PUT also clears what is no longer declared", () => {
    it("BusinessUnit", async () => {
      let mark = s.emu.requests().length;
      const made = await bu.create({ parentId: 1, name: "Acme", registrationNumber: "556-1", timeZone: "UTC", nodeLimit: 0 });
      const posted = bodyOf(mark, "POST", "/v1/bunits/1/bunits");
      // The client adds its create marker as the only tag (none declared).
      assert.deepEqual(
        { ...posted, tags: undefined },
        { name: "Acme", registrationNumber: "556-1", timeZone: { id: 1 }, nodeLimit: 0, tags: undefined },
      );
      assert.match(String(posted.tags), /^create-request:[^,]+$/);
      mark = s.emu.requests().length;
      await bu.update(made.id, made.outs, { parentId: 1, name: "Acme", registrationNumber: "556-1", timeZone: "UTC", note: "n" });
      assert.deepEqual(bodyOf(mark, "PUT", `/v1/bunits/${made.id}`), {
        name: "Acme",
        registrationNumber: "556-1",
        timeZone: { id: 1 },
        note: "n",
        nodeLimit: null,
      });
    });

    it("Consumer", async () => {
      let mark = s.emu.requests().length;
      const made = await consumer.create({ businessUnitId: 2, name: "c", allowNoActivity: false, deletionComment: "local only" });
      const posted = bodyOf(mark, "POST", "/v1/bunits/2/consumers");
      assert.deepEqual({ ...posted, tags: undefined }, { name: "c", allowNoActivity: false, tags: undefined });
      assert.match(String(posted.tags), /^create-request:[^,]+$/);
      mark = s.emu.requests().length;
      await consumer.update(made.id, made.outs, { businessUnitId: 2, name: "c", note: "n" });
      assert.deepEqual(bodyOf(mark, "PUT", `/v1/bunits/2/consumers/${made.id}`), { name: "c", note: "n", allowNoActivity: null });
    });

    it("Node", async () => {
      const c = await s.client.consumers.create(2, { name: "fresh" });
      const mark = s.emu.requests().length;
      await node.create({ businessUnitId: 2, consumerId: c.id, operatingSystem: "Linux", type: 1, domain: "STANDARD", cpuCount: 1 });
      assert.deepEqual(bodyOf(mark, "POST", `/v1/bunits/2/consumers/${c.id}/node`), {
        operatingSystem: { id: 3 },
        type: { id: 1 },
        domain: { id: 1 },
        cpuCount: 1,
        server: { id: 1 },
      });
    });
  });

  describe("Consumer", () => {
    it("delete: associations are removed unless the inputs say otherwise", async () => {
      const made = await consumer.create({ businessUnitId: 2, name: "c" });
      const mark = s.emu.requests().length;
      await consumer.delete(made.id, { businessUnitId: 2 });
      const [del] = s.emu
        .requests()
        .slice(mark)
        .filter((r) => r.method === "DELETE");
      assert.match(del.path, /deleteAssociations=true/);
    });

    it("an interrupted create is taken over when recovery is on; the marker tells it from a namesake", async () => {
      const inputs = { businessUnitId: 2, name: "dup", note: "n", createKey: createKeyFor("Consumer", "dup", "p", "recovery") };
      const namesake = await consumer.create({ businessUnitId: 2, name: "dup" });
      const first = await consumer.create(inputs);
      assert.notEqual((await consumer.create(inputs)).id, first.id, "recovery off: a second consumer");
      config["backup-portal:recoverInterruptedCreates"] = "1";
      let mark = s.emu.requests().length;
      const { result: recovered, lines } = await logged(() => consumer.create(inputs));
      assert.deepEqual(lines, [`backup-portal: consumer ${first.id} was made by an interrupted create of this resource; taking it over`]);
      assert.equal(recovered.id, first.id);
      assert.notEqual(recovered.id, namesake.id);
      assert.deepEqual(since(mark, "POST"), []);
      assert.deepEqual(since(mark, "PUT"), [], "it already matches: nothing written");
      mark = s.emu.requests().length;
      await consumer.create({ ...inputs, note: "declared since" });
      assert.deepEqual(since(mark, "PUT"), [`PUT /v1/bunits/2/consumers/${first.id}`], "brought to the inputs");
      assert.equal((await s.client.consumers.get(2, Number(first.id))).note, "declared since");
      // With another nodeName it is another resource's create: not taken over.
      mark = s.emu.requests().length;
      const other = await consumer.create({ ...inputs, nodeName: "N1" });
      assert.notEqual(other.id, first.id);
      assert.deepEqual(since(mark, "POST"), ["POST /v1/bunits/2/consumers"]);
    });

    it("recovery looks for no leftover under a business unit this run created", async () => {
      config["backup-portal:recoverInterruptedCreates"] = "true";
      // An id no earlier test (nor an earlier run of this one in the same process) can have made: what this
      // process created is remembered, and the emulator's ids start again after each reset.
      s.emu.update((st) => void (st.nextIds.businessUnit = 1e9 + (Date.now() % 1e9)));
      const parent = await bu.create({ parentId: 1, name: "P", registrationNumber: "1", timeZone: "UTC" });
      const mark = s.emu.requests().length;
      await consumer.create({ businessUnitId: Number(parent.id), name: "c", createKey: createKeyFor("Consumer", "c", "p", "recovery") });
      assert.deepEqual(since(mark, "GET"), []);
    });

    it("read keeps adoptId and createKey; a consumer its node took with it is not deleted again", async () => {
      const made = await consumer.create({ businessUnitId: 2, name: "c" });
      const kept = await consumer.read(made.id, { ...made.outs, adoptId: Number(made.id), createKey: "k" });
      assert.deepEqual([kept.inputs!.adoptId, kept.inputs!.createKey], [Number(made.id), "k"]);
      await s.client.nodes.create(2, Number(made.id), { operatingSystem: { id: 3 }, type: { id: 1 }, domain: { id: 1 }, cpuCount: 1 });
      await node.delete(made.id, { businessUnitId: 2 });
      const mark = s.emu.requests().length;
      await consumer.delete(made.id, { businessUnitId: 2 });
      assert.deepEqual(since(mark), [], "its node's delete removed it: nothing to send");
    });

    it("Check starts the node's reads only for a node that is new or moves", async () => {
      const started: number[] = [];
      const client = portal();
      const original = client.reference.defaultServer.bind(client.reference);
      client.reference.defaultServer = (b: number) => (started.push(b), original(b));
      await consumer.check({}, { businessUnitId: 3, name: "no node" });
      await consumer.check({ businessUnitId: 3, nodeName: "N" }, { businessUnitId: 3, name: "c", nodeName: "N" });
      await consumer.check({}, { businessUnitId: 3, name: "c", nodeName: UNKNOWN });
      await consumer.check({}, { businessUnitId: UNKNOWN, name: "c", nodeName: "N" });
      assert.deepEqual(started, []);
      await consumer.check({ businessUnitId: 3, nodeName: "N" }, { businessUnitId: 2, name: "c", nodeName: "N" });
      assert.deepEqual(started, [2], "moved to another business unit");
      await consumer.check({ businessUnitId: 3, nodeName: "N" }, { businessUnitId: 3, name: "c", nodeName: "M" });
      assert.deepEqual(started, [2, 3], "a new name");
      // Let the reads it started finish, so that they land in no other test's request log.
      const refs = referencesFor(client);
      const kinds = ["operatingSystem", "type", "domain", "clientOptionSet"] as const;
      await Promise.allSettled([2, 3].flatMap((b) => [refs.defaultServer(b), ...kinds.map((k) => refs.list(k, b))]));
    });
  });

  describe("Node", () => {
    const n = { businessUnitId: 2, consumerId: 2, operatingSystem: "Linux", type: "Application server", domain: "30DAYS", cpuCount: 2 };

    it("check: the password's length and type, never its value; null is no password", async () => {
      const reasons = async (tsmPassword: unknown) => (await node.check({}, { ...n, tsmPassword })).failures;
      assert.deepEqual(await reasons("x"), []);
      assert.deepEqual(await reasons(null), []);
      const refused = [{ property: "tsmPassword", reason: "tsmPassword must be a string of 1 to 64 characters" }];
      assert.deepEqual(await reasons(123456789), refused);
      assert.deepEqual(await reasons("Long-Distinctive-Pa55word-".padEnd(65, "z")), refused);
    });

    it("check: a name of the wrong type is one failure; a node activated under no name takes one; adoptId equal to consumerId", async () => {
      const activated = { ...n, tsmName: "WEB1" };
      assert.deepEqual(props((await node.check(activated, { ...n, tsmName: 5 })).failures), ["tsmName"]);
      assert.deepEqual((await node.check({ ...n, tsmName: "" }, { ...n, tsmName: "WEB2" })).failures, []);
      assert.deepEqual((await node.check({}, { ...n, adoptId: "2" })).failures, []);
    });

    it("diff: a new password alone is a change", async () => {
      assert.deepEqual(await node.diff("2", { ...n, tsmPassword: "One-Pa55word-aaaa" }, { ...n, tsmPassword: "Two-Pa55word-bbbb" }), {
        changes: true,
        replaces: [],
        deleteBeforeReplace: false,
      });
    });

    it("update: unchanged names keep their stored ids without a read; outputs without an id are resolved", async () => {
      const c = await s.client.consumers.create(2, { name: "fresh" });
      const inputs = { ...n, consumerId: c.id, clientOptionSet: "FORCE_ENCRYPT" };
      const made = await node.create(inputs);
      resetConnection();
      configure({ get: (k) => config[k] });
      let mark = s.emu.requests().length;
      const upd = await node.update(made.id, made.outs, { ...inputs, cpuCount: 3 });
      assert.deepEqual(referenceReads(mark), [], "names from state");
      assert.deepEqual(since(mark), [`PUT /v1/bunits/2/consumers/${c.id}/node`]);
      assert.deepEqual(bodyOf(mark, "PUT", `/v1/bunits/2/consumers/${c.id}/node`), {
        operatingSystem: { id: 3 },
        type: { id: 3 },
        domain: { id: 2 },
        clientOptionSet: { id: 3 },
        cpuCount: 3,
      });
      assert.deepEqual([upd.outs!.operatingSystemId, upd.outs!.typeId, upd.outs!.domainId, upd.outs!.clientOptionSetId], [3, 3, 2, 3]);
      // State written before the ids were kept: each name is looked up.
      const { operatingSystemId: _o, typeId: _t, domainId: _d, clientOptionSetId: _c, ...old } = upd.outs!;
      mark = s.emu.requests().length;
      const again = await node.update(made.id, old, { ...inputs, cpuCount: 4 });
      assert.ok(referenceReads(mark).length > 0);
      assert.deepEqual(
        [again.outs!.operatingSystemId, again.outs!.typeId, again.outs!.domainId, again.outs!.clientOptionSetId],
        [3, 3, 2, 3],
      );
      const now = await s.client.nodes.get(2, c.id);
      assert.deepEqual([now.operatingSystem?.id, now.type?.id, now.domain?.id, now.clientOptionSet?.id, now.cpuCount], [3, 3, 2, 3, 4]);
    });

    it("read: a reference changed on the portal shows by its name; one removed there leaves the inputs and outputs", async () => {
      const c = await s.client.consumers.create(2, { name: "fresh" });
      const inputs = { ...n, consumerId: c.id, clientOptionSet: "FORCE_ENCRYPT" };
      const made = await node.create(inputs);
      const same = await node.read(made.id, made.outs);
      assert.deepEqual(
        [same.inputs!.operatingSystem, same.inputs!.type, same.inputs!.domain, same.inputs!.clientOptionSet],
        ["Linux", "Application server", "30DAYS", "FORCE_ENCRYPT"],
      );
      await s.client.nodes.update(2, c.id, { domain: { id: 1 }, clientOptionSet: null } as never);
      const drift = await node.read(made.id, made.outs);
      assert.equal(drift.inputs!.domain, "STANDARD");
      assert.equal(drift.props!.domainId, 1);
      assert.ok(!("clientOptionSet" in drift.inputs!), JSON.stringify(drift.inputs));
      assert.ok(!("clientOptionSetId" in drift.props!), JSON.stringify(drift.props));
      const undeclared = await node.read(made.id, { ...made.outs, clientOptionSet: undefined, clientOptionSetId: undefined });
      assert.ok(!("clientOptionSet" in undeclared.inputs!));
    });

    it("read: the user's spelling while it names the same; contact and name drift; adoptId kept", async () => {
      const declared = { ...n, consumerId: 1, adoptId: 1, operatingSystem: "linux", type: 1, domain: "standard", cpuCount: 4 };
      const adopted = await node.create(declared);
      const same = await node.read(adopted.id, adopted.outs);
      assert.deepEqual(
        [same.inputs!.operatingSystem, same.inputs!.type, same.inputs!.domain, same.inputs!.adoptId, same.inputs!.tsmName],
        ["linux", 1, "standard", 1, "WEB-01"],
        "tsmName undeclared: the activated name shows",
      );
      assert.equal((await node.read(adopted.id, { ...adopted.outs, tsmName: "web-01" })).inputs!.tsmName, "web-01", "case-blind");
      await s.client.nodes.update(2, 1, { contact: "ops@example.test" });
      assert.equal((await node.read(adopted.id, { ...adopted.outs, contact: "a@b.c" })).inputs!.contact, "ops@example.test");
    });

    it("update: a reference no longer declared is cleared; a removed password sets none; a password alone keeps the ids", async () => {
      const c = await s.client.consumers.create(2, { name: "fresh" });
      const pw = "Update-Path-Pa55word-3c3c";
      const inputs = { ...n, consumerId: c.id, clientOptionSet: "FORCE_ENCRYPT", tsmPassword: pw };
      const made = await node.create(inputs);
      const { clientOptionSet: _cos, ...without } = inputs;
      let mark = s.emu.requests().length;
      const cleared = await node.update(made.id, made.outs, without);
      assert.equal(bodyOf(mark, "PUT", `/v1/bunits/2/consumers/${c.id}/node`).clientOptionSet, null);
      assert.equal((await s.client.nodes.get(2, c.id)).clientOptionSet, undefined);
      assert.ok(!("clientOptionSetId" in cleared.outs!));
      mark = s.emu.requests().length;
      await node.update(made.id, made.outs, { ...inputs, clientOptionSet: null });
      assert.equal(bodyOf(mark, "PUT", `/v1/bunits/2/consumers/${c.id}/node`).clientOptionSet, null, "null clears too");

      const { tsmPassword: _pw, ...noPassword } = inputs;
      mark = s.emu.requests().length;
      await node.update(made.id, made.outs, noPassword);
      assert.deepEqual(since(mark, "POST"), [], "no password request");

      // Outputs of a state from before serverId was kept: a password change still answers with the ids.
      const { serverId: _s, ...old } = made.outs;
      mark = s.emu.requests().length;
      const rotated = await node.update(made.id, old, { ...inputs, tsmPassword: "Rotated-Pa55word-4d4d" });
      assert.deepEqual(since(mark), [`POST /v1/bunits/2/consumers/${c.id}/node/password`]);
      assert.deepEqual(
        [rotated.outs!.operatingSystemId, rotated.outs!.typeId, rotated.outs!.domainId, rotated.outs!.clientOptionSetId],
        [3, 3, 2, 3],
      );
    });

    it("adopt: a reference that differs is brought to the inputs, one the node lacks is set", async () => {
      const c = await s.client.consumers.create(2, { name: "bare" });
      await s.client.nodes.create(2, c.id, { operatingSystem: { id: 3 }, type: { id: 1 }, domain: { id: 1 }, cpuCount: 1 });
      const declared = {
        businessUnitId: 2,
        consumerId: c.id,
        adoptId: c.id,
        operatingSystem: "Linux",
        type: 1,
        domain: "STANDARD",
        cpuCount: 1,
      };
      let mark = s.emu.requests().length;
      await node.create(declared);
      assert.deepEqual(since(mark, "PUT"), [], "matches: nothing written");
      mark = s.emu.requests().length;
      await node.create({ ...declared, domain: "30DAYS" });
      assert.deepEqual(since(mark, "PUT"), [`PUT /v1/bunits/2/consumers/${c.id}/node`]);
      assert.equal((await s.client.nodes.get(2, c.id)).domain?.id, 2);
      await node.create({ ...declared, domain: "30DAYS", clientOptionSet: "None" });
      assert.equal((await s.client.nodes.get(2, c.id)).clientOptionSet?.id, 1);
    });

    it("create on a consumer whose node an interrupted create left unactivated: taken over and activated", async () => {
      const mark = s.emu.requests().length;
      const { result: taken, lines } = await logged(() => node.create({ ...n, consumerId: 2, tsmName: "db-new" }));
      assert.deepEqual(lines, [
        "backup-portal: consumer 2 already has a node, left by an interrupted create; managing it instead of creating another",
      ]);
      assert.equal(taken.outs.activatedName, "DB-NEW");
      assert.deepEqual(since(mark, "POST"), ["POST /v1/bunits/2/consumers/2/node"], "one create, refused: it has a node");
      assert.ok(since(mark, "GET").includes("GET /v1/bunits/2/consumers/2/node/activate"));
      assert.equal((await s.client.nodes.get(2, 2)).tsmName, "DB-NEW");
      const named = await logged(() => node.create({ ...n, consumerId: 1, tsmName: "web-01" }));
      assert.deepEqual(named.lines, [
        "backup-portal: consumer 1 already has a node (WEB-01), left by an interrupted create; managing it instead of creating another",
      ]);
    });

    it("the messages: a missing consumer, a rename", async () => {
      await assert.rejects(node.create({ ...n, consumerId: 99 }), (e: Error) =>
        e.message.startsWith(
          "consumerId: consumer 99 does not exist in business unit 2. The portal deletes a consumer together with its node, so a replaced node " +
            "needs a new consumer: give the Consumer a nodeName equal to the tsmName. (",
        ),
      );
      // Consumer 1's node is activated as WEB-01 on the portal (the seed): Check reads the name it is activated as.
      const refused = await node.check({ ...n, consumerId: 1, tsmName: "WEB1" }, { ...n, consumerId: 1, tsmName: "WEB2" });
      assert.deepEqual(refused.failures, [
        {
          property: "tsmName",
          reason:
            'tsmName: the node is activated as WEB-01 and the backup server never renames a node, so "WEB2" needs a new node, on a ' +
            "new consumer: give the Consumer that carries it the new name as nodeName (it is then replaced with its node), or set " +
            'tsmName back to "WEB-01"',
        },
      ]);
    });

    it("create: a refusal other than 'already has a node' is passed on as the portal said it", async () => {
      const c = await s.client.consumers.create(2, { name: "fresh" });
      const err = await node.create({ ...n, consumerId: c.id, cpuCount: -5 }).then(
        () => undefined,
        (e: unknown) => e,
      );
      assert.ok(err instanceof PortalError && err.status === 400, String(err));
      assert.doesNotMatch(err.message, /already has a node/);
    });

    it("adopt: a consumer without a node is refused with the fix", async () => {
      const c = await s.client.consumers.create(2, { name: "empty" });
      await assert.rejects(
        node.create({ ...n, consumerId: c.id, adoptId: c.id }),
        new RegExp(`^Error: adoptId: consumer ${c.id} in business unit 2 has no node; remove adoptId to create one$`),
      );
    });
  });

  describe("NodeProxy", () => {
    const p = { businessUnitId: 2, agentConsumerId: 1, targetConsumerId: 2 };

    it("diff: nothing changed is no change; each input replaces the relation, delete first", async () => {
      assert.deepEqual(await proxy.diff("1:2", p, { ...p, agentConsumerId: "1" }), {
        changes: false,
        replaces: [],
        deleteBeforeReplace: true,
      });
      for (const k of ["businessUnitId", "agentConsumerId", "targetConsumerId"]) {
        assert.deepEqual(await proxy.diff("1:2", p, { ...p, [k]: 9 }), { changes: true, replaces: [k], deleteBeforeReplace: true }, k);
      }
      assert.deepEqual((await proxy.diff("1:2", p, { businessUnitId: 3, agentConsumerId: 4, targetConsumerId: 5 })).replaces, [
        "businessUnitId",
        "agentConsumerId",
        "targetConsumerId",
      ]);
    });

    it("check says why a node cannot proxy for itself", async () => {
      assert.deepEqual((await proxy.check({}, { businessUnitId: 2, agentConsumerId: 4, targetConsumerId: "4" })).failures, [
        { property: "targetConsumerId", reason: "a node cannot be its own proxy: agentConsumerId and targetConsumerId must differ" },
      ]);
    });

    it("read: another agent of the same target is not this relation", async () => {
      const c = await s.client.consumers.create(2, { name: "agent" });
      await s.client.nodes.create(2, c.id, { operatingSystem: { id: 3 }, type: { id: 1 }, domain: { id: 1 }, cpuCount: 1 });
      await proxy.create({ businessUnitId: 2, agentConsumerId: c.id, targetConsumerId: 2 });
      assert.deepEqual(await proxy.read("1:2", p), { id: "" });
    });
  });
});
