// `npm run bench:linear [-- --sizes 450,1800,4500,9000] [--steps read,names] [--limit 300] [--json <file>]`: where
// this product's own code stops being linear in the number of tenants. Each step of the stack program's path
// (config reader, validation, name checks, declaring under mocks, deployStack), the dynamic providers' Check and
// Diff, export, merge, `backup-portal validate` and the fleet runs at N resources (N/9 tenants: 1 business unit,
// 4 consumers and 4 nodes each, as bench/workload.ts builds them, every one adopted as export writes it and every
// node with a passwordSecret), and the table gives each step's wall time, CPU (process.cpuUsage), the garbage
// collector's pauses and the peak memory, with the growth exponent: the log-log slope between the sizes, and
// overall. Above 1.15 is marked superlinear.
//
// Each step runs in a child process of its own (a clean heap; a step that hangs is killed after --limit seconds
// and its larger sizes are skipped), first once at the smallest size to warm up, then each size best of up to 5
// runs within 3 s. The portal, where a step needs one, is the emulator in its own process, so its CPU is not
// ours (it is reported on its own line); the name checks and deployStack use an in-memory portal (fakePortal).
import { spawn } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { performance, PerformanceObserver } from "perf_hooks";
import { stringify } from "yaml";
import { processCpuMs } from "./portal-process";
import { startPortalProcess } from "./portal-process";

const ROOT = path.resolve(__dirname, "..");
const DEFAULT_SIZES = [450, 1800, 4500, 9000];
const SUPERLINEAR = 1.15;

// ---------------------------------------------------------------------------------------------------------------
// The world: N/9 tenants planted into an emulator state, and the stack config that adopts them.

interface World {
  tenants: number;
  /** The business unit the tenants are under (rootBusinessUnitId). */
  root: number;
  state: import("../emulator").State;
  /** `backup-portal:tenants`, as the program gets it. */
  config: Record<string, unknown>;
  /** The secret keys the nodes name (namespaced). */
  secretKeys: string[];
}

const CONSUMERS = 4;

function buildWorld(n: number): World {
  const { seedState } = require("../emulator") as typeof import("../emulator");
  const { plant } = require("../test/export/support") as typeof import("../test/export/support");
  const { SEED } = require("../emulator") as typeof import("../emulator");
  const state = seedState();
  const emu = { update: (f: (s: typeof state) => void) => f(state) } as unknown as import("../emulator").Emulator;
  const [root] = plant(emu, [{ name: "Bench root", registrationNumber: "ROOT", timeZoneId: SEED.timeZones.amsterdam.id }]).businessUnits;
  const tenants = Math.round(n / 9);
  const specs = Array.from({ length: tenants }, (_, i) => ({
    name: `t${i}`,
    registrationNumber: `R-${i}`,
    timeZoneId: SEED.timeZones.amsterdam.id,
    consumers: Array.from({ length: CONSUMERS }, (_, j) => ({
      name: `c${j}`,
      node: {
        os: SEED.operatingSystems.linux.id,
        type: SEED.nodeTypes.fileServer.id,
        domain: SEED.domains.STANDARD.id,
        cos: SEED.clientOptionSets.DEDUP_AND_COMPRESS.id,
        cpuCount: 2,
        tsmName: `T${i}-C${j}`,
      },
    })),
  }));
  const made = plant(emu, specs, root);
  const config: Record<string, unknown> = {};
  const secretKeys: string[] = [];
  for (let i = 0; i < tenants; i++) {
    const consumers: Record<string, unknown> = {};
    for (let j = 0; j < CONSUMERS; j++) {
      const secret = `t${i}c${j}Password`;
      secretKeys.push(`backup-portal:${secret}`);
      consumers[`c${j}`] = {
        adoptId: made.consumers[i * CONSUMERS + j],
        name: `c${j}`,
        node: {
          adopt: true,
          operatingSystem: "Linux",
          type: "File server",
          domain: "STANDARD",
          clientOptionSet: "DEDUP_AND_COMPRESS",
          cpuCount: 2,
          tsmName: `T${i}-C${j}`,
          passwordSecret: secret,
        },
      };
    }
    config[`t${i}`] = {
      adoptId: made.businessUnits[i],
      name: `t${i}`,
      registrationNumber: `R-${i}`,
      timeZone: "W. Europe Standard Time",
      consumers,
    };
  }
  return { tenants, root, state, config, secretKeys };
}

const CONNECTION = (url: string) => ({
  "backup-portal:url": url,
  "backup-portal:origin": "http://localhost",
  "backup-portal:clientId": "emulator",
  "backup-portal:username": "admin",
});

/** The config map the runtime hands the program (`pulumi.runtime.allConfig()`), and its secret keys. */
function configMap(w: World): { config: Record<string, string>; secrets: Set<string> } {
  const config: Record<string, string> = {
    ...CONNECTION("http://127.0.0.1:9"),
    "backup-portal:password": "admin",
    "backup-portal:rootBusinessUnitId": String(w.root),
    "backup-portal:protectBusinessUnits": "true",
    "backup-portal:tenants": JSON.stringify(w.config),
  };
  for (const k of w.secretKeys) config[k] = `Pw-${k}-x9`;
  return { config, secrets: new Set(["backup-portal:password", ...w.secretKeys]) };
}

/** The stack file's text: plain keys, the tenants, and every secret as the CLI stores it (`secure:`). */
function stackFileText(w: World): string {
  const config: Record<string, unknown> = {
    ...CONNECTION("http://127.0.0.1:9"),
    "backup-portal:password": { secure: "v1:AAAAAAAAAAAAAAAA:bench" },
    "backup-portal:rootBusinessUnitId": String(w.root),
    "backup-portal:tenants": w.config,
  };
  for (const k of w.secretKeys) config[k] = { secure: `v1:AAAAAAAAAAAAAAAA:${k.length}` };
  return `encryptionsalt: v1:AAAAAAAAAAAA:bench\n${stringify({ config }, { lineWidth: 0 })}`;
}

/** A project folder with Pulumi.yaml and the stack file, for the CLI commands that look for them. */
function projectDir(w: World): { dir: string; file: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-linear-"));
  fs.writeFileSync(path.join(dir, "Pulumi.yaml"), "name: backup-portal\nruntime: nodejs\n");
  const file = path.join(dir, "Pulumi.bench.yaml");
  fs.writeFileSync(file, stackFileText(w));
  return { dir, file };
}

// ---------------------------------------------------------------------------------------------------------------
// An in-memory portal for References: the world's objects, indexed, and the emulator's reference lists.

interface RefLists {
  timeZones: unknown[];
  operatingSystems: unknown[];
  nodeTypes: unknown[];
  domains: unknown[];
  clientOptionSets: unknown[];
  server: unknown;
  me: unknown;
}

async function referenceLists(): Promise<RefLists> {
  const { startEmulator } = require("../emulator") as typeof import("../emulator");
  const { PortalClient } = require("../provider/portal/client") as typeof import("../provider/portal/client");
  const emu = await startEmulator({ quiet: true });
  const c = new PortalClient({ url: emu.url, origin: "http://localhost", clientId: "emulator", username: "admin", password: "admin" });
  try {
    return {
      timeZones: await c.timeZones.list(),
      operatingSystems: await c.reference.operatingSystems(),
      nodeTypes: await c.reference.nodeTypes(),
      domains: await c.reference.domains(1),
      clientOptionSets: await c.reference.clientOptionSets(1),
      server: await c.reference.defaultServer(1),
      me: await c.reference.me(),
    };
  } finally {
    c.close();
    await emu.close();
  }
}

function fakePortal(w: World, lists: RefLists): import("../provider/portal/client").PortalClient {
  const units = new Map(w.state.businessUnits.map((b) => [b.id, b]));
  const children = new Map<number, Array<{ id: number; name: string }>>();
  for (const b of w.state.businessUnits) {
    if (b.parentId === undefined) continue;
    if (!children.has(b.parentId)) children.set(b.parentId, []);
    children.get(b.parentId)!.push({ id: b.id, name: b.name });
  }
  const consumers = new Map<number, Array<{ id: number; name: string }>>();
  for (const c of w.state.consumers) {
    if (!consumers.has(c.businessUnitId)) consumers.set(c.businessUnitId, []);
    consumers.get(c.businessUnitId)!.push({ id: c.id, name: c.name });
  }
  const copy = <T>(v: T): Promise<T> => Promise.resolve(structuredClone(v));
  return {
    url: "http://fake.portal",
    close: () => undefined,
    timeZones: { list: () => copy(lists.timeZones) },
    reference: {
      operatingSystems: () => copy(lists.operatingSystems),
      nodeTypes: () => copy(lists.nodeTypes),
      domains: () => copy(lists.domains),
      clientOptionSets: () => copy(lists.clientOptionSets),
      defaultServer: () => copy(lists.server),
      me: () => copy(lists.me),
    },
    businessUnits: {
      get: async (id: number) => {
        const b = units.get(id);
        if (!b) throw new Error(`fake portal: no business unit ${id}`);
        return { id: b.id, name: b.name, parentBusinessUnit: b.parentId === undefined ? undefined : { id: b.parentId } };
      },
      children: async (id: number) => (children.get(id) ?? []).map((c) => ({ ...c })),
    },
    consumers: {
      list: async (b: number) => (consumers.get(b) ?? []).map((c) => ({ ...c })),
      get: async (b: number, id: number) => {
        const c = (consumers.get(b) ?? []).find((x) => x.id === id);
        if (!c) throw new Error(`fake portal: no consumer ${id}`);
        return { ...c };
      },
    },
  } as unknown as import("../provider/portal/client").PortalClient;
}

// ---------------------------------------------------------------------------------------------------------------
// The emulator in its own process, holding the world.

interface PortalProcess {
  url: string;
  pid?: number;
  close(): Promise<void>;
}

async function portalProcess(w: World): Promise<PortalProcess> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-linear-portal-"));
  const data = path.join(dir, "state.json");
  fs.writeFileSync(data, JSON.stringify(w.state));
  const portal = await startPortalProcess({ dataFile: data }).catch((e) => {
    fs.rmSync(dir, { recursive: true, force: true });
    throw e;
  });
  return {
    url: portal.url,
    pid: portal.pid,
    async close() {
      await portal.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

const envOf = (url: string) => ({
  BACKUP_PORTAL_URL: url,
  BACKUP_PORTAL_ORIGIN: "http://localhost",
  BACKUP_PORTAL_CLIENT_ID: "emulator",
  BACKUP_PORTAL_USERNAME: "admin",
  BACKUP_PORTAL_PASSWORD: "admin",
});

// ---------------------------------------------------------------------------------------------------------------
// The steps. Each prepares its size (not measured) and returns the run to measure; `emulatorPid` when a portal
// process serves it (its CPU is reported apart); `close` after the size.

interface Prepared {
  run(): Promise<unknown>;
  /** Throws when a run's result is not what the step expects (the bench measures nothing else by mistake). */
  verify?(result: unknown): void;
  emulatorPid?: number;
  close?(): Promise<void>;
}

type Step = (n: number) => Promise<Prepared>;

let lists: RefLists | undefined;
const refLists = async () => (lists ??= await referenceLists());

function expect(ok: boolean, what: string): void {
  if (!ok) throw new Error(`bench: ${what}`);
}

async function underMocks<T>(work: () => Promise<T>): Promise<T> {
  const pulumi = require("@pulumi/pulumi") as typeof import("@pulumi/pulumi");
  await pulumi.runtime.setMocks(
    {
      newResource: (args) => ({ id: `${args.name}-id`, state: args.inputs }),
      call: (args) => args.inputs,
    },
    "backup-portal",
    "bench",
    false,
  );
  return work();
}

/** Resolves when every output has a value (the mocks answered every registration). */
function settled(outputs: Array<import("@pulumi/pulumi").Output<unknown>>): Promise<unknown[]> {
  return Promise.all(outputs.map((o) => new Promise((resolve) => o.apply((v) => (resolve(v), v)))));
}

const STEPS: Record<string, { what: string; step: Step }> = {
  read: {
    what: "the program's config reading: readStackConfig (keys, secrets, blocks, validateTenants) and the stack file's repeated keys",
    step: async (n) => {
      const { readStackConfig } = await import("../provider/stack-config/read");
      const { stackFileRepeatedKeys } = await import("../provider/stack-config/file");
      const w = buildWorld(n);
      const { config, secrets } = configMap(w);
      const { dir } = projectDir(w);
      return {
        // As tenantsFromConfig (program/index.ts) reads: the config the CLI hands it, then the stack file itself.
        run: async () => ({
          read: readStackConfig({ config, isSecret: (k) => secrets.has(k) }),
          repeated: stackFileRepeatedKeys(dir, "bench", "backup-portal"),
        }),
        verify: (r) => {
          const { read, repeated } = r as { read: { problems: unknown[] }; repeated: { file: string; problems: unknown[] } };
          expect(read.problems.length === 0, `read: ${JSON.stringify(read.problems).slice(0, 300)}`);
          expect(fs.existsSync(repeated.file) && repeated.problems.length === 0, `read: ${JSON.stringify(repeated).slice(0, 300)}`);
        },
        close: async () => fs.rmSync(dir, { recursive: true, force: true }),
      };
    },
  },
  validate: {
    what: "validateTenants (provider/tenants/validate.ts and the rules)",
    step: async (n) => {
      const { validateTenants } = await import("../provider/tenants/validate");
      const w = buildWorld(n);
      const secrets = new Set(w.secretKeys.map((k) => k.slice("backup-portal:".length)));
      const tenants = JSON.parse(JSON.stringify(w.config));
      return {
        run: async () => validateTenants(tenants, { hasSecret: (k) => secrets.has(k) }),
        verify: (r) => expect((r as unknown[]).length === 0, `validate: ${JSON.stringify(r).slice(0, 300)}`),
      };
    },
  },
  names: {
    what: "validateNames (names.ts) with References over an in-memory portal",
    step: async (n) => {
      const { validateNames } = await import("../provider/tenants/names");
      const { References } = await import("../provider/dynamic/references");
      const w = buildWorld(n);
      const portal = fakePortal(w, await refLists());
      const tenants = JSON.parse(JSON.stringify(w.config));
      return {
        run: () => validateNames(tenants, new References(portal), w.root),
        verify: (r) => expect((r as unknown[]).length === 0, `names: ${JSON.stringify(r).slice(0, 300)}`),
      };
    },
  },
  declare: {
    what: "declareTenants under pulumi.runtime.setMocks, until every resource is registered",
    step: async (n) => {
      const pulumi = await import("@pulumi/pulumi");
      const { declareTenants } = await import("../provider/tenants/declare");
      const w = buildWorld(n);
      const tenants = JSON.parse(JSON.stringify(w.config));
      return {
        run: () =>
          underMocks(async () => {
            const d = declareTenants(tenants, {
              rootBusinessUnitId: w.root,
              protectBusinessUnits: true,
              deletionComment: "bench",
              secret: (k) => pulumi.secret(`pw-${k}`),
            });
            const all = [d.businessUnits, d.consumers, d.nodes, d.proxies].flatMap((g) => Object.values(g));
            await settled(all.map((r) => r.id));
            return all.length;
          }),
        verify: (r) => expect(r === n, `declare: ${r} resources, not ${n}`),
      };
    },
  },
  deploy: {
    what: "deployStack (program/deploy.ts: blocks, names over an in-memory portal, declare, outputs) under mocks",
    step: async (n) => {
      const { readStackConfig } = await import("../provider/stack-config/read");
      const { deployStack } = await import("../provider/program/deploy");
      const w = buildWorld(n);
      const portal = fakePortal(w, await refLists());
      const { config, secrets } = configMap(w);
      return {
        run: () =>
          underMocks(async () => {
            const read = readStackConfig({ config, isSecret: (k) => secrets.has(k) });
            if (!read.config) throw new Error(`deploy: ${JSON.stringify(read.problems).slice(0, 300)}`);
            const out = await deployStack({ ...read.config, portal });
            const [ids] = await settled([out.businessUnitIds, out.consumerIds, out.nodeNames]);
            return Object.keys(ids as object).length;
          }),
        verify: (r) => expect(r === w.tenants, `deploy: ${r} business unit ids, not ${w.tenants}`),
      };
    },
  },
  check: {
    what: "dynamic providers: Check of every resource as new (adopting), serially as the engine calls it",
    step: async (n) => checkStep(n, false),
  },
  diff: {
    what: "dynamic providers: Check and Diff of every resource unchanged (a no-op preview)",
    step: async (n) => checkStep(n, true),
  },
  export: {
    what: "backup-portal export of the tenants from the emulator (its own process)",
    step: async (n) => {
      const { run } = await import("../provider/cli/export");
      const w = buildWorld(n);
      const portal = await portalProcess(w);
      let text = "";
      return {
        emulatorPid: portal.pid,
        run: async () => {
          let err = "";
          text = "";
          const code = await run(["--bunit", String(w.root), "--no-progress"], {
            out: (t) => (text += t),
            err: (t) => (err += t),
            env: envOf(portal.url),
          });
          if (code !== 0) throw new Error(`export: exit ${code}: ${err}`);
          return text;
        },
        verify: (r) => expect((r as string).split("adoptId:").length - 1 === 5 * w.tenants, "export: not every object adopted"),
        close: () => portal.close(),
      };
    },
  },
  merge: {
    what: "export --merge: mergeInto a file lacking a tenth of the tenants and a child under every tenth",
    step: async (n) => mergeStep(n),
  },
  "validate-cli": {
    what: "backup-portal validate --offline on the stack file (YAML reader, secure: values, config reader)",
    step: async (n) => {
      const { run } = await import("../provider/cli/validate");
      const w = buildWorld(n);
      const { dir, file } = projectDir(w);
      return {
        run: async () => {
          let out = "";
          let err = "";
          const code = await run([file, "--offline"], { out: (t) => (out += t), err: (t) => (err += t), env: {}, cwd: dir });
          if (code !== 0) throw new Error(`validate: exit ${code}: ${out}${err}`.slice(0, 600));
          return out;
        },
        close: async () => fs.rmSync(dir, { recursive: true, force: true }),
      };
    },
  },
  fleet: {
    what: "fleet preview (stacks/fleet/main.ts) into N/225 hash groups, stacks faked",
    step: async (n) => {
      const { main } = await import("../stacks/fleet/main");
      const w = buildWorld(n);
      const { dir } = projectDir(w);
      // A fleet source file of its own (not the base stack's file, which must declare no tenants for an up).
      const file = path.join(dir, "fleet.yaml");
      fs.writeFileSync(file, stackFileText(w));
      const groups = Math.max(2, Math.round(w.tenants / 25));
      let configured = 0;
      const createStack = async () => ({
        setAllConfig: async (c: Record<string, unknown>) => void (configured += Object.keys(c).length),
        preview: async () => ({ changeSummary: { same: 1 } }),
        up: async () => ({ summary: {} }),
        destroy: async () => ({ summary: {} }),
        refresh: async () => ({ summary: {} }),
      });
      return {
        run: async () => {
          configured = 0;
          const lines: string[] = [];
          const code = await main(
            ["--config", file, "--stack-prefix", "bench/prod", "--groups", String(groups), "--work-dir", dir, "--quiet", "preview"],
            {
              out: (l) => lines.push(l),
              err: (l) => lines.push(l),
              createStack,
              listStacks: async () => [],
              readBaseSecrets: async (_s, _w, keys) => Object.fromEntries(keys.map((k) => [k, `pw-${k}`])),
            },
          );
          if (code !== 0) throw new Error(`fleet: exit ${code}: ${lines.join("\n").slice(0, 600)}`);
          return configured;
        },
        // Every group: the plain keys, the tenants, the portal password; and every node's password once.
        verify: (r) => expect((r as number) >= w.secretKeys.length + groups, `fleet: ${r} config values set`),
        close: async () => fs.rmSync(dir, { recursive: true, force: true }),
      };
    },
  },
};

async function checkStep(n: number, unchanged: boolean): Promise<Prepared> {
  const { configure, resetConnection } = await import("../provider/dynamic/connection");
  const { businessUnitProvider } = await import("../provider/resources/business-unit");
  const { consumerProvider } = await import("../provider/resources/consumer");
  const { nodeProvider } = await import("../provider/resources/node");
  const w = buildWorld(n);
  const portal = await portalProcess(w);
  const settings: Record<string, string> = { ...CONNECTION(portal.url), "backup-portal:password": "admin" };
  type Item = { provider: typeof businessUnitProvider; inputs: Record<string, unknown> };
  const items: Item[] = [];
  const tenants = w.config as Record<string, any>;
  for (const [key, bu] of Object.entries(tenants)) {
    items.push({
      provider: businessUnitProvider,
      inputs: {
        parentId: w.root,
        name: bu.name,
        registrationNumber: bu.registrationNumber,
        timeZone: bu.timeZone,
        adoptId: bu.adoptId,
        createKey: `bu-${key}`,
      },
    });
    for (const [ckey, c] of Object.entries(bu.consumers as Record<string, any>)) {
      items.push({
        provider: consumerProvider,
        inputs: {
          businessUnitId: bu.adoptId,
          name: c.name,
          nodeName: c.node.tsmName,
          deleteAssociations: true,
          deletionComment: "bench",
          adoptId: c.adoptId,
          createKey: `c-${key}-${ckey}`,
        },
      });
      const { passwordSecret: _p, adopt: _a, ...node } = c.node;
      items.push({
        provider: nodeProvider,
        inputs: { businessUnitId: bu.adoptId, consumerId: c.adoptId, ...node, tsmPassword: `Pw-${ckey}-x9`, adoptId: c.adoptId },
      });
    }
  }
  // The checked inputs, as the state holds them after an up: the olds of a no-op preview.
  const olds: Array<Record<string, unknown>> = [];
  if (unchanged) {
    configure({ get: (k) => settings[k] });
    for (const it of items) {
      const checked = (await it.provider.check!({}, it.inputs)).inputs as Record<string, unknown>;
      // What create adds to the outputs that Diff reads: the name the node was activated under.
      olds.push(it.provider === nodeProvider ? { ...checked, activatedName: checked.tsmName } : checked);
    }
    resetConnection();
  }
  return {
    emulatorPid: portal.pid,
    run: async () => {
      // A fresh provider host: a new connection and reference cache.
      resetConnection();
      configure({ get: (k) => settings[k] });
      let failures = 0;
      let changes = 0;
      for (let i = 0; i < items.length; i++) {
        const it = items[i];
        const r = await it.provider.check!(unchanged ? olds[i] : {}, it.inputs);
        failures += r.failures?.length ?? 0;
        if (unchanged) changes += (await it.provider.diff!(String(i), olds[i], r.inputs)).changes ? 1 : 0;
      }
      return { failures, changes };
    },
    verify: (r) => {
      const { failures, changes } = r as { failures: number; changes: number };
      expect(failures === 0 && changes === 0, `check: ${failures} failures, ${changes} changes`);
    },
    close: async () => {
      resetConnection();
      await portal.close();
    },
  };
}

async function mergeStep(n: number): Promise<Prepared> {
  const { startEmulator } = await import("../emulator");
  const { exportPortal } = await import("../provider/export");
  const { mergeInto } = await import("../provider/export/merge");
  const { renderYaml } = await import("../provider/export/render");
  const { OutMap } = await import("../provider/export/out");
  const { PortalClient } = await import("../provider/portal/client");
  const { plant } = await import("../test/export/support");
  const w = buildWorld(n);
  // The portal: the world, plus a new child under every tenth tenant. The file: the export without a tenth of the
  // tenants (the last ones) and without the new children: the merge adds both.
  const emu = await startEmulator({ quiet: true });
  emu.update((s) => Object.assign(s, structuredClone(w.state)));
  const withChild = w.state.businessUnits.filter((b) => b.parentId === w.root).filter((_, i) => i % 10 === 0);
  for (const b of withChild) plant(emu, [{ name: `${b.name} new`, registrationNumber: `N-${b.id}`, timeZoneId: 4 }], b.id);
  const client = new PortalClient({ url: emu.url, origin: "http://localhost", clientId: "emulator", username: "admin", password: "admin" });
  const exported = await exportPortal(client, w.root);
  client.close();
  await emu.close();
  const dropped = new Set(Array.from({ length: Math.round(w.tenants / 10) }, (_, i) => `t${w.tenants - 1 - i}`));
  const fileTenants = new OutMap();
  for (const item of exported.tenants.items) {
    if (!("key" in item)) continue;
    if (dropped.has(item.key)) continue;
    const unit = new OutMap();
    for (const field of (item.value as InstanceType<typeof OutMap>).items)
      if (!("key" in field) || field.key !== "businessUnits") unit.items.push(field);
    fileTenants.set(item.key, unit, item.before);
  }
  const fileText = renderYaml({ rootId: w.root, tenants: fileTenants, header: ["bench"] });
  // Each dropped tenant and each new child, wherever it is (one under a dropped tenant comes with it).
  const expected = dropped.size + withChild.length;
  return {
    run: async () => mergeInto(fileText, "Pulumi.bench.yaml", { rootId: w.root, tenants: exported.tenants }, exported.tree.references),
    verify: (r) => {
      const m = r as import("../provider/export/merge").MergeResult;
      expect(m.added.length === expected, `merge: added ${m.added.length}, not ${expected}`);
      expect(m.differences.length === 0 && m.gone.length === 0, `merge: ${JSON.stringify([m.differences, m.gone]).slice(0, 400)}`);
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// The child: one step at every size, a JSON line per size.

interface Measure {
  step: string;
  n: number;
  wallMs: number;
  cpuMs: number;
  /**
   * The garbage collector's pauses (perf_hooks' gc entries: the main thread's wall time in them, which on a loaded
   * machine includes waiting for its helper threads) in the run whose CPU is the least.
   */
  gcMs: number;
  /** The child's peak resident memory so far (sizes run in ascending order, so: its largest run's), in MB. */
  peakRssMB: number;
  runs: number;
  emulatorCpuMs?: number;
}

const gc = (global as { gc?: () => void }).gc ?? (() => undefined);

let gcPauses = 0;
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) gcPauses += e.duration;
}).observe({ entryTypes: ["gc"] });
/** The gc entries so far (they are delivered after the work that caused them: a turn of the event loop first). */
const gcSoFar = () => new Promise<number>((resolve) => setTimeout(() => setTimeout(() => resolve(gcPauses), 0), 0));

async function measure(step: string, n: number, p: Prepared, budgetMs: number, maxRuns: number): Promise<Measure> {
  let wall = Infinity;
  let cpu = Infinity;
  let gcOfLeast = 0;
  let emuCpu = Infinity;
  let runs = 0;
  const started = performance.now();
  while (runs < maxRuns && (runs === 0 || performance.now() - started < budgetMs)) {
    gc();
    const gc0 = await gcSoFar();
    const emu0 = processCpuMs(p.emulatorPid);
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const result = await p.run();
    const t = performance.now() - t0;
    const c = process.cpuUsage(c0);
    const emu1 = processCpuMs(p.emulatorPid);
    const gcMs = (await gcSoFar()) - gc0;
    p.verify?.(result);
    wall = Math.min(wall, t);
    const cpuMs = (c.user + c.system) / 1000;
    if (cpuMs < cpu) [cpu, gcOfLeast] = [cpuMs, gcMs];
    if (emu0 !== undefined && emu1 !== undefined) emuCpu = Math.min(emuCpu, emu1 - emu0);
    runs++;
  }
  return {
    step,
    n,
    wallMs: wall,
    cpuMs: cpu,
    gcMs: gcOfLeast,
    peakRssMB: process.resourceUsage().maxRSS / 1024,
    runs,
    ...(Number.isFinite(emuCpu) ? { emulatorCpuMs: emuCpu } : {}),
  };
}

async function child(step: string, sizes: number[]): Promise<void> {
  const s = STEPS[step];
  if (!s) throw new Error(`unknown step ${step}`);
  // ts-node maps every stack trace through the source maps (source-map-support), and the SDK takes one per
  // resource for its source position: about 10 ms a resource that is neither ours nor the SDK's. Off here.
  if (!process.argv.includes("--source-maps")) delete (Error as { prepareStackTrace?: unknown }).prepareStackTrace;
  // Warm up (JIT, module loading, lazy requires) at the smallest size: not reported.
  const warm = await s.step(sizes[0]);
  try {
    await measure(step, sizes[0], warm, 0, 1);
  } finally {
    await warm.close?.();
  }
  for (const n of sizes) {
    const p = await s.step(n);
    try {
      const m = await measure(step, n, p, 3000, p.emulatorPid ? 3 : 5);
      process.stdout.write(`${JSON.stringify(m)}\n`);
    } finally {
      await p.close?.();
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The parent: a child per step, each size within the time limit, then the table.

function runChild(step: string, sizes: number[], limitMs: number): Promise<{ results: Measure[]; error?: string }> {
  return new Promise((resolve) => {
    const args = [
      "--expose-gc",
      "--max-old-space-size=3072",
      "-r",
      "ts-node/register/transpile-only",
      __filename,
      "--child",
      step,
      "--sizes",
      sizes.join(","),
    ];
    const proc = spawn(process.execPath, args, { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    const results: Measure[] = [];
    let buf = "";
    let stderr = "";
    let error: string | undefined;
    // Time for the start and warm-up, then for each size.
    let timer: NodeJS.Timeout;
    const arm = (ms: number) => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        error = `timed out after ${Math.round(ms / 1000)} s at N=${sizes[results.length]}`;
        proc.kill("SIGKILL");
      }, ms);
    };
    arm(limitMs * 2);
    proc.stdout.on("data", (d: Buffer) => {
      buf += d.toString();
      const lines = buf.split("\n");
      buf = lines.pop()!;
      for (const l of lines) {
        if (!l.startsWith("{")) continue;
        results.push(JSON.parse(l) as Measure);
        process.stderr.write(`  ${step} N=${results.at(-1)!.n}: ${results.at(-1)!.wallMs.toFixed(1)} ms\n`);
        arm(limitMs);
      }
    });
    proc.stderr.on("data", (d: Buffer) => {
      if (stderr.length < 20_000) stderr += d.toString();
    });
    proc.on("close", (code) => {
      clearTimeout(timer);
      if (!error && code !== 0) error = `exit ${code}: ${stderr.trim().split("\n").slice(-5).join(" | ")}`;
      resolve({ results, error });
    });
  });
}

const slope = (a: Measure | undefined, b: Measure | undefined, key: "wallMs" | "cpuMs") =>
  a && b && a[key] > 0 && b[key] > 0 ? Math.log(b[key] / a[key]) / Math.log(b.n / a.n) : undefined;
const exp = (x: number | undefined) => (x === undefined ? "–" : `${x.toFixed(2)}${x > SUPERLINEAR ? "!" : ""}`);
const ms = (x: number | undefined) => (x === undefined ? "–" : x >= 100 ? x.toFixed(0) : x.toFixed(1));

function table(all: Record<string, { results: Measure[]; error?: string }>, sizes: number[]): string[] {
  const head = [
    "| step | measure | " +
      sizes.map((n) => `N=${n}`).join(" | ") +
      " | " +
      sizes
        .slice(1)
        .map((n, i) => `${sizes[i]}→${n}`)
        .join(" | ") +
      " | overall |",
    "|---|---|" +
      sizes.map(() => "---|").join("") +
      sizes
        .slice(1)
        .map(() => "---|")
        .join("") +
      "---|",
  ];
  const rows: string[] = [];
  for (const [step, { results, error }] of Object.entries(all)) {
    const at = (n: number) => results.find((r) => r.n === n);
    const row = (label: string, key: "wallMs" | "cpuMs", value: (m: Measure | undefined) => string, exps: boolean) =>
      `| ${step} | ${label} | ${sizes.map((n) => value(at(n))).join(" | ")} | ` +
      (exps
        ? `${sizes
            .slice(1)
            .map((n, i) => exp(slope(at(sizes[i]), at(n), key)))
            .join(" | ")} | ${exp(slope(at(sizes[0]), at(sizes.at(-1)!), key))} |`
        : `${sizes
            .slice(1)
            .map(() => "")
            .join(" | ")} | |`);
    rows.push(row("wall ms", "wallMs", (m) => ms(m?.wallMs), true));
    rows.push(row("CPU ms", "cpuMs", (m) => ms(m?.cpuMs), true));
    rows.push(row("GC pauses ms", "cpuMs", (m) => ms(m?.gcMs), false));
    rows.push(row("peak RSS MB", "cpuMs", (m) => (m ? m.peakRssMB.toFixed(0) : "–"), false));
    if (results.some((r) => r.emulatorCpuMs !== undefined)) {
      const emu = results.map((r) => ({ ...r, cpuMs: r.emulatorCpuMs ?? 0 }));
      const e = (n: number) => emu.find((r) => r.n === n);
      rows.push(
        `| ${step} | emulator CPU ms | ${sizes.map((n) => ms(e(n)?.cpuMs)).join(" | ")} | ${sizes
          .slice(1)
          .map((n, i) => exp(slope(e(sizes[i]), e(n), "cpuMs")))
          .join(" | ")} | ${exp(slope(e(sizes[0]), e(sizes.at(-1)!), "cpuMs"))} |`,
      );
    }
    if (error) rows.push(`| ${step} | error | ${error.replace(/\|/g, "/")} |`);
  }
  return [...head, ...rows];
}

function option(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i < 0 ? undefined : process.argv[i + 1];
}

async function main(): Promise<void> {
  const sizes = (option("--sizes") ?? DEFAULT_SIZES.join(","))
    .split(",")
    .map(Number)
    .filter((x) => Number.isInteger(x) && x >= 9);
  if (!sizes.length) throw new Error("--sizes: give resource counts, e.g. 450,1800");
  const childStep = option("--child");
  if (childStep) return child(childStep, sizes);
  const steps = (option("--steps") ?? Object.keys(STEPS).join(",")).split(",");
  for (const s of steps) if (!STEPS[s]) throw new Error(`unknown step ${s}; steps: ${Object.keys(STEPS).join(", ")}`);
  const limitMs = Number(option("--limit") ?? 300) * 1000;
  const load = os.loadavg().map((x) => x.toFixed(1));
  const started = performance.now();
  process.stderr.write(`bench:linear: ${steps.length} steps at N = ${sizes.join(", ")} resources; load ${load.join(" ")}\n`);
  const all: Record<string, { results: Measure[]; error?: string }> = {};
  for (const s of steps) all[s] = await runChild(s, sizes, limitMs);
  const lines = [
    `Node.js ${process.version}, ${os.cpus().length} CPUs, load average at the start ${load.join(" ")}, at the end ${os
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(" ")}; ${((performance.now() - started) / 1000).toFixed(0)} s in all`,
    `N resources = N/9 tenants (1 business unit + 4 consumers + 4 nodes); exponent: log-log slope; ! above ${SUPERLINEAR} (superlinear)`,
    "",
    ...table(all, sizes),
    "",
    ...steps.map((s) => `${s}: ${STEPS[s].what}`),
  ];
  console.log(lines.join("\n"));
  const json = option("--json");
  if (json) fs.writeFileSync(json, JSON.stringify({ sizes, load, results: all }, null, 1));
  // Overall, and between the two largest sizes, where a square term shows first.
  const above = (from: number, to: number) =>
    Object.entries(all)
      .filter(
        ([, r]) =>
          (slope(
            r.results.find((m) => m.n === from),
            r.results.find((m) => m.n === to),
            "cpuMs",
          ) ?? 0) > SUPERLINEAR,
      )
      .map(([s]) => s);
  const overall = above(sizes[0], sizes.at(-1)!);
  const top = sizes.length > 2 ? above(sizes.at(-2)!, sizes.at(-1)!) : [];
  console.log(`superlinear CPU ${sizes[0]}→${sizes.at(-1)}: ${overall.join(", ") || "none"}`);
  if (top.length) console.log(`superlinear CPU ${sizes.at(-2)}→${sizes.at(-1)}: ${top.join(", ")}`);
  if (Object.values(all).some((r) => r.error)) process.exitCode = 1;
}

main().catch((err) => {
  console.error(err instanceof Error ? (err.stack ?? err.message) : err);
  process.exitCode = 1;
});
