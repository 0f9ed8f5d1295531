import { strict as assert } from "assert";
import { bucketName, FleetConfigError, groupTenants, jumpHash, keyPrefix, movedTenants, tenantBucket } from "../../stacks/fleet/group";
import { TenantsConfig } from "../../provider/tenants/model";
import { assignment, manyTenants, tenant } from "./helpers";

function errorOf(fn: () => unknown): FleetConfigError {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof FleetConfigError, `expected a FleetConfigError, got ${err}`);
    return err;
  }
  throw new Error("expected an error");
}

describe("fleet: groupTenants", () => {
  describe("hash buckets (key-prefix with size)", () => {
    it("the jump hash gives the published reference values", () => {
      // Test vectors of the reference implementation (github.com/dgryski/go-jump).
      assert.equal(jumpHash(1n, 1), 0);
      assert.equal(jumpHash(42n, 57), 43);
      assert.equal(jumpHash(0xdead10ccn, 1), 0);
      assert.equal(jumpHash(0xdead10ccn, 666), 361);
      assert.equal(jumpHash(256n, 1024), 520);
    });

    it("is deterministic: the same tenants in any order give the same groups", () => {
      const tenants = manyTenants(300);
      const reversed: TenantsConfig = Object.fromEntries(Object.entries(tenants).reverse());
      const a = groupTenants(tenants, { groupBy: "key-prefix", size: 8 });
      const b = groupTenants(reversed, { groupBy: "key-prefix", size: 8 });
      assert.equal(JSON.stringify(a), JSON.stringify(b));
      assert.deepEqual(Object.keys(a), ["g00", "g01", "g02", "g03", "g04", "g05", "g06", "g07"]);
      for (const ts of Object.values(a)) assert.deepEqual(Object.keys(ts), Object.keys(ts).sort());
    });

    it("puts every tenant in exactly one group, with its own config, spread evenly", () => {
      const tenants = manyTenants(1000);
      const groups = groupTenants(tenants, { groupBy: "key-prefix", size: 8 });
      const seen = new Map<string, number>();
      for (const ts of Object.values(groups)) for (const k of Object.keys(ts)) seen.set(k, (seen.get(k) ?? 0) + 1);
      assert.equal(seen.size, 1000);
      assert.ok([...seen.values()].every((n) => n === 1));
      for (const [g, ts] of Object.entries(groups)) {
        for (const [k, cfg] of Object.entries(ts)) assert.equal(cfg, tenants[k], `${g}/${k} is the tenant's own config`);
        const n = Object.keys(ts).length;
        assert.ok(n > 80 && n < 175, `${g} holds ${n} of 1000 tenants`);
      }
    });

    it("adding or removing tenants moves no other tenant", () => {
      const before = groupTenants(manyTenants(500), { groupBy: "key-prefix", size: 8 });
      const grown = groupTenants({ ...manyTenants(500), ...manyTenants(50, "new-") }, { groupBy: "key-prefix", size: 8 });
      assert.deepEqual(movedTenants(before, grown), []);
      const was = assignment(before);
      for (const [t, g] of assignment(grown)) if (was.has(t)) assert.equal(g, was.get(t));

      const fewer = manyTenants(500);
      for (const k of Object.keys(fewer).slice(0, 100)) delete fewer[k];
      assert.deepEqual(movedTenants(before, groupTenants(fewer, { groupBy: "key-prefix", size: 8 })), []);
    });

    it("keeps empty buckets, so a stack whose last tenant is removed still runs and deletes it", () => {
      const groups = groupTenants({ only: tenant("only") }, { groupBy: "key-prefix", size: 4 });
      assert.deepEqual(Object.keys(groups), ["g00", "g01", "g02", "g03"]);
      assert.equal(Object.values(groups).filter((ts) => Object.keys(ts).length === 0).length, 3);
      assert.deepEqual(Object.keys(groupTenants({}, { groupBy: "key-prefix", size: 2 })), ["g00", "g01"]);
    });

    it("growing from 8 to 9 buckets moves only about a ninth of the tenants, all into the new one", () => {
      const tenants = manyTenants(2000);
      const moves = movedTenants(
        groupTenants(tenants, { groupBy: "key-prefix", size: 8 }),
        groupTenants(tenants, { groupBy: "key-prefix", size: 9 }),
      );
      assert.ok(moves.every((m) => m.to === "g08"));
      assert.ok(moves.length > 150 && moves.length < 300, `${moves.length} of 2000 moved`);
    });

    it("hashes the key alone and names buckets stably", () => {
      assert.equal(tenantBucket("acme", 8), tenantBucket("acme", 8));
      assert.equal(bucketName(3), "g03");
      assert.equal(bucketName(42), "g42");
      assert.equal(bucketName(100), "g100");
    });

    it("keeps a renamed tenant in the bucket of its oldest alias, the key it was first grouped under", () => {
      assert.notEqual(tenantBucket("acme-ab", 8), tenantBucket("acme", 8), "the new key alone would move the tenant");
      const before = groupTenants({ acme: tenant("acme"), globex: tenant("globex") }, { groupBy: "key-prefix", size: 8 });
      const renamed = groupTenants(
        { "acme-ab": tenant("acme-ab", { aliases: ["acme"] }), globex: tenant("globex") },
        { groupBy: "key-prefix", size: 8 },
      );
      assert.equal(assignment(renamed).get("acme-ab"), assignment(before).get("acme"));
      const again = groupTenants({ "acme-x": tenant("acme-x", { aliases: ["acme", "acme-ab"] }) }, { groupBy: "key-prefix", size: 8 });
      assert.equal(assignment(again).get("acme-x"), assignment(before).get("acme"), "renamed twice: still the first key's bucket");
    });

    it("rejects a size that cannot be a number of stacks", () => {
      for (const size of [0, -1, 2.5, 1001]) {
        assert.match(errorOf(() => groupTenants({}, { groupBy: "key-prefix", size })).message, /size: must be an integer from 1 to 1000/);
      }
    });
  });

  describe("key prefixes (key-prefix without size)", () => {
    it("groups by the part of the key before the first separator", () => {
      const groups = groupTenants(
        { "r1-acme": tenant("a"), r1_globex: tenant("b"), "r2.x": tenant("c"), solo: tenant("d") },
        { groupBy: "key-prefix" },
      );
      assert.deepEqual(Object.fromEntries(Object.entries(groups).map(([g, ts]) => [g, Object.keys(ts)])), {
        r1: ["r1-acme", "r1_globex"],
        r2: ["r2.x"],
        solo: ["solo"],
      });
      assert.equal(keyPrefix("abc"), "abc");
    });

    it("accepts a rename within the prefix, and refuses one whose alias is in another group, naming both groups and the fix", () => {
      const same = groupTenants({ "r2-acme-ab": tenant("a", { aliases: ["r2-acme"] }) }, { groupBy: "key-prefix" });
      assert.deepEqual(Object.keys(same), ["r2"]);
      const e = errorOf(() =>
        groupTenants({ "acme-ab": tenant("a", { aliases: ["r2-acme"] }), "r2-x": tenant("b") }, { groupBy: "key-prefix" }),
      );
      assert.equal(e.problems.length, 1);
      assert.match(
        e.problems[0],
        /^tenants\.acme-ab: its key puts it in group "acme", its alias "r2-acme" in group "r2"; an alias only works within one stack: /,
      );
      assert.match(e.problems[0], /the stack of group "r2" would delete the tenant and the stack of group "acme" create it anew/);
      assert.match(e.problems[0], /Keep the old key .*`pulumi state move`/);
    });

    it("refuses groups whose names differ only in case (one stack file on macOS and Windows)", () => {
      const e = errorOf(() =>
        groupTenants({ "Acme-x": tenant("a"), "acme-y": tenant("b"), globex: tenant("c") }, { groupBy: "key-prefix" }),
      );
      assert.equal(e.problems.length, 1);
      assert.match(e.problems[0], /^groups "Acme" and "acme" differ only in case: .*case-insensitive filesystem/);
    });
  });

  describe("explicit groups", () => {
    const tenants = { acme: tenant("acme"), globex: tenant("globex"), initech: tenant("initech") };

    it("uses the assignment as given, keeping empty groups", () => {
      const groups = groupTenants(tenants, { groupBy: "explicit", groups: { big: ["globex", "acme"], small: ["initech"], spare: [] } });
      assert.deepEqual(Object.keys(groups), ["big", "small", "spare"]);
      assert.deepEqual(Object.keys(groups.big), ["acme", "globex"]);
      assert.deepEqual(groups.spare, {});
    });

    it("rejects an unknown tenant key", () => {
      const e = errorOf(() => groupTenants(tenants, { groupBy: "explicit", groups: { a: ["acme", "globex", "initech", "umbrella"] } }));
      assert.deepEqual(e.problems, ['groups.a[3]: unknown tenant key "umbrella"; it is not in backup-portal:tenants']);
    });

    it("rejects a tenant in two groups, naming both", () => {
      const e = errorOf(() => groupTenants(tenants, { groupBy: "explicit", groups: { a: ["acme", "globex"], b: ["initech", "acme"] } }));
      assert.equal(e.problems.length, 1);
      assert.match(e.problems[0], /^groups\.b\[1\]: tenant "acme" is in groups "a" and "b"; a tenant belongs to exactly one stack/);
    });

    it("rejects a tenant listed twice, a tenant in no group and a bad group name, all at once", () => {
      const e = errorOf(() => groupTenants(tenants, { groupBy: "explicit", groups: { a: ["acme", "acme"], "bad name": [] } }));
      assert.deepEqual(
        e.problems.map((p) => p.split(":")[0]),
        ["groups.a[1]", "groups.bad name", "groups"],
      );
      assert.match(e.message, /the fleet grouping has 3 problems; no stack was touched/);
      assert.match(e.problems[2], /2 tenants are in no group: globex, initech/);
    });

    it("requires the groups, and no size", () => {
      assert.match(errorOf(() => groupTenants(tenants, { groupBy: "explicit" })).message, /groups: required with groupBy "explicit"/);
      const e = errorOf(() => groupTenants(tenants, { groupBy: "explicit", size: 3, groups: { a: Object.keys(tenants) } }));
      assert.deepEqual(e.problems, ['size: only used with groupBy "key-prefix"; remove it']);
    });

    it("takes a tenant listed by its alias, and refuses its key and its alias in two groups", () => {
      const renamed = { "acme-ab": tenant("acme-ab", { aliases: ["acme"] }), globex: tenant("globex"), initech: tenant("initech") };
      const kept = groupTenants(renamed, { groupBy: "explicit", groups: { a: ["acme", "globex"], b: ["initech"] } });
      assert.deepEqual(Object.keys(kept.a), ["acme-ab", "globex"]);
      const both = groupTenants(renamed, { groupBy: "explicit", groups: { a: ["acme", "acme-ab", "globex"], b: ["initech"] } });
      assert.deepEqual(Object.keys(both.a), ["acme-ab", "globex"]);
      const e = errorOf(() => groupTenants(renamed, { groupBy: "explicit", groups: { a: ["acme", "globex"], b: ["initech", "acme-ab"] } }));
      assert.equal(e.problems.length, 1);
      assert.match(e.problems[0], /^groups\.b\[1\]: tenant "acme-ab" is in group "a" as "acme" and in group "b" as "acme-ab"; /);
      assert.match(e.problems[0], /the stack of group "a" would delete the tenant and the stack of group "b" create it anew/);
    });

    it("refuses group names that differ only in case", () => {
      const e = errorOf(() => groupTenants(tenants, { groupBy: "explicit", groups: { Big: ["acme", "globex"], big: ["initech"] } }));
      assert.deepEqual(e.problems.length, 1);
      assert.match(e.problems[0], /^groups "Big" and "big" differ only in case: .*rename one of the groups$/);
    });

    it("reports the moves between two assignments", () => {
      const before = groupTenants(tenants, { groupBy: "explicit", groups: { a: ["acme", "globex"], b: ["initech"] } });
      const after = groupTenants(tenants, { groupBy: "explicit", groups: { a: ["acme"], b: ["initech", "globex"] } });
      assert.deepEqual(movedTenants(before, after), [{ tenant: "globex", from: "a", to: "b" }]);
    });
  });
});
