// The stacks/ program under the real Pulumi CLI (scripts/pulumi-tools.sh), with a file backend, against the
// emulator: what a user's `pulumi up` does, judged by the portal's request log, not only the CLI's exit code.
import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import { spawnSync } from "node:child_process";
import * as path from "node:path";
import YAML from "yaml";
import { hashSecret } from "../../emulator/util";
import { startEmulator, type Emulator } from "../support/portal";
import { REPO, Workspace } from "./cli";
import { connectionYaml, portalWrites, PORTAL_PASSWORD, programResources, setAdminPassword, stacksWorkspace } from "./project";

const NODE_PASSWORDS = { web01Password: "Node-pw-web01-4d1b8c", db01Password: "Node-pw-db01-9e2a71" };

function tenantsYaml(opts: { withGlobex?: boolean; protect?: boolean } = {}): string {
  const globex = `
    globex:
      name: Globex Corporation
      registrationNumber: "998877-6655"
      timeZone: UTC
      consumers:
        files:
          node:
            operatingSystem: Windows server
            type: File server
            domain: 1YEAR
            cpuCount: 4
            tsmName: GLOBEX-FILES`;
  return `
  backup-portal:protectBusinessUnits: ${opts.protect ? "true" : "false"}
  backup-portal:tenants:
    acme:
      name: Acme AB
      registrationNumber: "556677-8899"
      timeZone: W. Europe Standard Time
      consumers:
        web01:
          name: web01.acme.example
          node:
            operatingSystem: Linux
            type: File server
            domain: STANDARD
            cpuCount: 4
            tsmName: ACME-WEB01
            passwordSecret: web01Password
        db01:
          node:
            operatingSystem: Linux
            type: Application server
            domain: 30DAYS
            cpuCount: 8
            tsmName: ACME-DB01
            passwordSecret: db01Password
      businessUnits:
        acme-labs:
          name: Acme Labs
          registrationNumber: "556677-8899-2"
          timeZone: UTC${opts.withGlobex === false ? "" : globex}
`;
}

/** Rewrites the stack file's tenants block as `tenantsYaml` has it, keeping the CLI's encryptionsalt and secure values. */
function setTenants(ws: Workspace, opts: { withGlobex?: boolean; protect?: boolean }): void {
  const doc = YAML.parseDocument(fs.readFileSync(ws.stackFile, "utf8"));
  const block = YAML.parse("config:" + tenantsYaml(opts)).config;
  for (const [key, value] of Object.entries(block)) doc.setIn(["config", key], value);
  fs.writeFileSync(ws.stackFile, doc.toString());
}

/** A preview that must fail: the CLI's whole output. */
async function failingPreview(ws: Workspace): Promise<string> {
  const r = await ws.pulumi(["preview"]);
  assert.notEqual(r.code, 0, r.stdout + r.stderr);
  return r.stdout + r.stderr;
}

describe("real engine: the stacks/ program under the Pulumi CLI", function () {
  this.timeout(15 * 60_000);
  let emu: Emulator;
  let ws: Workspace;

  before(async () => {
    emu = await startEmulator({ port: 0, quiet: true });
    setAdminPassword(emu);
    ws = stacksWorkspace("e2e", connectionYaml(emu) + tenantsYaml());
    await ws.ok(["stack", "init"]);
    for (const [key, value] of Object.entries({ password: PORTAL_PASSWORD, ...NODE_PASSWORDS })) {
      await ws.setSecret(`backup-portal:${key}`, value);
    }
    emu.clearRequests();
  });
  after(async () => {
    await emu?.close();
    ws?.remove();
  });

  it("up creates every tenant on the portal", async () => {
    const r = await ws.ok(["up", "--yes"]);
    assert.match(r.stdout, /\+ 1\d created/);
    const bus = emu.state().businessUnits.map((b) => b.name);
    for (const name of ["Acme AB", "Acme Labs", "Globex Corporation"]) assert.ok(bus.includes(name), `${name} on the portal`);
    assert.ok(portalWrites(emu).length > 0);
  });

  it("the state keeps each declared resource's source position, not the call stack beneath it", async () => {
    const ours = programResources(JSON.parse((await ws.ok(["stack", "export"])).stdout));
    assert.ok(ours.length >= 10, `the program's resources in the state: ${ours.length}`);
    for (const r of ours) {
      // The frame that constructs it, in the package's resource module, as before.
      assert.match(r.sourcePosition ?? "", /\/dist\/provider\/resources\/[a-z-]+\.js#\d+,\d+$/, r.urn);
      assert.deepEqual(r.stackTrace, [{ sourcePosition: r.sourcePosition }], r.urn);
    }
  });

  it("an unchanged preview --diff and up ask the portal nothing", async () => {
    emu.clearRequests();
    const preview = await ws.ok(["preview", "--diff"]);
    assert.match(preview.stdout, /\d+ unchanged/);
    assert.doesNotMatch(preview.stdout, /to create|to update|to delete|to replace/);
    assert.deepEqual(emu.requests(), [], "the preview");
    const up = await ws.ok(["up", "--yes"]);
    assert.match(up.stdout, /\d+ unchanged/);
    // The name check's state holds these names checked, and every resource's Check compares with its state.
    assert.deepEqual(emu.requests(), [], "the up");
  });

  it("refresh finds the portal as the state has it and writes nothing", async () => {
    emu.clearRequests();
    const r = await ws.ok(["refresh", "--yes"]);
    assert.doesNotMatch(r.stdout, /~ \d+ updated|- \d+ deleted/);
    assert.deepEqual(portalWrites(emu), []);
  });

  it("no node password nor the portal password is in plain text in the state or the CLI's output", async () => {
    const exported = await ws.ok(["stack", "export"]);
    const outputs = [exported.stdout, (await ws.ok(["stack", "output", "--json"])).stdout, (await ws.ok(["preview", "--diff"])).stdout];
    for (const text of outputs) {
      for (const secret of [PORTAL_PASSWORD, ...Object.values(NODE_PASSWORDS)]) {
        assert.ok(!text.includes(secret), `a secret in plain text: ${secret}`);
      }
    }
    // They reached the portal: each node holds the password of its passwordSecret.
    const state = emu.state();
    for (const [tsmName, secret] of [
      ["ACME-WEB01", NODE_PASSWORDS.web01Password],
      ["ACME-DB01", NODE_PASSWORDS.db01Password],
    ]) {
      const node = state.nodes.find((n) => n.tsmName === tsmName)!;
      assert.equal(node.passwordHash, hashSecret(secret, `node-${node.id}`), `${tsmName}'s password`);
    }
  });

  it("a misspelt key, and a name the CLI reads as a date, are refused before any request to the portal", async () => {
    const text = fs.readFileSync(ws.stackFile, "utf8");
    // `name: 2024-01-01` unquoted reaches the program as "2024-01-01 00:00:00 +0000 UTC": an up would rename the unit.
    const broken = text
      .replace("      timeZone: W. Europe Standard Time", "      timezone: W. Europe Standard Time")
      .replace("      name: Acme AB", "      name: 2024-01-01");
    assert.notEqual(broken, text);
    fs.writeFileSync(ws.stackFile, broken);
    emu.clearRequests();
    try {
      const out = await failingPreview(ws);
      assert.match(out, /Pulumi\.e2e\.yaml: backup-portal:tenants\.acme\.timezone: .*timeZone/);
      assert.match(out, /Pulumi\.e2e\.yaml: backup-portal:tenants\.acme\.name: arrived as "2024-01-01 00:00:00 \+0000 UTC": .*quote/);
      assert.doesNotMatch(out, /\n\s+at .*\(.*\.ts:\d+:\d+\)/, "no stack trace");
      assert.deepEqual(emu.requests(), []);
    } finally {
      fs.writeFileSync(ws.stackFile, text);
    }
  });

  it("a portal that refuses the login, met by a changed name's check: one line with the hint naming the settings, no stack trace, nothing written", async () => {
    const admin = (st: ReturnType<Emulator["state"]>) => st.users.find((u) => u.username === "admin")!;
    const was = admin(emu.state()).passwordHash;
    const text = fs.readFileSync(ws.stackFile, "utf8");
    // Another name the portal has: the name check reads the portal for it (an unchanged stack would read nothing).
    const renamed = text.replace("      timeZone: W. Europe Standard Time", "      timeZone: UTC");
    assert.notEqual(renamed, text);
    fs.writeFileSync(ws.stackFile, renamed);
    emu.update((st) => void (admin(st).passwordHash = hashSecret("rotated-elsewhere", admin(st).passwordSalt)));
    emu.clearRequests();
    try {
      const out = await failingPreview(ws);
      assert.match(
        out,
        /NameCheck resource 'tenants' has a problem: the stack config's names could not be checked against the portal: POST \/v1\/oauth failed \(HTTP 400\): invalid_grant.*Hint: authentication failed: .*backup-portal:clientId\/origin\/username\/password/,
      );
      assert.doesNotMatch(out, /\n\s+at .*:\d+:\d+\)?\n/, "no stack trace");
      assert.doesNotMatch(out, /unhandled exception|outcomeUnknown/, "no error object dumped");
      assert.deepEqual(portalWrites(emu), []);
    } finally {
      emu.update((st) => void (admin(st).passwordHash = was));
      fs.writeFileSync(ws.stackFile, text);
    }
  });

  it("a tenant's name with terminal controls, quoted in the name check's failure, is printed written out", async () => {
    const text = fs.readFileSync(ws.stackFile, "utf8");
    const rename = (name: string) => emu.update((st) => void (st.businessUnits.find((b) => b.id === 1)!.name = name));
    const was = emu.state().businessUnits.find((b) => b.id === 1)!.name;
    // Retitles the window, clears the screen (an 8-bit CSI) and starts a line that looks like the CLI's own.
    rename("Reseller\u001b]0;pwned\u0007\u009b2J\nerror: all fine");
    const wrongRoot = text.replace(/(backup-portal:rootBusinessUnitId: )"?1"?\n/, (_, key: string) => `${key}99999\n`);
    assert.notEqual(wrongRoot, text);
    fs.writeFileSync(ws.stackFile, wrongRoot);
    try {
      const out = await failingPreview(ws);
      assert.match(
        out,
        /rootBusinessUnitId: business unit 99999 does not exist .*1 "Reseller\\u001b\]0;pwned\\u0007\\x9b2J\\nerror: all fine"/,
      );
      assert.doesNotMatch(out, /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/, "no control character but line breaks reaches the terminal");
      assert.doesNotMatch(out, /^error: all fine/m, "no line forged");
    } finally {
      rename(was);
      fs.writeFileSync(ws.stackFile, text);
    }
  });

  it("a removed protected tenant fails the up and nothing is deleted", async () => {
    const text = fs.readFileSync(ws.stackFile, "utf8");
    setTenants(ws, { protect: true });
    await ws.ok(["up", "--yes"]); // protect the business units
    setTenants(ws, { protect: true, withGlobex: false });
    emu.clearRequests();
    try {
      const r = await ws.pulumi(["up", "--yes"]);
      assert.notEqual(r.code, 0);
      assert.match(r.stdout + r.stderr, /cannot be deleted|protected/);
      assert.deepEqual(portalWrites(emu), []);
      assert.ok(emu.state().businessUnits.some((b) => b.name === "Globex Corporation"));
    } finally {
      fs.writeFileSync(ws.stackFile, text);
      await ws.ok(["up", "--yes"]); // unprotect again
    }
  });

  it("the plan guard reads the CLI's own preview --json: refused without the label, passed with it", async () => {
    const text = fs.readFileSync(ws.stackFile, "utf8");
    setTenants(ws, { withGlobex: false });
    try {
      const preview = await ws.ok(["preview", "--json"]);
      const file = path.join(ws.dir, "preview.json");
      fs.writeFileSync(file, preview.stdout);
      const guard = (...flags: string[]) =>
        spawnSync(process.execPath, [path.join(REPO, "scripts/plan-guard.js"), file, ...flags], { encoding: "utf8" });
      const refused = guard();
      assert.equal(refused.status, 1, refused.stdout + refused.stderr);
      assert.match(refused.stdout + refused.stderr, /BusinessUnit.*globex/s);
      const allowed = guard("--allow");
      assert.equal(allowed.status, 0, allowed.stdout + allowed.stderr);
    } finally {
      fs.writeFileSync(ws.stackFile, text);
    }
  });

  it("destroy removes every object it created", async () => {
    const r = await ws.ok(["destroy", "--yes"]);
    assert.match(r.stdout, /- \d+ deleted/);
    const names = emu.state().businessUnits.map((b) => b.name);
    for (const name of ["Acme AB", "Acme Labs", "Globex Corporation"]) assert.ok(!names.includes(name), `${name} removed`);
  });
});
