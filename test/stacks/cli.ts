/**
 * TEST CODE — runs the stack program the way the Pulumi CLI does, without the CLI: where the engine
 * runs the program (Pulumi.yaml `main`, pkg/engine/project.go getPwdMain), how the Node.js language host
 * starts `@pulumi/pulumi/cmd/run` (sdk/nodejs/cmd/pulumi-language-nodejs: constructArguments, constructConfig,
 * PULUMI_CONFIG_SECRET_KEYS, PULUMI_NODEJS_TYPESCRIPT from `runtime.options.typescript`), and a small resource
 * monitor and engine served over gRPC on loopback that answer a preview the way the engine does (read from
 * pulumi/pulumi at 1b59498, August 2026).
 */
import { ChildProcess, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import yaml from "js-yaml";

import { fromSdk, grpc, programSide } from "../engine/program-side";

const resrpc = require("@pulumi/pulumi/proto/resource_grpc_pb");
const resproto = require("@pulumi/pulumi/proto/resource_pb");
const { Struct } = fromSdk("google-protobuf/google/protobuf/struct_pb");

export interface ProgramLocation {
  /** The program's working directory (`--pwd`): the `main` folder, or the folder of the `main` file. */
  pwd: string;
  /** The entry point handed to cmd/run: `.` for a folder, else the file's name. */
  entry: string;
}

/**
 * getPwdMain: no `main` runs `.` in the project root; a relative `main` is joined to the root; a folder
 * becomes the pwd with entry `.`, a file runs by its base name from its folder. A missing `main` is an error.
 */
export function pwdMain(root: string, main: string | undefined): ProgramLocation {
  if (!main) return { pwd: root, entry: "." };
  const target = path.isAbsolute(main) ? main : path.normalize(path.join(path.normalize(root), main)).replace(/(.)[\\/]+$/, "$1");
  let stat: fs.Stats;
  try {
    stat = fs.statSync(target);
  } catch (e) {
    throw new Error(`project 'main' could not be read: ${(e as Error).message}`);
  }
  return stat.isDirectory() ? { pwd: target, entry: "." } : { pwd: path.dirname(target), entry: path.basename(target) };
}

export interface Project {
  name: string;
  main?: string;
  runtime: string | { name: string; options?: { typescript?: boolean } };
}

export function readProject(root: string): Project {
  return yaml.load(fs.readFileSync(path.join(root, "Pulumi.yaml"), "utf8")) as Project;
}

/** Whether the language host sets PULUMI_NODEJS_TYPESCRIPT (the option defaults to true). */
export function typescriptEnabled(project: Project): boolean {
  return typeof project.runtime === "string" || project.runtime.options?.typescript !== false;
}

/**
 * PULUMI_CONFIG as the language host builds it: every key as `<namespace>:config:<name>`, every value as
 * the CLI holds it, text (objects as JSON).
 */
export function configEnv(config: Record<string, unknown>): { PULUMI_CONFIG: string; PULUMI_CONFIG_SECRET_KEYS: string } {
  const out: Record<string, string> = {};
  const secretKeys: string[] = [];
  for (const [key, value] of Object.entries(config)) {
    const i = key.indexOf(":");
    if (i < 0) throw new Error(`config key ${key} has no namespace`);
    if (value && typeof value === "object" && "secure" in value) {
      throw new Error(`${key} is a secure value: this runner does not decrypt stack secrets`);
    }
    out[`${key.slice(0, i)}:config:${key.slice(i + 1)}`] = typeof value === "string" ? value : JSON.stringify(value);
  }
  return { PULUMI_CONFIG: JSON.stringify(out), PULUMI_CONFIG_SECRET_KEYS: JSON.stringify(secretKeys) };
}

export interface Registration {
  urn: string;
  type: string;
  name: string;
  custom: boolean;
  parent: string;
  inputs: Record<string, any>;
}

export interface FakeEngine {
  /** The address for both `--monitor` and `--engine`. */
  address: string;
  registrations: Registration[];
  /** Messages the program logged through the engine, `SEVERITY: text`. */
  logs: string[];
  stackOutputs: Record<string, unknown> | undefined;
  close(): Promise<void>;
}

/** The features this monitor claims; everything else answers no, and the SDK falls back as for an older CLI. */
const FEATURES = new Set(["secrets", "resourceReferences"]);

/**
 * A resource monitor and engine for a preview: every registration is recorded and answered as the engine
 * answers a create in a preview of a stack with no state: the URN, an unknown (empty) id and the inputs as
 * the outputs (outputs the provider would add stay unknown to the program).
 */
export async function startFakeEngine(project: string, stack: string): Promise<FakeEngine> {
  const registrations: Registration[] = [];
  const program = programSide(project, stack);
  const server = new grpc.Server();
  server.addService(resrpc.ResourceMonitorService, {
    supportsFeature(call: any, cb: any) {
      const resp = new resproto.SupportsFeatureResponse();
      resp.setHassupport(FEATURES.has(call.request.getId()));
      cb(null, resp);
    },
    registerResource(call: any, cb: any) {
      const req = call.request;
      const type: string = req.getType();
      const parent: string = req.getParent();
      const urn = program.urnOf(type, req.getName(), parent);
      const inputs = req.getObject()?.toJavaScript() ?? {};
      registrations.push({ urn, type, name: req.getName(), custom: req.getCustom(), parent, inputs });
      const resp = new resproto.RegisterResourceResponse();
      resp.setUrn(urn);
      resp.setId("");
      resp.setObject(Struct.fromJavaScript(req.getCustom() ? inputs : {}));
      cb(null, resp);
    },
    registerResourceOutputs: program.registerResourceOutputs,
  });
  const address = await program.serve(server);
  return {
    address,
    registrations,
    logs: program.logs,
    get stackOutputs() {
      return program.stackOutputs;
    },
    close: () => new Promise<void>((resolve) => server.tryShutdown(() => resolve())),
  };
}

export interface RunOptions {
  root: string;
  location: ProgramLocation;
  project: Project;
  stack: string;
  /** The resource monitor and engine (`--monitor`, `--engine`). */
  engine: { address: string };
  config: Record<string, unknown>;
  /** Extra environment (e.g. BACKUP_PORTAL_PASSWORD, as `npm run local` exports it). */
  env?: Record<string, string>;
  timeoutMs: number;
}

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  output: string;
}

/** The environment variables of the test's own process that would change how the program runs. */
const INHERITED_OUT = /^(PULUMI_|TS_NODE_|BACKUP_PORTAL_)/;

/**
 * `node <project>/node_modules/@pulumi/pulumi/cmd/run --monitor … --pwd <pwd> --dry-run <entry>`, as the
 * language host starts it for a preview (cmd/run resolved from the program's folder, as the host does).
 */
export function runPreview(o: RunOptions): Promise<RunResult> {
  return runProgram(o, true);
}

/** The same for an update (no `--dry-run`): the program's registrations are carried out. */
export function runProgram(o: RunOptions, dryRun = false): Promise<RunResult> {
  const runPath = path.dirname(require.resolve("@pulumi/pulumi/cmd/run/index.js", { paths: [o.location.pwd] }));
  const args = [
    runPath,
    "--monitor",
    o.engine.address,
    "--engine",
    o.engine.address,
    "--project",
    o.project.name,
    "--root-directory",
    o.root,
    "--stack",
    o.stack,
    "--pwd",
    o.location.pwd,
    ...(dryRun ? ["--dry-run"] : []),
    o.location.entry,
  ];
  const env: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !INHERITED_OUT.test(k)));
  Object.assign(env, configEnv(o.config), o.env ?? {});
  if (typescriptEnabled(o.project)) env.PULUMI_NODEJS_TYPESCRIPT = "true";
  return new Promise((resolve, reject) => {
    const child: ChildProcess = spawn(process.execPath, args, { cwd: o.root, env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout!.on("data", (d) => (output += d));
    child.stderr!.on("data", (d) => (output += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), o.timeoutMs);
    child.on("error", (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, output });
    });
  });
}
