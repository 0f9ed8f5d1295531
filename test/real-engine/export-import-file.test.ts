// `backup-portal export --format pulumi-import` read by the Pulumi CLI itself: a seeded portal with hostile names
// (YAML look-alikes, quotes, interpolation, line breaks, bidi controls) goes through the export, then
// `pulumi import --file` in a YAML project, whose generated code becomes the program. Judged by the emulator's
// request log: no write anywhere, and the requests counted (docs/adoption.md says them).
import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import YAML from "yaml";
import { exportCli, plant } from "../export/support";
import { ORIGIN } from "../support/portal";
import type { Workspace } from "./cli";
import { configurePlugin, emulatorSuite, portalWrites, yamlWorkspace } from "./project";
import { counted, HOSTILE, MANGLED_BY_YAML_CODEGEN, plantHostile } from "./import-file";

describe("real engine: export --format pulumi-import, then pulumi import --file", function () {
  this.timeout(15 * 60_000);
  const suite = emulatorSuite();

  /** `export --bunit 1 --format pulumi-import --out <file>` with `extra`; the stderr of a success. */
  async function exportTo(file: string, ...extra: string[]): Promise<string> {
    const r = await exportCli(suite.emu, ["--bunit", "1", "--format", "pulumi-import", "--out", file, "--no-progress", ...extra]);
    assert.equal(r.code, 0, r.err);
    return r.err;
  }

  /** A YAML project with the plugin configured, and the import file of the seeded portal in its folder. */
  async function project(stack: string): Promise<{ ws: Workspace; file: string; entries: number; err: string }> {
    const ws = suite.keep(yamlWorkspace(stack, `name: ${stack}\nruntime: yaml\n`));
    await ws.ok(["stack", "init"]);
    await configurePlugin(ws, suite.emu);
    const file = path.join(ws.dir, "import.json");
    const err = await exportTo(file);
    return { ws, file, entries: JSON.parse(fs.readFileSync(file, "utf8")).resources.length, err };
  }

  it("YAML: the import writes nothing, and its generated code as the program previews and refreshes unchanged", async () => {
    plantHostile(suite.emu);
    const before = suite.emu.state();
    const { ws, file, entries } = await project("yaml");
    suite.emu.clearRequests();
    const code = path.join(ws.dir, "code.yaml");
    const imported = await ws.ok(["import", "--file", file, "--yes", "--generate-code", "--out", code]);
    const importCounts = counted(suite.emu);
    assert.deepEqual(portalWrites(suite.emu), [], "the import only reads");
    assert.match(imported.stdout, new RegExp(`${entries} imported`));
    assert.equal(Object.keys(YAML.parse(fs.readFileSync(code, "utf8")).resources).length, entries, "one declaration per entry");
    // Every hostile name is in the state as the portal has it; the unchanged preview below holds the code to them.
    const state = JSON.parse((await ws.ok(["stack", "export"])).stdout);
    const names = state.deployment.resources
      .filter((r: any) => r.type === "backupportal:index:BusinessUnit")
      .map((r: any) => r.inputs.name);
    assert.deepEqual(
      HOSTILE.filter((name) => !names.includes(name)),
      [],
      `names as the portal has them: ${JSON.stringify(names)}`,
    );

    // The generated code as it is (not read and written again by another YAML library) is the program.
    fs.writeFileSync(path.join(ws.project, "Pulumi.yaml"), `name: yaml\nruntime: yaml\n${fs.readFileSync(code, "utf8")}`);
    suite.emu.clearRequests();
    const preview = await ws.ok(["preview", "--diff"]);
    assert.match(preview.stdout, new RegExp(`${entries + 1} unchanged`), preview.stdout);
    assert.doesNotMatch(preview.stdout, /to (create|update|delete|replace)/);
    const previewCounts = counted(suite.emu);
    suite.emu.clearRequests();
    const refresh = await ws.ok(["refresh", "--yes"]);
    assert.match(refresh.stdout, new RegExp(`${entries + 1} unchanged`), refresh.stdout);
    const refreshCounts = counted(suite.emu);
    assert.deepEqual(portalWrites(suite.emu), [], "preview and refresh only read");
    const after = suite.emu.state();
    assert.deepEqual(after.businessUnits, before.businessUnits, "the business units are as they were");
    assert.deepEqual(after.consumers, before.consumers, "the consumers are as they were");
    assert.deepEqual(after.nodes, before.nodes, "the nodes are as they were");
    // What docs/adoption.md says: each resource read once by the import's preview and once by the import (a login
    // each), none by the preview (the plugin diffs against the state), twice by refresh (its preview, then itself).
    assert.deepEqual(importCounts, { logins: 2, reads: 2 * entries, writes: 0 });
    assert.deepEqual(previewCounts, { logins: 0, reads: 0, writes: 0 });
    assert.deepEqual(refreshCounts, { logins: 2, reads: 2 * entries, writes: 0 });
  });

  it("--skip-preview reads each resource once instead of twice", async () => {
    plantHostile(suite.emu);
    const full = await project("full");
    suite.emu.clearRequests();
    await full.ws.ok(["import", "--file", full.file, "--yes", "--generate-code=false"]);
    const withPreview = counted(suite.emu);
    const skip = await project("skip");
    suite.emu.clearRequests();
    await skip.ws.ok(["import", "--file", skip.file, "--yes", "--generate-code=false", "--skip-preview"]);
    const skipped = counted(suite.emu);
    assert.deepEqual(withPreview, { logins: 2, reads: 2 * full.entries, writes: 0 });
    assert.deepEqual(skipped, { logins: 1, reads: skip.entries, writes: 0 });
  });

  it("--provider: every resource imported on the program's explicit provider, and the generated code previews unchanged with it", async () => {
    plantHostile(suite.emu);
    // No backupportal:* config: only the explicit provider knows the portal.
    const program = {
      name: "explicit",
      runtime: "yaml",
      config: { portalUrl: { type: "string" } },
      resources: {
        portal: {
          type: "pulumi:providers:backupportal",
          properties: { url: "${portalUrl}", origin: ORIGIN, clientId: "emulator", username: "admin", password: { "fn::secret": "admin" } },
        },
      },
    };
    const ws = suite.keep(yamlWorkspace("explicit", YAML.stringify(program)));
    await ws.ok(["stack", "init"]);
    await ws.ok(["config", "set", "portalUrl", suite.emu.url]);
    await ws.ok(["up", "--yes"]);
    const urn = "urn:pulumi:explicit::explicit::pulumi:providers:backupportal::portal";
    const file = path.join(ws.dir, "import.json");
    await exportTo(file, "--provider", `portal=${urn}`);
    const entries = JSON.parse(fs.readFileSync(file, "utf8")).resources.length;
    suite.emu.clearRequests();
    const code = path.join(ws.dir, "code.yaml");
    await ws.ok(["import", "--file", file, "--yes", "--generate-code", "--out", code]);
    assert.deepEqual(portalWrites(suite.emu), []);
    const generated = YAML.parse(fs.readFileSync(code, "utf8")).resources as Record<string, any>;
    for (const [name, res] of Object.entries(generated)) assert.equal(res.options?.provider, "${portal}", `${name} names the provider`);
    const state = JSON.parse((await ws.ok(["stack", "export"])).stdout);
    const imported = state.deployment.resources.filter((x: any) => x.type.startsWith("backupportal:index:"));
    assert.equal(imported.length, entries);
    for (const x of imported) assert.ok(x.provider.startsWith(`${urn}::`), `${x.urn} on ${x.provider}`);
    // The program's provider, then the generated code's declarations as they are, under the same `resources:`.
    const declarations = fs.readFileSync(code, "utf8").replace(/^resources:\n/, "");
    fs.writeFileSync(path.join(ws.project, "Pulumi.yaml"), `${YAML.stringify(program)}${declarations}`);
    suite.emu.clearRequests();
    const preview = await ws.ok(["preview", "--diff"]);
    // The resources, the provider and the stack.
    assert.match(preview.stdout, new RegExp(`${entries + 2} unchanged`), preview.stdout);
    assert.doesNotMatch(preview.stdout, /to (create|update|delete|replace)/);
    assert.deepEqual(portalWrites(suite.emu), []);
  });

  it("a value the rules refuse: its review line, the import goes through, and the preview of the generated code refuses it as the line says", async () => {
    plant(suite.emu, [{ name: "Refused Values", registrationNumber: "R-1", timeZoneId: 1, settings: { invoiceDay: 30 } }]);
    const { ws, file, err } = await project("refused");
    assert.match(
      err,
      /^review refusedValues\.invoiceDay: invoiceDay must be an integer from 1 to 28, got 30; the import takes it as the portal has it and the plugin refuses it at preview/m,
    );
    const code = path.join(ws.dir, "code.yaml");
    await ws.ok(["import", "--file", file, "--yes", "--generate-code", "--out", code]);
    const generated = YAML.parse(fs.readFileSync(code, "utf8")).resources;
    assert.equal(generated.refusedValues.properties.invoiceDay, 30, "the code holds the portal's value");
    fs.writeFileSync(path.join(ws.project, "Pulumi.yaml"), YAML.stringify({ name: "refused", runtime: "yaml", resources: generated }));
    suite.emu.clearRequests();
    const preview = await ws.pulumi(["preview", "--diff"]);
    assert.notEqual(preview.code, 0);
    assert.match(preview.stdout + preview.stderr, /invoiceDay/);
    assert.deepEqual(portalWrites(suite.emu), []);
  });

  it("--stack-state: a later export holds only what the stack lacks, under the units it has, and the two codes together preview unchanged", async () => {
    const node = { os: 3, type: 1, domain: 1, cpuCount: 2 };
    const [acme] = plant(suite.emu, [
      { name: "Acme", registrationNumber: "R-1", timeZoneId: 1, consumers: [{ name: "web", node }] },
    ]).businessUnits;
    const { ws, file } = await project("later");
    const first = path.join(ws.dir, "first.yaml");
    await ws.ok(["import", "--file", file, "--yes", "--generate-code", "--out", first]);
    // Made on the portal after the first import: a consumer with its node in the unit the stack has, and a unit.
    plant(suite.emu, [{ name: "Beta", registrationNumber: "R-2", timeZoneId: 1 }]);
    suite.emu.update((st) => {
      const id = Math.max(...st.consumers.map((c) => c.id)) + 1;
      st.consumers.push({
        id,
        createdDate: "2024-01-01T00:00:00Z",
        name: "db",
        businessUnitId: acme,
        billingStartDate: "2024-01-01T00:00:00Z",
      });
    });
    const stateFile = path.join(ws.dir, "state.json");
    fs.writeFileSync(stateFile, (await ws.ok(["stack", "export"])).stdout);
    const later = path.join(ws.dir, "later.json");
    const err = await exportTo(later, "--stack-state", stateFile);
    const added = JSON.parse(fs.readFileSync(later, "utf8"));
    assert.deepEqual(
      added.resources.map((e: any) => `${e.type.split(":").pop()} ${e.logicalName} ${e.parent ?? "-"}`),
      ["Consumer acme/db acme", "BusinessUnit beta -"],
    );
    assert.match(err, /: \d+ of the portal's resources are in the stack already \(--stack-state\), left out\n/);
    assert.deepEqual(Object.keys(added.nameTable ?? {}), ["acme"], "the unit the stack has, by its URN");
    assert.match(added.nameTable.acme, /::backupportal:index:BusinessUnit::acme$/);
    const second = path.join(ws.dir, "second.yaml");
    suite.emu.clearRequests();
    const imported = await ws.ok(["import", "--file", later, "--yes", "--generate-code", "--out", second]);
    assert.match(imported.stdout, new RegExp(`${added.resources.length} imported`));
    assert.deepEqual(portalWrites(suite.emu), []);
    const body = (f: string) => fs.readFileSync(f, "utf8").replace(/^resources:\n/, "");
    fs.writeFileSync(path.join(ws.project, "Pulumi.yaml"), `name: later\nruntime: yaml\nresources:\n${body(first)}${body(second)}`);
    const preview = await ws.ok(["preview", "--diff"]);
    assert.doesNotMatch(preview.stdout, /to (create|update|delete|replace)/, preview.stdout);
    assert.deepEqual(portalWrites(suite.emu), []);
  });

  it("pinned: the YAML code generator writes `$` before `${` as other text, so such a name fails the preview of the generated code", async () => {
    // `$${x}` comes back as `$$${x}`: a `$` and a reference to the resource x, itself: a cycle.
    plant(
      suite.emu,
      MANGLED_BY_YAML_CODEGEN.map((name) => ({ name, registrationNumber: "R-1", timeZoneId: 1 })),
    );
    const { ws, file } = await project("mangled");
    const code = path.join(ws.dir, "code.yaml");
    await ws.ok(["import", "--file", file, "--yes", "--generate-code", "--out", code]);
    fs.writeFileSync(path.join(ws.project, "Pulumi.yaml"), `name: mangled\nruntime: yaml\n${fs.readFileSync(code, "utf8")}`);
    suite.emu.clearRequests();
    const preview = await ws.pulumi(["preview", "--diff"]);
    assert.notEqual(preview.code, 0);
    assert.match(preview.stderr + preview.stdout, /circular dependency of resource 'x'/);
    assert.deepEqual(portalWrites(suite.emu), []);
  });
});
