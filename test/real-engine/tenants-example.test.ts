// examples/tenants-as-data as a user runs it, with the real Pulumi CLI against the emulator: the package packed
// (`npm pack`) and installed from its tarball into a copy of the example, as the example's README says, so the
// program (index.js, `module.exports = require("backup-portal-pulumi").tenantsFromConfig()`, plain JavaScript with
// `typescript: false`: no tsconfig.json, no typescript) runs from node_modules, not from this checkout. The example's own stack
// file, its connection pointed at the emulator: `up` creates its tenants, and the preview the GitOps workflow runs
// after it (`preview --refresh --json`) plans nothing and passes the plan guard.
import { strict as assert } from "node:assert";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import YAML from "yaml";
import { ORIGIN } from "../support/portal";
import { REPO, workspace, Workspace } from "./cli";
import { installPacked } from "./packed";
import { emulatorSuite, portalWrites } from "./project";

const EXAMPLE = path.join(REPO, "examples", "tenants-as-data");
const NODE_PASSWORD = "Node-pw-example-5c2e1a";

/** The example's stack file with its connection keys pointed at the emulator; its tenants as they are. */
function stackFileFor(url: string): string {
  const doc = YAML.parseDocument(fs.readFileSync(path.join(EXAMPLE, "Pulumi.dev.yaml"), "utf8"));
  const connection = { url, origin: ORIGIN, clientId: "emulator", username: "admin", rootBusinessUnitId: 1 };
  for (const [key, value] of Object.entries(connection)) {
    assert.ok(doc.hasIn(["config", `backup-portal:${key}`]), `the example's stack file sets backup-portal:${key}`);
    doc.setIn(["config", `backup-portal:${key}`], value);
  }
  return doc.toString();
}

describe("real engine: examples/tenants-as-data from the packed package", function () {
  this.timeout(15 * 60_000);
  const suite = emulatorSuite();
  let ws: Workspace;

  before(() => {
    ws = suite.keep(
      workspace({
        stack: "dev",
        stackYaml: stackFileFor(suite.emu.url),
        project: (dir) => {
          const project = path.join(dir, "project");
          fs.mkdirSync(project);
          for (const f of fs.readdirSync(EXAMPLE)) {
            if (f !== "Pulumi.dev.yaml" && fs.statSync(path.join(EXAMPLE, f)).isFile())
              fs.copyFileSync(path.join(EXAMPLE, f), path.join(project, f));
          }
          // The README's install from this repository: the tarball, with the example's other dependencies.
          installPacked(dir, project);
          return project;
        },
      }),
    );
  });

  it("up creates the stack file's tenants; the preview after it plans nothing and passes the plan guard", async () => {
    const installed = path.join(ws.project, "node_modules", "backup-portal-pulumi");
    assert.ok(!fs.lstatSync(installed).isSymbolicLink(), "the package is installed from its tarball, not linked to this checkout");
    // Nothing to compile: the program is JavaScript, and the install brings no TypeScript for it.
    assert.deepEqual(
      ["index.js", "tsconfig.json", "node_modules/typescript"].map((f) => fs.existsSync(path.join(ws.project, f))),
      [true, false, false],
    );
    await ws.ok(["stack", "init"]);
    await ws.setSecret("backup-portal:password", "admin");
    await ws.setSecret("backup-portal:web01Password", NODE_PASSWORD);

    const up = await ws.ok(["up", "--yes"]);
    assert.match(up.stdout, /\+ \d+ created/);
    assert.doesNotMatch(up.stdout + up.stderr, /Could not find entry point|DeprecationWarning/);
    const state = suite.emu.state();
    const bu = (name: string) => state.businessUnits.find((b) => b.name === name);
    const acme = bu("Acme AB");
    const labs = bu("Acme Labs");
    assert.ok(acme && labs, `the tenants on the portal: ${state.businessUnits.map((b) => b.name).join(", ")}`);
    assert.equal(labs.parentId, acme.id);
    const consumers = state.consumers.filter((c) => c.businessUnitId === acme.id).map((c) => c.name);
    assert.deepEqual(consumers.sort(), ["files", "web01.acme.example"]);
    assert.ok(
      state.nodes.some((n) => n.tsmName === "ACME-WEB01"),
      "web01's node",
    );

    // The program's outputs: the portal's ids of what it declared.
    const outputs = JSON.parse((await ws.ok(["stack", "output", "--json", "--show-secrets"])).stdout);
    assert.deepEqual(outputs.businessUnitIds, { acme: acme.id, "acme/acme-labs": labs.id });
    assert.deepEqual(Object.keys(outputs.consumerIds).sort(), ["acme/files", "acme/web01"]);

    // The dynamic providers in the state name the installed package, not a path into this checkout.
    const exported = JSON.parse((await ws.ok(["stack", "export"])).stdout) as {
      deployment: { resources: { type: string; outputs?: { __provider?: string } }[] };
    };
    const dynamic = exported.deployment.resources.filter((r) => r.type.startsWith("pulumi-nodejs:dynamic/"));
    // 2 business units, 2 consumers, a node, and the program's name check.
    assert.equal(dynamic.length, 6, dynamic.map((r) => r.type).join(", "));
    for (const r of dynamic) {
      assert.match(r.outputs?.__provider ?? "", /require\("backup-portal-pulumi\/dist\/provider\/resources\/[a-z-]+"\)/, r.type);
    }

    suite.emu.clearRequests();
    const preview = await ws.ok(["preview", "--refresh", "--json"]);
    const digest = JSON.parse(preview.stdout) as { steps?: { op: string; urn: string }[]; changeSummary?: Record<string, number> };
    // The refresh reads each object back (a `refresh` step each); nothing is planned to change.
    const changes = (digest.steps ?? []).filter((s) => s.op !== "same" && s.op !== "refresh").map((s) => `${s.op} ${s.urn}`);
    assert.deepEqual(changes, [], "nothing to change");
    assert.deepEqual(Object.keys(digest.changeSummary ?? {}), ["same"], JSON.stringify(digest.changeSummary));
    assert.deepEqual(portalWrites(suite.emu), [], "and nothing written");
    const file = path.join(ws.dir, "preview.json");
    fs.writeFileSync(file, preview.stdout);
    const guard = spawnSync(process.execPath, [path.join(REPO, "scripts", "plan-guard.js"), file], { encoding: "utf8" });
    assert.equal(guard.status, 0, `the plan guard: ${guard.stdout}${guard.stderr}`);
  });
});
