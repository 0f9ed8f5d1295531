// The CLI's own deployment options on the stacks/ program, against the emulator: a CLI killed mid-create and
// the recovery run docs/gitops.md prescribes ("CI was killed during `pulumi up`"), and `--target` and
// `--replace` on one node. Judged by what the portal holds and the requests it got.
import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import { startEmulator, type Emulator } from "../support/portal";
import { waitFor } from "../support/wait";
import { Workspace } from "./cli";
import { connectionYaml, PORTAL_PASSWORD, portalWrites, setAdminPassword, stacksWorkspace } from "./project";

const TENANTS = `
  backup-portal:protectBusinessUnits: false
  backup-portal:tenants:
    acme:
      name: Acme AB
      registrationNumber: "556677-8899"
      timeZone: UTC
      consumers:
        web01:
          node:
            operatingSystem: Linux
            type: File server
            domain: STANDARD
            cpuCount: 4
            tsmName: ACME-WEB01
        db01:
          node:
            operatingSystem: Linux
            type: Application server
            domain: STANDARD
            cpuCount: 8
            tsmName: ACME-DB01
`;

async function openStack(emu: Emulator, stack: string): Promise<Workspace> {
  const ws = stacksWorkspace(stack, connectionYaml(emu) + TENANTS);
  await ws.ok(["stack", "init"]);
  await ws.setSecret("backup-portal:password", PORTAL_PASSWORD);
  return ws;
}

/** The URN of the resource of `type` (the last part of its type token) whose name is `name`. */
async function urnOf(ws: Workspace, type: string, name: string): Promise<string> {
  const state = JSON.parse((await ws.ok(["stack", "export"])).stdout);
  const found = state.deployment.resources.find((r: any) => r.type.endsWith(`:${type}`) && r.urn.endsWith(`::${name}`));
  assert.ok(found, `${type} ${name} in state`);
  return found.urn;
}

describe("real engine: deployment options of the CLI on the stacks/ program", function () {
  this.timeout(15 * 60_000);
  let emu: Emulator;
  const spaces: Workspace[] = [];

  before(async () => {
    emu = await startEmulator({ port: 0, quiet: true });
  });
  beforeEach(() => {
    emu.reset();
    setAdminPassword(emu);
  });
  after(async () => {
    await emu?.close();
    for (const ws of spaces) ws.remove();
  });

  it("a CLI killed (SIGKILL) while a consumer is being created, then up with recovery on: no duplicate on the portal", async () => {
    const ws = await openStack(emu, "crash");
    spaces.push(ws);
    // The tenant's business unit gets the next id; the first consumer create under it is held for 4 s before
    // the portal handles it. The CLI dies meanwhile, and the portal still makes the consumer (a real server
    // handles a request it has received whoever hangs up).
    const unitId = Math.max(...emu.state().businessUnits.map((b) => b.id)) + 1;
    emu.setFaults({ latencyMs: 4000, match: { method: "POST", path: `/v1/bunits/${unitId}/consumers` }, count: 1 });
    let creatingSince = 0;
    const killed = await ws.pulumi(["up", "--yes"], {
      // 1.5 s after the first consumer create started: its request is at the portal, held there.
      killWhen: (output) => {
        if (!creatingSince && /Consumer acme\/\w+ creating/.test(output)) creatingSince = Date.now();
        return creatingSince > 0 && Date.now() - creatingSince > 1500;
      },
    });
    assert.equal(killed.signal, "SIGKILL", killed.stdout + killed.stderr);
    const consumersOf = () => emu.state().consumers.filter((c) => c.businessUnitId === unitId);
    await waitFor(() => consumersOf().length === 2, "the held create to reach the portal", 10_000);
    emu.clearFaults();
    const exported = JSON.parse((await ws.ok(["stack", "export"])).stdout);
    assert.ok(
      (exported.deployment.pending_operations ?? []).some((p: any) => p.type === "creating"),
      "a pending create in the checkpoint",
    );

    // The killed CLI left its lock on the file backend: every command refuses the stack until it is removed.
    const recover = ["up", "--refresh", "--yes"];
    const recovery = { env: { BACKUP_PORTAL_RECOVER_INTERRUPTED: "true" } };
    const locked = await ws.pulumi(recover, recovery);
    assert.notEqual(locked.code, 0);
    assert.match(locked.stdout + locked.stderr, /the stack is currently locked/);
    await ws.ok(["cancel", "--yes"]);
    await ws.ok(recover, recovery);
    await ws.ok(["refresh", "--clear-pending-creates", "--yes"]);
    const acme = emu.state().businessUnits.filter((b) => b.name === "Acme AB");
    assert.equal(acme.length, 1, "one business unit");
    const consumers = emu.state().consumers.filter((c) => c.businessUnitId === acme[0].id);
    assert.deepEqual(consumers.map((c) => c.name).sort(), ["db01", "web01"], "each consumer once");
    emu.clearRequests();
    const after = await ws.ok(["preview", "--refresh", "--expect-no-changes"]);
    assert.doesNotMatch(after.stdout, /to create|to update|to delete|to replace/);
    assert.deepEqual(portalWrites(emu), []);
  });

  it("--target changes one node and leaves the other's change for later; --replace replaces only that node", async () => {
    const ws = await openStack(emu, "options");
    spaces.push(ws);
    await ws.ok(["up", "--yes"]);
    const web = await urnOf(ws, "Node", "acme/web01");
    const text = fs.readFileSync(ws.stackFile, "utf8");
    fs.writeFileSync(ws.stackFile, text.replace("cpuCount: 4", "cpuCount: 6").replace("cpuCount: 8", "cpuCount: 10"));
    emu.clearRequests();
    await ws.ok(["up", "--yes", "--target", web]);
    const nodes = () => Object.fromEntries(emu.state().nodes.map((n) => [n.tsmName, n]));
    assert.equal(nodes()["ACME-WEB01"].cpuCount, 6, "the targeted node changed");
    assert.equal(nodes()["ACME-DB01"].cpuCount, 8, "the other node did not");
    const preview = await ws.ok(["preview", "--diff"]);
    assert.match(preview.stdout, /1 to update/, "the other change is still to do");

    const webId = nodes()["ACME-WEB01"].consumerId;
    emu.clearRequests();
    await ws.ok(["up", "--yes", "--target", web, "--replace", web]);
    const touched = portalWrites(emu);
    assert.ok(touched.length > 0, "the replace wrote");
    assert.ok(
      touched.every((w) => w.includes(`/consumers/${webId}`)),
      `only the replaced node's consumer was written: ${touched.join(", ")}`,
    );
    assert.equal(nodes()["ACME-DB01"].cpuCount, 8, "the other node still waits for its change");
  });
});
