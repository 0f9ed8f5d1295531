// validateNames in-process: which names of the tenants block are looked up, of what kind and under which business
// unit, how unknown ones are reported (sorted by path), and that any other failure is not hidden as a config problem.
import assert from "node:assert/strict";
import { ReferenceKind, References, UnknownReferenceError } from "../../provider/dynamic/references";
import { TenantsConfig } from "../../provider/tenants/model";
import { validateNames } from "../../provider/tenants/names";

/** A stand-in of the portal's lists: values starting with "bad" are unknown, "boom" fails the read. */
function fakeRefs() {
  const calls: Array<[ReferenceKind, string | number, number | undefined]> = [];
  const adopted: string[] = [];
  const pairs: string[] = [];
  const refs = {
    resolve: async (kind: ReferenceKind, value: string | number, bunitId?: number) => {
      calls.push([kind, value, bunitId]);
      if (String(value).startsWith("bad")) throw new UnknownReferenceError(kind, value, ["Good"]);
      if (value === "boom") throw new Error("portal unreachable");
      return { id: 1, name: String(value) };
    },
    businessUnit: async (id: number) => ({ id, name: `bu ${id}` }),
    childOf: async (parentId: number, id: number) => {
      adopted.push(`${id} under ${parentId}`);
      return { id, name: `bu ${id}` };
    },
    nodePairProblem: async (os: string | number, type: string | number) => {
      pairs.push(`${os}+${type}`);
      return undefined;
    },
    consumer: async (bunitId: number, id: number) => {
      adopted.push(`consumer ${id} of ${bunitId}`);
      return { id, name: `consumer ${id}` };
    },
  };
  return { refs: refs as unknown as References, calls, adopted, pairs };
}

const tenants = (): TenantsConfig =>
  ({
    zeta: {
      registrationNumber: "1",
      timeZone: "badZone",
      domainFilter: ["STANDARD", "badDomain"],
      clientOptionSetFilter: ["badSet"],
      consumers: {
        web: { node: { operatingSystem: "badOs", type: "badType", domain: "badNodeDomain", clientOptionSet: "badNodeSet", cpuCount: 1 } },
        plain: {},
      },
      businessUnits: {
        labs: {
          registrationNumber: "2",
          timeZone: "UTC",
          consumers: { ws: { node: { operatingSystem: "Linux", type: 1, domain: 2, cpuCount: 1 } } },
        },
      },
    },
    alpha: { registrationNumber: "3", timeZone: "badAlpha" },
  }) as unknown as TenantsConfig;

describe("stack config: validateNames", () => {
  it("reports each unknown name at its path with the portal's valid names, sorted by path", async () => {
    const { refs } = fakeRefs();
    const problems = await validateNames(tenants(), refs, 7);
    assert.deepEqual(
      problems.map((p) => `${p.path}: ${p.message}`),
      [
        'tenants.alpha.timeZone: unknown time zone (a windowsId, a display name or an id) "badAlpha"; valid: Good',
        'tenants.zeta.clientOptionSetFilter[0]: unknown client option set of the default backup server "badSet"; valid: Good',
        'tenants.zeta.consumers.web.node.clientOptionSet: unknown client option set of the default backup server "badNodeSet"; valid: Good',
        'tenants.zeta.consumers.web.node.domain: unknown policy domain of the default backup server "badNodeDomain"; valid: Good',
        'tenants.zeta.consumers.web.node.operatingSystem: unknown operating system "badOs"; valid: Good',
        'tenants.zeta.consumers.web.node.type: unknown node type "badType"; valid: Good',
        'tenants.zeta.domainFilter[1]: unknown policy domain of the default backup server "badDomain"; valid: Good',
        'tenants.zeta.timeZone: unknown time zone (a windowsId, a display name or an id) "badZone"; valid: Good',
      ],
    );
  });

  it("looks up every given name, of its kind, under the root business unit, and skips what is not given", async () => {
    const { refs, calls } = fakeRefs();
    await validateNames(tenants(), refs, 7);
    const seen = calls.map(([kind, value, bu]) => `${kind}=${value}@${bu}`).sort();
    assert.deepEqual(seen, [
      "clientOptionSet=badNodeSet@7",
      "clientOptionSet=badSet@7",
      "domain=2@7",
      "domain=STANDARD@7",
      "domain=badDomain@7",
      "domain=badNodeDomain@7",
      "operatingSystem=Linux@7",
      "operatingSystem=badOs@7",
      "timeZone=UTC@7",
      "timeZone=badAlpha@7",
      "timeZone=badZone@7",
      "type=1@7",
      "type=badType@7",
    ]);
  });

  it("asks whether a node's type goes with its operating system only when both are found (issue 45 item 6)", async () => {
    const { refs, pairs } = fakeRefs();
    await validateNames(tenants(), refs, 7);
    // web's badOs and badType are each a problem of their own; ws's Linux and 1 are asked as a pair.
    assert.deepEqual(pairs, ["Linux+1"]);
  });

  it("looks up only the tenants' own adoptIds, as children of the root: one list, however many objects are adopted", async () => {
    const { refs, adopted } = fakeRefs();
    const t = tenants() as unknown as Record<string, Record<string, any>>;
    t.zeta.adoptId = 11;
    t.zeta.consumers.web.adoptId = 12;
    t.zeta.businessUnits.labs.adoptId = 13;
    t.zeta.businessUnits.labs.consumers.ws.adoptId = 14;
    t.alpha.adoptId = 15;
    await validateNames(t as unknown as TenantsConfig, refs, 7);
    assert.deepEqual(adopted.sort(), ["11 under 7", "15 under 7"]);
  });

  it("a failed read is an error, not a config problem", async () => {
    const { refs } = fakeRefs();
    const t = tenants();
    t.alpha.timeZone = "boom";
    await assert.rejects(validateNames(t, refs, 7), /portal unreachable/);
  });
});
