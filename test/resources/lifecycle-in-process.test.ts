// The lifecycle functions of the four resources called directly, in this process, against the emulator on
// loopback: what the provider host runs, where a mutation tool can see it (docs/testing.md).
import assert from "node:assert/strict";
import { configure, resetConnection } from "../../provider/dynamic/connection";
import { UNKNOWN } from "../../provider/dynamic/values";
import { businessUnitLifecycle as bu } from "../../provider/resources/business-unit";
import { consumerLifecycle as consumer } from "../../provider/resources/consumer";
import { nodeLifecycle as node } from "../../provider/resources/node";
import { nodeProxyLifecycle as proxy } from "../../provider/resources/node-proxy";
import { createKeyFor } from "../../provider/dynamic/recovery";
import { clientSuite, stackConfigFor } from "../support/portal";
import { proxyPeers } from "../../provider/portal";

type Failure = { property: string; reason: string };
const props = (failures: Failure[] | undefined) => (failures ?? []).map((f) => f.property).sort();
const reasonOf = (failures: Failure[] | undefined, p: string) => (failures ?? []).find((f) => f.property === p)?.reason ?? "";

describe("resource lifecycles in process", function () {
  this.timeout(30_000);
  const s = clientSuite();
  beforeEach(() => {
    resetConnection();
    const config = stackConfigFor(s.emu.url);
    configure({ get: (k) => config[k] });
  });
  after(() => resetConnection());

  const writes = (from: number) =>
    s.emu
      .requests()
      .slice(from)
      .filter((r) => r.method !== "GET" && r.path !== "/v1/oauth")
      .map((r) => `${r.method} ${r.path.replace(/\?.*/, "")}`);

  describe("BusinessUnit", () => {
    const valid = { parentId: 1, name: "Acme", registrationNumber: "556-1", timeZone: "W. Europe Standard Time" };

    it("check: valid inputs pass unchanged; each bad input is named", async () => {
      const ok = await bu.check(
        {},
        { ...valid, invoiceDay: 28, passwordExpirationDays: 0, tags: ["a"], supportResponsible: true, storageLimit: 0 },
      );
      assert.deepEqual(ok.failures, []);
      assert.equal(ok.inputs!.name, "Acme");
      const bad = await bu.check(
        {},
        {
          parentId: "x",
          name: "",
          registrationNumber: undefined,
          timeZone: "Mars Standard Time",
          note: "n".repeat(4001),
          invoiceDay: 29,
          storageLimit: -1,
          transferLimit: "big",
          nodeLimit: Infinity,
          passwordExpirationDays: -1,
          supportResponsible: "yes",
          reportRemotely: 1,
          useScheduleBindings: "no",
          tags: [1],
          adoptId: 0,
        },
      );
      assert.deepEqual(props(bad.failures), [
        "adoptId",
        "invoiceDay",
        "name",
        "nodeLimit",
        "note",
        "parentId",
        "passwordExpirationDays",
        "registrationNumber",
        "reportRemotely",
        "storageLimit",
        "supportResponsible",
        "tags",
        "timeZone",
        "transferLimit",
        "useScheduleBindings",
      ]);
      assert.match(reasonOf(bad.failures, "timeZone"), /Mars Standard Time/);
      assert.deepEqual(
        (await bu.check({}, { ...valid, invoiceDay: 1, passwordExpirationDays: 3650, note: "n".repeat(4000), name: "x".repeat(200) }))
          .failures,
        [],
      );
      assert.deepEqual((await bu.check({}, { ...valid, passwordExpirationDays: 0 })).failures, []);
      assert.deepEqual(
        props((await bu.check({}, { ...valid, name: "x".repeat(201), invoiceDay: 0, passwordExpirationDays: -1 })).failures),
        ["invoiceDay", "name", "passwordExpirationDays"],
      );
    });

    it("check: unknown values (preview) pass without a portal read", async () => {
      const mark = s.emu.requests().length;
      const r = await bu.check({}, { parentId: UNKNOWN, name: UNKNOWN, registrationNumber: UNKNOWN, timeZone: UNKNOWN, tags: [UNKNOWN] });
      assert.deepEqual(r.failures, []);
      assert.deepEqual(
        s.emu
          .requests()
          .slice(mark)
          .filter((x) => x.path !== "/v1/oauth"),
        [],
      );
      assert.deepEqual(props((await bu.check({}, {})).failures), ["name", "parentId", "registrationNumber", "timeZone"]);
    });

    it("diff: only parentId replaces; the same values in another spelling are no change", async () => {
      assert.deepEqual(await bu.diff("9", valid, { ...valid }), { changes: false, replaces: [], deleteBeforeReplace: false });
      assert.deepEqual(await bu.diff("9", valid, { ...valid, parentId: "1", note: "" }), {
        changes: false,
        replaces: [],
        deleteBeforeReplace: false,
      });
      assert.deepEqual(await bu.diff("9", valid, { ...valid, note: "n" }), { changes: true, replaces: [], deleteBeforeReplace: false });
      assert.deepEqual(await bu.diff("9", valid, { ...valid, parentId: 2, name: "B" }), {
        changes: true,
        replaces: ["parentId"],
        deleteBeforeReplace: false,
      });
      for (const k of [
        "registrationNumber",
        "timeZone",
        "invoiceDay",
        "storageLimit",
        "transferLimit",
        "nodeLimit",
        "passwordExpirationDays",
        "supportResponsible",
        "reportRemotely",
        "useScheduleBindings",
        "tags",
      ]) {
        assert.equal((await bu.diff("9", valid, { ...valid, [k]: k === "tags" ? ["t"] : 7 })).changes, true, k);
      }
    });

    it("create, read, update, read drift, delete", async () => {
      const inputs = { ...valid, note: "first", invoiceDay: 5, tags: ["x"], createKey: createKeyFor("BusinessUnit", "acme", "p", "s") };
      const made = await bu.create(inputs);
      const id = Number(made.id);
      assert.ok(id > 3);
      assert.equal(made.outs.businessUnitId, id);
      assert.equal(made.outs.timeZoneId, 4);
      assert.ok(made.outs.createdDate);
      const got = await s.client.businessUnits.get(id);
      assert.deepEqual([got.name, got.note, got.invoiceDay, got.parentBusinessUnit?.id, got.timeZone?.id], ["Acme", "first", 5, 1, 4]);

      const read = await bu.read(made.id, made.outs);
      assert.equal(read.id, made.id);
      assert.deepEqual(read.inputs, {
        parentId: 1,
        name: "Acme",
        registrationNumber: "556-1",
        timeZone: "W. Europe Standard Time",
        note: "first",
        invoiceDay: 5,
        tags: ["x"],
        createKey: inputs.createKey,
      });
      assert.equal(read.props!.businessUnitId, id);

      let mark = s.emu.requests().length;
      const same = await bu.update(made.id, made.outs, { ...inputs });
      assert.deepEqual(writes(mark), [], "nothing changed: no PUT");
      assert.equal(same.outs!.timeZoneId, 4);
      mark = s.emu.requests().length;
      const updated = await bu.update(made.id, made.outs, { ...inputs, note: undefined, timeZone: "UTC" });
      assert.deepEqual(writes(mark), [`PUT /v1/bunits/${id}`]);
      assert.equal(updated.outs!.timeZoneId, 1);
      const after = await s.client.businessUnits.get(id);
      assert.deepEqual([after.note ?? "", after.timeZone?.id, after.invoiceDay], ["", 1, 5]);

      await s.client.businessUnits.change(id, { name: "Renamed" });
      const drift = await bu.read(made.id, updated.outs!);
      assert.equal(drift.inputs!.name, "Renamed");
      assert.equal(drift.inputs!.timeZone, "UTC");

      await bu.delete(made.id, updated.outs!);
      assert.deepEqual(await bu.read(made.id, updated.outs!), { id: "" });
    });

    it("delete of a business unit with children says what is left; adopt checks the id and the parent", async () => {
      await assert.rejects(bu.delete("2", {}), /business unit 2 still has child business units or consumers/);
      await assert.rejects(bu.create({ ...valid, adoptId: 999 }), /adoptId: no business unit 999 exists/);
      await assert.rejects(
        bu.create({ ...valid, parentId: 2, adoptId: 3 }),
        /business unit 3 is a child of 1, but parentId is 2; set parentId to 1/,
      );
      let mark = s.emu.requests().length;
      const same = await bu.create({ parentId: 1, adoptId: 3, name: "Tenant B", registrationNumber: "TB-0001", timeZone: "UTC" });
      assert.equal(same.id, "3");
      assert.deepEqual(writes(mark), [], "adopting what matches writes nothing");
      mark = s.emu.requests().length;
      await bu.create({ parentId: 1, adoptId: 3, name: "Tenant B2", registrationNumber: "TB-0001", timeZone: "UTC" });
      assert.deepEqual(writes(mark), ["PUT /v1/bunits/3"]);
      assert.equal((await s.client.businessUnits.get(3)).name, "Tenant B2");
    });
  });

  describe("Consumer", () => {
    it("check names bad inputs; diff replaces on businessUnitId and on a changed (not a new) nodeName", async () => {
      assert.deepEqual((await consumer.check({}, { businessUnitId: 1, name: "c" })).failures, []);
      const bad = await consumer.check(
        {},
        {
          businessUnitId: 0,
          name: "",
          note: 5,
          nodeName: "n".repeat(65),
          deletionComment: "d".repeat(1001),
          tags: "t",
          limitHighStorage: -1,
          allowNoActivity: "no",
          deleteAssociations: 1,
          adoptId: "x",
        },
      );
      assert.deepEqual(props(bad.failures), [
        "adoptId",
        "allowNoActivity",
        "businessUnitId",
        "deleteAssociations",
        "deletionComment",
        "limitHighStorage",
        "name",
        "nodeName",
        "note",
        "tags",
      ]);
      const o = { businessUnitId: 1, name: "c" };
      assert.deepEqual(await consumer.diff("5", o, { ...o }), { changes: false, replaces: [], deleteBeforeReplace: false });
      assert.deepEqual(await consumer.diff("5", o, { ...o, businessUnitId: 2 }), {
        changes: true,
        replaces: ["businessUnitId"],
        deleteBeforeReplace: false,
      });
      assert.deepEqual(await consumer.diff("5", o, { ...o, nodeName: "N1" }), { changes: true, replaces: [], deleteBeforeReplace: false });
      assert.deepEqual(await consumer.diff("5", { ...o, nodeName: "N1" }, { ...o, nodeName: "N2" }), {
        changes: true,
        replaces: ["nodeName"],
        deleteBeforeReplace: false,
      });
      assert.deepEqual(await consumer.diff("5", { ...o, nodeName: "N1" }, { ...o }), {
        changes: true,
        replaces: ["nodeName"],
        deleteBeforeReplace: false,
      });
      for (const k of ["note", "limitHighStorage", "allowNoActivity", "deleteAssociations", "deletionComment"]) {
        assert.deepEqual(
          await consumer.diff("5", o, { ...o, [k]: k === "note" || k === "deletionComment" ? "x" : 3 }),
          { changes: true, replaces: [], deleteBeforeReplace: false },
          k,
        );
      }
    });

    it("a consumer with a new nodeName starts its node's reads in Check; without one, none", async () => {
      const reads = (from: number) =>
        s.emu
          .requests()
          .slice(from)
          .filter((r) => r.path.includes("/defaultserver")).length;
      let mark = s.emu.requests().length;
      await consumer.check({}, { businessUnitId: 3, name: "c" });
      await consumer.check({ businessUnitId: 3, nodeName: "N" }, { businessUnitId: 3, name: "c", nodeName: "N" });
      await consumer.check({}, { businessUnitId: 3, name: "c", nodeName: UNKNOWN });
      await consumer.check({}, { businessUnitId: 2, name: "", nodeName: "N" });
      mark = s.emu.requests().length;
      await consumer.check({}, { businessUnitId: 2, name: "c", nodeName: "N" });
      for (let i = 0; i < 100 && reads(mark) < 3; i++) await new Promise((r) => setTimeout(r, 20));
      assert.equal(reads(mark), 3, "default server, its domains and option sets");
      const all = s.emu
        .requests()
        .map((r) => r.path)
        .filter((p) => p.includes("/defaultserver"));
      assert.ok(
        all.every((p) => p.startsWith("/v1/bunits/2/")),
        all.join(),
      );
    });

    it("create, read, update, delete with the deletion comment; adopt", async () => {
      const inputs = {
        businessUnitId: 2,
        name: "c1",
        note: "n",
        tags: ["t"],
        limitHighStorage: 10,
        allowNoActivity: true,
        deletionComment: "bye now",
        deleteAssociations: false,
      };
      const made = await consumer.create(inputs);
      const id = Number(made.id);
      assert.equal(made.outs.consumerId, id);
      const got = await s.client.consumers.get(2, id);
      assert.deepEqual([got.name, got.note, got.tags, got.limitHighStorage, got.allowNoActivity], ["c1", "n", ["t"], 10, true]);
      const read = await consumer.read(made.id, made.outs);
      assert.deepEqual(read.inputs, {
        businessUnitId: 2,
        name: "c1",
        note: "n",
        tags: ["t"],
        limitHighStorage: 10,
        allowNoActivity: true,
        deletionComment: "bye now",
        deleteAssociations: false,
      });
      let mark = s.emu.requests().length;
      await consumer.update(made.id, made.outs, { ...inputs, deletionComment: "other" });
      assert.deepEqual(writes(mark), [], "a local input alone needs no API call");
      mark = s.emu.requests().length;
      const upd = await consumer.update(made.id, made.outs, { ...inputs, note: undefined, name: "c2" });
      assert.deepEqual(writes(mark), [`PUT /v1/bunits/2/consumers/${id}`]);
      assert.equal(upd.outs!.consumerId, id);
      assert.deepEqual([(await s.client.consumers.get(2, id)).name, (await s.client.consumers.get(2, id)).note ?? ""], ["c2", ""]);
      mark = s.emu.requests().length;
      await consumer.delete(made.id, { ...made.outs, deletionComment: "bye now", deleteAssociations: false });
      const del = s.emu
        .requests()
        .slice(mark)
        .find((r) => r.method === "DELETE")!;
      assert.match(del.path, /deletionComment=bye(\+|%20)now/);
      assert.match(del.path, /deleteAssociations=false/);
      assert.deepEqual(await consumer.read(made.id, made.outs), { id: "" });
      await consumer.delete(made.id, made.outs); // gone already: fine

      await assert.rejects(
        consumer.create({ businessUnitId: 2, name: "x", adoptId: 3 }),
        /adoptId: no consumer 3 exists in business unit 2/,
      );
      mark = s.emu.requests().length;
      const adopted = await consumer.create({ businessUnitId: 2, name: "web-01", adoptId: 1 });
      assert.equal(adopted.id, "1");
      assert.deepEqual(writes(mark), []);
    });
  });

  describe("Node", () => {
    const n = { businessUnitId: 2, consumerId: 2, operatingSystem: "Linux", type: "Application server", domain: "30DAYS", cpuCount: 2 };

    it("check names bad inputs, never echoes a password, and resolves names in the node's business unit", async () => {
      assert.deepEqual(
        (await node.check({}, { ...n, clientOptionSet: "DEDUP_AND_COMPRESS", tsmName: "ok-1", tsmPassword: "p".repeat(64) })).failures,
        [],
      );
      const secret = "Never-Echo-This-Pa55word-".padEnd(70, "x");
      const bad = await node.check(
        {},
        {
          businessUnitId: "b",
          consumerId: -1,
          operatingSystem: "Linuxx",
          type: "Toaster",
          domain: "FOREVER",
          clientOptionSet: "NOPE",
          cpuCount: 0,
          contact: "c".repeat(501),
          tsmName: "bad name!",
          tsmPassword: secret,
          adoptId: "q",
        },
      );
      // Domains and option sets belong to a business unit's server: not looked up without a valid one.
      // adoptId is both no id and not consumerId.
      assert.deepEqual(props(bad.failures), [
        "adoptId",
        "adoptId",
        "businessUnitId",
        "consumerId",
        "contact",
        "cpuCount",
        "operatingSystem",
        "tsmName",
        "tsmPassword",
        "type",
      ]);
      assert.ok(!JSON.stringify(bad.failures).includes("Never-Echo"), "the password is not echoed");
      const refs = await node.check({}, { ...n, operatingSystem: "Linuxx", type: "Toaster", domain: "FOREVER", clientOptionSet: "NOPE" });
      assert.deepEqual(props(refs.failures), ["clientOptionSet", "domain", "operatingSystem", "type"]);
      assert.match(reasonOf(refs.failures, "operatingSystem"), /unknown operating system "Linuxx"; valid: .*Linux/);
      assert.deepEqual(props((await node.check({}, { ...n, tsmPassword: "", tsmName: 5, adoptId: 9 })).failures), [
        "adoptId",
        "tsmName",
        "tsmPassword",
      ]);
      assert.match(reasonOf((await node.check({}, { ...n, adoptId: 9 })).failures, "adoptId"), /adoptId must equal consumerId \(2\)/);
      assert.deepEqual(
        (await node.check({}, { ...n, adoptId: 2, tsmName: UNKNOWN, tsmPassword: UNKNOWN, cpuCount: UNKNOWN, consumerId: UNKNOWN }))
          .failures,
        [],
      );
      assert.deepEqual(props((await node.check({}, { businessUnitId: 2, consumerId: 2 })).failures), [
        "cpuCount",
        "domain",
        "operatingSystem",
        "type",
      ]);
    });

    it("a new name for an activated node on the same consumer is refused by Check, before anything is deleted", async () => {
      // Consumer 1's node is activated as WEB-01 on the portal (the seed).
      const web = { ...n, consumerId: 1 };
      const olds = { ...web, tsmName: "WEB-01" };
      const refused = await node.check(olds, { ...web, tsmName: "WEB2" });
      assert.deepEqual(props(refused.failures), ["tsmName"]);
      assert.match(reasonOf(refused.failures, "tsmName"), /the node is activated as WEB-01 .* or set tsmName back to "WEB-01"/);
      assert.deepEqual((await node.check(olds, { ...web, tsmName: "web-01" })).failures, [], "case-blind");
      assert.deepEqual(
        (await node.check(olds, { ...web, consumerId: 7, tsmName: "WEB2" })).failures,
        [],
        "a new consumer carries the new name",
      );
      assert.deepEqual((await node.check({ ...web }, { ...web, tsmName: "WEB2" })).failures, [], "not activated yet");
      assert.deepEqual((await node.check(olds, { ...web, tsmName: UNKNOWN })).failures, []);
      // Consumer 2's node was never activated: an old name its activation did not get (taken by another node) is no
      // rename, and another one is the way out (issue 45 item 7).
      assert.deepEqual((await node.check({ ...n, tsmName: "WEB-01" }, { ...n, tsmName: "DB-01" })).failures, []);
    });

    it("diff: consumer or business unit replace; names compare case-blind; a new name is a change", async () => {
      const o = { ...n, tsmName: "WEB1", activatedName: "WEB1", tsmPassword: "a" };
      assert.deepEqual(await node.diff("2", o, { ...n, tsmName: "web1", tsmPassword: "a" }), {
        changes: false,
        replaces: [],
        deleteBeforeReplace: false,
      });
      assert.deepEqual(await node.diff("2", o, { ...n, tsmName: "WEB1", tsmPassword: "b", cpuCount: 3 }), {
        changes: true,
        replaces: [],
        deleteBeforeReplace: false,
      });
      assert.deepEqual(await node.diff("2", o, { ...n, consumerId: 7, tsmName: "WEB2", tsmPassword: "a" }), {
        changes: true,
        replaces: ["consumerId"],
        deleteBeforeReplace: false,
      });
      assert.deepEqual((await node.diff("2", o, { ...n, businessUnitId: 3, tsmName: "WEB1", tsmPassword: "a" })).replaces, [
        "businessUnitId",
      ]);
      assert.deepEqual(
        await node.diff("2", o, { ...n, tsmName: "WEB2", tsmPassword: "a" }),
        { changes: true, replaces: [], deleteBeforeReplace: false },
        "a change (Check refuses it; a refresh shows it)",
      );
      assert.equal(
        (await node.diff("2", { ...n, tsmName: "A" }, { ...n, tsmName: "A" })).changes,
        true,
        "a name not yet activated is a change to finish",
      );
      assert.equal((await node.diff("2", { ...n }, { ...n })).changes, false);
      assert.equal((await node.diff("2", o, { ...n, tsmPassword: "a" })).changes, false, "dropping tsmName changes nothing");
      for (const k of ["operatingSystem", "type", "domain", "clientOptionSet", "contact", "cpuCount"]) {
        assert.deepEqual(await node.diff("2", { ...n }, { ...n, [k]: 9 }), { changes: true, replaces: [], deleteBeforeReplace: false }, k);
      }
    });

    it("create with password and activation, read, update, delete", async () => {
      const pw = "Node-Lifecycle-Pa55word-11aa";
      const c = await s.client.consumers.create(2, { name: "fresh" });
      const inputs = { ...n, consumerId: c.id, clientOptionSet: "FORCE_ENCRYPT", contact: "a@b.c", tsmName: "db-01x", tsmPassword: pw };
      let mark = s.emu.requests().length;
      const made = await node.create(inputs);
      assert.equal(made.id, String(c.id));
      assert.deepEqual(writes(mark), [`POST /v1/bunits/2/consumers/${c.id}/node`, `POST /v1/bunits/2/consumers/${c.id}/node/password`]);
      const o = made.outs;
      assert.deepEqual(
        [o.activatedName, o.operatingSystemId, o.typeId, o.domainId, o.clientOptionSetId, o.serverId],
        ["DB-01X", 3, 3, 2, 3, 1],
      );
      assert.ok(o.nodeId);
      const read = await node.read(made.id, o);
      assert.equal(read.id, made.id);
      assert.deepEqual({ ...read.inputs, tsmPassword: undefined }, { ...inputs, tsmPassword: undefined });
      assert.equal(read.inputs!.tsmPassword, pw, "the password is never read back as drift");

      mark = s.emu.requests().length;
      const upd = await node.update(made.id, o, { ...inputs, domain: "STANDARD", contact: undefined });
      assert.deepEqual(writes(mark), [`PUT /v1/bunits/2/consumers/${c.id}/node`]);
      assert.deepEqual([upd.outs!.domainId, upd.outs!.clientOptionSetId, upd.outs!.contact], [1, 3, undefined]);
      const now = await s.client.nodes.get(2, c.id);
      assert.deepEqual([now.domain?.id, now.clientOptionSet?.id, now.contact ?? ""], [1, 3, ""]);
      mark = s.emu.requests().length;
      await node.update(made.id, upd.outs!, { ...inputs, domain: "STANDARD", contact: undefined, tsmPassword: "Another-Pa55word-22bb" });
      assert.deepEqual(writes(mark), [`POST /v1/bunits/2/consumers/${c.id}/node/password`]);

      await s.client.nodes.change(2, c.id, { cpuCount: 16 });
      assert.equal((await node.read(made.id, upd.outs!)).inputs!.cpuCount, 16);
      await node.delete(made.id, upd.outs!);
      assert.deepEqual(await node.read(made.id, upd.outs!), { id: "" });
    });

    it("create on a consumer with a node: takes over a matching one, refuses another; adopt", async () => {
      await assert.rejects(node.create({ ...n, consumerId: 99 }), /consumerId: consumer 99 does not exist in business unit 2/);
      const mark = s.emu.requests().length;
      const adopted = await node.create({
        businessUnitId: 2,
        consumerId: 1,
        adoptId: 1,
        operatingSystem: "Linux",
        type: "File server",
        domain: "STANDARD",
        cpuCount: 4,
        clientOptionSet: "DEDUP_AND_COMPRESS",
      });
      assert.deepEqual(writes(mark), [], "the adopted node matches: nothing written");
      assert.equal(adopted.outs.activatedName, "WEB-01");
      await node.create({
        businessUnitId: 2,
        consumerId: 1,
        adoptId: 1,
        operatingSystem: "Linux",
        type: "File server",
        domain: "STANDARD",
        cpuCount: 5,
      });
      assert.equal((await s.client.nodes.get(2, 1)).cpuCount, 5);
      await assert.rejects(
        node.create({
          businessUnitId: 2,
          consumerId: 1,
          adoptId: 1,
          operatingSystem: "Linux",
          type: "File server",
          domain: "STANDARD",
          cpuCount: 5,
          tsmName: "NEW",
        }),
        /never renames a node/,
      );
      await assert.rejects(
        node.create({ ...n, consumerId: 1, tsmName: "OTHER" }),
        /consumer 1 already has a node activated as WEB-01; to manage it, set adoptId: 1/,
      );
      const taken = await node.create({ ...n, consumerId: 1, tsmName: "web-01" });
      assert.equal(taken.outs.activatedName, "WEB-01");
      assert.equal((await s.client.nodes.get(2, 1)).type?.id, 3, "taken over and brought to the inputs");
    });
  });

  describe("NodeProxy", () => {
    it("check refuses a node as its own proxy; create, read, delete; gone is gone", async () => {
      const ok = await proxy.check({}, { businessUnitId: 2, agentConsumerId: 1, targetConsumerId: 2 });
      assert.deepEqual(ok.failures, []);
      assert.deepEqual(props((await proxy.check({}, { businessUnitId: 2, agentConsumerId: 1, targetConsumerId: 1 })).failures), [
        "targetConsumerId",
      ]);
      assert.deepEqual(props((await proxy.check({}, { businessUnitId: "x" })).failures), [
        "agentConsumerId",
        "businessUnitId",
        "targetConsumerId",
      ]);
      assert.deepEqual((await proxy.check({}, { businessUnitId: 2, agentConsumerId: UNKNOWN, targetConsumerId: UNKNOWN })).failures, []);

      await s.client.nodes
        .create(2, 2, { operatingSystem: { id: 3 }, type: { id: 1 }, domain: { id: 1 }, cpuCount: 1 })
        .catch(() => undefined);
      const inputs = { businessUnitId: 2, agentConsumerId: 1, targetConsumerId: 2 };
      const made = await proxy.create(inputs);
      assert.equal(made.id, "1:2");
      // The outputs record the portal and account (dynamic/portal-guard.ts).
      const outs = { ...inputs, portal: `${s.emu.url}|admin` };
      assert.deepEqual(made.outs, outs);
      assert.ok(proxyPeers((await s.client.nodes.get(2, 2)).proxyAgents).some((p) => p.id === 1));
      const read = await proxy.read(made.id, made.outs);
      assert.deepEqual(read, { id: "1:2", props: outs, inputs });
      assert.deepEqual((await proxy.update(made.id, inputs, inputs)).outs, outs);
      await proxy.delete(made.id, made.outs);
      assert.equal(proxyPeers((await s.client.nodes.get(2, 2)).proxyAgents).length, 0);
      assert.deepEqual(await proxy.read(made.id, made.outs), { id: "" });
      await proxy.delete(made.id, made.outs); // gone already: fine
      assert.deepEqual(await proxy.read("1:99", { businessUnitId: 2, agentConsumerId: 1, targetConsumerId: 99 }), { id: "" });
    });

    it("NodeProxy adopt: an existing relation is taken over without a POST; a missing one is made", async () => {
      await s.client.nodes
        .create(2, 2, { operatingSystem: { id: 3 }, type: { id: 1 }, domain: { id: 1 }, cpuCount: 1 })
        .catch(() => undefined);
      const inputs = { businessUnitId: 2, agentConsumerId: 1, targetConsumerId: 2, adopt: true };
      let mark = s.emu.requests().length;
      await proxy.create(inputs);
      assert.deepEqual(writes(mark), ["POST /v1/bunits/2/consumers/2/node/proxyagents"], "missing: made");
      mark = s.emu.requests().length;
      const again = await proxy.create(inputs);
      assert.deepEqual(writes(mark), [], "present: adopted, nothing sent");
      assert.equal(again.id, "1:2");
      mark = s.emu.requests().length;
      await proxy.create({ ...inputs, adopt: false });
      assert.deepEqual(writes(mark), ["POST /v1/bunits/2/consumers/2/node/proxyagents"], "without adopt: posted as before");
    });
  });
});
