// `backup-portal business-units` and `backup-portal consumers`, the real binary against the emulator on loopback:
// what they list is the portal's tree and consumers (compared with the emulator's own state), the ids they print
// are the ones jobs takes, they only read, and a name set by a tenant cannot fake a row of the table.
import assert from "node:assert/strict";
import { envFor, Emulator, startEmulator } from "../support/portal";
import { backupPortal } from "./process";

/** Line feed, escape and the rest: a name that would start a new row, with a fake id in it, and clear the screen. */
const HOSTILE = "evil\n 99  9  fake-row\r\x1b[2J\tend";

interface Unit {
  id: number;
  name: string | null;
  parentId: number | null;
  depth: number;
}

interface Listed {
  businessUnitId: number;
  id: number;
  name: string | null;
  state: string | null;
}

describe("backup-portal business-units and consumers: the ids the other commands take", function () {
  this.timeout(120_000);
  let emu: Emulator;
  before(async () => {
    emu = await startEmulator({ quiet: true });
  });
  after(async () => {
    await emu?.close();
  });
  beforeEach(() => emu.reset());

  /** The tree below `rootId` as the emulator holds it: each unit after its parent, children in id order. */
  function treeOf(rootId: number): Unit[] {
    const units = emu.state().businessUnits;
    const root = units.find((u) => u.id === rootId)!;
    const out: Unit[] = [];
    const visit = (id: number, depth: number): void => {
      const u = units.find((x) => x.id === id)!;
      out.push({ id: u.id, name: u.name, parentId: u.parentId ?? null, depth });
      for (const c of units.filter((x) => x.parentId === id).sort((a, b) => a.id - b.id)) visit(c.id, depth + 1);
    };
    visit(root.id, 0);
    return out;
  }

  const consumerIdsOf = (bunit: number) =>
    emu
      .state()
      .consumers.filter((c) => c.businessUnitId === bunit)
      .map((c) => c.id)
      .sort((a, b) => a - b);

  it("business-units: the account's own business unit and everything below it, as the portal holds them", async () => {
    const json = await backupPortal(["business-units", "--json"], { env: envFor(emu) });
    assert.equal(json.code, 0, json.err);
    assert.equal(json.err, "");
    const units = JSON.parse(json.out) as Unit[];
    assert.ok(units.length >= 3, json.out);
    assert.deepEqual(units, treeOf(1));

    const table = await backupPortal(["business-units"], { env: envFor(emu) });
    assert.equal(table.code, 0, table.err);
    const lines = table.out.trimEnd().split("\n");
    assert.match(lines[0], /^ID +PARENT +NAME$/);
    assert.equal(lines.length, units.length + 1, table.out);
    units.forEach((u, i) => {
      // id, parent (empty for the start), the name indented by its depth
      const cells = new RegExp(`^ *${u.id}  +${u.parentId ?? ""} +${" ".repeat(2 * u.depth)}${u.name}$`);
      assert.match(lines[i + 1], cells, lines[i + 1]);
    });
  });

  it("business-units --bunit and --depth; the tenant account starts at its own business unit", async () => {
    const own = await backupPortal(["business-units", "--json"], { env: envFor(emu, "tenant") });
    assert.equal(own.code, 0, own.err);
    assert.deepEqual(JSON.parse(own.out), treeOf(2));
    const shallow = await backupPortal(["business-units", "--bunit", "1", "--depth", "0", "--json"], { env: envFor(emu) });
    assert.deepEqual(JSON.parse(shallow.out), treeOf(1).slice(0, 1));
    // A deeper tree: --depth 1 leaves the grandchild out, no --depth lists it.
    emu.update((s) => {
      s.businessUnits.push({ ...s.businessUnits.find((b) => b.id === 2)!, id: 77, name: "Tenant A team", parentId: 2 });
    });
    const all = JSON.parse((await backupPortal(["business-units", "--json"], { env: envFor(emu) })).out) as Unit[];
    assert.deepEqual(all, treeOf(1));
    assert.ok(all.some((u) => u.id === 77 && u.depth === 2));
    const one = JSON.parse((await backupPortal(["business-units", "--depth", "1", "--json"], { env: envFor(emu) })).out) as Unit[];
    assert.deepEqual(
      one,
      treeOf(1).filter((u) => u.depth <= 1),
    );
  });

  it("consumers: a business unit's, or with --below every one's; the ids work with jobs", async () => {
    const r = await backupPortal(["consumers", "--bunit", "2", "--json"], { env: envFor(emu) });
    assert.equal(r.code, 0, r.err);
    const listed = JSON.parse(r.out) as Listed[];
    assert.deepEqual(
      listed.map((c) => c.id).sort((a, b) => a - b),
      consumerIdsOf(2),
    );
    assert.ok(listed.length >= 2);
    const state = emu.state();
    for (const c of listed) {
      assert.equal(c.businessUnitId, 2);
      assert.equal(c.name, state.consumers.find((x) => x.id === c.id)!.name);
      const node = state.nodes.find((n) => n.consumerId === c.id);
      assert.equal(c.state === null, node === undefined, `${c.name}: a state exactly when it has a node`);
    }
    // Without --below, the start's own only (the reseller has none here); with it, every business unit's.
    const own = JSON.parse((await backupPortal(["consumers", "--json"], { env: envFor(emu) })).out) as Listed[];
    assert.deepEqual(
      own.map((c) => c.id),
      consumerIdsOf(1),
    );
    const below = JSON.parse((await backupPortal(["consumers", "--below", "--json"], { env: envFor(emu) })).out) as Listed[];
    assert.deepEqual(
      below.map((c) => c.id).sort((a, b) => a - b),
      state.consumers.map((c) => c.id).sort((a, b) => a - b),
    );

    const table = await backupPortal(["consumers", "--bunit", "2"], { env: envFor(emu) });
    const lines = table.out.trimEnd().split("\n");
    assert.match(lines[0], /^BUNIT +ID +NAME +STATE$/);
    assert.equal(lines.length, listed.length + 1, table.out);
    const first = listed[0];
    const jobs = await backupPortal(["jobs", "--bunit", String(first.businessUnitId), "--consumer", String(first.id), "--json"], {
      env: envFor(emu),
    });
    assert.equal(jobs.code, 0, jobs.err);
    assert.ok(Array.isArray(JSON.parse(jobs.out)));
  });

  it("they only read: every request a GET (and the login)", async () => {
    emu.clearRequests();
    for (const args of [["business-units"], ["consumers", "--below"]]) {
      const r = await backupPortal(args, { env: envFor(emu) });
      assert.equal(r.code, 0, r.err);
    }
    const requests = emu.requests();
    assert.ok(requests.length > 0);
    assert.deepEqual(
      requests.filter((q) => q.method !== "GET" && q.path !== "/v1/oauth"),
      [],
    );
  });

  it("a name cannot fake a row: line breaks and controls are written out in the table; --json keeps the name", async () => {
    emu.update((s) => {
      s.consumers.find((c) => c.businessUnitId === 2)!.name = HOSTILE;
      s.businessUnits.find((b) => b.id === 3)!.name = HOSTILE;
    });
    const escaped = "evil\\x0a 99  9  fake-row\\x0d\\x1b[2J\\x09end";
    const consumers = await backupPortal(["consumers", "--bunit", "2"], { env: envFor(emu) });
    assert.equal(consumers.code, 0, consumers.err);
    const rows = consumers.out.trimEnd().split("\n");
    assert.equal(rows.length, consumerIdsOf(2).length + 1, consumers.out);
    assert.ok(
      rows.some((l) => l.includes(escaped)),
      consumers.out,
    );
    assert.doesNotMatch(consumers.out, /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    const units = await backupPortal(["business-units"], { env: envFor(emu) });
    assert.equal(units.out.trimEnd().split("\n").length, treeOf(1).length + 1, units.out);
    assert.ok(units.out.includes(`  ${escaped}`), units.out);
    const json = JSON.parse((await backupPortal(["consumers", "--bunit", "2", "--json"], { env: envFor(emu) })).out) as Listed[];
    assert.ok(json.some((c) => c.name === HOSTILE));
  });

  it("a business unit the account cannot see: exit 1, one line naming --bunit; a bad --depth: exit 2 before any request", async () => {
    const missing = await backupPortal(["consumers", "--bunit", "999"], { env: envFor(emu) });
    assert.equal(missing.code, 1);
    assert.equal(missing.out, "");
    assert.equal(missing.err.trimEnd().split("\n").length, 1, missing.err);
    assert.match(missing.err, /^backup-portal consumers: .*--bunit/);
    const outside = await backupPortal(["business-units", "--bunit", "3"], { env: envFor(emu, "tenant") });
    assert.equal(outside.code, 1, outside.err);
    emu.clearRequests();
    const bad = await backupPortal(["business-units", "--depth", "-1"], { env: envFor(emu) });
    assert.equal(bad.code, 2);
    assert.match(
      bad.err,
      /^backup-portal business-units: --depth needs .*\nusage: backup-portal business-units .*\nsee backup-portal business-units --help\n$/,
    );
    assert.deepEqual(emu.requests(), []);
  });
});
