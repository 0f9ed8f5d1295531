// `export --merge FILE`: missing business units added, the file's entries, order and comments kept, differences
// listed and not applied.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { parse } from "yaml";
import { clientSuite } from "../support/portal";
import { exportCli, plant } from "./support";
import { VARIED } from "./fixtures";

const STACK = `# yaml-language-server: $schema=./tenants.schema.json
# Production: reviewed by the platform team.
config:
  backup-portal:url: https://portal.example.com
  backup-portal:rootBusinessUnitId: 1
  backup-portal:tenants:
    # Tenant B came first; keep it on top.
    tenant-b:
      adoptId: 3
      name: Tenant B
      registrationNumber: TB-9999 # the contract says so
      timeZone: utc
      consumers:
        erp:
          adoptId: 3
          name: erp-01
    made-by-code:
      name: Made By Code
      registrationNumber: M-1
      timeZone: UTC
`;

/** Whether `lines` appear in `text` in this order (other lines may sit between them). */
function inOrder(text: string, lines: string[]): boolean {
  const have = text.split("\n");
  let i = 0;
  for (const l of lines) {
    while (i < have.length && have[i] !== l) i++;
    if (i++ >= have.length) return false;
  }
  return true;
}

describe("backup-portal export --merge", function () {
  this.timeout(60_000);
  const p = clientSuite();
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "merge-"));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("adds the business units the file lacks and keeps every line of the file, in order", async () => {
    plant(p.emu, VARIED);
    const file = path.join(dir, "Pulumi.prod.yaml");
    fs.writeFileSync(file, STACK);
    const r = await exportCli(p.emu, ["--merge", file]);
    assert.equal(r.code, 0, r.err);
    assert.equal(r.out, "");
    const merged = fs.readFileSync(file, "utf8");
    assert.ok(inOrder(merged, STACK.trimEnd().split("\n")), merged);
    const t = (parse(merged) as { config: Record<string, any> }).config["backup-portal:tenants"];
    assert.deepEqual(Object.keys(t), ["tenant-b", "made-by-code", "acme-ab", "acme-ab-2", "refused-values", "tenant-a"]);
    assert.equal(t["tenant-b"].registrationNumber, "TB-9999", "a difference is reported, not applied");
    assert.equal(t["acme-ab"].consumers.web.node.tsmName, "ACME-WEB");
    assert.match(merged, /# password: cannot be read back from the portal/, "added entries carry their comments");
    assert.match(r.err, /^added tenants\.acme-ab$/m);
    assert.match(r.err, /^differs tenants\.tenant-b\.registrationNumber: the portal has "TB-0001", the file "TB-9999"$/m);
    assert.doesNotMatch(r.err, /tenant-b\.timeZone/, "utc names the same time zone as UTC");
    assert.match(r.err, /^differs tenants\.tenant-b\.consumers\.erp\.node: the consumer has a node on the portal, none in the file$/m);
    assert.match(r.err, /^merged into .*Pulumi\.prod\.yaml: 4 business units added, 4 entries differ/m);
    // Merging again adds nothing: every business unit is in the file now.
    const again = await exportCli(p.emu, ["--merge", file]);
    assert.equal(again.code, 0, again.err);
    assert.equal(fs.readFileSync(file, "utf8"), merged);
    assert.match(again.err, /0 business units added/);
    // A business unit missing below one the file has goes below it.
    const without = merged.replace(/\n {8}acme-olfabrik:\n(?: {10}.*\n)+/, "\n");
    assert.notEqual(without, merged);
    fs.writeFileSync(file, without);
    const nested = await exportCli(p.emu, ["--merge", file]);
    assert.match(nested.err, /^added tenants\.acme-ab\.businessUnits\.acme-olfabrik$/m);
    const n = (parse(fs.readFileSync(file, "utf8")) as { config: Record<string, any> }).config["backup-portal:tenants"];
    assert.deepEqual(Object.keys(n["acme-ab"].businessUnits), ["business-unit", "acme-olfabrik"]);
  });

  it("a file whose tenants block is empty gets every business unit, as blocks", async () => {
    const file = path.join(dir, "Pulumi.new.yaml");
    fs.writeFileSync(file, "config:\n  backup-portal:tenants: {}\n");
    const r = await exportCli(p.emu, ["--merge", file]);
    assert.equal(r.code, 0, r.err);
    const text = fs.readFileSync(file, "utf8");
    assert.match(text, /^ {4}tenant-a:\n {6}adoptId: 2$/m);
    const exported = (parse((await exportCli(p.emu)).out) as { config: Record<string, unknown> }).config;
    assert.deepEqual((parse(text) as { config: Record<string, unknown> }).config, exported);
  });

  it("an entry without adoptId (made by the stack) is matched by name, not added twice", async () => {
    plant(p.emu, [{ name: "Made By Code", registrationNumber: "M-1", timeZoneId: 1 }]);
    const file = path.join(dir, "Pulumi.prod.yaml");
    fs.writeFileSync(file, STACK);
    const r = await exportCli(p.emu, ["--merge", file]);
    assert.equal(r.code, 0, r.err);
    const t = (parse(fs.readFileSync(file, "utf8")) as { config: Record<string, any> }).config["backup-portal:tenants"];
    assert.deepEqual(Object.keys(t), ["tenant-b", "made-by-code", "tenant-a"]);
  });

  it("a file below another root is refused, and left as it was", async () => {
    const file = path.join(dir, "Pulumi.prod.yaml");
    fs.writeFileSync(file, STACK);
    const r = await exportCli(p.emu, ["--merge", file, "--bunit", "2"]);
    assert.equal(r.code, 1);
    assert.match(
      r.err,
      /Pulumi\.prod\.yaml: config\.backup-portal:rootBusinessUnitId is 1, but the export is below business unit 2; export with --bunit 1/,
    );
    assert.equal(fs.readFileSync(file, "utf8"), STACK);
  });
});
