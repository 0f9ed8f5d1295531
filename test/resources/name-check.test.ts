// The stack program's name check (provider/resources/name-check.ts) in this process, against the emulator on
// loopback: its input holds every name validateNames reads (the same problems come out of it as out of the whole
// block), its digest changes with the names and not with the keys, a Check whose digest the state holds sends no
// request, and its lifecycle sends nothing. The real CLI's side: test/real-engine/name-check.test.ts.
import assert from "node:assert/strict";
import { configure, resetConnection } from "../../provider/dynamic/connection";
import { References } from "../../provider/dynamic/references";
import { nameCheckLifecycle as check } from "../../provider/resources/name-check";
import { TenantsConfig } from "../../provider/tenants/model";
import { nameFacts, namesOf, validateNames } from "../../provider/tenants/names";
import { localTenants } from "../stacks/support";
import { clientSuite, stackConfigFor } from "../support/portal";

/** The local stack with a wrong name of every kind validateNames looks up. */
function wrongEverywhere(): TenantsConfig {
  const t = localTenants();
  t.acme.timeZone = "Mars/Olympus";
  t.acme.adoptId = 99999;
  t.globex.domainFilter = ["STANDARD", "7YEARS"];
  t.globex.clientOptionSetFilter = ["NO_SUCH_SET"];
  Object.assign(t.acme.consumers!.web01.node!, { operatingSystem: "Plan 9", clientOptionSet: "ZIP_IT" });
  Object.assign(t.acme.businessUnits!["acme-labs"].consumers!.ws01.node!, { type: "File server", domain: "FOREVER" });
  Object.assign(t.globex.consumers!.files.node!, { type: "Mainframe" });
  return t;
}

const FILE = "Pulumi.prod.yaml";
const news = (tenants: TenantsConfig, rootBusinessUnitId = 1) => ({ file: FILE, rootBusinessUnitId, tenants: namesOf(tenants) });

describe("the stack program's name check", function () {
  this.timeout(30_000);
  const s = clientSuite();
  beforeEach(() => {
    resetConnection();
    const config = stackConfigFor(s.emu.url);
    configure({ get: (k) => config[k] });
  });
  after(() => resetConnection());

  it("its input (namesOf) gives validateNames the same problems as the whole block, and holds none of the rest", async () => {
    const t = wrongEverywhere();
    const whole = await validateNames(t, new References(s.client), 1);
    assert.ok(whole.length >= 8, JSON.stringify(whole));
    assert.deepEqual(await validateNames(namesOf(t), new References(s.client), 1), whole);
    const text = JSON.stringify(namesOf(localTenants()));
    for (const other of [
      "Acme AB",
      "556677-8899",
      "ACME-WEB01",
      "ops@acme.example",
      "shared file server",
      "proxies",
      "registrationNumber",
    ]) {
      assert.ok(!text.includes(other), `${other} is not a name the check reads`);
    }
  });

  it("the names it checks change with a name, a node's pair or a tenant's adoptId; not with keys, order or a repeated name", () => {
    const facts = (edit: (t: TenantsConfig) => void) => {
      const t = localTenants();
      edit(t);
      return nameFacts(namesOf(t));
    };
    const base = facts(() => undefined);
    // Unchanged: a key renamed, the entries reversed, a consumer added whose names are in use, a nested adoptId.
    assert.deepEqual(
      facts((t) => {
        t["globex-corp"] = t.globex;
        delete t.globex;
      }),
      base,
    );
    assert.deepEqual(
      facts((t) => {
        const entries = Object.entries(t).reverse();
        for (const k of Object.keys(t)) delete t[k];
        Object.assign(t, Object.fromEntries(entries));
      }),
      base,
    );
    assert.deepEqual(
      facts((t) => (t.acme.consumers!.web02 = structuredClone(t.acme.consumers!.web01))),
      base,
    );
    assert.deepEqual(
      facts((t) => (t.acme.businessUnits!["acme-labs"].adoptId = 4)),
      base,
      "a sub-unit's adoptId is its own Check's",
    );
    // Changed: each kind of name, a pair of names in use, a tenant's adoptId.
    const changes: Array<[string, (t: TenantsConfig) => void]> = [
      ["timeZone", (t) => (t.acme.timeZone = "Tokyo Standard Time")],
      ["operatingSystem", (t) => (t.acme.consumers!.web01.node!.operatingSystem = "macOS")],
      ["type (a pair new to the stack)", (t) => (t.acme.consumers!.web01.node!.type = "Workstation")],
      ["pair", (t) => (t.acme.businessUnits!["acme-labs"].consumers!.ws01.node!.type = "File server")],
      ["domain", (t) => (t.acme.consumers!.web01.node!.domain = "60DAYS")],
      ["clientOptionSet", (t) => (t.acme.consumers!.db01.node!.clientOptionSet = "None")],
      ["domainFilter", (t) => (t.globex.domainFilter = ["STANDARD", "90DAYS"])],
      ["adoptId", (t) => (t.acme.adoptId = 7)],
    ];
    for (const [what, edit] of changes) assert.notDeepEqual(facts(edit), base, what);
  });

  it("Check: every problem a line with the stack file and key path; a digest the state holds reads nothing", async () => {
    const mark = s.emu.requests().length;
    const bad = await check.check({}, news(wrongEverywhere()));
    const lines = bad.failures!.map((f) => `${f.property}|${f.reason}`);
    assert.ok(lines.length >= 8);
    for (const line of lines) assert.match(line, /^\|Pulumi\.prod\.yaml: backup-portal:(rootBusinessUnitId|tenants\.\S+): \S/, line);
    assert.ok(
      lines.some((l) =>
        l.startsWith(`|${FILE}: backup-portal:tenants.acme.consumers.web01.node.operatingSystem: unknown operating system "Plan 9"`),
      ),
    );
    assert.ok(s.emu.requests().length > mark, "a new digest reads the portal");

    const good = await check.check({}, news(localTenants()));
    assert.deepEqual(good.failures, []);
    assert.deepEqual(Object.keys(good.inputs!).sort(), ["digest", "rootBusinessUnitId"], "the state holds the digest and the root only");
    resetConnection(); // a new host: nothing cached
    const config = stackConfigFor(s.emu.url);
    configure({ get: (k) => config[k] });
    const at = s.emu.requests().length;
    const again = await check.check(good.inputs!, news(localTenants()));
    assert.deepEqual(again, good);
    assert.deepEqual(s.emu.requests().slice(at), [], "the names the state holds checked: no request");
    // Another root is checked again (and a wrong one said so, without reading the lists under it).
    const moved = await check.check(good.inputs!, news(localTenants(), 99999));
    assert.match(
      moved.failures!.map((f) => f.reason).join("\n"),
      /^Pulumi\.prod\.yaml: backup-portal:rootBusinessUnitId: business unit 99999 does not exist/,
    );
  });

  it("Check: another portal or account checks again; a portal that cannot be read is one line, not a stack trace", async () => {
    const good = await check.check({}, news(localTenants()));
    resetConnection();
    const tenant: Record<string, string> = {
      ...stackConfigFor(s.emu.url),
      "backup-portal:username": "tenant",
      "backup-portal:password": "tenant",
    };
    configure({ get: (k) => tenant[k] });
    const other = await check.check(good.inputs!, news(localTenants()));
    assert.notEqual(other.inputs!.digest, good.inputs!.digest);
    assert.match(other.failures![0].reason, /rootBusinessUnitId: business unit 1 is outside what this account may reach/);

    resetConnection();
    const refused: Record<string, string> = { ...stackConfigFor(s.emu.url), "backup-portal:password": "not-the-password" };
    configure({ get: (k) => refused[k] });
    const r = await check.check({}, news(localTenants()));
    assert.equal(r.failures!.length, 1);
    assert.match(
      r.failures![0].reason,
      /^the stack config's names could not be checked against the portal: POST \/v1\/oauth failed \(HTTP 400\)/,
    );
    assert.doesNotMatch(r.failures![0].reason, /\n/);
  });

  it("Diff changes with the digest or the root; Create, Update, Read and Delete send nothing", async () => {
    const state = { digest: "a", rootBusinessUnitId: 1 };
    assert.equal((await check.diff("names", state, state)).changes, false);
    assert.equal((await check.diff("names", state, { ...state, digest: "b" })).changes, true);
    assert.equal((await check.diff("names", state, { ...state, rootBusinessUnitId: 2 })).changes, true);
    const mark = s.emu.requests().length;
    const made = await check.create(state);
    assert.deepEqual(made.outs, state);
    assert.deepEqual((await check.update(made.id, state, { ...state, digest: "b" })).outs, { ...state, digest: "b" });
    assert.deepEqual(await check.read(made.id, state), { id: made.id, props: state, inputs: state });
    await check.delete(made.id, state);
    assert.deepEqual(s.emu.requests().slice(mark), []);
  });
});
