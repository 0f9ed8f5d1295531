// The stack config reader refuses two entries that adopt one portal object (issue 36 item 4): two resources for one
// object fight on every up, and removing the "duplicate" later deletes the real object. Each entry gets its line at
// its adoptId, naming the others; business units and consumers are counted apart, as their ids are.
import assert from "node:assert/strict";
import fc from "fast-check";
import { formatConfigProblems, readStackConfig } from "../../provider/stack-config/read";

/** The config as the CLI hands it to the program: text values, objects as JSON text. */
function lines(tenants: unknown): string[] {
  const r = readStackConfig({ config: { "backup-portal:tenants": JSON.stringify(tenants) }, isSecret: () => false });
  return formatConfigProblems("Pulumi.prod.yaml", r.problems);
}

const bu = (extra: Record<string, unknown> = {}) => ({ registrationNumber: "R-1", timeZone: "UTC", ...extra });
const problem = (kind: string, id: number, others: string) =>
  `${kind} ${id} is also adopted at ${others}: two resources for one portal object fight on every up, and removing either ` +
  `deletes the object; keep adoptId ${id} on one entry only`;

describe("stack config: one portal object adopted by two entries", () => {
  it("two tenants, and two consumers (in different business units) with one adoptId: a line at each", () => {
    const tenants = {
      "tenant-a": bu({ adoptId: 2, consumers: { web: { adoptId: 7 } } }),
      "tenant-a-old": bu({ adoptId: 2, businessUnits: { lab: bu({ consumers: { web: { adoptId: 7 } } }) } }),
    };
    assert.deepEqual(lines(tenants), [
      `Pulumi.prod.yaml: backup-portal:tenants.tenant-a-old.adoptId: ${problem("business unit", 2, "tenants.tenant-a.adoptId")}`,
      `Pulumi.prod.yaml: backup-portal:tenants.tenant-a-old.businessUnits.lab.consumers.web.adoptId: ${problem("consumer", 7, "tenants.tenant-a.consumers.web.adoptId")}`,
      `Pulumi.prod.yaml: backup-portal:tenants.tenant-a.adoptId: ${problem("business unit", 2, "tenants.tenant-a-old.adoptId")}`,
      `Pulumi.prod.yaml: backup-portal:tenants.tenant-a.consumers.web.adoptId: ${problem("consumer", 7, "tenants.tenant-a-old.businessUnits.lab.consumers.web.adoptId")}`,
    ]);
  });

  it("a business unit and a consumer with one number adopt different objects: no problem", () => {
    assert.deepEqual(lines({ acme: bu({ adoptId: 3, consumers: { erp: { adoptId: 3 } } }) }), []);
  });

  it("an adoptId the rules refuse has its own problem only, not a repeat", () => {
    const refused = lines({ a: bu({ adoptId: 0 }), b: bu({ adoptId: 0 }) });
    assert.equal(refused.length, 2);
    assert.ok(
      refused.every((l) => !l.includes("is also adopted")),
      refused.join("\n"),
    );
  });

  it("for any tree: a line exactly at each adoptId that another entry of its kind shares, naming all those others (property)", () => {
    type Gen = { id?: number; consumers: Array<number | undefined>; children: Gen[] };
    const ID = fc.option(fc.integer({ min: 1, max: 4 }), { nil: undefined });
    const { tree } = fc.letrec<{ tree: Gen[]; unit: Gen }>((tie) => ({
      tree: fc.array(tie("unit"), { maxLength: 3 }),
      unit: fc.record({
        id: ID,
        consumers: fc.array(ID, { maxLength: 3 }),
        children: fc.oneof({ depthSize: "small" }, fc.constant([] as Gen[]), tie("tree") as fc.Arbitrary<Gen[]>),
      }),
    }));
    fc.assert(
      fc.property(tree, (gen) => {
        // The tenants block, and beside it every adoptId with its path and kind, as generated.
        const adopted: Array<{ kind: string; id: number; path: string }> = [];
        const block = (units: Gen[], at: string): Record<string, unknown> =>
          Object.fromEntries(
            units.map((u, i) => {
              const p = `${at}.u${i}`;
              if (u.id !== undefined) adopted.push({ kind: "business unit", id: u.id, path: `${p}.adoptId` });
              const consumers = Object.fromEntries(
                u.consumers.map((id, j) => {
                  if (id !== undefined) adopted.push({ kind: "consumer", id, path: `${p}.consumers.c${j}.adoptId` });
                  return [`c${j}`, id === undefined ? {} : { adoptId: id }];
                }),
              );
              const children = u.children.length ? { businessUnits: block(u.children, `${p}.businessUnits`) } : {};
              return [`u${i}`, bu({ ...(u.id === undefined ? {} : { adoptId: u.id }), consumers, ...children })];
            }),
          );
        const tenants = block(gen, "tenants");
        const expected = adopted
          .map((a) => ({ a, others: adopted.filter((b) => b !== a && b.kind === a.kind && b.id === a.id) }))
          .filter((x) => x.others.length > 0);
        const got = lines(tenants).filter((l) => l.includes(" is also adopted at "));
        assert.equal(got.length, expected.length, got.join("\n"));
        for (const { a, others } of expected) {
          const line = got.find((l) => l.startsWith(`Pulumi.prod.yaml: backup-portal:${a.path}: ${a.kind} ${a.id} is also adopted at `));
          assert.ok(line, `a line at ${a.path}`);
          const named = line.split(" is also adopted at ")[1].split(": two resources")[0].split(", ");
          assert.deepEqual([...named].sort(), others.map((o) => o.path).sort(), line);
        }
      }),
      { numRuns: 300, seed: 36 },
    );
  });
});
