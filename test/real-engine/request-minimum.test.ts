// The benchmark's request goals under the real Pulumi CLI (scripts/pulumi-tools.sh), on a small fleet: every phase
// of both paths makes exactly the requests bench/ideal.ts allows, endpoint by endpoint, so any extra request fails
// it. The dynamic path is the stacks/ program (pulumi-language-nodejs, the dynamic provider host) with the bench's
// stack file; the plugin path the bench's Pulumi YAML program on the `backupportal` plugin. Counts from the
// emulator's log, not times: those are for `npm run bench -- --engine cli`.
import { strict as assert } from "node:assert";
import YAML from "yaml";
import { stackFileFor, yamlProgramFor } from "../../bench/cli-engine";
import { countByEndpoint, Ideal, ideal, idealCreate, idealDestroy, idealRefresh, IdealOptions } from "../../bench/ideal";
import { exactlyOnce, workload } from "../../bench/workload";
import { Workspace } from "./cli";
import { configurePlugin, emulatorSuite, stacksWorkspace, yamlWorkspace } from "./project";

const CHANGES = /\b\d+ (to (create|update|delete|replace)|created|updated|deleted|replaced)\b/;

/** The node password keys a stack file of stackFileFor names (`passwordSecret`), each to be set as a secret. */
function passwordKeys(stackFile: string): string[] {
  const tenants = YAML.parse(stackFile).config["backup-portal:tenants"] as Record<string, any>;
  return Object.values(tenants).flatMap((t) => Object.values(t.consumers ?? {}).map((c: any) => c.node.passwordSecret as string));
}

describe("real engine: each phase makes exactly the fewest requests the API allows (bench/ideal.ts)", function () {
  // Each path: a dozen CLI commands, the dynamic path's under ts-node, on a shared 2-core machine.
  this.timeout(20 * 60_000);
  const s = emulatorSuite();
  const o: IdealOptions = { tenants: 2, consumers: 2, passwords: true, latency: 0, parallel: 16 };

  for (const path of ["dynamic", "plugin"] as const) {
    it(`${path === "dynamic" ? "the stacks/ program" : "the plugin (YAML)"}: 2 tenants × 2 consumers with nodes: create, no-op preview, no-op up, refresh, destroy`, async () => {
      const w = workload({ tenants: o.tenants, consumersPerTenant: o.consumers, passwords: o.passwords, prefix: `min-${path}-` });
      let ws: Workspace;
      if (path === "dynamic") {
        const file = stackFileFor(w, s.emu.url, o.passwords);
        ws = s.keep(stacksWorkspace("minimum", file));
        await ws.ok(["stack", "init"]);
        await ws.setSecret("backup-portal:password", "admin");
        for (const key of passwordKeys(file)) await ws.setSecret(`backup-portal:${key}`, `Pw-${key}-x9`);
      } else {
        ws = s.keep(yamlWorkspace("minimum", yamlProgramFor(w, o.passwords)));
        await ws.ok(["stack", "init"]);
        await configurePlugin(ws, s.emu);
      }
      s.emu.clearRequests();

      /** Runs one phase's command: its requests by endpoint, after `check` of its output. */
      const phase = async (args: string[], check?: (out: string) => void) => {
        const mark = s.emu.requests().length;
        const r = await ws.ok([...args, "--parallel", String(o.parallel)]);
        check?.(r.stdout + r.stderr);
        return countByEndpoint(s.emu.requests().slice(mark));
      };
      const unchanged = (what: string) => (out: string) => {
        assert.doesNotMatch(out, CHANGES, `${what} found changes:\n${out}`);
        assert.match(out, /\d+ unchanged/, `${what}:\n${out}`);
      };
      const expect = (id: Ideal) => id.byEndpoint;

      assert.deepEqual(await phase(["up", "--yes"]), expect(idealCreate(o, { nameCheck: path === "dynamic" })), "create");
      assert.deepEqual(exactlyOnce(s.emu.state(), w), { missing: [], duplicates: [], unexpected: [] }, "each object once");
      assert.deepEqual(await phase(["preview"], unchanged("the no-op preview")), expect(ideal({}, 0, o)), "no-op preview");
      assert.deepEqual(await phase(["up", "--yes"], unchanged("the no-op up")), expect(ideal({}, 0, o)), "no-op up");
      assert.deepEqual(await phase(["refresh", "--yes", "--skip-preview"], unchanged("the refresh")), expect(idealRefresh(o)), "refresh");
      assert.deepEqual(await phase(["destroy", "--yes", "--skip-preview"]), expect(idealDestroy(o)), "destroy");
      assert.equal(exactlyOnce(s.emu.state(), w).missing.length, o.tenants * (1 + 2 * o.consumers), "nothing left");
    });
  }
});
