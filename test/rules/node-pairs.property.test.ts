// The portal's pairs of operating system and node type (provider/rules/node-pairs.ts): the rule on any list a portal
// may answer, and the rule against the emulator over HTTP, which refuses a pair its list does not hold (as a portal
// that enforces the pairs would): the node's Check refuses exactly the pairs the emulator's create and update refuse.
import assert from "node:assert/strict";
import fc from "fast-check";
import { firstValidPair, nodePairProblem, PairItem, PairOperatingSystem, supportedTypes } from "../../provider/rules/node-pairs";
import { nodeLifecycle } from "../../provider/resources/node";
import { resetConnection } from "../../provider/dynamic/connection";
import { PortalError } from "../../provider/portal";
import { clientFor, Emulator, envFor, startEmulator } from "../support/portal";

const item = fc.record({ id: fc.integer({ min: 1, max: 6 }), name: fc.option(fc.string({ maxLength: 12 }), { nil: undefined }) });
/** What a portal may answer as supportedNodeTypes: absent, a list (maybe empty, maybe with entries that are no type), or junk. */
const supported = fc.oneof(
  fc.constant(undefined),
  fc.array(item, { maxLength: 4 }),
  fc.array(fc.oneof(item, fc.constant(null), fc.constant("File server"), fc.record({ name: fc.string() })), { maxLength: 4 }),
  fc.constant("File server"),
);
const os: fc.Arbitrary<PairOperatingSystem> = fc
  .record({ base: item, supportedNodeTypes: supported })
  .map(({ base, supportedNodeTypes }) => ({ ...base, supportedNodeTypes }));

describe("rules: a node's operating system and type together", () => {
  it("a pair is refused exactly when the system lists types and this is none of them; the message names each listed one", () => {
    fc.assert(
      fc.property(os, item, (o, t) => {
        const listed = supportedTypes(o);
        const problem = nodePairProblem(o, t);
        const goes = listed === undefined || listed.some((x) => x.id === t.id);
        assert.equal(problem === undefined, goes, JSON.stringify({ o, t, problem }));
        if (problem) {
          for (const x of listed!) assert.ok(problem.includes(x.name ?? String(x.id)), `${problem} lacks ${JSON.stringify(x)}`);
          assert.match(problem, /: set type to one of them, or choose another operatingSystem$/);
          assert.ok(!problem.includes("\n"), "one line");
        }
      }),
      { numRuns: 500, seed: 45 },
    );
  });

  it("a list with no type in it (absent, empty, only junk) restricts nothing", () => {
    for (const s of [undefined, [], [null, "File server", { name: "x" }], "File server", {}]) {
      assert.equal(nodePairProblem({ id: 1, name: "X", supportedNodeTypes: s }, { id: 2, name: "Y" }), undefined, JSON.stringify(s));
    }
  });

  it("the first valid pair goes together, and is missing only when no pair does", () => {
    fc.assert(
      fc.property(fc.array(os, { maxLength: 4 }), fc.array(item, { maxLength: 4 }), (oses, types) => {
        const pair = firstValidPair(oses, types);
        const any = oses.some((o) => types.some((t) => nodePairProblem(o, t) === undefined));
        assert.equal(pair !== undefined, any);
        if (pair) {
          assert.equal(nodePairProblem(pair.os, pair.type), undefined);
          // The first system that has one, with its first type in the list's order.
          const firstOs = oses.findIndex((o) => types.some((t) => nodePairProblem(o, t) === undefined));
          assert.equal(pair.os, oses[firstOs]);
          assert.equal(
            pair.type,
            types.find((t) => nodePairProblem(oses[firstOs], t) === undefined),
          );
        }
      }),
      { numRuns: 500, seed: 46 },
    );
  });
});

describe("rules: the pairs against the emulator, over HTTP", function () {
  this.timeout(60_000);
  let emu: Emulator;
  const saved = { ...process.env };
  let bunitId = 0;
  let oses: Array<PairItem & { supportedNodeTypes?: unknown }> = [];
  let types: PairItem[] = [];

  before(async () => {
    emu = await startEmulator({ port: 0, quiet: true });
    Object.assign(process.env, envFor(emu));
    resetConnection();
    const client = clientFor(emu);
    try {
      [oses, types] = await Promise.all([client.reference.operatingSystems(), client.reference.nodeTypes()]);
      bunitId = (await client.businessUnits.create(1, { name: "pairs", registrationNumber: "1", timeZone: { id: 4 } })).id;
    } finally {
      client.close();
    }
  });
  after(async () => {
    resetConnection();
    process.env = saved;
    await emu.close();
  });

  /** The emulator's answer to a create of the pair: undefined when it made the node, else its error's code. */
  async function portalCreate(osId: number, typeId: number): Promise<string | undefined> {
    const client = clientFor(emu);
    try {
      const c = await client.consumers.create(bunitId, { name: "pair" });
      await client.nodes.create(bunitId, c.id, { operatingSystem: { id: osId }, type: { id: typeId }, domain: { id: 1 }, cpuCount: 1 });
      return undefined;
    } catch (err) {
      if (err instanceof PortalError && err.status === 400) return err.code;
      throw err;
    } finally {
      client.close();
    }
  }

  it("the seed has pairs of both kinds (the test reads lists that restrict)", () => {
    const all = oses.flatMap((o) => types.map((t) => nodePairProblem(o, t)));
    assert.ok(all.some((p) => p === undefined) && all.some((p) => p !== undefined));
  });

  it("every pair, by name and by id: Check refuses it at type exactly when the emulator's create refuses it", async () => {
    for (const o of oses) {
      for (const t of types) {
        const refused = await portalCreate(o.id, t.id);
        for (const [osValue, typeValue] of [
          [o.name!, t.name!],
          [o.id, t.id],
        ]) {
          const news = {
            businessUnitId: bunitId,
            consumerId: 1,
            operatingSystem: osValue,
            type: typeValue,
            domain: "STANDARD",
            cpuCount: 1,
          };
          const failures = (await nodeLifecycle.check({}, news)).failures ?? [];
          const what = `${o.name} with ${t.name} (${JSON.stringify([osValue, typeValue])})`;
          if (refused === undefined) assert.deepEqual(failures, [], `${what}: the portal takes it`);
          else {
            assert.equal(refused, "UnsupportedNodeType", what);
            assert.deepEqual(
              failures.map((f) => f.property),
              ["type"],
              `${what}: the portal refuses it`,
            );
            assert.equal(failures[0].reason, `type: ${nodePairProblem(o, t)}`);
          }
        }
      }
    }
  });

  it("an update: the emulator refuses a type the node's system does not support; Check refuses it only when it changes", async () => {
    const client = clientFor(emu);
    try {
      const c = await client.consumers.create(bunitId, { name: "pair-update" });
      const winServer = oses.find((o) => o.name === "Windows server")!;
      const [fileServer, workstation] = ["File server", "Workstation"].map((n) => types.find((t) => t.name === n)!);
      await client.nodes.create(bunitId, c.id, { operatingSystem: { id: winServer.id }, type: { id: fileServer.id }, domain: { id: 1 } });
      // The whole body, as a portal that replaces on PUT needs it (--put-replaces): only the type differs.
      const update = { operatingSystem: { id: winServer.id }, type: { id: workstation.id }, domain: { id: 1 } };
      await assert.rejects(client.nodes.update(bunitId, c.id, update), (e) => {
        assert.ok(e instanceof PortalError && e.status === 400 && e.code === "UnsupportedNodeType", String(e));
        return true;
      });
      assert.equal((await client.nodes.get(bunitId, c.id)).type?.id, fileServer.id, "the refused update changed nothing");
      const base = { businessUnitId: bunitId, consumerId: c.id, operatingSystem: "Windows server", domain: "STANDARD", cpuCount: 1 };
      const olds = { ...base, type: "File server" };
      const changed = await nodeLifecycle.check(olds, { ...base, type: "Workstation" });
      assert.deepEqual(
        (changed.failures ?? []).map((f) => f.property),
        ["type"],
      );
      // A pair already in the state is not asked again (it is not sent again): no read for an unchanged node.
      const before = emu.requestDetails().length;
      assert.deepEqual((await nodeLifecycle.check(olds, { ...olds })).failures ?? [], []);
      assert.equal(emu.requestDetails().length, before, "an unchanged node reads nothing");
    } finally {
      client.close();
    }
  });
});
