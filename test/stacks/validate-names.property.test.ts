// validateNames looks each distinct value up once and notes each object's path against it; the code it replaced
// started a lookup per object. Both must give the same problems, at the same paths, for any tenants block and any
// answer of the portal, and the new one must ask the portal about each distinct value at most once.
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  isReferenceProblem,
  MissingObjectError,
  ReferenceKind,
  References,
  UnknownReferenceError,
} from "../../provider/dynamic/references";
import { Problem } from "../../provider/tenants/model";
import { TenantNames, UnitNames, validateNames } from "../../provider/tenants/names";
import { walkBusinessUnits } from "../../provider/tenants/validate";

/** The replaced validateNames, as it was: a promise per object, kept until the last settles. */
async function oracle(tenants: TenantNames, refs: References, rootBusinessUnitId: number): Promise<Problem[]> {
  const problems: Problem[] = [];
  const lookup = (path: string, find: () => Promise<unknown>): Promise<boolean> =>
    find().then(
      () => true,
      (err) => {
        if (!isReferenceProblem(err)) throw err;
        problems.push({ path, message: err.message });
        return false;
      },
    );
  const checks: Array<Promise<unknown>> = [];
  const check = (path: string, kind: ReferenceKind, value: unknown): Promise<boolean> => {
    if (value === undefined) return Promise.resolve(false);
    const found = lookup(path, () => refs.resolve(kind, value as string | number, rootBusinessUnitId));
    checks.push(found);
    return found;
  };
  const rootExists = await lookup("rootBusinessUnitId", () => refs.businessUnit(rootBusinessUnitId));
  const adoptingTenants = rootExists ? Object.entries(tenants).filter(([, bu]) => bu.adoptId !== undefined) : [];
  for (const [key, bu] of adoptingTenants) {
    checks.push(lookup(`tenants.${key}.adoptId`, () => refs.childOf(rootBusinessUnitId, bu.adoptId!)));
  }
  for (const { path, bu } of walkBusinessUnits(tenants)) {
    check(`${path}.timeZone`, "timeZone", bu.timeZone);
    if (rootExists) {
      (bu.domainFilter ?? []).forEach((v, i) => check(`${path}.domainFilter[${i}]`, "domain", v));
      (bu.clientOptionSetFilter ?? []).forEach((v, i) => check(`${path}.clientOptionSetFilter[${i}]`, "clientOptionSet", v));
    }
    for (const [key, c] of Object.entries(bu.consumers ?? {})) {
      const p = `${path}.consumers.${key}`;
      const n = c.node;
      if (!n) continue;
      const pair = [check(`${p}.node.operatingSystem`, "operatingSystem", n.operatingSystem), check(`${p}.node.type`, "type", n.type)];
      checks.push(
        Promise.all(pair).then(async ([os, type]) => {
          const problem = os && type ? await refs.nodePairProblem(n.operatingSystem, n.type) : undefined;
          if (problem) problems.push({ path: `${p}.node.type`, message: problem });
        }),
      );
      if (rootExists) {
        check(`${p}.node.domain`, "domain", n.domain);
        check(`${p}.node.clientOptionSet`, "clientOptionSet", n.clientOptionSet);
      }
    }
  }
  await Promise.all(checks);
  return problems.sort((a, b) => a.path.localeCompare(b.path));
}

/** What the portal knows: values outside these are unknown. Numbers name by id. */
const KNOWN: Record<ReferenceKind, Array<string | number>> = {
  timeZone: ["UTC", "W. Europe Standard Time", 7],
  operatingSystem: ["Linux", "Windows", 1],
  type: ["File server", "Database", 2],
  domain: ["STANDARD", "GOLD"],
  clientOptionSet: ["DEFAULT", "UNIX"],
} as Record<ReferenceKind, Array<string | number>>;
const pool = (kind: ReferenceKind) => fc.constantFrom(...KNOWN[kind], "Mars", 99);

/** The portal's answers, each after a random number of turns, counting the questions. */
function portal(delays: number[], rootId: number) {
  let turn = 0;
  const later = async <T>(f: () => T): Promise<T> => {
    const n = delays[turn++ % delays.length];
    for (let i = 0; i < n; i++) await Promise.resolve();
    return f();
  };
  const asked: string[] = [];
  const refs = {
    businessUnit: (id: number) =>
      later(() => {
        if (id !== rootId) throw new MissingObjectError(`business unit ${id}`, "http://portal", false, "1");
        return { id, name: "root" };
      }),
    resolve: (kind: ReferenceKind, value: string | number) =>
      later(() => {
        asked.push(JSON.stringify([kind, value]));
        if (!KNOWN[kind].includes(value)) throw new UnknownReferenceError(kind, value, KNOWN[kind].map(String));
        return { id: 1, name: String(value) };
      }),
    childOf: (parentId: number, id: number) =>
      later(() => {
        asked.push(JSON.stringify(["adoptId", id]));
        if (id > 10) throw new MissingObjectError(`business unit ${id}`, "http://portal", false, "2, 3");
        return { id, name: `bu ${id}`, parentId };
      }),
    nodePairProblem: (os: string | number, type: string | number) =>
      later(() => {
        asked.push(JSON.stringify(["pair", os, type]));
        return os === "Windows" && type === "Database" ? `type ${type} is not one ${os} supports` : undefined;
      }),
  };
  return { refs: refs as unknown as References, asked };
}

const node = fc.record(
  {
    operatingSystem: pool("operatingSystem"),
    type: pool("type"),
    domain: pool("domain"),
    clientOptionSet: pool("clientOptionSet"),
  },
  { requiredKeys: ["operatingSystem", "type", "domain"] },
);
const consumers = fc.dictionary(fc.constantFrom("web", "db", "mail"), fc.record({ node: node }, { requiredKeys: [] }), { maxKeys: 3 });
const unitFields = {
  timeZone: pool("timeZone"),
  domainFilter: fc.array(pool("domain"), { maxLength: 2 }),
  clientOptionSetFilter: fc.array(pool("clientOptionSet"), { maxLength: 2 }),
  consumers,
};
const child: fc.Arbitrary<UnitNames> = fc.record(unitFields, { requiredKeys: ["timeZone"] }) as fc.Arbitrary<UnitNames>;
const tenant: fc.Arbitrary<UnitNames> = fc.record(
  { ...unitFields, adoptId: fc.constantFrom(2, 3, 40), businessUnits: fc.dictionary(fc.constantFrom("eu", "us"), child, { maxKeys: 2 }) },
  { requiredKeys: ["timeZone"] },
) as fc.Arbitrary<UnitNames>;
const tenantsBlock = fc.dictionary(fc.constantFrom("acme", "globex", "initech", "umbrella"), tenant, { maxKeys: 4 });

describe("validateNames against the code it replaced (property)", () => {
  it("gives the same problems at the same paths, and asks what it asked, each distinct value at most once", async () => {
    await fc.assert(
      fc.asyncProperty(
        tenantsBlock,
        fc.constantFrom(1, 5),
        fc.array(fc.nat(4), { minLength: 1, maxLength: 8 }),
        async (tenants, root, delays) => {
          const old = portal(delays, 1);
          const expected = await oracle(tenants, old.refs, root);
          const { refs, asked } = portal(delays, 1);
          assert.deepEqual(await validateNames(tenants, refs, root), expected);
          assert.equal(new Set(asked).size, asked.length, `asked twice: ${asked.join(" ")}`);
          assert.deepEqual([...new Set(asked)].sort(), [...new Set(old.asked)].sort(), "asks what the replaced code asked, nothing more");
        },
      ),
      { numRuns: 300 },
    );
  });

  it("a failed read is the error it was, not a problem", async () => {
    const { refs } = portal([0], 1);
    const failing = { ...refs, resolve: async () => Promise.reject(new Error("portal unreachable")) } as unknown as References;
    await assert.rejects(validateNames({ acme: { timeZone: "UTC" } }, failing, 1), /portal unreachable/);
  });
});
