// Issue 28 items 11 and 12, through every place that derives from the rule tables (provider/rules/fields.ts):
// - ids that are not safe integers (1e21, 9007199254740993, which JavaScript reads as ...992: another object)
//   are refused by Check, by the stack validation and by the schema, as numbers and as strings of digits;
// - a user tag starting with the provider's own create marker ("create-request:") is refused, naming the
//   prefix: the provider strips such tags on read, so the resource would show a diff forever.
// Check makes no write for any of them.
import assert from "node:assert/strict";
import Ajv from "ajv";
import fc from "fast-check";
import { resetConnection } from "../../provider/dynamic/connection";
import { toId } from "../../provider/dynamic/values";
import { MARKER_PREFIX, withoutMarkers } from "../../provider/portal/marker";
import { businessUnitLifecycle } from "../../provider/resources/business-unit";
import { consumerLifecycle } from "../../provider/resources/consumer";
import { nodeLifecycle } from "../../provider/resources/node";
import { nodeProxyLifecycle } from "../../provider/resources/node-proxy";
import { BUSINESS_UNIT_FIELDS, fieldProblem, MAX_INTEGER, portalId } from "../../provider/rules/fields";
import { stackFileSchema } from "../../provider/stack-config/schema";
import { validateTenants } from "../../provider/tenants/validate";
import { Emulator, envFor, startEmulator, writes } from "../support/portal";

/** 2^53 + 1 as text: the number literal would already be rounded. */
const BEYOND = "9007199254740993";
const UNSAFE: unknown[] = [1e21, 2 ** 53, Number(BEYOND), BEYOND, "1e21", ` ${BEYOND} `, "99999999999999999999"];

describe("ids are safe integers and tags never carry the create marker (issue 28 items 11, 12)", function () {
  this.timeout(60_000);

  describe("portalId: the one reading of an id", () => {
    it("takes exactly the positive safe integers, as numbers or digit strings, and gives the same number back", () => {
      const safe = fc.integer({ min: 1, max: MAX_INTEGER });
      const beyond = fc.bigInt({ min: BigInt(MAX_INTEGER) + 1n, max: 10n ** 30n });
      fc.assert(
        fc.property(safe, (n) => {
          assert.equal(portalId(n), n);
          assert.equal(portalId(String(n)), n);
          assert.equal(portalId(` ${n}\t`), n);
        }),
        { numRuns: 300, seed: 28 },
      );
      fc.assert(
        fc.property(beyond, (b) => {
          assert.equal(portalId(b.toString()), undefined, `${b} as digits`);
          assert.equal(portalId(Number(b)), undefined, `${b} as a number`);
        }),
        { numRuns: 300, seed: 28 },
      );
      const edges: Array<[unknown, number | undefined]> = [
        [MAX_INTEGER, MAX_INTEGER],
        [String(MAX_INTEGER), MAX_INTEGER],
        [MAX_INTEGER + 1, undefined],
        ["9007199254740992", undefined],
        [BEYOND, undefined],
        [1e21, undefined],
        ["1e21", undefined],
        [0, undefined],
        [-0, undefined],
        ["0", undefined],
        ["007", undefined],
        [1.5, undefined],
        [NaN, undefined],
        [Infinity, undefined],
        ["", undefined],
        [null, undefined],
        [1, 1],
      ];
      for (const [v, id] of edges) assert.equal(portalId(v), id, `portalId(${String(v)})`);
      assert.equal(toId, portalId, "the resources read ids through the rules' reading");
    });

    it("reference ids and integer fields: the same bound", () => {
      const os = { kind: "reference", ref: "operatingSystem", doc: "" } as const;
      // "1e21" is no string of digits: for a reference it is a name (looked up, and unknown).
      for (const v of UNSAFE.filter((x) => x !== "1e21"))
        assert.match(fieldProblem(v, os) ?? "", /give its id \(a positive integer up to 9007199254740991\)/, String(v));
      assert.equal(fieldProblem(MAX_INTEGER, os), undefined);
      assert.equal(fieldProblem("Linux", os), undefined);
      assert.equal(fieldProblem("007", os), undefined, "short digits are still read as an id by the resolver");
      assert.equal(fieldProblem(1e21, BUSINESS_UNIT_FIELDS.nodeLimit), "must be an integer from 0 to 9007199254740991, got 1e+21");
      assert.equal(fieldProblem(MAX_INTEGER, BUSINESS_UNIT_FIELDS.nodeLimit), undefined);
      assert.equal(fieldProblem(-1, BUSINESS_UNIT_FIELDS.nodeLimit), "must be an integer ≥ 0, got -1");
    });
  });

  describe("through Check, against the emulator", () => {
    let emu: Emulator;
    const saved = { ...process.env };
    before(async () => {
      emu = await startEmulator({ port: 0, quiet: true });
      Object.assign(process.env, envFor(emu));
      resetConnection();
    });
    after(async () => {
      resetConnection();
      process.env = saved;
      await emu.close();
    });

    const bu = { parentId: 1, name: "Acme", registrationNumber: "1", timeZone: "UTC" };
    const node = { businessUnitId: 1, consumerId: 2, operatingSystem: "Linux", type: "File server", domain: "STANDARD", cpuCount: 1 };
    type Check = (
      olds: Record<string, unknown>,
      news: Record<string, unknown>,
    ) => Promise<{ failures?: Array<{ property: string; reason: string }> }>;
    const cases: Array<[string, Check, Record<string, unknown>, string]> = [
      ["BusinessUnit", businessUnitLifecycle.check, bu, "parentId"],
      ["BusinessUnit", businessUnitLifecycle.check, bu, "adoptId"],
      ["BusinessUnit", businessUnitLifecycle.check, bu, "timeZone"],
      ["BusinessUnit", businessUnitLifecycle.check, bu, "nodeLimit"],
      ["Consumer", consumerLifecycle.check, { businessUnitId: 1, name: "c" }, "businessUnitId"],
      ["Node", nodeLifecycle.check, node, "consumerId"],
      ["Node", nodeLifecycle.check, node, "operatingSystem"],
      ["NodeProxy", nodeProxyLifecycle.check, { businessUnitId: 1, agentConsumerId: 2, targetConsumerId: 3 }, "targetConsumerId"],
    ];
    for (const [what, check, base, key] of cases) {
      it(`${what}.${key}: every unsafe id is refused, naming the key, and nothing is written`, async () => {
        const before = writes(emu).length;
        for (const v of UNSAFE) {
          // nodeLimit is a count, not an id: only numbers are its type. "1e21" names a reference, it is no id.
          if (key === "nodeLimit" && typeof v === "string") continue;
          if (v === "1e21" && ["timeZone", "operatingSystem"].includes(key)) continue;
          const r = await check({}, { ...base, [key]: v });
          const failures = r.failures ?? [];
          assert.deepEqual(
            failures.map((f) => f.property),
            [key],
            `${key}=${JSON.stringify(v)}: ${JSON.stringify(failures)}`,
          );
          assert.match(failures[0].reason, /9007199254740991/, failures[0].reason);
        }
        assert.equal(writes(emu).length, before, "no write");
      });
    }

    for (const [what, check, base] of [
      ["BusinessUnit", businessUnitLifecycle.check, bu],
      ["Consumer", consumerLifecycle.check, { businessUnitId: 1, name: "c" }],
    ] as Array<[string, Check, Record<string, unknown>]>) {
      it(`${what}: a tag starting with ${MARKER_PREFIX} is refused, naming the prefix`, async () => {
        const tag = `${MARKER_PREFIX}mine`;
        // The attack: such a tag disappears on every read, so the declared tags never match the read ones.
        assert.deepEqual(withoutMarkers({ tags: ["a", tag] }).tags, ["a"]);
        const r = await check({}, { ...base, tags: ["ok", tag] });
        assert.deepEqual(
          r.failures?.map((f) => f.property),
          ["tags"],
        );
        assert.match(r.failures![0].reason, /item 1 .*does not start with "create-request:"/);
        // Only the exact prefix is the provider's: other spellings stay the user's.
        for (const fine of ["Create-Request:x", "x-create-request:", "create-request", "create-requests:x"]) {
          const ok = await check({}, { ...base, tags: [fine] });
          assert.deepEqual(ok.failures ?? [], [], fine);
        }
      });
    }
  });

  describe("stack validation and schema", () => {
    const ajv = new Ajv({ allErrors: true });
    const acme = (extra: Record<string, unknown>) => ({ acme: { registrationNumber: "1", timeZone: "UTC", ...extra } });
    const file = (t: unknown) => ({ config: { "backup-portal:tenants": t } });

    it("refuse unsafe ids and integers, and marker tags, with the key path", () => {
      const validate = ajv.compile(stackFileSchema());
      const bad: Array<[Record<string, unknown>, string, RegExp]> = [
        [acme({ adoptId: 1e21 }), "tenants.acme.adoptId", /from 1 to 9007199254740991/],
        [acme({ adoptId: 2 ** 53 }), "tenants.acme.adoptId", /from 1 to 9007199254740991/],
        [acme({ timeZone: 1e21 }), "tenants.acme.timeZone", /up to 9007199254740991/],
        [acme({ domainFilter: ["STANDARD", 2 ** 53] }), "tenants.acme.domainFilter", /item 1/],
        [acme({ billingStorageTypeId: 1e21 }), "tenants.acme.billingStorageTypeId", /9007199254740991/],
        [acme({ tags: [`${MARKER_PREFIX}1`] }), "tenants.acme.tags", /create-request:/],
        [
          acme({ consumers: { web: { adoptId: 2 ** 60, tags: [`${MARKER_PREFIX}x`] } } }),
          "tenants.acme.consumers.web.adoptId",
          /9007199254740991/,
        ],
      ];
      for (const [t, path, message] of bad) {
        const problems = validateTenants(t, { hasSecret: () => true });
        const p = problems.find((x) => x.path === path);
        assert.ok(p, `${path}: ${JSON.stringify(problems)}`);
        assert.match(p.message, message);
        assert.equal(validate(file(t)), false, `the schema refuses ${path} too`);
      }
      const good = acme({ adoptId: MAX_INTEGER, tags: ["create-request"], domainFilter: [MAX_INTEGER] });
      assert.deepEqual(validateTenants(good, { hasSecret: () => true }), []);
      assert.ok(validate(file(good)), ajv.errorsText(validate.errors));
    });
  });
});
