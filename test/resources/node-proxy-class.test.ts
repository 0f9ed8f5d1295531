// The real NodeProxy class: its registered options under mocks, its Diff in process, and through the
// provider host a changed input that replaces the relation, delete first.
import assert from "node:assert/strict";
import * as pulumi from "@pulumi/pulumi";
import { runProgramWithEngine } from "../engine/mocks";
import { Consumer } from "../../provider/resources/consumer";
import { Node } from "../../provider/resources/node";
import { NodeProxy, nodeProxyLifecycle } from "../../provider/resources/node-proxy";
import { portalSuite } from "./support";

const settings = require("@pulumi/pulumi/runtime/settings") as { getMonitor(): { registerResource: (req: any, cb: unknown) => unknown } };

/** The RegisterResource requests of a program under plain mocks (echoing inputs). */
async function registrations(program: () => void): Promise<Array<{ type: string; deleteBeforeReplace: boolean; defined: boolean }>> {
  const seen: Array<{ type: string; deleteBeforeReplace: boolean; defined: boolean }> = [];
  let done = 0;
  await pulumi.runtime.setMocks(
    {
      newResource: (args) => (done++, { id: `${args.name}-id`, state: args.inputs }),
      call: (args) => args.inputs,
    },
    "backup-portal",
    "test",
    false,
  );
  const monitor = settings.getMonitor();
  const original = monitor.registerResource.bind(monitor);
  monitor.registerResource = (req: any, cb: unknown) => {
    seen.push({ type: req.getType(), deleteBeforeReplace: req.getDeletebeforereplace(), defined: req.getDeletebeforereplacedefined() });
    return original(req, cb);
  };
  program();
  const deadline = Date.now() + 10_000;
  while (done < 1 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  return seen;
}

describe("NodeProxy, the real class", function () {
  this.timeout(90_000);
  const p = portalSuite();

  it("registers with deleteBeforeReplace; the caller's option still wins", async () => {
    const args = { businessUnitId: 1, agentConsumerId: 2, targetConsumerId: 3 };
    const [own] = await registrations(() => new NodeProxy("p", args));
    assert.deepEqual(own, { type: "pulumi-nodejs:dynamic/backup-portal:NodeProxy", deleteBeforeReplace: true, defined: true });
    const [overridden] = await registrations(() => new NodeProxy("p", args, { deleteBeforeReplace: false }));
    assert.equal(overridden.deleteBeforeReplace, false);
  });

  it("Diff: each changed input is a replacement, delete first; the same ids (number or string) are no change", async () => {
    const olds = { businessUnitId: 1, agentConsumerId: 2, targetConsumerId: 3 };
    for (const k of Object.keys(olds) as Array<keyof typeof olds>) {
      const d = await nodeProxyLifecycle.diff("2:3", olds, { ...olds, [k]: olds[k] + 10 });
      assert.deepEqual(d, { changes: true, replaces: [k], deleteBeforeReplace: true }, k);
    }
    const all = await nodeProxyLifecycle.diff("2:3", olds, { businessUnitId: 5, agentConsumerId: 6, targetConsumerId: 7 });
    assert.deepEqual(all.replaces, ["businessUnitId", "agentConsumerId", "targetConsumerId"]);
    const same = await nodeProxyLifecycle.diff("2:3", olds, { businessUnitId: "1", agentConsumerId: 2, targetConsumerId: "3" });
    assert.deepEqual(same, { changes: false, replaces: [], deleteBeforeReplace: true });
  });

  it("through the host: a new target replaces the relation, the old one deleted before the new one is made", async () => {
    const eng = p.engine();
    const program = (target: "web" | "db") => () => {
      const ids: Record<string, pulumi.Output<number>> = {};
      const nodes: Node[] = [];
      for (const name of ["agent", "web", "db"]) {
        const c = new Consumer(name, { businessUnitId: 1, name: `proxy-${name}` });
        nodes.push(
          new Node(`${name}-node`, {
            businessUnitId: 1,
            consumerId: c.consumerId,
            operatingSystem: "Linux",
            type: "File server",
            domain: "STANDARD",
            cpuCount: 1,
          }),
        );
        ids[name] = c.consumerId;
      }
      new NodeProxy("agent>target", { businessUnitId: 1, agentConsumerId: ids.agent, targetConsumerId: ids[target] }, { dependsOn: nodes });
    };
    await runProgramWithEngine(program("web"), eng);
    const [agent, web, db] = ["agent", "web", "db"].map((n) => Number(eng.get(n)!.id));
    assert.equal(eng.get("agent>target")!.id, `${agent}:${web}`);

    const mark = p.emu.requests().length;
    const run = await runProgramWithEngine(program("db"), eng);
    const step = run.steps.find((s) => s.urn.endsWith("::agent>target"))!;
    assert.deepEqual([step.op, step.replaces, step.deleteBeforeReplace], ["replace", ["targetConsumerId"], true]);
    const proxyWrites = p.emu
      .requests()
      .slice(mark)
      .filter((r) => r.method !== "GET" && r.path.includes("proxy"));
    assert.deepEqual(
      proxyWrites.map((r) => r.method),
      ["DELETE", "POST"],
      "delete first",
    );
    assert.match(proxyWrites[0].path, new RegExp(`/consumers/${web}/node/proxyagents\\b`));
    assert.match(proxyWrites[1].path, new RegExp(`/consumers/${db}/node/proxyagents\\b`));
    assert.equal(eng.get("agent>target")!.id, `${agent}:${db}`);
  });
});
