// The stack program (tenantsFromConfig, stacks/index.js's one line) under the real Pulumi CLI on a Node.js that
// package.json engines does not allow: `pulumi preview` shows one Pulumi warning naming the version and what is
// supported, and the program goes on (the preview succeeds, nothing is written). The program's node reports
// another version through a preload (test/cli/fake-node-version.js); on this Node there is no such warning.
import { strict as assert } from "node:assert";
import * as path from "node:path";
import { connectionYaml, emulatorSuite, PORTAL_PASSWORD, portalWrites, setAdminPassword, stacksWorkspace } from "./project";

const FAKE = path.join(__dirname, "..", "cli", "fake-node-version.js");
const TENANTS = `
  backup-portal:tenants:
    acme:
      name: Acme AB
      registrationNumber: "556677-8899"
      timeZone: UTC
`;
const WARNING =
  /warning: Node\.js 20\.20\.2 is not supported: backup-portal-pulumi supports Node\.js 22 or 24 \(package\.json engines "[^"]+"\)/g;

describe("real engine: the stack program on an unsupported Node.js", function () {
  this.timeout(10 * 60_000);
  const suite = emulatorSuite();

  it("pulumi preview: one warning naming the version, and the program goes on; none on this Node", async () => {
    setAdminPassword(suite.emu);
    const ws = suite.keep(stacksWorkspace("nodewarn", connectionYaml(suite.emu, TENANTS)));
    await ws.ok(["stack", "init"]);
    await ws.setSecret("backup-portal:password", PORTAL_PASSWORD);

    const old = await ws.ok(["preview"], { env: { NODE_OPTIONS: `--require ${FAKE}`, FAKE_NODE_VERSION: "20.20.2" } });
    // The stack's diagnostics hold it once (the progress display shows it beside the stack too).
    const diagnostics = old.stdout.split(/^Diagnostics:$/m)[1]?.split(/^\S/m)[0] ?? "";
    assert.equal((diagnostics.match(WARNING) ?? []).length, 1, old.stdout);
    assert.match(old.stdout, /BusinessUnit acme create/, "the program went on and declared the tenant");

    const current = await ws.ok(["preview"]);
    assert.doesNotMatch(`${current.stdout}${current.stderr}`, /is not supported/);
    assert.deepEqual(portalWrites(suite.emu), [], "a preview writes nothing");
  });
});
