// A stack really written by release 0.2.0 under the real Pulumi CLI (scripts/make-upgrade-fixture.ts made
// test/real-engine/fixtures/upgrade-0.2.0/), upgraded to this checkout's package: the first `pulumi up` of the
// current stacks/ program writes nothing on the portal (it creates the name check, which only reads), and an
// unchanged preview after it shows no change.
import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as zlib from "node:zlib";
import type { State } from "../../emulator";
import { startEmulator, type Emulator } from "../support/portal";
import { FIXTURE_DIR, FIXTURE_PORTAL_URL, NODE_PASSWORDS, NOT_SAVED, seededPortal, STACK } from "../../scripts/make-upgrade-fixture";
import { countByEndpoint } from "../../bench/ideal";
import type { Workspace } from "./cli";
import { portalWrites, PORTAL_PASSWORD, programResources, setAdminPassword, stacksWorkspace } from "./project";

const fixture = (name: string) => fs.readFileSync(path.join(FIXTURE_DIR, name));

/** The portal's objects, for comparing the portal before and after a run. */
const objects = (s: State) => ({ businessUnits: s.businessUnits, consumers: s.consumers, nodes: s.nodes, proxies: s.proxies });

describe("real engine: a stack written by 0.2.0, upgraded to the current package", function () {
  this.timeout(10 * 60_000);
  let emu: Emulator;
  let ws: Workspace;
  let dataDir: string | undefined;
  const state = zlib.gunzipSync(fixture("state.json.gz")).toString("utf8");
  const stackYaml = fixture(`Pulumi.${STACK}.yaml`).toString("utf8");
  const portal = JSON.parse(fixture("portal.json").toString("utf8")) as Partial<State>;

  before(async () => {
    // The portal as 0.2.0 left it: the seed the fixture started from, with what its up changed.
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "upgrade-portal-"));
    const dataFile = path.join(dataDir, "portal.json");
    fs.writeFileSync(dataFile, JSON.stringify({ ...seededPortal(), ...portal }));
    emu = await startEmulator({ port: 0, dataFile, quiet: true });
    setAdminPassword(emu);
    // The portal's address is the one thing that differs from the machine that wrote the stack: the fixture's
    // emulator listened on a fixed port that may be taken here, so this one listens on a free port, and the
    // stack file (backup-portal:url) and the state (each resource's provider configuration and the stack's
    // config as the state records it) name it instead. A user upgrading the package keeps their portal's URL,
    // so keeping the old one would test a change of portal, not an upgrade. Everything else is as 0.2.0 wrote it.
    const moved = (text: string) => text.split(FIXTURE_PORTAL_URL).join(emu.url);
    assert.ok(state.includes(FIXTURE_PORTAL_URL) && stackYaml.includes(FIXTURE_PORTAL_URL), "the fixture names its portal");
    ws = stacksWorkspace(STACK, moved(stackYaml));
    await ws.ok(["stack", "init"]);
    const stateFile = path.join(ws.dir, "state-0.2.0.json");
    fs.writeFileSync(stateFile, moved(state));
    await ws.ok(["stack", "import", "--file", stateFile]);
  });
  after(async () => {
    await emu?.close();
    ws?.remove();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it("the fixture holds no password in plain text and only what 0.2.0 changed on the portal", () => {
    const texts = [state, stackYaml, JSON.stringify(portal)];
    for (const secret of [PORTAL_PASSWORD, ...Object.values(NODE_PASSWORDS)]) {
      for (const text of texts) assert.ok(!text.includes(secret), `a password in plain text in the fixture: ${secret}`);
    }
    assert.ok(!JSON.stringify(portal).includes("generatedPassword"));
    for (const key of NOT_SAVED) assert.ok(!(key in portal), `${key} is not saved`);
    // Written by 0.2.0 under the real CLI: its resources, their ids on the portal, and its encrypted secrets.
    const deployment = JSON.parse(state).deployment;
    assert.equal(deployment.secrets_providers.type, "passphrase");
    assert.ok(deployment.resources.length >= 15);
    assert.match(stackYaml, /^encryptionsalt: v1:/m);
  });

  it("the first up of the current package writes nothing on the portal: it adds the name check, which only reads", async () => {
    const before = objects(emu.state());
    emu.clearRequests();
    const r = await ws.ok(["up", "--yes"]);
    assert.deepEqual(portalWrites(emu), []);
    assert.deepEqual(objects(emu.state()), before);
    // Every resource of the state (all but its provider) is unchanged; the one step is the name check's create,
    // which 0.2.0 did not have (provider/resources/name-check.ts).
    const resources = JSON.parse(state).deployment.resources.filter((res: { type: string }) => !res.type.startsWith("pulumi:providers:"));
    const summary = r.stdout.slice(r.stdout.lastIndexOf("Resources:"));
    assert.match(summary, new RegExp(`^Resources:\\s+\\+ 1 created\\s+${resources.length} unchanged\\s*\\n\\s*\\n`), r.stdout);
    assert.match(r.stdout, /\+ {2}pulumi-nodejs:dynamic\/backup-portal:NameCheck tenants created/);
    // Its reads, in each of the up's two deployments (new to the state in both), and nothing else: a token, the
    // root, the root's children (a tenant adopts one), the time zones, operating systems, node types and the
    // root's default server's domains and client option sets.
    const each = [
      "POST /v1/oauth",
      ...["", "/bunits", "/defaultserver/domains", "/defaultserver/clientoptionsets"].map((p) => `GET /v1/bunits/{id}${p}`),
    ];
    const lists = ["GET /v1/timezones", "GET /v1/nodeoperatingsystems", "GET /v1/nodetypes"];
    assert.deepEqual(countByEndpoint(emu.requests()), Object.fromEntries([...each, ...lists].map((e) => [e, 2])));
  });

  it("that up stored each resource's source position only, where 0.2.0 stored the whole call stack", async () => {
    const old = programResources(JSON.parse(state));
    assert.ok(
      old.every((r) => (r.stackTrace?.length ?? 0) > 1),
      "0.2.0 stored whole call stacks",
    );
    const now = programResources(JSON.parse((await ws.ok(["stack", "export"])).stdout));
    assert.equal(now.length, old.length + 1, "the fixture's resources and the name check");
    for (const r of now) assert.deepEqual(r.stackTrace, [{ sourcePosition: r.sourcePosition }], r.urn);
  });

  it("an unchanged preview --diff after it shows no change and asks the portal nothing", async () => {
    emu.clearRequests();
    const r = await ws.ok(["preview", "--diff"]);
    assert.match(r.stdout, /\d+ unchanged/);
    assert.doesNotMatch(r.stdout, /to create|to update|to delete|to replace/);
    assert.deepEqual(emu.requests(), []);
  });
});
