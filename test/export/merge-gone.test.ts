// `export --merge` says what the portal no longer has (issue 36 item 5): a business unit, a consumer, a node or a
// proxy relation of the file that is gone from the portal, or moved, each at its key; a relation the portal has and
// the file lacks, too. The file is left as it was: what to do about it is a decision for the reviewer.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { clientSuite } from "../support/portal";
import type { State } from "../../emulator/types";
import { exportCli, plant } from "./support";
import { VARIED } from "./fixtures";

/** Removes business units (with their consumers and nodes), consumers (with their nodes) and nodes, as a delete does. */
function remove(s: State, what: { businessUnits?: number[]; consumers?: number[]; nodesOf?: number[] }): void {
  const units = new Set(what.businessUnits ?? []);
  const consumers = new Set([...(what.consumers ?? []), ...s.consumers.filter((c) => units.has(c.businessUnitId)).map((c) => c.id)]);
  const nodes = new Set([...consumers, ...(what.nodesOf ?? [])]);
  s.businessUnits = s.businessUnits.filter((b) => !units.has(b.id));
  s.consumers = s.consumers.filter((c) => !consumers.has(c.id));
  s.nodes = s.nodes.filter((n) => !nodes.has(n.consumerId));
  s.proxies = s.proxies.filter((x) => !nodes.has(x.agentConsumerId) && !nodes.has(x.targetConsumerId));
}

describe("export --merge says what the portal no longer has", function () {
  this.timeout(60_000);
  const p = clientSuite();
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "merge-gone-"));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("a business unit, a consumer, a node and a proxy relation gone, a consumer moved, a relation added: each at its key", async () => {
    const made = plant(p.emu, VARIED);
    const exported = await exportCli(p.emu);
    assert.equal(exported.code, 0, exported.err);
    const file = path.join(dir, "Pulumi.prod.yaml");
    fs.writeFileSync(file, exported.out);

    const [, tokyo, acmeAb2, refused] = [made.businessUnits[0], made.businessUnits[2], made.businessUnits[3], made.businessUnits[4]];
    const [web, webTwo, proxy, noNode, tokyoConsumer] = made.consumers;
    p.emu.update((s) => {
      remove(s, { businessUnits: [acmeAb2, tokyo], consumers: [noNode], nodesOf: [webTwo] });
      s.proxies = s.proxies.filter((x) => !(x.agentConsumerId === proxy && x.targetConsumerId === web));
      s.proxies.push({ agentConsumerId: web, targetConsumerId: proxy, createdDate: "2024-01-01T00:00:00Z" });
      s.consumers.find((c) => c.id === tokyoConsumer)!.businessUnitId = refused;
    });

    const r = await exportCli(p.emu, ["--merge", file]);
    assert.equal(r.code, 0, r.err);
    assert.equal(fs.readFileSync(file, "utf8"), exported.out, "the file is left as it was");
    const lines = r.err.split("\n").filter((l) => /^(gone|differs|added|not added) /.test(l));
    assert.deepEqual(lines, [
      "differs tenants.acme-ab.proxies: the portal has the relation web → backup-proxy, the file does not; add {agent: web, target: backup-proxy, adopt: true} by hand",
      "gone tenants.acme-ab.consumers.web-2.node: the consumer has no node on the portal any more (deleted there); the file keeps it",
      "gone tenants.acme-ab.proxies[0]: the relation backup-proxy → web is gone from the portal; the file keeps it",
      `gone tenants.acme-ab.consumers.no-node: consumer ${noNode} is gone from the portal (deleted there); the file keeps it: remove the entry if the portal is right; to make it again, remove its adoptId (and adopt: true on its nodes) and the next up creates it, with a new id`,
      `gone tenants.acme-ab.businessUnits.acme-olfabrik.consumers.consumer: consumer ${tokyoConsumer} is at tenants.refused-values.consumers.consumer on the portal, not here (moved there); the file keeps it here: move the entry there, or the consumer back`,
      `gone tenants.acme-ab.businessUnits.business-unit: business unit ${tokyo} is gone from the portal (deleted there, or moved out from below business unit 1); the file keeps it: remove the entry if the portal is right; to make it again, remove its adoptId (and adopt: true on its nodes) and the next up creates it, with a new id`,
      `gone tenants.acme-ab-2: business unit ${acmeAb2} is gone from the portal (deleted there, or moved out from below business unit 1); the file keeps it: remove the entry if the portal is right; to make it again, remove its adoptId (and adopt: true on its nodes) and the next up creates it, with a new id`,
    ]);
    assert.match(r.err, /: 0 business units added, 1 entry differs from the portal, 6 gone from it, 0 not added/);
  });
});
