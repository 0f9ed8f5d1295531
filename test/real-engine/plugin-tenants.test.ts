// Tenants as data from Pulumi YAML under the real CLI and pulumi-language-yaml: examples/yaml-tenants (one
// `backupportal:index:Tenants`, which the engine has the plugin construct) with a stack file that
// `backup-portal export` wrote from the emulator's portal, plus one tenant added by hand. A misspelt key stops the
// preview with the TypeScript program's one-line message; fixed, `up` adopts what the export names with no write
// to it, creates the new tenant (its node's password from its secret key), answers the portal's ids as outputs,
// and the next preview shows no change. Judged by the emulator's request log and objects.
import { strict as assert } from "node:assert";
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import YAML, { parseDocument } from "yaml";
import { hashSecret } from "../../emulator/util";
import { envFor, ORIGIN, type Emulator } from "../support/portal";
import { REPO } from "./cli";
import { emulatorSuite, portalWrites, yamlWorkspace } from "./project";

const PROGRAM = fs.readFileSync(path.join(REPO, "examples", "yaml-tenants", "Pulumi.yaml"), "utf8");
const NODE_PASSWORD = "Node-pw-yaml-tenants-5c1d";

/** `backup-portal export --bunit 1` of the emulator's portal: the stack file's text. */
function exportStackFile(emu: Emulator): Promise<string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "yaml-tenants-export-"));
  const out = path.join(dir, "Pulumi.export.yaml");
  return new Promise<string>((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [path.join(REPO, "bin/backup-portal.js"), "export", "--bunit", "1", "--out", out, "--no-progress"],
      {
        env: { PATH: process.env.PATH ?? "", ...envFor(emu) },
        stdio: ["ignore", "ignore", "pipe"],
      },
    );
    let stderr = "";
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0 ? resolve(fs.readFileSync(out, "utf8")) : reject(new Error(`export exited ${code}: ${stderr}`)),
    );
  }).finally(() => fs.rmSync(dir, { recursive: true, force: true }));
}

describe("real engine: tenants as data from Pulumi YAML (the plugin's Tenants component)", function () {
  this.timeout(10 * 60_000);
  const suite = emulatorSuite();

  it("an exported stack file plus a new tenant: a misspelt key refused in one line, then up adopts and creates, the next preview is empty", async () => {
    const emu = suite.emu;
    const exported = parseDocument(await exportStackFile(emu));
    const exportedKeys = Object.keys(exported.toJS().config["backup-portal:tenants"]);
    assert.ok(exportedKeys.length > 0, "the export names the portal's tenants");
    // The stack file: the export's text with its connection moved to the provider's keys, as the component's
    // refusal of the stack program's keys says, and one tenant added by hand.
    for (const [key, value] of Object.entries({ url: emu.url, origin: ORIGIN, clientId: "emulator", username: "admin" })) {
      exported.deleteIn(["config", `backup-portal:${key}`]);
      exported.setIn(["config", `backupportal:${key}`], value);
    }
    exported.setIn(["config", "backup-portal:protectBusinessUnits"], false);
    const newco = {
      name: "Newco YAML Ltd",
      registrationNumber: "556677-0001",
      timeZone: "W. Europe Standard Time",
      consumers: {
        web01: {
          node: {
            operatingSystem: "Linux",
            type: "File server",
            domain: "STANDARD",
            cpuCount: 2,
            tsmName: "NEWCO-WEB01",
            passwordSecret: "newcoWeb01",
          },
        },
      },
    };
    const { timeZone, ...misspelt } = newco;
    exported.setIn(["config", "backup-portal:tenants", "newco"], { ...misspelt, timeZon: timeZone });

    const ws = suite.keep(yamlWorkspace("tenants", PROGRAM));
    fs.writeFileSync(ws.stackFile, exported.toString());
    await ws.ok(["stack", "init"]);
    await ws.setSecret("backupportal:password", "admin");
    await ws.setSecret("backup-portal:newcoWeb01", NODE_PASSWORD);
    const portalBefore = emu.state();

    // The misspelt key: the reader's own line, naming the stack file and the key, and nothing registered or written.
    emu.clearRequests();
    const refused = await ws.pulumi(["preview"]);
    assert.notEqual(refused.code, 0);
    const output = refused.stdout + refused.stderr;
    assert.match(output, /Pulumi\.tenants\.yaml: backup-portal:tenants\.newco\.timeZon: unknown key; did you mean "timeZone"\?/);
    assert.doesNotMatch(output, /\n\s+at .*\(.*:\d+:\d+\)/, "no stack trace");
    assert.doesNotMatch(output, /backupportal:index:BusinessUnit/, "no resource was declared");
    assert.deepEqual(portalWrites(emu), []);

    // The key fixed in the stack file as the CLI left it (its salt and the secrets it stored).
    const fixed = parseDocument(fs.readFileSync(ws.stackFile, "utf8"));
    fixed.setIn(["config", "backup-portal:tenants", "newco"], newco);
    fs.writeFileSync(ws.stackFile, fixed.toString());
    emu.clearRequests();
    const up = await ws.ok(["up", "--yes"]);
    // The plugin's own types, as children of the component (the dynamic types are the TypeScript program's).
    assert.match(up.stdout, /backupportal:index:Tenants\s+tenants\s/);
    assert.match(up.stdout, /backupportal:index:Node\s+newco\/web01\s/);
    assert.doesNotMatch(up.stdout, /pulumi-nodejs:dynamic/);
    // Adoption: what the export named is as it was, and every write is newco's.
    const after = emu.state();
    const unit = after.businessUnits.find((b) => b.name === newco.name)!;
    assert.ok(unit, "newco is on the portal");
    assert.deepEqual(
      after.businessUnits.filter((b) => b.id !== unit.id),
      portalBefore.businessUnits,
      "the exported business units are as they were",
    );
    assert.deepEqual(
      after.consumers.filter((c) => c.businessUnitId !== unit.id),
      portalBefore.consumers,
      "the exported consumers are as they were",
    );
    const consumer = after.consumers.find((c) => c.businessUnitId === unit.id && c.name === "web01")!;
    const node = after.nodes.find((n) => n.consumerId === consumer?.id)!;
    assert.equal(node.passwordHash, hashSecret(NODE_PASSWORD, `node-${node.id}`), "the node's password is its secret key's");
    assert.ok(
      portalWrites(emu).every((w) => /^(POST|PUT) /.test(w)),
      `only creates: ${portalWrites(emu).join(", ")}`,
    );

    const outputs = JSON.parse((await ws.ok(["stack", "output", "--json"])).stdout);
    assert.equal(outputs.businessUnitIds.newco, unit.id);
    assert.equal(outputs.consumerIds["newco/web01"], consumer.id);
    assert.equal(outputs.nodeNames["newco/web01"], "NEWCO-WEB01");
    assert.deepEqual(
      Object.keys(outputs.businessUnitIds)
        .filter((k) => !k.includes("/"))
        .sort(),
      [...exportedKeys, "newco"].sort(),
    );

    emu.clearRequests();
    const preview = await ws.ok(["preview", "--diff"]);
    assert.doesNotMatch(preview.stdout, /to (create|update|delete|replace)/);
    assert.deepEqual(portalWrites(emu), []);
  });

  it("an explicit provider given to the component: it constructs there and its children follow it (no backupportal: config at all)", async () => {
    const program = YAML.parse(PROGRAM);
    program.config = { portalUrl: { type: "string" } };
    program.resources.portal = {
      type: "pulumi:providers:backupportal",
      properties: { url: "${portalUrl}", origin: ORIGIN, clientId: "emulator", username: "admin", password: { "fn::secret": "admin" } },
    };
    program.resources.tenants.options = { providers: ["${portal}"] };
    const ws = suite.keep(yamlWorkspace("explicit", YAML.stringify(program)));
    const tenants = { beta: { name: "Beta YAML Ltd", registrationNumber: "556677-0002", timeZone: "UTC", consumers: { files: {} } } };
    fs.writeFileSync(
      ws.stackFile,
      YAML.stringify({ config: { "backup-portal:protectBusinessUnits": false, "backup-portal:tenants": tenants } }),
    );
    await ws.ok(["stack", "init"]);
    await ws.ok(["config", "set", "portalUrl", suite.emu.url]);
    await ws.ok(["up", "--yes"]);
    const unit = suite.emu.state().businessUnits.find((b) => b.name === "Beta YAML Ltd");
    assert.ok(unit, "the business unit is on the portal");
    assert.ok(suite.emu.state().consumers.some((c) => c.businessUnitId === unit.id && c.name === "files"));
    const state = JSON.parse((await ws.ok(["stack", "export"])).stdout);
    const children = state.deployment.resources.filter((r: any) => /^backupportal:index:(BusinessUnit|Consumer)$/.test(r.type));
    assert.equal(children.length, 2);
    for (const r of children) {
      assert.match(r.provider, /::pulumi:providers:backupportal::portal::/, `${r.urn}: the component's provider`);
      assert.match(r.parent, /::backupportal:index:Tenants::tenants$/, `${r.urn}: a child of the component`);
    }
    // No default provider was needed (it would have refused to start without backupportal:url).
    assert.deepEqual(
      state.deployment.resources.filter((r: any) => r.type === "pulumi:providers:backupportal").map((r: any) => r.urn.split("::").pop()),
      ["portal"],
    );
  });
});
