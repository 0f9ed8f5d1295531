// Property: for random portal trees (nesting, unicode names, names that collide as slugs, empty settings), the
// export is valid stack config that names exactly the portal's objects, and exporting twice gives the same bytes;
// on a few, the first up of the export (engine stand-in) writes nothing, the next preview is empty, and the
// adopted portal exports the same.
import assert from "node:assert/strict";
import fc from "fast-check";
import { parse } from "yaml";
import { portalSuite, writesSince } from "../resources/support";
import { runStack, settings } from "../stacks/support";
import { validateTenants, walkBusinessUnits } from "../../provider/tenants/validate";
import { validateNames } from "../../provider/tenants/names";
import { References } from "../../provider/dynamic/references";
import { TenantsConfig } from "../../provider/tenants/model";
import { BuSpec, ConsumerSpec, exportCli, plant } from "./support";
import { seedState } from "../../emulator/seed";

// Names chosen to collide as slugs (acme / Acme / ACME! / a-c-m-e), to leave no slug (東京, ---), and accents.
const NAME = fc.oneof(
  fc.constantFrom("Acme", "acme", "ACME!", "a c m e", "Ölfabrik", "olfabrik", "東京", "---", "acme-2", "Zürich AG", "x"),
  fc.string({ minLength: 1, maxLength: 12 }).filter((s) => s.trim() !== "" && !/[\u0000-\u001f\u007f-\u009f]/.test(s)),
);
const TEXT = fc.string({ maxLength: 20 }).filter((s) => !/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/.test(s));

const SETTINGS = fc.record(
  {
    note: TEXT,
    tags: fc.array(fc.constantFrom("gold", "eu", "ø"), { maxLength: 2 }),
    invoiceDay: fc.integer({ min: 1, max: 28 }),
    storageLimit: fc.constantFrom(0, 1.5, 1000),
    nodeLimit: fc.integer({ min: 0, max: 50 }),
    supportResponsible: fc.boolean(),
    domainFilter: fc.uniqueArray(fc.integer({ min: 1, max: 7 }), { maxLength: 2 }),
    clientOptionSetFilter: fc.uniqueArray(fc.integer({ min: 1, max: 3 }), { maxLength: 2 }),
  },
  { requiredKeys: [] },
);

/** The operating system and node type pairs the seeded portal lists (a portal that enforces them holds no other). */
const PAIRS = seedState().operatingSystems.flatMap((os) => (os.supportedNodeTypeIds ?? []).map((type) => ({ os: os.id, type })));

const NODE = fc
  .record(
    {
      pair: fc.constantFrom(...PAIRS),
      domain: fc.integer({ min: 1, max: 7 }),
      cos: fc.integer({ min: 1, max: 3 }),
      contact: TEXT,
      cpuCount: fc.integer({ min: 1, max: 64 }),
      activated: fc.boolean(),
    },
    { requiredKeys: ["pair", "domain", "cpuCount", "activated"] },
  )
  .map(({ pair, ...node }) => ({ ...node, ...pair }));

const CONSUMER = fc.record({ name: NAME, note: TEXT, allowNoActivity: fc.boolean(), node: NODE }, { requiredKeys: ["name"] });

type Gen = { name: string; tz: number; settings: Record<string, unknown>; consumers: any[]; proxy: boolean; children: Gen[] };
const { tree } = fc.letrec<{ tree: Gen[]; bu: Gen }>((tie) => ({
  tree: fc.array(tie("bu"), { maxLength: 3 }),
  bu: fc.record({
    name: NAME,
    tz: fc.integer({ min: 1, max: 8 }),
    settings: SETTINGS,
    consumers: fc.array(CONSUMER, { maxLength: 3 }),
    proxy: fc.boolean(),
    children: fc.oneof({ depthSize: "small", withCrossShrink: true }, fc.constant([] as Gen[]), tie("tree") as fc.Arbitrary<Gen[]>),
  }),
}));

/** The generated tree as planting specs: unique tsmNames, a proxy between the first two nodes when asked. */
function specs(gen: Gen[], counter = { n: 0 }): BuSpec[] {
  return gen.map((g) => {
    const consumers: ConsumerSpec[] = g.consumers.map((c) => ({
      name: c.name,
      note: c.note,
      allowNoActivity: c.allowNoActivity,
      node: c.node && { ...c.node, tsmName: c.node.activated ? `NODE-${++counter.n}` : undefined },
    }));
    const withNode = consumers.flatMap((c, i) => (c.node ? [i] : []));
    return {
      name: g.name,
      registrationNumber: `R-${++counter.n}`,
      timeZoneId: g.tz,
      settings: g.settings,
      consumers,
      proxies: g.proxy && withNode.length >= 2 ? [[withNode[0], withNode[1]] as [number, number]] : [],
      children: specs(g.children, counter),
    };
  });
}

const count = (s: BuSpec[]): { bus: number; consumers: number } =>
  s.reduce(
    (acc, b) => {
      const c = count(b.children ?? []);
      return { bus: acc.bus + 1 + c.bus, consumers: acc.consumers + (b.consumers?.length ?? 0) + c.consumers };
    },
    { bus: 0, consumers: 0 },
  );

describe("export round trip on random portal trees (property)", function () {
  this.timeout(600_000);
  const p = portalSuite();

  /** Plants the tree under a fresh root below the seed's reseller; exports below that root. */
  async function exported(gen: Gen[]) {
    p.emu.reset();
    const [root] = plant(p.emu, [{ name: "Property root", registrationNumber: "ROOT", timeZoneId: 1 }]).businessUnits;
    const s = specs(gen);
    const made = plant(p.emu, s, root);
    const r = await exportCli(p.emu, ["--bunit", String(root)]);
    assert.equal(r.code, 0, r.err);
    const tenants = ((parse(r.out) as { config: Record<string, unknown> }).config["backup-portal:tenants"] ?? {}) as TenantsConfig;
    return { root, s, made, r, tenants };
  }

  it("export → validate → export again: valid, every object adopted once, no review, byte-identical", async () => {
    await fc.assert(
      fc.asyncProperty(tree, async (gen) => {
        const { root, s, made, r, tenants } = await exported(gen);
        assert.deepEqual(validateTenants(tenants, { hasSecret: () => false }), []);
        assert.deepEqual(await validateNames(tenants, new References(p.client), root), []);
        const ids = [...walkBusinessUnits(tenants)].map((w) => w.bu.adoptId).sort((a, b) => a! - b!);
        assert.deepEqual(
          ids,
          [...made.businessUnits].sort((a, b) => a - b),
        );
        const cids = [...walkBusinessUnits(tenants)].flatMap((w) => Object.values(w.bu.consumers ?? {}).map((c) => c.adoptId));
        assert.deepEqual(
          cids.sort((a, b) => a! - b!),
          [...made.consumers].sort((a, b) => a - b),
        );
        const n = count(s);
        assert.match(
          r.err,
          new RegExp(`^exported ${n.bus} business units?, ${n.consumers} consumers?, \\d+ nodes?; 0 values need review`, "m"),
        );
        assert.equal((await exportCli(p.emu, ["--bunit", String(root)])).out, r.out);
      }),
      { numRuns: 40, seed: 24 },
    );
  });

  it("the first up of the export writes nothing, the preview after it is empty, the adopted portal exports the same", async () => {
    // Small trees: each run is a whole up and preview through the engine stand-in.
    const small = tree.filter((g) => JSON.stringify(g).length < 900 && g.length > 0);
    await fc.assert(
      fc.asyncProperty(small, async (gen) => {
        const { root, r, tenants } = await exported(gen);
        const eng = p.engine();
        const mark = p.emu.requests().length;
        await runStack(eng, settings(tenants, p.client, {}, { rootBusinessUnitId: root }));
        assert.deepEqual(writesSince(p.emu, mark), []);
        const preview = await runStack(eng, settings(tenants, p.client, {}, { rootBusinessUnitId: root }), true);
        assert.deepEqual(
          preview.steps.filter((x) => x.op !== "same").map((x) => x.urn),
          [],
        );
        assert.equal((await exportCli(p.emu, ["--bunit", String(root)])).out, r.out);
        await eng.close();
      }),
      { numRuns: 2, seed: 7 },
    );
  });
});
