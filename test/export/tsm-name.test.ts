// A node's activated name (tsmName) comes from the portal like every other value: `export` gives it the same checks.
// A name the stack refuses, or one no UTF-8 file can hold (an unpaired surrogate, which yaml.v3 refuses as an
// escape, so that the CLI could not read the stack at all), leaves the node out as a comment with a review line;
// the file stays readable by yaml.v3 and valid to `validate`.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import fc from "fast-check";
import { NODE_FIELDS, fieldProblem } from "../../provider/rules/fields";
import { unwritableProblem } from "../../provider/rules/yaml-scalars";
import { clientSuite } from "../support/portal";
import { validateOffline } from "../support/validate";
import { yamlV3Binary } from "../support/yaml-v3";
import { readByEveryReader } from "./read-by-cli";
import { BuSpec, exportCli, plant } from "./support";
import { tenantText } from "./tenant-text";

const TENANTS_KEY = "backup-portal:tenants";

/** One business unit whose consumers' nodes carry these activated names. */
const unit = (names: string[]): BuSpec => ({
  name: "Lab",
  registrationNumber: "R-1",
  timeZoneId: 1,
  consumers: names.map((tsmName, i) => ({ name: `c${i}`, node: { os: 3, type: 1, domain: 1, cpuCount: 1, tsmName } })),
});

/** Whether export may write `name` as a node's tsmName (the portal stores it upper-case). */
const writable = (name: string) => !fieldProblem(name, NODE_FIELDS.tsmName) && !unwritableProblem(name);

describe("export: a node's tsmName gets the checks every other field gets", function () {
  this.timeout(300_000);
  const p = clientSuite();
  let dir: string;
  before(function () {
    this.timeout(300_000);
    yamlV3Binary();
  });
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "tsm-name-"));
    fs.writeFileSync(path.join(dir, "Pulumi.yaml"), "name: backup-portal\nruntime: nodejs\n");
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  async function exportOf(names: string[]): Promise<{ text: string; err: string; root: number }> {
    p.emu.reset();
    const [root] = plant(p.emu, [{ name: "Root", registrationNumber: "ROOT", timeZoneId: 1 }]).businessUnits;
    plant(p.emu, [unit(names)], root);
    const r = await exportCli(p.emu, ["--bunit", String(root)]);
    assert.equal(r.code, 0, r.err);
    return { text: r.out, err: r.err, root };
  }

  async function validates(text: string): Promise<string> {
    const file = path.join(dir, "Pulumi.prod.yaml");
    fs.writeFileSync(file, text);
    const { code, out, err } = await validateOffline(dir, file);
    assert.equal(code, 0, out + err);
    return out;
  }

  it("a lone surrogate or a name the rules refuse: the node is a comment with a review line, the file read by yaml.v3 and valid", async () => {
    const { text, err } = await exportOf(["N7lone\ud800x", "bad name", "GOOD-1"]);
    const file = readByEveryReader(text);
    const consumers = file.config[TENANTS_KEY].lab.consumers;
    assert.equal(consumers.c0.node, undefined, "the lone surrogate's node is left out");
    assert.equal(consumers.c1.node, undefined, "the refused name's node is left out");
    assert.equal(consumers.c2.node.tsmName, "GOOD-1");
    assert.match(text, /# review: tsmName .*the stack refuses this node as it is/);
    assert.match(err, /1 node \(and 2 nodes left out as a comment until their values are fixed\)/);
    assert.match(await validates(text), /valid: 1 business unit, 3 consumers, 1 node;/);
  });

  it("any activated name the portal holds: written only when the stack takes it, and the file always reads (property)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(tenantText, { minLength: 1, maxLength: 3, selector: (n) => n.toUpperCase() }), async (names) => {
        const stored = names.map((n) => n.toUpperCase());
        const { text } = await exportOf(names);
        const consumers = readByEveryReader(text).config[TENANTS_KEY].lab.consumers as Record<string, { node?: { tsmName?: string } }>;
        stored.forEach((name, i) => {
          const node = consumers[`c${i}`]?.node;
          if (writable(name)) assert.equal(node?.tsmName, name);
          else assert.equal(node, undefined, JSON.stringify(name));
        });
        await validates(text);
      }),
      { numRuns: 25, seed: 44 },
    );
  });
});
