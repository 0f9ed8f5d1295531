// The plan guard (scripts/plan-guard.js) on what the real Pulumi CLI's `preview --json` prints for the plugin's
// resources (issue 37 item 3): a Pulumi YAML program with a BusinessUnit, a Consumer and a Node through the
// backupportal plugin against the emulator. Removing them, or pointing the provider at the portal under another
// spelling (which replaces every resource the provider manages), is refused without the label and passed with it.
// Both paths under `preview --refresh --json`, as the GitOps workflow runs it, with a node gone on the portal: the
// digest is one the guard knows (no exit 2). The dynamic path's tenant removal is in stacks-program.test.ts.
import { strict as assert } from "node:assert";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as net from "node:net";
import * as path from "node:path";
import YAML from "yaml";
import { ORIGIN, startEmulator, type Emulator } from "../support/portal";
import { REPO, Workspace } from "./cli";
import { connectionYaml, PORTAL_PASSWORD, portalWrites, setAdminPassword, stacksWorkspace, yamlWorkspace } from "./project";

const RESOURCES = {
  acme: {
    type: "backupportal:index:BusinessUnit",
    properties: { parentId: 1, name: "Guard Ltd", registrationNumber: "556677-0037", timeZone: "UTC" },
  },
  web: { type: "backupportal:index:Consumer", properties: { businessUnitId: "${acme.id}", name: "web01", nodeName: "WEB01" } },
  webNode: {
    type: "backupportal:index:Node",
    properties: {
      businessUnitId: "${acme.id}",
      consumerId: "${web.id}",
      operatingSystem: "Linux",
      type: "File server",
      domain: "STANDARD",
      cpuCount: 2,
      tsmName: "GUARD-WEB01",
    },
  },
};

const program = (resources: Record<string, unknown>) => YAML.stringify({ name: "plan-guard", runtime: "yaml", resources });

describe("real engine: the plan guard on the plugin path's preview --json", function () {
  this.timeout(10 * 60_000);
  let emu: Emulator;
  let ws: Workspace;
  let explicit: Workspace | undefined;

  /** `pulumi preview --json` (with `extra` flags) saved to a file, and the guard run on it with `flags`. */
  async function previewAndGuard(
    on = ws,
    ...extra: string[]
  ): Promise<{ digest: any; guard: (...flags: string[]) => { status: number | null; out: string } }> {
    const preview = await on.ok(["preview", "--json", ...extra]);
    const file = path.join(on.dir, "preview.json");
    fs.writeFileSync(file, preview.stdout);
    const guard = (...flags: string[]) => {
      const r = spawnSync(process.execPath, [path.join(REPO, "scripts/plan-guard.js"), file, ...flags], { encoding: "utf8" });
      return { status: r.status, out: r.stdout + r.stderr };
    };
    return { digest: JSON.parse(preview.stdout), guard };
  }

  before(async () => {
    emu = await startEmulator({ port: 0, quiet: true });
    ws = yamlWorkspace("guard", program(RESOURCES));
    await ws.ok(["stack", "init"]);
    for (const [key, value] of Object.entries({ url: emu.url, origin: ORIGIN, clientId: "emulator", username: "admin" })) {
      await ws.ok(["config", "set", `backupportal:${key}`, value]);
    }
    await ws.setSecret("backupportal:password", "admin");
    await ws.ok(["up", "--yes"]);
    assert.ok(
      emu.state().businessUnits.some((b) => b.name === "Guard Ltd"),
      "the business unit is on the portal",
    );
  });
  after(async () => {
    await emu?.close();
    ws?.remove();
    explicit?.remove();
  });

  it("the BusinessUnit, Consumer and Node removed from the program: refused without the label, passed with it", async () => {
    const text = fs.readFileSync(path.join(ws.project, "Pulumi.yaml"), "utf8");
    fs.writeFileSync(path.join(ws.project, "Pulumi.yaml"), program({}));
    emu.clearRequests();
    try {
      const { digest, guard } = await previewAndGuard();
      assert.equal(digest.changeSummary?.delete, 3, JSON.stringify(digest.changeSummary));
      const refused = guard("--max-deletes", "5");
      assert.equal(refused.status, 1, refused.out);
      for (const kind of ["BusinessUnit", "Consumer", "Node"]) {
        assert.match(refused.out, new RegExp(`^${kind}\\s.*backupportal:index:${kind}::\\S+\\s+delete$`, "m"), kind);
      }
      assert.match(refused.out, /refused: the plan deletes or replaces 1 business unit\(s\)/);
      assert.equal(guard("--allow").status, 0);
      assert.deepEqual(portalWrites(emu), [], "a preview writes nothing");
    } finally {
      fs.writeFileSync(path.join(ws.project, "Pulumi.yaml"), text);
    }
  });

  it("the provider's url under another spelling (another host, then another port): every resource replaced, refused", async () => {
    const url = new URL(emu.url);
    // The same portal on another port: a TCP relay to the emulator (the plugin reads the portal during the preview).
    const relay = net.createServer((socket) => {
      const upstream = net.connect(Number(url.port), url.hostname);
      socket.pipe(upstream).pipe(socket);
      socket.on("error", () => upstream.destroy());
      upstream.on("error", () => socket.destroy());
    });
    await new Promise<void>((resolve) => relay.listen(0, url.hostname, resolve));
    const relayPort = (relay.address() as net.AddressInfo).port;
    const spellings = [`${url.protocol}//localhost:${url.port}`, `${url.protocol}//${url.hostname}:${relayPort}`];
    try {
      for (const other of spellings) {
        await ws.ok(["config", "set", "backupportal:url", other]);
        const { digest, guard } = await previewAndGuard();
        // The default provider's own replace is an internal step: the CLI lists only its resources' replaces.
        const replaced = digest.steps.filter((s: any) => s.op === "replace").map((s: any) => s.urn.split("::")[2]);
        assert.deepEqual(replaced.sort(), ["backupportal:index:BusinessUnit", "backupportal:index:Consumer", "backupportal:index:Node"]);
        const refused = guard("--max-deletes", "5");
        assert.equal(refused.status, 1, `${other}: ${refused.out}`);
        assert.match(refused.out, /refused: /);
        for (const kind of ["BusinessUnit", "Consumer", "Node"]) {
          assert.match(refused.out, new RegExp(`^${kind}\\s.*backupportal:index:${kind}::\\S+\\s+replace$`, "m"), `${other}: ${kind}`);
        }
        assert.equal(guard("--allow").status, 0);
      }
    } finally {
      relay.close();
      await ws.ok(["config", "set", "backupportal:url", emu.url]);
    }
  });

  it("an explicit provider's url changed: its replace step and its resources' are refused", async () => {
    const resources: Record<string, any> = structuredClone(RESOURCES);
    resources.portal = {
      type: "pulumi:providers:backupportal",
      properties: { url: "${portalUrl}", origin: ORIGIN, clientId: "emulator", username: "admin", password: { "fn::secret": "admin" } },
    };
    for (const name of ["acme", "web", "webNode"]) resources[name].options = { provider: "${portal}" };
    resources.acme.properties.name = "Guard Explicit Ltd";
    resources.webNode.properties.tsmName = "GUARD-EXPLICIT";
    explicit = yamlWorkspace(
      "explicit",
      YAML.stringify({ name: "plan-guard-explicit", runtime: "yaml", config: { portalUrl: { type: "string" } }, resources }),
    );
    await explicit.ok(["stack", "init"]);
    await explicit.ok(["config", "set", "portalUrl", emu.url]);
    await explicit.ok(["up", "--yes"]);
    await explicit.ok(["config", "set", "portalUrl", `${new URL(emu.url).protocol}//localhost:${new URL(emu.url).port}`]);
    const { digest, guard } = await previewAndGuard(explicit);
    const replaced = digest.steps.filter((s: any) => s.op === "replace").map((s: any) => s.urn.split("::")[2]);
    assert.ok(replaced.includes("pulumi:providers:backupportal"), JSON.stringify(replaced));
    const refused = guard("--max-deletes", "5");
    assert.equal(refused.status, 1, refused.out);
    assert.match(refused.out, /refused: the plan replaces 1 backupportal provider\(s\)/);
    for (const kind of ["BusinessUnit", "Consumer", "Node"]) {
      assert.match(refused.out, new RegExp(`^${kind}\\s.*backupportal:index:${kind}::\\S+\\s+replace$`, "m"), kind);
    }
    assert.equal(guard("--allow").status, 0);
  });

  it("a node gone on the portal under preview --refresh --json: the plan creates it again, the guard passes (no exit 2)", async () => {
    const node = emu.state().nodes.find((n) => n.tsmName === "GUARD-WEB01");
    assert.ok(node, "the node is on the portal");
    emu.update((s) => void (s.nodes = s.nodes.filter((n) => n.id !== node.id)));
    const { digest, guard } = await previewAndGuard(ws, "--refresh");
    // The refresh drops it from the state (v3.260.0 lists no `delete` step for it) and the program creates it anew.
    const ops = digest.steps.map((s: any) => `${s.op} ${s.urn.split("::").slice(2).join("::")}`);
    assert.ok(ops.includes("create backupportal:index:Node::webNode"), JSON.stringify(ops));
    const passed = guard();
    assert.equal(passed.status, 0, `${passed.out}\n${JSON.stringify(digest.changeSummary)}`);
    assert.match(passed.out, /the plan deletes and replaces nothing/);
  });
});

describe("real engine: the plan guard on the dynamic path's preview --refresh --json", function () {
  this.timeout(10 * 60_000);
  let emu: Emulator;
  let ws: Workspace;
  const tenants = `
  backup-portal:protectBusinessUnits: "false"
  backup-portal:tenants:
    guard:
      name: Guard Dynamic AB
      registrationNumber: "556677-3737"
      timeZone: UTC
      consumers:
        files:
          node:
            operatingSystem: Linux
            type: File server
            domain: STANDARD
            cpuCount: 2
            tsmName: GUARD-FILES
`;

  before(async () => {
    emu = await startEmulator({ port: 0, quiet: true });
    setAdminPassword(emu);
    ws = stacksWorkspace("guard-dyn", connectionYaml(emu) + tenants);
    await ws.ok(["stack", "init"]);
    await ws.setSecret("backup-portal:password", PORTAL_PASSWORD);
    await ws.ok(["up", "--yes"]);
  });
  after(async () => {
    await emu?.close();
    ws?.remove();
  });

  it("a node gone on the portal: the plan creates it again, the guard reads the digest and passes (no exit 2)", async () => {
    const node = emu.state().nodes.find((n) => n.tsmName === "GUARD-FILES");
    assert.ok(node, "the node is on the portal");
    emu.update((s) => void (s.nodes = s.nodes.filter((n) => n.id !== node.id)));
    const preview = await ws.ok(["preview", "--refresh", "--json"]);
    const file = path.join(ws.dir, "preview.json");
    fs.writeFileSync(file, preview.stdout);
    const guard = (...flags: string[]) => {
      const r = spawnSync(process.execPath, [path.join(REPO, "scripts/plan-guard.js"), file, ...flags], { encoding: "utf8" });
      return { status: r.status, out: r.stdout + r.stderr };
    };
    const digest = JSON.parse(preview.stdout);
    const ops = digest.steps.map((s: any) => `${s.op} ${s.urn.split("::")[2]}`);
    assert.ok(ops.includes("create pulumi-nodejs:dynamic/backup-portal:Node"), JSON.stringify(ops));
    const passed = guard();
    assert.equal(passed.status, 0, `${passed.out}\n${JSON.stringify(digest.changeSummary)}`);
    assert.match(passed.out, /the plan deletes and replaces nothing/);
  });
});
