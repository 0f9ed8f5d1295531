// The input handling every resource shares (provider/dynamic/values.ts): preview's unknown values, ids, check
// failures, and the comparisons that decide what Diff reports, what Read stores and what an update sends.
import assert from "node:assert/strict";
import {
  changedKeys,
  checkId,
  defined,
  Failures,
  managedKeys,
  pick,
  readBack,
  sameValue,
  sentValue,
  toId,
  UNKNOWN,
  withPortalValues,
} from "../../provider/dynamic/values";

describe("dynamic provider values", () => {
  it("toId: a positive integer or its decimal text (spaces around allowed), nothing else", () => {
    assert.equal(toId(17), 17);
    assert.equal(toId("17"), 17);
    assert.equal(toId(" 170 "), 170);
    assert.equal(toId("1"), 1);
    for (const v of [0, -3, 1.5, NaN, Infinity, "0", "017", "-3", "1.5", "12a", "a12", "1 2", "", " ", "x", true, null, undefined, [5]]) {
      assert.equal(toId(v), undefined, JSON.stringify(v));
    }
  });

  it("checkId: names a missing or bad id and the fix, normalizes a numeric string, lets preview's unknown pass", () => {
    for (const missing of [undefined, null, ""]) {
      const f = new Failures();
      checkId(f, { parentId: missing }, "parentId");
      assert.deepEqual(f.list, [{ property: "parentId", reason: "parentId is required: the id of an existing portal object" }]);
      const optional = new Failures();
      checkId(optional, { adoptId: missing }, "adoptId", false);
      assert.deepEqual(optional.list, []);
    }
    const f = new Failures();
    checkId(f, { parentId: "x1" }, "parentId");
    checkId(f, { adoptId: 0 }, "adoptId", false);
    assert.deepEqual(f.list, [
      { property: "parentId", reason: 'parentId must be a positive integer id (at most 9007199254740991), got "x1"' },
      { property: "adoptId", reason: "adoptId must be a positive integer id (at most 9007199254740991), got 0" },
    ]);
    const ok = new Failures();
    const inputs: Record<string, unknown> = { parentId: "42", other: UNKNOWN };
    checkId(ok, inputs, "parentId");
    checkId(ok, inputs, "other");
    assert.deepEqual(ok.list, []);
    assert.deepEqual(inputs, { parentId: 42, other: UNKNOWN }, "the id is stored as a number; the unknown is left as it is");
  });

  it("sameValue: absent, null and empty text are alike; tags in any order; a number and its text; objects by content", () => {
    assert.equal(sameValue("a", "a"), true);
    const tags = ["x", "y"];
    assert.equal(sameValue(tags, tags), true);
    for (const a of [undefined, null, ""]) for (const b of [undefined, null, ""]) assert.equal(sameValue(a, b), true, `${a} ~ ${b}`);
    for (const empty of [undefined, null, ""]) {
      assert.equal(sameValue(empty, "x"), false);
      assert.equal(sameValue("x", empty), false);
      assert.equal(sameValue(empty, 0), false);
    }
    assert.equal(sameValue(["b", "a"], ["a", "b"]), true);
    assert.equal(sameValue([2, 1], ["1", "2"]), true);
    assert.equal(sameValue(["a"], ["b"]), false);
    assert.equal(sameValue(["a", "b"], ["a"]), false);
    assert.equal(sameValue(["a\u0000b"], ["a", "b"]), false, "two tags are not one tag that holds both");
    assert.equal(sameValue([], []), true);
    assert.equal(sameValue(5, "5"), true);
    assert.equal(sameValue("5", 5), true);
    assert.equal(sameValue(5, "6"), false);
    assert.equal(sameValue({ a: 1 }, { a: 1 }), true);
    assert.equal(sameValue({ a: 1 }, { a: 2 }), false);
    assert.equal(sameValue("a", "b"), false);
    assert.equal(sameValue(true, false), false);
  });

  it("changedKeys: the keys whose new value differs as the portal sees it", () => {
    const olds = { name: "n", tags: ["a", "b"], limit: 5, note: "" };
    const news = { name: "m", tags: ["b", "a"], limit: "5", note: undefined, contact: "c" };
    assert.deepEqual(changedKeys(["name", "tags", "limit", "note", "contact"], olds, news), ["name", "contact"]);
  });

  it("pick: only the defined values of the keys asked for", () => {
    assert.deepEqual(pick({ a: 1, b: null, c: undefined, d: "", e: 0, f: false, g: 2 }, ["a", "b", "c", "d", "e", "f"]), {
      a: 1,
      d: "",
      e: 0,
      f: false,
    });
  });

  it("readBack: the declared inputs as the portal has them; outputs keep the rest and drop what the portal cleared", () => {
    const props = { id: 9, name: "old", note: "was set", createdAt: "2024-01-01" };
    const { inputs, outputs } = readBack(props, { name: "new", note: null, contact: "c" }, ["name", "note", "contact"]);
    assert.deepEqual(inputs, { name: "new", contact: "c" });
    assert.deepEqual(outputs, { id: 9, createdAt: "2024-01-01", name: "new", contact: "c" });
    assert.deepEqual(
      props,
      { id: 9, name: "old", note: "was set", createdAt: "2024-01-01" },
      "the stored outputs are not changed in place",
    );
  });

  it("defined: drops keys whose value is undefined (the host cannot encode them), keeps null and falsy values", () => {
    const out = defined({ a: 1, b: undefined, c: null, d: 0, e: "" });
    assert.deepEqual(out, { a: 1, c: null, d: 0, e: "" });
    assert.equal("b" in out, false);
  });

  it("sentValue: the input, or what clears the field: [] for tags, empty text for note and contact, else null", () => {
    assert.deepEqual(sentValue({ tags: ["x"] }, "tags"), ["x"]);
    assert.deepEqual(sentValue({}, "tags"), []);
    assert.deepEqual(sentValue({ tags: null }, "tags"), []);
    assert.equal(sentValue({}, "note"), "");
    assert.equal(sentValue({}, "contact"), "");
    assert.equal(sentValue({}, "storageLimit"), null);
    assert.equal(sentValue({ storageLimit: null }, "storageLimit"), null);
    assert.equal(sentValue({ storageLimit: 0 }, "storageLimit"), 0);
    assert.equal(sentValue({ note: "hi" }, "note"), "hi");
    assert.equal(sentValue({ supportResponsible: false }, "supportResponsible"), false);
  });

  it("managedKeys: the settable keys declared now or before, in the order of the settable keys", () => {
    const keys = ["name", "note", "tags", "contact", "storageLimit"];
    assert.deepEqual(managedKeys(keys, { note: "was", tags: null }, { name: "n", storageLimit: 0, contact: null }), [
      "name",
      "note",
      "storageLimit",
    ]);
    assert.deepEqual(managedKeys(keys, {}, {}), []);
  });

  it("withPortalValues: the declared keys take the portal's values; one the portal cleared is dropped; undeclared keys stay out", () => {
    const declared = { name: "mine", note: "n", tags: ["a"], registrationNumber: "r" };
    const portal = { name: "theirs", note: null, tags: ["a", "b"], contact: "filled by the portal", registrationNumber: undefined };
    assert.deepEqual(withPortalValues(portal, declared, ["name", "note", "tags", "contact", "registrationNumber"]), {
      name: "theirs",
      tags: ["a", "b"],
    });
    assert.deepEqual(declared, { name: "mine", note: "n", tags: ["a"], registrationNumber: "r" }, "the declared inputs are not changed");
    assert.deepEqual(
      withPortalValues(portal, declared, ["name"]),
      { ...declared, name: "theirs" },
      "keys not compared are kept as declared",
    );
  });
});
