// The engine stand-in graded by the engine (issue 35, item 4). One scenario — create, an unchanged up, an update,
// a replacement, a removal, refresh, destroy, each command as typed — runs through the real Pulumi CLI and through
// the stand-in (test/engine/engine.ts), against the same emulator, on both provider paths: the plugin under
// pulumi-language-yaml (the stand-in drives it through test/plugin/plugin-host.ts, as the plugin bench does) and
// the dynamic providers under pulumi-language-nodejs (the stand-in drives the SDK's dynamic-provider host with what
// each class registers). Then a destroy with a protected business unit on the plugin. The provider records every
// call it gets (BACKUPPORTAL_TRACE_FILE, provider/plugin/trace.ts); per resource, the Check, Diff, Create, Update,
// Delete and Read calls with their olds, news, old inputs and ids must be the same, in the same order (across
// resources only as a set: both engines run resources in parallel), and each command must succeed or fail on
// both. What may differ, and why: docs/engine.md, "Where the stand-in differs from the CLI, and why".
import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import YAML from "yaml";
import { ref, secret, TestEngine, type DesiredResource, type TestEngineOptions } from "../engine/engine";
import { createKeyFor } from "../../provider/dynamic/recovery";
import { asDeclared, TYPES } from "../resources/support";
import { BusinessUnit } from "../../provider/resources/business-unit";
import { Consumer } from "../../provider/resources/consumer";
import { Node } from "../../provider/resources/node";
import { UNKNOWN } from "../engine/values";
import { startPluginHost } from "../plugin/plugin-host";
import { ORIGIN, stackConfigFor, startEmulator, type Emulator } from "../support/portal";
import { REPO, workspace, type Workspace } from "./cli";
import { PORTAL_PASSWORD, setAdminPassword } from "./project";

const PROJECT = "conformance";
const STACK = "dev";
const TRACE_ENV = "BACKUPPORTAL_TRACE_FILE";
const NODE_PASSWORD = "Node-pw-3e8a61c4";

// ---------------------------------------------------------------- the program, for both engines

/** A property: a value, a reference to another resource's id (`${name.id}` in YAML) or a secret. */
type Prop = unknown;
const idOf = (name: string) => ({ idOf: name });
const secretValue = (value: string) => ({ secretValue: value });
type Program = Record<string, { type: string; properties: Record<string, Prop>; options?: { protect?: boolean } }>;

const T = (name: string) => `backupportal:index:${name}`;

function version1(): Program {
  return {
    acme: {
      type: T("BusinessUnit"),
      properties: {
        parentId: 1,
        name: "Conformance Ltd",
        registrationNumber: "556677-0001",
        timeZone: "W. Europe Standard Time",
        note: "v1",
      },
    },
    beta: {
      type: T("BusinessUnit"),
      properties: { parentId: 1, name: "Conformance Beta", registrationNumber: "556677-0002", timeZone: "W. Europe Standard Time" },
    },
    web: { type: T("Consumer"), properties: { businessUnitId: idOf("acme"), name: "web01", nodeName: "WEB01" } },
    webNode: {
      type: T("Node"),
      properties: {
        businessUnitId: idOf("acme"),
        consumerId: idOf("web"),
        operatingSystem: "Linux",
        type: "File server",
        domain: "STANDARD",
        cpuCount: 2,
        tsmName: "WEB01",
        tsmPassword: secretValue(NODE_PASSWORD),
      },
    },
    db: { type: T("Consumer"), properties: { businessUnitId: idOf("acme"), name: "db01" } },
  };
}

/** The program as pulumi-language-yaml reads it. */
function yamlOf(program: Program): string {
  const prop = (v: Prop): unknown => {
    if (v && typeof v === "object" && "idOf" in v) return `\${${(v as { idOf: string }).idOf}.id}`;
    if (v && typeof v === "object" && "secretValue" in v) return { "fn::secret": (v as { secretValue: string }).secretValue };
    return v;
  };
  const resources = Object.fromEntries(
    Object.entries(program).map(([name, r]) => [
      name,
      {
        type: r.type,
        properties: Object.fromEntries(Object.entries(r.properties).map(([k, v]) => [k, prop(v)])),
        ...(r.options ? { options: r.options } : {}),
      },
    ]),
  );
  return YAML.stringify({ name: PROJECT, runtime: "yaml", resources });
}

/** The same program as the stand-in takes it. */
function desiredOf(program: Program): DesiredResource[] {
  const prop = (v: Prop): unknown => {
    if (v && typeof v === "object" && "idOf" in v) return ref((v as { idOf: string }).idOf);
    if (v && typeof v === "object" && "secretValue" in v) return secret((v as { secretValue: string }).secretValue);
    return v;
  };
  return Object.entries(program).map(([name, r]) => ({
    name,
    type: r.type,
    inputs: Object.fromEntries(Object.entries(r.properties).map(([k, v]) => [k, prop(v)])),
    protect: r.options?.protect,
  }));
}

/** The resource classes of the dynamic providers, by the type's last part. */
const CLASSES = { BusinessUnit, Consumer, Node } as const;
type Kind = keyof typeof CLASSES;
const kindOf = (type: string) => type.split(":").pop() as Kind;

/** The program in TypeScript on the dynamic providers' classes, as a user writes it (`${name.id}` is `name.id`). */
function typescriptOf(program: Program, providerDir: string): string {
  const prop = (v: Prop): string => {
    if (v && typeof v === "object" && "idOf" in v) return `r[${JSON.stringify((v as { idOf: string }).idOf)}].id`;
    if (v && typeof v === "object" && "secretValue" in v)
      return `pulumi.secret(${JSON.stringify((v as { secretValue: string }).secretValue)})`;
    return JSON.stringify(v);
  };
  const lines = [
    `import * as pulumi from "@pulumi/pulumi";`,
    ...Object.keys(CLASSES).map(
      (k) => `import { ${k} } from ${JSON.stringify(`${providerDir}/${k === "BusinessUnit" ? "business-unit" : k.toLowerCase()}`)};`,
    ),
    `const r: Record<string, pulumi.CustomResource> = {};`,
  ];
  for (const [name, res] of Object.entries(program)) {
    const props = Object.entries(res.properties).map(([k, v]) => `${k}: ${prop(v)}`);
    const opts = res.options ? `, ${JSON.stringify(res.options)}` : "";
    lines.push(`r[${JSON.stringify(name)}] = new ${kindOf(res.type)}(${JSON.stringify(name)}, { ${props.join(", ")} }${opts});`);
  }
  return lines.join("\n") + "\n";
}

/** The same program as the stand-in takes it: what each class registers (test/resources/support.ts asDeclared). */
function desiredDynamicOf(program: Program): DesiredResource[] {
  return desiredOf(program).map((d) => {
    const kind = kindOf(d.type);
    const declared = asDeclared(CLASSES[kind], TYPES[kind], d.name, d.inputs);
    return { ...declared, protect: d.protect };
  });
}

/** One way a program reaches the provider: the plugin under pulumi-language-yaml, or the dynamic providers under Node.js. */
interface ProviderPath {
  project: string;
  stack: string;
  /** Writes the program's Pulumi.yaml (and its code) into the project folder. */
  write(projectDir: string, program: Program): void;
  /** The connection's config: key, value, and whether it is a secret (set from stdin, never on argv). */
  config(emu: Emulator): Array<[key: string, value: string, secret?: boolean]>;
  desired(program: Program): DesiredResource[];
  engine(emu: Emulator, traceFile: () => string): TestEngineOptions;
  /** The trace's lines, each naming its resource's URN. */
  lines(trace: TraceLine[], program: Program): TraceLine[];
}

const connection = (emu: Emulator): Record<string, string> => ({ url: emu.url, origin: ORIGIN, clientId: "emulator", username: "admin" });

const PLUGIN_PATH: ProviderPath = {
  project: PROJECT,
  stack: STACK,
  write: (dir, program) => fs.writeFileSync(path.join(dir, "Pulumi.yaml"), yamlOf(program)),
  config: (emu) => [
    ...Object.entries(connection(emu)).map(([k, v]): [string, string] => [`backupportal:${k}`, v]),
    ["backupportal:password", PORTAL_PASSWORD, true],
  ],
  desired: desiredOf,
  engine: (emu, traceFile) => ({
    project: PROJECT,
    stack: STACK,
    config: stackConfigFor(emu.url, "admin", { "backup-portal:password": PORTAL_PASSWORD }),
    secretConfigKeys: ["backup-portal:password"],
    startHost: (config, secretKeys, project) => startPluginHost(config, secretKeys, project, undefined, { [TRACE_ENV]: traceFile() }),
  }),
  lines: (trace) => trace,
};

/** The project and stack test/resources/support.ts asDeclared computes each class's createKey for. */
const [DYNAMIC_PROJECT, DYNAMIC_STACK] = ["backup-portal", "test"];

const DYNAMIC_PATH: ProviderPath = {
  project: DYNAMIC_PROJECT,
  stack: DYNAMIC_STACK,
  write(dir, program) {
    const yaml = { name: DYNAMIC_PROJECT, runtime: { name: "nodejs", options: { typescript: true } }, main: "index.ts" };
    fs.writeFileSync(path.join(dir, "Pulumi.yaml"), YAML.stringify(yaml));
    fs.writeFileSync(path.join(dir, "index.ts"), typescriptOf(program, path.relative(dir, path.join(REPO, "provider", "resources"))));
  },
  config: (emu) => [
    ...Object.entries(connection(emu)).map(([k, v]): [string, string] => [`backup-portal:${k}`, v]),
    ["backup-portal:password", PORTAL_PASSWORD, true],
  ],
  desired: desiredDynamicOf,
  engine: (emu, traceFile) => ({
    project: DYNAMIC_PROJECT,
    stack: DYNAMIC_STACK,
    config: stackConfigFor(emu.url, "admin", { "backup-portal:password": PORTAL_PASSWORD }),
    secretConfigKeys: ["backup-portal:password"],
    get env() {
      return { [TRACE_ENV]: traceFile() };
    },
  }),
  // The dynamic-provider host gives the provider no URN: the createKey a BusinessUnit's and a Consumer's class adds
  // names the resource, and a Node (which has none) its tsmName.
  lines(trace, program) {
    const urns = new Map<string, string>();
    for (const [name, r] of Object.entries(program)) {
      const kind = kindOf(r.type);
      const key = kind === "Node" ? `tsm:${r.properties.tsmName}` : createKeyFor(kind, name, DYNAMIC_PROJECT, DYNAMIC_STACK);
      urns.set(key, `urn:pulumi:${DYNAMIC_STACK}::${DYNAMIC_PROJECT}::${T(kind)}::${name}`);
    }
    const keyOf = (m: Record<string, unknown> | undefined) =>
      m?.createKey ? String(m.createKey) : m?.tsmName ? `tsm:${m.tsmName}` : undefined;
    return trace.map((l) => ({ ...l, urn: urns.get(keyOf(l.news) ?? keyOf(l.olds) ?? "") ?? "urn:?::?::?::unnamed" }));
  },
};

interface Scenario {
  name: string;
  command: "up" | "refresh" | "destroy";
  program?: Program;
}

function scenarios(): Scenario[] {
  const v1 = version1();
  const updated = version1();
  updated.acme.properties.note = "v2";
  const replaced = JSON.parse(JSON.stringify(updated)) as Program;
  replaced.db.properties.businessUnitId = idOf("beta");
  const removed = JSON.parse(JSON.stringify(replaced)) as Program;
  delete removed.db;
  return [
    { name: "create", command: "up", program: v1 },
    { name: "unchanged", command: "up", program: v1 },
    { name: "update", command: "up", program: updated },
    { name: "replace", command: "up", program: replaced },
    { name: "delete", command: "up", program: removed },
    { name: "refresh", command: "refresh" },
    { name: "destroy", command: "destroy" },
  ];
}

// ---------------------------------------------------------------- the provider's trace, normalized

interface TraceLine {
  method: string;
  urn?: string;
  id?: string;
  preview?: boolean;
  olds?: Record<string, unknown>;
  news?: Record<string, unknown>;
  oldInputs?: Record<string, unknown>;
  error?: string;
}

const RESOURCE_METHODS = ["check", "diff", "create", "update", "delete", "read"];

function readTrace(file: string): TraceLine[] {
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as TraceLine);
}

const typeOfUrn = (urn: string) => urn.split("::")[2]?.split("$").pop() ?? "";
const nameOfUrn = (urn: string) => urn.split("::").pop() ?? "";

/** The value with every object's keys in order (engines send a map's keys in any order). */
function sorted(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sorted);
  if (v && typeof v === "object")
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, sorted((v as Record<string, unknown>)[k])]),
    );
  return v;
}

/** The provider configurations a command's plugins were given (Configure's args), in any order. */
const configurations = (lines: TraceLine[]) =>
  lines
    .filter((l) => l.method === "configure")
    .map((l) => JSON.stringify(sorted(l.news)))
    .sort();

/** Keys whose values are a portal id of a business unit or a consumer. */
const BU_KEYS = new Set(["parentId", "businessUnitId"]);
const CONSUMER_KEYS = new Set(["consumerId", "agentConsumerId", "targetConsumerId"]);
/**
 * Values that differ between any two runs (dates, the node's own id, URLs holding ids), and the dynamic
 * providers' `__provider`, whose module specifier is relative to the program's folder (stacks/ for the stand-in).
 */
const VOLATILE = new Set(["createdDate", "nodeId", "href", "__provider"]);

/**
 * The calls per resource (`<type>::<name>`), in order, with the portal's ids named after the resource that got
 * them (`acme#1`, `acme#2` after a replacement), the emulator's volatile outputs and unknowns as placeholders.
 */
function normalize(lines: TraceLine[]): Record<string, unknown[]> {
  const calls = lines.filter((l) => RESOURCE_METHODS.includes(l.method) && l.urn);
  // Each resource's ids in the order it first had them.
  const idsOf = new Map<string, string[]>();
  for (const l of calls) {
    if (!l.id) continue;
    const ids = idsOf.get(l.urn!) ?? [];
    if (!ids.includes(l.id)) ids.push(l.id);
    idsOf.set(l.urn!, ids);
  }
  const label = (urn: string, id: string) => `${nameOfUrn(urn)}#${idsOf.get(urn)!.indexOf(id) + 1}`;
  // A value of a key naming a business unit or a consumer → its resource's label (a node's id is its consumer's).
  const bu = new Map<string, string>();
  const consumer = new Map<string, string>();
  for (const type of ["BusinessUnit", "Consumer", "Node"]) {
    for (const [urn, ids] of idsOf) {
      if (typeOfUrn(urn) !== T(type)) continue;
      const into = type === "BusinessUnit" ? bu : consumer;
      for (const id of ids) if (!into.has(id)) into.set(id, label(urn, id));
    }
  }
  const value = (key: string, v: unknown): unknown => {
    if (v === UNKNOWN) return "<unknown>";
    if (v === null || v === undefined) return v;
    if (VOLATILE.has(key)) return `<${key}>`;
    const named = BU_KEYS.has(key) ? bu.get(String(v)) : CONSUMER_KEYS.has(key) ? consumer.get(String(v)) : undefined;
    if (named) return typeof v === "number" ? `<${named} as number>` : `<${named}>`;
    return v;
  };
  const map = (m: Record<string, unknown> | undefined) =>
    m === undefined ? undefined : sorted(Object.fromEntries(Object.entries(m).map(([k, v]) => [k, value(k, v)])));
  const out: Record<string, unknown[]> = {};
  for (const l of calls) {
    const key = `${typeOfUrn(l.urn!).split(":").pop()}::${nameOfUrn(l.urn!)}`;
    const entry: Record<string, unknown> = { method: l.method };
    if (l.id) entry.id = label(l.urn!, l.id);
    if (l.preview) entry.preview = true;
    for (const k of ["olds", "news", "oldInputs"] as const) {
      const m = map(l[k]);
      if (m !== undefined) entry[k] = m;
    }
    if (l.error) entry.error = l.error;
    (out[key] ??= []).push(entry);
  }
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => a.localeCompare(b)));
}

const show = (v: unknown) => (v === undefined ? "nothing" : JSON.stringify(v));

/** Every difference of two normalized traces, one line each: the resource, the call, the key, both values. */
function differences(cli: Record<string, unknown[]>, standIn: Record<string, unknown[]>): string[] {
  const out: string[] = [];
  for (const key of [...new Set([...Object.keys(cli), ...Object.keys(standIn)])].sort()) {
    const a = (cli[key] ?? []) as Array<Record<string, unknown>>;
    const b = (standIn[key] ?? []) as Array<Record<string, unknown>>;
    const methods = (calls: Array<Record<string, unknown>>) => calls.map((c) => `${c.method}${c.preview ? "(preview)" : ""}`).join(", ");
    if (methods(a) !== methods(b)) {
      out.push(`${key}: the CLI calls [${methods(a)}], the stand-in [${methods(b)}]`);
      continue;
    }
    a.forEach((call, i) => {
      const other = b[i];
      for (const field of [...new Set([...Object.keys(call), ...Object.keys(other)])]) {
        const x = call[field];
        const y = other[field];
        if (JSON.stringify(x) === JSON.stringify(y)) continue;
        const isMap = (v: unknown) => !!v && typeof v === "object";
        if (!isMap(x) || !isMap(y)) {
          out.push(`${key} ${call.method} #${i + 1}: ${field}: the CLI ${show(x)}, the stand-in ${show(y)}`);
          continue;
        }
        const mx = x as Record<string, unknown>;
        const my = y as Record<string, unknown>;
        for (const k of [...new Set([...Object.keys(mx), ...Object.keys(my)])].sort()) {
          if (JSON.stringify(mx[k]) !== JSON.stringify(my[k]))
            out.push(`${key} ${call.method} #${i + 1}: ${field}.${k}: the CLI ${show(mx[k])}, the stand-in ${show(my[k])}`);
        }
      }
    });
  }
  return out;
}

// ---------------------------------------------------------------- the two engines

/** What one command did: the plugin's calls, and whether it succeeded. */
interface Outcome {
  trace: TraceLine[];
  ok: boolean;
  output: string;
}

async function viaCli(
  via: ProviderPath,
  emu: Emulator,
  dir: string,
  plan: Scenario[],
  onCreated?: (ws: Workspace) => Promise<void>,
): Promise<Outcome[]> {
  let ws: Workspace | undefined;
  try {
    ws = workspace({
      stack: via.stack,
      // Inside the repository (its tmp/): a Node.js program resolves @pulumi/pulumi from its node_modules.
      project: () => {
        const project = path.join(dir, "project");
        fs.mkdirSync(project);
        via.write(project, plan[0].program!);
        return project;
      },
    });
    // The plugin found on PATH, as a user's would be (test/real-engine/plugin.test.ts).
    ws.env.PATH = [path.join(REPO, "bin"), ws.env.PATH].join(path.delimiter);
    await ws.ok(["stack", "init"]);
    for (const [key, value, secret] of via.config(emu)) await (secret ? ws.setSecret(key, value) : ws.ok(["config", "set", key, value]));
    const out: Outcome[] = [];
    for (const [i, s] of plan.entries()) {
      if (s.program) via.write(ws.project, s.program);
      const file = path.join(dir, `cli-${s.name}.jsonl`);
      const r = await ws.pulumi([s.command, "--yes"], { env: { [TRACE_ENV]: file }, timeoutMs: 180_000 });
      out.push({ trace: readTrace(file), ok: r.code === 0, output: r.stdout + r.stderr });
      if (i === 0) await onCreated?.(ws);
    }
    return out;
  } finally {
    ws?.remove();
  }
}

async function viaStandIn(via: ProviderPath, emu: Emulator, dir: string, plan: Scenario[]): Promise<Outcome[]> {
  let file = "";
  const engine = new TestEngine(via.engine(emu, () => file));
  const out: Outcome[] = [];
  try {
    for (const s of plan) {
      file = path.join(dir, `stand-in-${s.name}.jsonl`);
      // `pulumi refresh` and `pulumi destroy` as typed: each previews first, as `pulumi up` does.
      const run =
        s.command === "up"
          ? engine.up(via.desired(s.program!))
          : s.command === "refresh"
            ? engine.refresh({ preview: true })
            : engine.destroy({ preview: true });
      const error = await run.then(
        () => undefined,
        (e: unknown) => e,
      );
      out.push({ trace: readTrace(file), ok: error === undefined, output: error instanceof Error ? error.message : "" });
    }
  } finally {
    await engine.close();
  }
  return out;
}

/** Every difference of the two engines' runs of `plan`, one line each (none: they made the same calls). */
function compare(via: ProviderPath, plan: Scenario[], cli: Outcome[], standIn: Outcome[], dir: string): string[] {
  const problems: string[] = [];
  // Every resource the plan ever declares, to name the lines of the dynamic host.
  const all: Program = Object.assign({}, ...plan.map((s) => s.program ?? {}));
  let previous: Program = {};
  for (const [i, s] of plan.entries()) {
    const [a, b] = [
      { ...cli[i], trace: via.lines(cli[i].trace, all) },
      { ...standIn[i], trace: via.lines(standIn[i].trace, all) },
    ];
    if (a.ok !== b.ok) {
      problems.push(
        `${s.name}: the CLI ${a.ok ? "succeeded" : "failed"}, the stand-in ${b.ok ? "succeeded" : "failed"}:\n${a.output}\n${b.output}`,
      );
    }
    const [na, nb] = [normalize(a.trace), normalize(b.trace)];
    fs.writeFileSync(path.join(dir, `normalized-${s.name}.json`), JSON.stringify({ cli: na, standIn: nb }, null, 1));
    // Not two empty traces agreeing: a command that ran called the provider for every resource it concerns
    // (declared now or before), each line named.
    const concerned = Object.entries({ ...previous, ...s.program }).map(([name, r]) => `${kindOf(r.type)}::${name}`);
    if (a.ok) assert.deepEqual(Object.keys(na).sort(), concerned.sort(), `${s.name}: the resources in the CLI's trace`);
    previous = s.program ?? previous;
    for (const d of differences(na, nb)) problems.push(`${s.name}: ${d}`);
    // One plugin per deployment (a preview and the command's own), configured with the same arguments.
    const [ca, cb] = [configurations(a.trace), configurations(b.trace)];
    if (JSON.stringify(ca) !== JSON.stringify(cb))
      problems.push(`${s.name}: Configure: the CLI ${ca.join(" ")}, the stand-in ${cb.join(" ")}`);
  }
  return problems;
}

describe("conformance: the engine stand-in and the Pulumi CLI make the same provider calls", function () {
  this.timeout(15 * 60_000);
  let emu: Emulator;
  let dir: string;
  before(async () => {
    emu = await startEmulator({ port: 0, quiet: true });
    fs.mkdirSync(path.join(REPO, "tmp"), { recursive: true });
    dir = fs.mkdtempSync(path.join(REPO, "tmp", "conformance-"));
  });
  beforeEach(() => {
    emu.reset();
    setAdminPassword(emu);
  });
  let failed = false;
  afterEach(function () {
    failed ||= this.currentTest?.state === "failed";
  });
  after(async () => {
    await emu?.close();
    // Kept for reading when a case failed: the traces and their normalized forms, per command.
    if (!failed && dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  /** Both engines through `plan`, each from a fresh portal; asserts they made the same calls. */
  async function both(
    via: ProviderPath,
    plan: Scenario[],
    onCreated?: (ws: Workspace) => Promise<void>,
  ): Promise<{ cli: Outcome[]; standIn: Outcome[] }> {
    const sub = fs.mkdtempSync(path.join(dir, "case-"));
    const t0 = Date.now();
    const cli = await viaCli(via, emu, sub, plan, onCreated);
    const t1 = Date.now();
    emu.reset();
    setAdminPassword(emu);
    const standIn = await viaStandIn(via, emu, sub, plan);
    console.log(`      the CLI ${((t1 - t0) / 1000).toFixed(1)} s, the stand-in ${((Date.now() - t1) / 1000).toFixed(1)} s`);
    const problems = compare(via, plan, cli, standIn, sub);
    assert.deepEqual(problems, [], `the stand-in and the CLI differ (traces in ${sub}):\n${problems.join("\n")}`);
    // The trace holds no secret, whichever engine sent it and however (CheckConfig gets the password unwrapped).
    for (const f of fs.readdirSync(sub).filter((x) => x.endsWith(".jsonl"))) {
      const text = fs.readFileSync(path.join(sub, f), "utf8");
      for (const pw of [PORTAL_PASSWORD, NODE_PASSWORD]) assert.ok(!text.includes(pw), `${f} holds a password in plain text`);
    }
    return { cli, standIn };
  }

  it("create, an unchanged up, update, replace, delete, refresh and destroy of a YAML program on the plugin", async () => {
    let state = "";
    const { cli } = await both(PLUGIN_PATH, scenarios(), async (ws) => {
      state = (await ws.ok(["stack", "export"])).stdout;
    });
    assert.ok(cli.every((o) => o.ok));
    assert.match(state, /"tsmPassword"/);
    for (const pw of [PORTAL_PASSWORD, NODE_PASSWORD]) assert.ok(!state.includes(pw), "the state holds a password in plain text");
  });

  it("the dynamic providers (pulumi-nodejs:dynamic/...) under pulumi-language-nodejs: the same scenario", async () => {
    const { cli } = await both(DYNAMIC_PATH, scenarios());
    assert.ok(cli.every((o) => o.ok));
  });

  it("destroy with a protected business unit: the same calls, and the same outcome", async () => {
    const program: Program = {
      keep: { ...version1().acme, options: { protect: true } },
      web: { type: T("Consumer"), properties: { businessUnitId: idOf("keep"), name: "web01" } },
      other: version1().beta,
    };
    const { cli, standIn } = await both(PLUGIN_PATH, [
      { name: "create", command: "up", program },
      { name: "destroy", command: "destroy" },
    ]);
    // `pulumi destroy` previews first; the preview's delete of the protected unit fails, so nothing is deleted
    // (docs/engine.md): not `web` that depends on it, not the unrelated `other`.
    assert.ok(!cli[1].ok && !standIn[1].ok, "both destroys fail");
    assert.match(
      cli[1].output,
      /Preview failed: resource "urn:pulumi:dev::conformance::backupportal:index:BusinessUnit::keep" cannot be deleted/,
    );
    for (const o of [...cli, ...standIn]) assert.ok(!o.trace.some((l) => l.method === "delete"), "no Delete is sent");
    const names = emu.state().businessUnits.map((b) => b.name);
    assert.ok(names.includes("Conformance Ltd") && names.includes("Conformance Beta"), "both units are still on the portal");
  });
});
