// The plugin's property values in process (provider/plugin/values.ts): which properties the engine sent as
// secrets, however deep the secret sits, and the answer's properties wrapped again. The process-level tests
// (lifecycle.test.ts) show a secret coming back from each call; these pin the rule on every shape.
import assert from "node:assert/strict";
import { fromWire, secretOf, toWire, SECRET_SIG, SIG_KEY } from "../../provider/plugin/values";
import { secret } from "../engine/values";

describe("plugin values: secrets in, plain for the lifecycles, secrets out", () => {
  it("a secret anywhere in a property makes the whole property secret, and the lifecycles see plain values", () => {
    const { props, secrets } = fromWire({
      top: secret("a"),
      inList: [1, secret(2), 3],
      inMap: { plain: "x", hidden: secret("y") },
      deep: [{ k: [secret("z")] }],
      twice: secret(secret("w")),
      plain: "p",
      list: [1, 2],
      map: { a: 1 },
      none: null,
    });
    assert.deepEqual(props, {
      top: "a",
      inList: [1, 2, 3],
      inMap: { plain: "x", hidden: "y" },
      deep: [{ k: ["z"] }],
      twice: "w",
      plain: "p",
      list: [1, 2],
      map: { a: 1 },
      none: null,
    });
    assert.deepEqual([...secrets].sort(), ["deep", "inList", "inMap", "top", "twice"]);
  });

  it("one secret item is enough: the first, the last, or the only one of a list or map", () => {
    for (const value of [[secret(1), 2], [1, secret(2)], [secret(1)], { a: secret(1), b: 2 }, { a: 1, b: secret(2) }]) {
      assert.deepEqual([...fromWire({ v: value }).secrets], ["v"], JSON.stringify(value));
    }
    assert.deepEqual([...fromWire({ v: [1, 2], w: { a: 1 } }).secrets], [], "no secret, no secret keys");
    assert.deepEqual(fromWire(undefined), { props: {}, secrets: new Set() });
  });

  it("toWire wraps the named properties, leaves null and the others as they are, and drops undefined", () => {
    const out = toWire({ password: "s", name: "n", gone: undefined, cleared: null, list: [1] }, ["password", "cleared", "list"]);
    assert.deepEqual(out, { password: { [SIG_KEY]: SECRET_SIG, value: "s" }, name: "n", cleared: null, list: secretOf([1]) });
    assert.equal("gone" in out, false);
  });
});
