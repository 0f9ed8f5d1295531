// A stack file whose tenants have no portal connection (issue 45 item 3), previewed by the real Pulumi CLI as CI
// does with no variable set: one line naming the stack file and the keys to set, once, with no stack trace; nothing
// is registered, so no resource's check repeats it.
import { strict as assert } from "node:assert";
import { stacksWorkspace } from "./project";

describe("real engine: a stack without its portal connection", function () {
  this.timeout(10 * 60_000);

  it("the preview fails in one line naming Pulumi.<stack>.yaml and the keys, once, without a stack trace", async () => {
    const ws = stacksWorkspace(
      "ci",
      [
        "config:",
        "  backup-portal:rootBusinessUnitId: 1",
        "  backup-portal:tenants:",
        "    acme:",
        "      name: Acme AB",
        '      registrationNumber: "556677-8899"',
        "      timeZone: W. Europe Standard Time",
        "",
      ].join("\n"),
    );
    try {
      await ws.ok(["stack", "init"]);
      const r = await ws.pulumi(["preview"]);
      const output = `${r.stdout}\n${r.stderr}`;
      assert.notEqual(r.code, 0, output);
      // The Diagnostics section: one error, the program's (the progress display above it shows the same line).
      const diagnostics = output.slice(output.indexOf("Diagnostics:"));
      const lines = diagnostics.split("\n").filter((l) => /^\s+error: /.test(l));
      assert.equal(lines.length, 1, output);
      for (const l of output.split("\n").filter((x) => x.includes("connection is not configured"))) {
        assert.equal(l.split("connection is not configured").length, 2, `the message once in its line: ${l}`);
      }
      assert.match(
        lines[0],
        /Pulumi\.ci\.yaml: Backup Portal connection is not configured: set backup-portal:url \(or BACKUP_PORTAL_URL\), backup-portal:origin/,
      );
      assert.doesNotMatch(output, /^\s+at \S+ \(/m, "no stack trace");
      assert.doesNotMatch(output, /resolveSettings|settings\.js/);
      assert.doesNotMatch(output, /pulumi-nodejs:dynamic/, "no resource was registered");
    } finally {
      ws.remove();
    }
  });
});
