// What the portal guard records and compares (provider/dynamic/portal-guard.ts); the guard through the engine
// against two emulators: test/resources/portal-guard.test.ts.
import assert from "node:assert/strict";
import { assertSamePortal, portalOf } from "../../provider/dynamic/portal-guard";

describe("portal guard: the recorded portal", () => {
  it("holds no credential of the URL (state is plain text) and ignores a trailing slash", () => {
    const recorded = portalOf({ url: "https://ops:s3cret@portal.example.com/", username: "admin" });
    assert.equal(recorded, "https://***@portal.example.com|admin");
    assert.ok(!recorded.includes("s3cret"));
    assert.equal(portalOf({ url: "https://portal.example.com//", username: "admin" }), "https://portal.example.com|admin");
  });

  it("refuses another url or another account, passes the same one and state without a record", () => {
    const here = portalOf({ url: "https://a.example", username: "admin" });
    assertSamePortal("consumer 7", "delete", { portal: here }, here);
    assertSamePortal("consumer 7", "delete", {}, here);
    assertSamePortal("consumer 7", "delete", undefined, here);
    for (const other of [
      portalOf({ url: "https://b.example", username: "admin" }),
      portalOf({ url: "https://a.example", username: "ops" }),
    ]) {
      assert.throws(
        () => assertSamePortal("consumer 7", "update", { portal: here }, other),
        (e: Error) =>
          e.message.startsWith("consumer 7: refusing to update it: it was created on https://a.example (account admin)") &&
          e.message.includes(`configured for ${other.replace("|", " (account ")})`),
      );
    }
  });
});
