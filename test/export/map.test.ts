// The mapping's edges that a portal may show and the emulator does not: fields the tables lack, users, a name
// that does not name one object, an id the portal's list lacks, a proxy across business units.
import assert from "node:assert/strict";
import { toTenants } from "../../provider/export/map";
import { plain } from "../../provider/export/out";
import { renderYaml } from "../../provider/export/render";
import type { PortalTree } from "../../provider/export/read";

const LISTS: Record<string, Array<{ id: number; name?: string; windowsId?: string }>> = {
  timeZone: [
    { id: 1, name: "(GMT) UTC", windowsId: "UTC" },
    { id: 2, name: "Twin", windowsId: "UTC" },
  ],
  operatingSystem: [{ id: 3, name: "Linux" }],
  type: [
    { id: 1, name: "File server" },
    { id: 2, name: "file SERVER" },
  ],
  domain: [{ id: 1, name: "STANDARD" }],
  clientOptionSet: [{ id: 1, name: "123" }],
};

function tree(bu: Record<string, unknown>, consumers: PortalTree["businessUnits"][number]["consumers"] = []): PortalTree {
  return {
    rootId: 1,
    references: { list: (kind) => LISTS[kind] },
    businessUnits: [
      { parentId: 1, children: [], bu: { id: 10, name: "B", registrationNumber: "R", timeZone: { id: 1 }, ...bu } as any, consumers },
    ],
  };
}

const node = (extra: Record<string, unknown> = {}) =>
  ({ id: 5, operatingSystem: { id: 3 }, type: { id: 1 }, domain: { id: 1 }, cpuCount: 2, tsmName: "N5", ...extra }) as any;

describe("export mapping", () => {
  it("a field the tables lack and users are named for review (never their values); known read-only fields are not", () => {
    const r = toTenants(tree({ users: { total: 3, items: [] }, createdDate: "x", secretThing: "hunter2", href: "h" }));
    assert.deepEqual(
      r.reviews.map((x) => x.path),
      ["tenants.b.secretThing", "tenants.b.users"],
    );
    const text = renderYaml({ rootId: 1, tenants: r.tenants, header: [] });
    assert.doesNotMatch(text, /hunter2/);
    assert.match(text, /# review: 3 users on the portal: stack config does not manage users/);
  });

  it("a name that gives back another object is not used: the id is, with a comment; a list without the id is a review", () => {
    const r = toTenants(
      tree({ timeZone: { id: 2 } }, [
        { consumer: { id: 5, name: "c" }, node: node({ type: { id: 2 }, clientOptionSet: { id: 1 }, domain: { id: 99 } }) },
      ]),
    );
    const t = plain(r.tenants) as any;
    assert.equal(t.b.timeZone, "Twin", "windowsId UTC names id 1 first; the display name names id 2");
    assert.equal(t.b.consumers.c.node, undefined, "domain 99 is not in the list: the node is left out for review");
    const text = renderYaml({ rootId: 1, tenants: r.tenants, header: [] });
    assert.match(text, /#\s+# by id: the node type "file SERVER" has no name that names only it\n\s+#\s+type: 2/);
    assert.match(text, /#\s+clientOptionSet: 1\n/, "a name of digits would read as an id");
    assert.deepEqual(
      r.reviews.map((x) => x.path),
      ["tenants.b.consumers.c.node.domain"],
    );
  });

  it("a proxy relation with a consumer outside the business unit is a review, not a relation", () => {
    const r = toTenants(
      tree({}, [
        { consumer: { id: 5, name: "c" }, node: node({ proxyAgents: [{ id: 77, name: "elsewhere" }], proxyTargets: [{ id: 78 }] }) },
      ]),
    );
    const t = plain(r.tenants) as any;
    assert.equal(t.b.proxies, undefined);
    assert.deepEqual(
      r.reviews.map((x) => x.message.replace(/, outside.*/, "")),
      ['c has the proxy agent "elsewhere" (consumer 77)', 'c is proxy agent of "" (consumer 78)'],
    );
  });
});

describe("export mapping: a relation whose node is left out", () => {
  it("waits for the node, as a review, instead of a relation the stack would refuse", () => {
    const r = toTenants(
      tree({}, [
        { consumer: { id: 5, name: "agent" }, node: node({ cpuCount: 0 }) },
        { consumer: { id: 6, name: "target" }, node: node({ id: 6, tsmName: "N6", proxyAgents: [{ id: 5 }] }) },
      ]),
    );
    const t = plain(r.tenants) as any;
    assert.equal(t.b.proxies, undefined);
    assert.equal(t.b.consumers.agent.node, undefined);
    assert.deepEqual(
      r.reviews.map((x) => x.message),
      [
        "cpuCount must be an integer from 1 to 4096, got 0; the stack refuses this entry until it holds a valid value (set it on the portal or here)",
        "proxy relation agent → target: left out with its node (see the node's review); add it when the node is back",
      ],
    );
  });
});
