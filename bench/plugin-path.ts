// `npm run bench:plugin`: the same workload (bench/workload.ts) through both paths in one run, against one
// in-process emulator without latency, so what differs is the provider side: the dynamic-provider host driven
// by the engine stand-in (test/engine/engine.ts: an up is a preview and an update), and the backupportal plugin
// process driven over gRPC the same way (Check + preview Create, then Check + Create per resource). Prints host
// CPU per resource-operation and state bytes per resource for each (docs/benchmark.md, "plugin path").
//
//   npm run bench:plugin -- [--tenants 10] [--consumers 2]
import { performance } from "perf_hooks";
import { TestEngine } from "../test/engine/engine";
import { isSecret, PropertyMap, redactSecrets, secret, UNKNOWN } from "../test/engine/values";
import { envFor, ORIGIN, startEmulator } from "../test/support/portal";
import { Plugin } from "../test/plugin/plugin";
import { processCpuMs } from "./portal-process";
import { workload } from "./workload";

function arg(name: string, dflt: number): number {
  const i = process.argv.indexOf(name);
  const v = i < 0 ? dflt : Number(process.argv[i + 1]);
  if (!Number.isInteger(v) || v < 1) throw new Error(`${name} needs an integer ≥ 1`);
  return v;
}

interface PathResult {
  hostCpuMs: number;
  operations: number;
  resources: number;
  stateBytes: number;
  wallMs: number;
}

const TOKEN: Record<string, string> = {
  "pulumi-nodejs:dynamic/backup-portal:BusinessUnit": "backupportal:index:BusinessUnit",
  "pulumi-nodejs:dynamic/backup-portal:Consumer": "backupportal:index:Consumer",
  "pulumi-nodejs:dynamic/backup-portal:Node": "backupportal:index:Node",
};

async function main(): Promise<void> {
  const tenants = arg("--tenants", 10);
  const consumers = arg("--consumers", 2);
  const emu = await startEmulator();
  const results: Record<string, PathResult> = {};
  try {
    // ---- the dynamic path: an up through the engine stand-in (one host per deployment).
    {
      const w = workload({ tenants, consumersPerTenant: consumers, prefix: "d" });
      let cpu = 0;
      const cpu0 = new Map<number, number | undefined>();
      const engine = new TestEngine({
        stack: "bench",
        env: envFor(emu),
        onHostStarted: (h) => void cpu0.set(h.pid, processCpuMs(h.pid)),
        onHostStopping: (h) => void (cpu += (processCpuMs(h.pid) ?? 0) - (cpu0.get(h.pid) ?? 0)),
      });
      try {
        const t0 = performance.now();
        await engine.up(w.resources);
        const wallMs = performance.now() - t0;
        const bytes = Object.values(engine.stateBytesPerResource());
        // An up: Check in the preview, then Check and Create in the update (Diff is not called for a new resource).
        results.dynamic = {
          hostCpuMs: cpu,
          operations: w.resources.length * 3,
          resources: w.resources.length,
          stateBytes: bytes.reduce((a, b) => a + b, 0),
          wallMs,
        };
        await engine.destroy();
      } finally {
        await engine.close();
      }
    }
    // ---- the plugin path: the same resources, typed by token, references resolved as the engine resolves them.
    {
      const w = workload({ tenants, consumersPerTenant: consumers, prefix: "p" });
      const plugin = await Plugin.start();
      try {
        await plugin.configure({ url: emu.url, origin: ORIGIN, clientId: "emulator", username: "admin", password: secret("admin") });
        const done = new Map<string, { id: string; outputs: PropertyMap; inputs: PropertyMap; urn: string }>();
        const resolve = (v: unknown): unknown =>
          v && typeof v === "object" && "$ref" in v
            ? ((r) => ((v as any).prop === "id" ? r.id : r.outputs[(v as any).prop]))(done.get((v as any).$ref)!)
            : v;
        const cpuStart = processCpuMs(plugin.pid) ?? 0;
        const t0 = performance.now();
        // Tenants in parallel, each tenant's resources in order (they reference each other).
        const byTenant = new Map<string, typeof w.resources>();
        for (const r of w.resources) {
          const t = r.name.split("/")[0];
          byTenant.set(t, [...(byTenant.get(t) ?? []), r]);
        }
        await Promise.all(
          [...byTenant.values()].map(async (list) => {
            for (const r of list) {
              const urn = `urn:pulumi:bench::bench::${TOKEN[r.type]}::${r.name}`;
              const { createKey: _k, ...declared } = r.inputs as PropertyMap;
              const preview = Object.fromEntries(Object.entries(declared).map(([k, v]) => [k, isRef(v) ? UNKNOWN : v]));
              await plugin.create(urn, (await plugin.check(urn, {}, preview, true)).inputs, true);
              const checked = await plugin.check(urn, {}, Object.fromEntries(Object.entries(declared).map(([k, v]) => [k, resolve(v)])));
              if (checked.failures.length) throw new Error(`${r.name}: ${JSON.stringify(checked.failures)}`);
              const created = await plugin.create(urn, checked.inputs);
              done.set(r.name, { id: created.id, outputs: created.properties, inputs: checked.inputs, urn });
            }
          }),
        );
        const wallMs = performance.now() - t0;
        const hostCpuMs = (processCpuMs(plugin.pid) ?? 0) - cpuStart;
        // What the engine stores per resource: urn, type, id, inputs and outputs (no serialized provider).
        const stateBytes = [...done.entries()].reduce(
          (a, [name, r]) =>
            a +
            Buffer.byteLength(
              JSON.stringify(
                redactSecrets({
                  urn: r.urn,
                  type: TOKEN[w.resources.find((x) => x.name === name)!.type],
                  id: r.id,
                  inputs: r.inputs,
                  outputs: r.outputs,
                }),
              ),
            ),
          0,
        );
        results.plugin = { hostCpuMs, operations: w.resources.length * 4, resources: w.resources.length, stateBytes, wallMs };
        for (const [name, r] of [...done.entries()].reverse())
          await plugin.delete(r.id, r.urn, r.outputs).catch((e) => console.error(`delete ${name}: ${e.message}`));
      } finally {
        await plugin.close();
      }
    }
  } finally {
    await emu.close();
  }
  console.log(`workload: ${tenants} tenants × ${consumers} consumers with nodes; emulator in process, latency 0`);
  for (const [name, r] of Object.entries(results)) {
    console.log(
      `${name.padEnd(8)} host cpu ${r.hostCpuMs.toFixed(0)} ms for ${r.operations} operations = ${(r.hostCpuMs / r.operations).toFixed(2)} ms/op; ` +
        `state ${(r.stateBytes / r.resources).toFixed(0)} bytes/resource; wall ${r.wallMs.toFixed(0)} ms`,
    );
  }
}

const isRef = (v: unknown) => !!v && typeof v === "object" && "$ref" in (v as object) && !isSecret(v);

main().catch((e) => {
  console.error(e instanceof Error ? e.stack : String(e));
  process.exit(1);
});
