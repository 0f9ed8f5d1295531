// Consumer, Node and NodeProxy through the real provider host against the emulator.
import assert from "node:assert/strict";
import { ref } from "../engine/engine";
import { consumer, node, nodeProxy, ops, portalSuite, writesSince } from "./support";
import { proxyPeers } from "../../provider/portal";

describe("Consumer, Node and NodeProxy providers", function () {
  this.timeout(180_000); // an up is two deployments, each starting a host
  const p = portalSuite();

  const nodeInputs = (extra: Record<string, unknown> = {}) => ({
    businessUnitId: 1,
    consumerId: ref("web", "consumerId"),
    operatingSystem: "Linux",
    type: "File server",
    domain: "STANDARD",
    clientOptionSet: "DEDUP_AND_COMPRESS",
    contact: "ops@example.com",
    cpuCount: 2,
    ...extra,
  });
  const stack = (nodeExtra: Record<string, unknown> = {}, consumerExtra: Record<string, unknown> = {}) => [
    consumer("web", { businessUnitId: 1, name: "web01", ...consumerExtra }),
    node("web-node", nodeInputs(nodeExtra)),
  ];

  it("consumer: create, unchanged up, update, drift, adopt, delete", async () => {
    const eng = p.engine();
    const r = await eng.up([consumer("c", { businessUnitId: 1, name: "c1", note: "n", tags: ["t"] })]);
    const id = Number(r.ids.c);
    assert.equal(eng.get("c")!.outputs.consumerId, id);
    const got = await p.client.consumers.get(1, id);
    assert.deepEqual([got.name, got.note, got.tags], ["c1", "n", ["t"]]);

    let mark = p.emu.requests().length;
    assert.deepEqual(ops((await eng.up([consumer("c", { businessUnitId: 1, name: "c1", note: "n", tags: ["t"] })])).steps), { c: "same" });
    assert.deepEqual(writesSince(p.emu, mark), []);

    mark = p.emu.requests().length;
    await eng.up([consumer("c", { businessUnitId: 1, name: "c1", note: "m", tags: ["t"], deletionComment: "bye" })]);
    assert.deepEqual(
      writesSince(p.emu, mark).map((w) => w.method),
      ["PUT"],
      "deletionComment alone needs no API call",
    );
    assert.equal((await p.client.consumers.get(1, id)).note, "m");

    await p.client.consumers.update(1, id, { name: "renamed in UI" });
    assert.equal((await eng.refresh())[0].op, "update");
    assert.deepEqual(
      (await eng.preview([consumer("c", { businessUnitId: 1, name: "c1", note: "m", tags: ["t"], deletionComment: "bye" })]))[0].diffs,
      ["name"],
    );
    await eng.up([consumer("c", { businessUnitId: 1, name: "c1", note: "m", tags: ["t"], deletionComment: "bye" })]);
    assert.equal((await p.client.consumers.get(1, id)).name, "c1", "drift undone");

    const existing = await p.client.consumers.create(1, { name: "legacy" });
    const adopted = await eng.up([
      consumer("c", { businessUnitId: 1, name: "c1", note: "m", tags: ["t"], deletionComment: "bye" }),
      consumer("legacy", { businessUnitId: 1, name: "legacy", note: "managed", adoptId: existing.id }),
    ]);
    assert.equal(adopted.ids.legacy, String(existing.id));
    assert.equal((await p.client.consumers.list(1)).filter((x) => x.name === "legacy").length, 1);
    assert.equal(
      (await eng.refresh()).every((s) => s.op === "same"),
      true,
    );

    await eng.destroy();
    assert.equal((await p.client.consumers.list(1)).filter((x) => ["c1", "legacy"].includes(x.name!)).length, 0);
    const log = p.emu
      .requests()
      .filter((x) => x.method === "DELETE")
      .map((x) => x.path);
    assert.ok(
      log.some((p) => p.includes("deletionComment=bye")),
      "the deletion comment reaches the portal",
    );
  });

  it("node: create with password and activation, no plaintext password in state", async () => {
    const eng = p.engine();
    const mark = p.emu.requests().length;
    const r = await eng.up(
      stack({
        tsmName: "web-01-acme",
        tsmPassword: { "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270", value: "N0de-Pa55word" },
      }),
    );
    const cid = Number(r.ids.web);
    const outs = eng.get("web-node")!;
    assert.equal(r.ids["web-node"], String(cid), "a node's id is its consumer's id");
    const n = await p.client.nodes.get(1, cid);
    assert.equal(n.tsmName, "WEB-01-ACME");
    assert.equal(n.operatingSystem?.id, 3);
    assert.equal(n.clientOptionSet?.id, 2);
    const written = writesSince(p.emu, mark).map((w) => `${w.method} ${w.path.replace(/\d+/g, "N").replace(/\?.*/, "")}`);
    assert.deepEqual(
      written,
      [
        "POST /vN/bunits/N/consumers",
        "POST /vN/bunits/N/consumers/N/node",
        "POST /vN/bunits/N/consumers/N/node/password",
        "GET /vN/bunits/N/consumers/N/node/activate",
      ],
      "the fewest writes the API allows",
    );
    const o = outs.outputs as Record<string, unknown>;
    assert.equal(o.activatedName, "WEB-01-ACME");
    assert.equal(o.operatingSystemId, 3);
    assert.equal(o.typeId, 1);
    assert.equal(o.domainId, 1);
    assert.equal(o.clientOptionSetId, 2);
    const state = eng.stateJson();
    assert.ok(!state.includes("N0de-Pa55word"), "the password is stored only as a secret");
    assert.ok(/tsmPassword"\s*:\s*\{\s*"4dabf18193072939515e22adb298388d"/.test(state), "tsmPassword is a secret in state");
  });

  it("node: updates in place, changes the password, never reports password drift, replaces on rename with a new consumer", async () => {
    const eng = p.engine();
    const pw = (v: string) => ({ "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270", value: v });
    await eng.up(stack({ tsmName: "WEB01", tsmPassword: pw("first-pass") }));
    let mark = p.emu.requests().length;
    const upd = await eng.up(stack({ tsmName: "web01", tsmPassword: pw("first-pass"), contact: "new@example.com", cpuCount: 4 }));
    assert.deepEqual(ops(upd.steps), { web: "same", "web-node": "update" });
    assert.deepEqual(
      writesSince(p.emu, mark).map((w) => w.method),
      ["PUT"],
      "lower-case tsmName is the same name",
    );

    mark = p.emu.requests().length;
    await eng.up(stack({ tsmName: "WEB01", tsmPassword: pw("second-pass"), contact: "new@example.com", cpuCount: 4 }));
    assert.deepEqual(
      writesSince(p.emu, mark).map((w) => w.path.replace(/\d+/g, "N")),
      ["/vN/bunits/N/consumers/N/node/password"],
    );

    const refreshed = await eng.refresh();
    assert.ok(
      refreshed.every((s) => s.op === "same"),
      `a rotated password is not drift: ${JSON.stringify(refreshed)}`,
    );
    assert.deepEqual(
      ops(await eng.preview(stack({ tsmName: "WEB01", tsmPassword: pw("second-pass"), contact: "new@example.com", cpuCount: 4 }))),
      { web: "same", "web-node": "same" },
    );

    // Drift on the node: changed on the portal, seen on refresh, undone by up.
    const cid = Number(eng.get("web-node")!.id);
    await p.client.nodes.update(1, cid, { cpuCount: 16, domain: { id: 2 } });
    await eng.refresh();
    const plan = await eng.preview(stack({ tsmName: "WEB01", tsmPassword: pw("second-pass"), contact: "new@example.com", cpuCount: 4 }));
    assert.deepEqual([...plan.find((s) => s.urn.includes("Node"))!.diffs].sort(), ["cpuCount", "domain"]);
    await eng.up(stack({ tsmName: "WEB01", tsmPassword: pw("second-pass"), contact: "new@example.com", cpuCount: 4 }));
    const fixed = await p.client.nodes.get(1, cid);
    assert.deepEqual([fixed.cpuCount, fixed.domain?.id], [4, 1]);

    // A new name on an activated node: the node is replaced, and with the
    // consumer's nodeName the consumer too (the portal deletes both together).
    const renamed = await eng.preview(stack({ tsmName: "WEB02", contact: "new@example.com", cpuCount: 4 }, { nodeName: "WEB02" }));
    assert.equal(renamed.find((s) => s.urn.includes("Node"))!.op, "replace");
    // Without a new consumer there is no way: the preview and the up say so, and nothing is deleted.
    const alone = stack({ tsmName: "WEB02", tsmPassword: pw("second-pass"), contact: "new@example.com", cpuCount: 4 });
    const refusal = /tsmName: the node is activated as WEB01 .* give the Consumer that carries it the new name as nodeName/;
    await assert.rejects(eng.preview(alone), refusal);
    mark = p.emu.requests().length;
    await assert.rejects(eng.up(alone), refusal);
    assert.deepEqual(writesSince(p.emu, mark), [], "nothing deleted");
    assert.equal((await p.client.nodes.get(1, cid)).tsmName, "WEB01");
    await eng.up(
      stack({ tsmName: "WEB01", tsmPassword: pw("second-pass"), contact: "new@example.com", cpuCount: 4 }, { nodeName: "WEB01" }),
    );
    const r2 = await eng.up(stack({ tsmName: "WEB02", contact: "new@example.com", cpuCount: 4 }, { nodeName: "WEB02" }));
    assert.equal(r2.steps.find((s) => s.urn.includes("Consumer"))!.op, "replace");
    const newId = Number(r2.ids.web);
    assert.notEqual(newId, cid);
    assert.equal((await p.client.nodes.get(1, newId)).tsmName, "WEB02");
    assert.equal(await p.client.nodes.find(1, cid), undefined, "the old node is gone");
    assert.equal((await p.client.consumers.list(1)).filter((c) => c.name === "web01").length, 1, "no consumer left behind");
  });

  it("node: adopts an existing node and verifies it", async () => {
    const c = await p.client.consumers.create(1, { name: "legacy" });
    await p.client.nodes.create(1, c.id, { operatingSystem: { id: 3 }, type: { id: 1 }, domain: { id: 1 }, cpuCount: 1 });
    await p.client.nodes.activate(1, c.id, "LEGACY01");
    const eng = p.engine();
    const mark = p.emu.requests().length;
    await eng.up([
      consumer("legacy", { businessUnitId: 1, name: "legacy", adoptId: c.id }),
      node("legacy-node", {
        businessUnitId: 1,
        consumerId: c.id,
        adoptId: c.id,
        operatingSystem: "Linux",
        type: "File server",
        domain: "STANDARD",
        cpuCount: 2,
        tsmName: "legacy01",
      }),
    ]);
    assert.deepEqual(
      writesSince(p.emu, mark).map((w) => w.method),
      ["PUT"],
      "only cpuCount differed",
    );
    assert.equal(eng.get("legacy-node")!.outputs.activatedName, "LEGACY01");
    const refreshed = await eng.refresh();
    assert.ok(
      refreshed.every((s) => s.op === "same"),
      JSON.stringify(refreshed),
    );
    await assert.rejects(
      p.engine().up([
        node("x", {
          businessUnitId: 1,
          consumerId: c.id,
          adoptId: c.id,
          operatingSystem: "Linux",
          type: "File server",
          domain: "STANDARD",
          cpuCount: 2,
          tsmName: "OTHER",
        }),
      ]),
      /never renames a node/,
    );
  });

  it("node: a failed activation keeps the node in state and the next up finishes it", async () => {
    const other = await p.client.consumers.create(1, { name: "holder" });
    await p.client.nodes.create(1, other.id, { operatingSystem: { id: 3 }, type: { id: 1 }, domain: { id: 1 }, cpuCount: 1 });
    await p.client.nodes.activate(1, other.id, "TAKEN");
    const eng = p.engine();
    await assert.rejects(eng.up(stack({ tsmName: "TAKEN" })), /kept in state/);
    const held = eng.get("web-node");
    assert.ok(held && held.id, "the created node is recorded");
    await p.client.nodes.delete(1, other.id);
    const r = await eng.up(stack({ tsmName: "TAKEN" }));
    assert.equal(ops(r.steps)["web-node"], "update");
    assert.equal((await p.client.nodes.get(1, Number(r.ids.web))).tsmName, "TAKEN");
    assert.equal((await p.client.consumers.list(1)).filter((c) => c.name === "web01").length, 1);
  });

  // The engine calls Diff on a refresh too (step.go, RefreshStep): there a name other than the declared one is drift, not an error.
  it("node: activated under another name on the portal, a refresh shows drift, and the next up is refused by Check", async () => {
    const other = await p.client.consumers.create(1, { name: "holder" });
    await p.client.nodes.create(1, other.id, { operatingSystem: { id: 3 }, type: { id: 1 }, domain: { id: 1 }, cpuCount: 1 });
    await p.client.nodes.activate(1, other.id, "TAKEN");
    const eng = p.engine();
    await assert.rejects(eng.up(stack({ tsmName: "TAKEN" })), /kept in state/);
    const cid = Number(eng.get("web-node")!.id);
    await p.client.nodes.activate(1, cid, "ELSEWHERE");
    const refreshed = await eng.refresh();
    assert.equal(ops(refreshed)["web-node"], "update", "drift, and no Diff that throws");
    const mark = p.emu.requests().length;
    await assert.rejects(eng.up(stack({ tsmName: "TAKEN" })), /check failed: tsmName: tsmName: the node is activated as ELSEWHERE/);
    assert.deepEqual(writesSince(p.emu, mark), []);
  });

  it("proxy: create, visible from both sides, drift, delete", async () => {
    const eng = p.engine();
    const resources = [
      ...stack(),
      consumer("agent", { businessUnitId: 1, name: "agent" }),
      node("agent-node", { ...nodeInputs(), consumerId: ref("agent", "consumerId") }),
      {
        ...nodeProxy("agent>web", {
          businessUnitId: 1,
          agentConsumerId: ref("agent", "consumerId"),
          targetConsumerId: ref("web", "consumerId"),
        }),
        dependsOn: ["web-node", "agent-node"],
      },
    ];
    const r = await eng.up(resources);
    const [agentId, webId] = [Number(r.ids.agent), Number(r.ids.web)];
    assert.equal(r.ids["agent>web"], `${agentId}:${webId}`);
    assert.ok(proxyPeers((await p.client.nodes.get(1, webId)).proxyAgents).some((p) => p.id === agentId));
    assert.ok(proxyPeers((await p.client.nodes.get(1, agentId)).proxyTargets).some((p) => p.id === webId));
    assert.ok((await eng.refresh()).every((s) => s.op === "same"));

    await p.client.nodes.removeProxyAgent(1, webId, agentId);
    const refreshed = await eng.refresh();
    assert.equal(refreshed.find((s) => s.urn.includes("NodeProxy"))!.op, "delete", "drift: the relation is gone");
    await eng.up(resources);
    assert.ok(
      proxyPeers((await p.client.nodes.get(1, webId)).proxyAgents).some((p) => p.id === agentId),
      "re-created",
    );

    await eng.up(resources.slice(0, 4));
    assert.equal(proxyPeers((await p.client.nodes.get(1, webId)).proxyAgents).length, 0);
  });

  it("check names the field and the reason, accepts unknowns, and writes nothing", async () => {
    const eng = p.engine();
    const host = await eng.getHost();
    const mark = p.emu.requests().length;
    const { nodeProviderText: provider } = await import("../../provider/resources/node");
    const bad = await host.check(
      "urn:pulumi:test::backup-portal::x::n",
      {},
      {
        businessUnitId: 1,
        consumerId: 2,
        operatingSystem: "Linuxx",
        type: "File server",
        domain: "STANDARD",
        cpuCount: 0,
        tsmName: "bad name!",
        tsmPassword: "",
        __provider: provider,
      },
    );
    const failures = Array.isArray(bad?.failures) ? bad.failures : [];
    const byProp = Object.fromEntries(failures.map((f: { property: string; reason: string }) => [f.property, f.reason]));
    assert.match(byProp.operatingSystem ?? "", /unknown operating system "Linuxx"; valid: /);
    for (const name of ["Linux", "Windows server"]) assert.ok(byProp.operatingSystem.includes(name), name);
    assert.match(byProp.cpuCount ?? "", /integer from 1 to 4096, got 0/);
    assert.match(byProp.tsmName ?? "", /" "|"!"/);
    assert.match(byProp.tsmPassword ?? "", /1 to 64/);
    const unknown = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";
    const preview = await host.check(
      "urn:pulumi:test::backup-portal::x::n",
      {},
      {
        businessUnitId: unknown,
        consumerId: unknown,
        operatingSystem: "Linux",
        type: "File server",
        domain: unknown,
        cpuCount: 2,
        tsmName: unknown,
        tsmPassword: unknown,
        __provider: provider,
      },
      { preview: true },
    );
    assert.deepEqual(preview.failures, [], "unknown values pass during preview");
    assert.deepEqual(writesSince(p.emu, mark), []);
  });

  it("a consumer's Check with a nodeName starts the reads its node's Check needs, so that one waits for nothing", async () => {
    const eng = p.engine();
    const host = await eng.getHost();
    const { consumerProviderText: consumerText } = await import("../../provider/resources/consumer");
    const { nodeProviderText: nodeText } = await import("../../provider/resources/node");
    const reads = (from: number) =>
      p.emu
        .requests()
        .slice(from)
        .filter((r) => r.path !== "/v1/oauth")
        .map((r) => `${r.method} ${r.path}`)
        .sort();

    let mark = p.emu.requests().length;
    await host.check(
      "urn:pulumi:test::backup-portal::x::c",
      {},
      { businessUnitId: 2, name: "c", nodeName: "PRE-1", __provider: consumerText },
    );
    const expected = [
      "GET /v1/bunits/2/defaultserver",
      "GET /v1/bunits/2/defaultserver/clientoptionsets",
      "GET /v1/bunits/2/defaultserver/domains",
      "GET /v1/nodeoperatingsystems",
      "GET /v1/nodetypes",
    ];
    for (let i = 0; i < 50 && reads(mark).length < expected.length; i++) await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(reads(mark), expected, "the consumer's Check read what a node in business unit 2 needs, once each");

    mark = p.emu.requests().length;
    const checked = await host.check(
      "urn:pulumi:test::backup-portal::x::n",
      {},
      {
        businessUnitId: 2,
        consumerId: 99,
        operatingSystem: "Linux",
        type: "File server",
        domain: "STANDARD",
        clientOptionSet: "DEDUP_AND_COMPRESS",
        cpuCount: 1,
        tsmName: "PRE-1",
        __provider: nodeText,
      },
    );
    assert.deepEqual(checked.failures, []);
    assert.deepEqual(reads(mark), [], "the node's Check found everything read");

    mark = p.emu.requests().length;
    await host.check(
      "urn:pulumi:test::backup-portal::x::c2",
      { businessUnitId: 2, name: "c", nodeName: "PRE-2" },
      { businessUnitId: 2, name: "c2", nodeName: "PRE-2", __provider: consumerText },
    );
    await host.check("urn:pulumi:test::backup-portal::x::c3", {}, { businessUnitId: 3, name: "c3", __provider: consumerText });
    // A check that does read, after them: once its reads have arrived, any read of the two before would have too.
    await host.check(
      "urn:pulumi:test::backup-portal::x::c4",
      {},
      { businessUnitId: 1, name: "c4", nodeName: "PRE-4", __provider: consumerText },
    );
    const probe = [
      "GET /v1/bunits/1/defaultserver",
      "GET /v1/bunits/1/defaultserver/clientoptionsets",
      "GET /v1/bunits/1/defaultserver/domains",
    ];
    for (let i = 0; i < 250 && reads(mark).length < probe.length; i++) await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(reads(mark), probe, "no read for an unchanged node name, nor for a consumer without a node");
  });

  it("values cleared on the portal (a consumer's note, a node's contact) are put back by the next up", async () => {
    const eng = p.engine();
    const resources = stack({}, { note: "declared" });
    const r = await eng.up(resources);
    const consumerId = Number(r.ids.web);
    await p.client.consumers.update(1, consumerId, { note: null } as never);
    await p.client.nodes.update(1, consumerId, { contact: null } as never);
    const refreshed = await eng.refresh();
    assert.deepEqual(refreshed.map((s) => s.op).sort(), ["update", "update"]);
    assert.equal(eng.get("web")!.outputs.note, undefined);
    assert.equal(eng.get("web-node")!.outputs.contact, undefined);
    const { steps } = await eng.up(resources);
    assert.deepEqual(steps.map((s) => `${s.op}:${s.diffs.join(",")}`).sort(), ["update:contact", "update:note"]);
    assert.equal((await p.client.consumers.get(1, consumerId)).note, "declared");
    assert.equal((await p.client.nodes.get(1, consumerId)).contact, "ops@example.com");
  });
});
