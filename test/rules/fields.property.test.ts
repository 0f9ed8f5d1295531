// What preview accepts, up applies: values at the edges of every field rule
// (provider/rules/fields.ts) go through the resource's Check (the provider's own
// check function, in this process) and, when Check accepts them, through the
// provider's create against the emulator over HTTP. A create the emulator refuses
// fails the test. The other way round, a value of the rule's JSON type that Check
// refuses must be one the emulator refuses too, unless the rule says why it is
// stricter (`stricter`). Values of another JSON type are left out of that
// direction: Check takes types strictly, the emulator (like the .NET binder of the
// real portal) also takes "5" for 5.
import assert from "node:assert/strict";
import fc from "fast-check";
import { businessUnitLifecycle } from "../../provider/resources/business-unit";
import { consumerLifecycle } from "../../provider/resources/consumer";
import { nodeLifecycle } from "../../provider/resources/node";
import { resetConnection } from "../../provider/dynamic/connection";
import { Lifecycle } from "../../provider/dynamic/provider";
import {
  BUSINESS_UNIT_FIELDS,
  CONSUMER_FIELDS,
  FieldRule,
  FieldTable,
  MAX_INTEGER,
  NODE_FIELDS,
  REFERENCE_NAME_MAX,
} from "../../provider/rules/fields";
import { PortalError } from "../../provider/portal";
import { clientFor, Emulator, envFor, startEmulator } from "../support/portal";

type Inputs = Record<string, unknown>;

/** Characters at the edges of the text rules: controls (C0, DEL, C1), the allowed ones, whitespace, astral. */
const EDGE_CHARS = [
  "\u0000",
  "\u0007",
  "\u001b",
  "\u001f",
  "\u007f",
  "\u0085",
  "\u009f",
  "\t",
  "\n",
  "\r",
  " ",
  "\u00a0",
  "\u2028",
  "a",
  "Z",
  "9",
  "_",
  "&",
  "é",
  "😀",
];

function text(max: number): fc.Arbitrary<string> {
  const ch = fc.constantFrom(...EDGE_CHARS);
  return fc.oneof(
    fc.constantFrom("", " ", "   ", "\t", "\n", "x".repeat(max), "x".repeat(max + 1), " x ", "a\u0000b"),
    fc.array(ch, { maxLength: 6 }).map((a) => a.join("")),
    fc.tuple(fc.string({ maxLength: 3 }), ch, fc.nat({ max: max + 1 })).map(([s, c, n]) => (s + c + "y".repeat(n)).slice(0, max + 1)),
    fc.string({ maxLength: max + 2, unit: "grapheme" }),
  );
}

function numbers(rule: { min: number; max?: number }): fc.Arbitrary<unknown> {
  const edges = [
    rule.min,
    rule.min - 1,
    rule.min + 0.5,
    rule.min - 0.5,
    0,
    -0,
    2.5,
    Number.MAX_SAFE_INTEGER,
    1e21,
    Infinity,
    -Infinity,
    NaN,
  ];
  if (rule.max !== undefined) edges.push(rule.max, rule.max + 1, rule.max - 0.5, rule.max + 0.5);
  return fc.oneof(
    fc.constantFrom(...edges),
    fc.integer({ min: rule.min - 3, max: (rule.max ?? rule.min + 50) + 3 }),
    fc.double({ noNaN: true }),
  );
}

const OTHER_TYPES = fc.constantFrom<unknown>("5", "true", true, 0, [], {}, ["a"]);

function reference(names: string[], ids: number[]): fc.Arbitrary<unknown> {
  return fc.oneof(
    fc.constantFrom(...names, ...names.map((n) => n.toLowerCase()), ...names.map((n) => ` ${n} `)),
    fc.constantFrom(...ids, ...ids.map(String), 0, -1, 1.5, 999999, "", " ", "x".repeat(REFERENCE_NAME_MAX + 1), "Linux\u0000"),
    text(10),
  );
}

/** Values at the edges of `rule`, and a few of other JSON types. */
function edges(rule: FieldRule, refData: Record<string, { names: string[]; ids: number[] }>): fc.Arbitrary<unknown> {
  switch (rule.kind) {
    case "string":
      return fc.oneof({ weight: 5, arbitrary: text(rule.maxLength) }, { weight: 1, arbitrary: OTHER_TYPES });
    case "integer":
    case "number":
      return fc.oneof({ weight: 5, arbitrary: numbers(rule) }, { weight: 1, arbitrary: OTHER_TYPES });
    case "boolean":
      return fc.oneof(fc.boolean(), OTHER_TYPES, fc.constantFrom("false", 1, "yes"));
    case "strings":
      return fc.oneof(
        { weight: 5, arbitrary: fc.array(fc.oneof(text(20), OTHER_TYPES), { maxLength: 3 }) },
        { weight: 1, arbitrary: OTHER_TYPES },
      );
    case "reference":
      return fc.oneof(
        { weight: 5, arbitrary: reference(refData[rule.ref].names, refData[rule.ref].ids) },
        { weight: 1, arbitrary: OTHER_TYPES },
      );
    case "references":
      return fc.oneof(
        { weight: 5, arbitrary: fc.array(reference(refData[rule.ref].names, refData[rule.ref].ids), { maxLength: 3 }) },
        { weight: 1, arbitrary: OTHER_TYPES },
      );
  }
}

/** Whether `v` has the JSON type the rule asks for (the only values the stricter-than-the-portal direction looks at). */
function ofRuleType(v: unknown, rule: FieldRule): boolean {
  switch (rule.kind) {
    case "string":
      return typeof v === "string";
    // JSON has no Infinity or NaN: sent as they are, they arrive as null (absent), which says nothing of the rule.
    case "integer":
    case "number":
      return typeof v === "number" && Number.isFinite(v);
    case "boolean":
      return typeof v === "boolean";
    case "strings":
      return Array.isArray(v) && v.every((x) => typeof x === "string");
    default:
      return false; // names are resolved by the provider: the portal only ever sees ids
  }
}

describe("field rules: Check never accepts what the portal (the emulator) refuses", function () {
  this.timeout(60_000);
  let emu: Emulator;
  const saved = { ...process.env };
  const refData: Record<string, { names: string[]; ids: number[] }> = {};
  let bunitId = 0;

  before(async () => {
    emu = await startEmulator({ port: 0, quiet: true });
    Object.assign(process.env, envFor(emu));
    resetConnection();
    const s = emu.state();
    const named = (list: Array<{ id: number; name: string }>) => ({ names: list.map((x) => x.name), ids: list.map((x) => x.id) });
    refData.timeZone = { names: s.timeZones.map((t) => t.windowsId ?? t.name), ids: s.timeZones.map((t) => t.id) };
    refData.operatingSystem = named(s.operatingSystems);
    refData.type = named(s.nodeTypes);
    refData.domain = named(s.domains);
    refData.clientOptionSet = named(s.clientOptionSets);
    const client = clientFor(emu);
    bunitId = (await client.businessUnits.create(1, { name: "fields", registrationNumber: "1", timeZone: { id: 4 } })).id;
    client.close();
  });
  after(async () => {
    resetConnection();
    process.env = saved;
    await emu.close();
  });

  /** Check, then (when it passes) the provider's create; the emulator's refusal fails the property. */
  async function throughBoth(lifecycle: Lifecycle, base: () => Promise<Inputs>, key: string, rule: FieldRule, v: unknown): Promise<void> {
    const news = { ...(await base()), [key]: v };
    const checked = await lifecycle.check({}, news);
    const failures = checked.failures ?? [];
    if (failures.length === 0) {
      try {
        await lifecycle.create(checked.inputs);
      } catch (err) {
        // Two runs may pick the same node name: the second activation is refused for that, not for the rule.
        if (key === "tsmName" && /TsmNameTaken/.test((err as Error).message)) return;
        assert.fail(`Check accepted ${key}=${JSON.stringify(v)} but the portal refused: ${(err as Error).message}`);
      }
      return;
    }
    // An operating system that does not support the base's type fails at type (rules/node-pairs.ts); the portal
    // refuses that pair too, which the raw create below (the same type) holds.
    const pairRefused = (f: { property: string; reason: string }) =>
      key === "operatingSystem" && f.property === "type" && /is not one operating system .* supports/.test(f.reason);
    assert.ok(
      failures.every((f) => f.property === key || pairRefused(f)),
      `only ${key} may fail: ${JSON.stringify(failures)}`,
    );
    if (rule.stricter || rule.local || !ofRuleType(v, rule)) return;
    // INTEGER_STRICTER (fields.ts): every integer rule refuses integers beyond 2^53 - 1, which the emulator stores.
    if (rule.kind === "integer" && typeof v === "number" && v > MAX_INTEGER) return;
    // Check refused a value of the right type: the portal must refuse it too, or the table must say why not.
    const client = clientFor(emu);
    try {
      const refused = await rawCreate(client, lifecycle, key, v).then(
        () => false,
        (err) => err instanceof PortalError && err.status === 400,
      );
      assert.ok(
        refused,
        `Check refused ${key}=${JSON.stringify(v)} (${failures[0].reason}) but the portal takes it; ` +
          "align the rule or write down why it is stricter (`stricter` in provider/rules/fields.ts)",
      );
    } finally {
      client.close();
    }
  }

  /** The value sent to the portal as it is, in an otherwise valid create body. */
  async function rawCreate(client: ReturnType<typeof clientFor>, lifecycle: Lifecycle, key: string, v: unknown): Promise<unknown> {
    if (lifecycle === businessUnitLifecycle) {
      return client.businessUnits.create(bunitId, { name: "raw", registrationNumber: "1", timeZone: { id: 4 }, [key]: v } as never);
    }
    if (lifecycle === consumerLifecycle) return client.consumers.create(bunitId, { name: "raw", [key]: v } as never);
    const c = await client.consumers.create(bunitId, { name: "raw-node" });
    return client.nodes.create(bunitId, c.id, {
      operatingSystem: { id: 3 },
      type: { id: 1 },
      domain: { id: 1 },
      cpuCount: 1,
      [key]: v,
    } as never);
  }

  const cases: Array<[string, Lifecycle, FieldTable, () => Promise<Inputs>]> = [
    [
      "BusinessUnit",
      businessUnitLifecycle,
      BUSINESS_UNIT_FIELDS,
      async () => ({ parentId: bunitId, name: "bu", registrationNumber: "1", timeZone: "UTC" }),
    ],
    ["Consumer", consumerLifecycle, CONSUMER_FIELDS, async () => ({ businessUnitId: bunitId, name: "c" })],
    [
      "Node",
      nodeLifecycle,
      NODE_FIELDS,
      async () => {
        // Each node needs a consumer of its own.
        const client = clientFor(emu);
        const c = await client.consumers.create(bunitId, { name: "n" });
        client.close();
        return {
          businessUnitId: bunitId,
          consumerId: c.id,
          operatingSystem: "Linux",
          type: "File server",
          domain: "STANDARD",
          cpuCount: 1,
        };
      },
    ],
  ];

  for (const [what, lifecycle, table, base] of cases) {
    for (const [key, rule] of Object.entries(table)) {
      // Local inputs never reach a create body; tsmName reaches the portal through the create's activation.
      if (rule.local && key !== "tsmName") continue;
      it(`${what}.${key}`, async () => {
        await fc.assert(
          fc.asyncProperty(edges(rule, refData), (v) => throughBoth(lifecycle, base, key, rule, v)),
          { numRuns: 60, seed: 13 },
        );
      });
    }
  }
});
