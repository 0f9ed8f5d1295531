// The error of a create that made its object but failed a later step (provider/dynamic/partial.ts): the host
// hands its id, properties and reasons to the engine, which records the object as partially created.
import assert from "node:assert/strict";
import { PartialCreateError } from "../../provider/dynamic/partial";

describe("PartialCreateError", () => {
  it("tells the engine the id, the properties to record and the reason; the message says what to do", () => {
    const e = new PartialCreateError("17", { tsmName: "WEB-17" }, new Error("activation refused (HTTP 409)"));
    assert.equal(
      e.message,
      "created 17, but a later step failed: activation refused (HTTP 409). The object is kept in state; run `pulumi up` again to finish it.",
    );
    assert.equal(String(e).split(":")[0], "PartialCreateError");
    assert.deepEqual([e.id, e.properties, e.reasons], ["17", { tsmName: "WEB-17" }, ["activation refused (HTTP 409)"]]);
    assert.deepEqual(new PartialCreateError("18", {}, "timed out").reasons, ["timed out"]);
  });
});
