// `export --merge` without the stack's outputs cannot tell a unit the user took out of the file to have the next up
// delete it from one the stack never had: it adds it back. It says so, in one note, whenever it adds units without
// the outputs; with them, the removed unit is held and not added (issue 44, also to look at).
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { clientSuite } from "../support/portal";
import { exportCli } from "./support";

/** The emulator's tenant-a adopted; tenant-b (3) was in the file and removed from it so that the next up deletes it. */
const STACK = [
  "config:",
  "  backup-portal:rootBusinessUnitId: 1",
  "  backup-portal:tenants:",
  "    tenant-a:",
  "      adoptId: 2",
  "      name: Tenant A",
  "      registrationNumber: TA-0001",
  "      timeZone: W. Europe Standard Time",
  "",
].join("\n");
const NOTE = /^note: without --stack-outputs, a business unit removed from .* so that the next up deletes it is added back/m;

describe("export --merge and a unit removed from the file", function () {
  this.timeout(60_000);
  const p = clientSuite();
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "merge-removed-"));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("without the outputs: added back, with a note saying why and what to give", async () => {
    const file = path.join(dir, "Pulumi.prod.yaml");
    fs.writeFileSync(file, STACK);
    const r = await exportCli(p.emu, ["--merge", file]);
    assert.equal(r.code, 0, r.err);
    assert.match(r.err, /^added tenants\.tenant-b$/m);
    assert.match(r.err, NOTE);
  });

  it("with the outputs: held, not added, no note", async () => {
    const file = path.join(dir, "Pulumi.prod.yaml");
    fs.writeFileSync(file, STACK);
    const outputs = path.join(dir, "outputs.json");
    fs.writeFileSync(outputs, JSON.stringify({ businessUnitIds: { "tenant-a": 2, "tenant-b": 3 } }));
    const r = await exportCli(p.emu, ["--merge", file, "--stack-outputs", outputs]);
    assert.equal(r.code, 0, r.err);
    assert.doesNotMatch(r.err, /^added /m);
    assert.doesNotMatch(r.err, NOTE);
    assert.equal(fs.readFileSync(file, "utf8"), STACK);
  });
});
