/**
 * TEST CODE — a stand-in for the Pulumi engine's side of the conversation with the Node.js
 * dynamic-provider host (`@pulumi/pulumi/cmd/dynamic-provider`). No Pulumi CLI exists on this
 * machine; this spawns the very host the engine would spawn and drives it over gRPC the way
 * the engine does (sdk/go/common/resource/plugin/provider_plugin.go):
 *
 *  - launch: `node <require.resolve("@pulumi/pulumi/cmd/dynamic-provider")> <engine-address>` in the
 *    project's `main` folder (stacks/), env = our env + PULUMI_NODEJS_PROJECT / PULUMI_PROJECT (the engine adds those
 *    for the `pulumi-nodejs` plugin, so `req.config.get("url")` in a provider's configure resolves
 *    `<project>:url`); the host prints its port on stdout;
 *  - Handshake (host: UNIMPLEMENTED, accepted), GetPluginInfo, CheckConfig (UNIMPLEMENTED, accepted),
 *    then Configure with `args` = the whole stack config, namespaced keys, secret values wrapped
 *    (the engine marshals Configure args with KeepSecrets), plus the legacy `variables` map
 *    (`pulumi-nodejs:config:<key>` → plaintext). The host only reads `args` and answers acceptSecrets=false;
 *  - every later call is marshalled with KeepSecrets=acceptSecrets (false ⇒ plaintext),
 *    KeepUnknowns only where the engine keeps them (Check/Diff during preview), nulls kept.
 *
 * This module is the raw wire layer; engine.ts adds state, planning, secrets bookkeeping.
 */
import { ChildProcess, spawn } from "child_process";
import * as fs from "fs";
import * as path from "path";
import * as structproto from "google-protobuf/google/protobuf/struct_pb";
import * as emptyproto from "google-protobuf/google/protobuf/empty_pb";
import * as provrpc from "@pulumi/pulumi/proto/provider_grpc_pb";
import * as provproto from "@pulumi/pulumi/proto/provider_pb";
import * as statusproto from "@pulumi/pulumi/proto/status_pb";
import { GRPC_STATUS, GrpcCallError, UnaryChannel } from "./grpc-unary";
import {
  checkRequest,
  checkResponse,
  configureRequest,
  createRequest,
  createResponse,
  deleteRequest,
  diffRequest,
  readRequest,
  readResponse,
  updateRequest,
  updateResponse,
} from "./messages";
import { PropertyMap, secret, toWireMap, unwrapSecrets } from "./values";

/** The project root (holds node_modules and Pulumi.yaml), resolved from this file: test/engine/ → ../.. */
export const PROJECT_ROOT = path.resolve(__dirname, "..", "..");
/**
 * The host script, found as the engine's plugin shim finds it (`pulumi-resource-pulumi-nodejs` runs
 * `require.resolve('@pulumi/pulumi/cmd/dynamic-provider')` from its working directory).
 */
export function hostScript(cwd: string): string {
  return require.resolve("@pulumi/pulumi/cmd/dynamic-provider", { paths: [cwd] });
}

/**
 * The working directory the engine gives the program and its plugins (pkg/engine/project.go, getPwdMain):
 * the folder `main` names, or the folder of the file it names, or the project root without `main`.
 */
export function mainDirectory(root: string = PROJECT_ROOT): string {
  let main: string | undefined;
  try {
    const m = /^main:\s*["']?([^"'#\n]+?)["']?\s*(#.*)?$/m.exec(fs.readFileSync(path.join(root, "Pulumi.yaml"), "utf8"));
    main = m?.[1];
  } catch {
    /* no Pulumi.yaml: the root */
  }
  if (!main) return root;
  const target = path.resolve(root, main);
  return fs.statSync(target).isDirectory() ? target : path.dirname(target);
}

/** Reads `name:` from <cwd>/Pulumi.yaml (the engine passes it as PULUMI_NODEJS_PROJECT). */
export function readProjectName(cwd: string = PROJECT_ROOT): string {
  try {
    const text = fs.readFileSync(path.join(cwd, "Pulumi.yaml"), "utf8");
    const m = /^name:\s*["']?([^"'\s#]+)/m.exec(text);
    if (m) return m[1];
  } catch {
    /* fall through */
  }
  return "project";
}

export interface ProviderHostOptions {
  /** Working directory of the host process (module resolution of `__provider` starts here). Default: the `main` folder. */
  cwd?: string;
  /** Extra environment for the host process (merged over process.env). */
  env?: Record<string, string>;
  /** If given, Configure is sent right after start with this config (keys namespaced, e.g. `backup-portal:url`). */
  config?: Record<string, string>;
  /** Keys of `config` that are secret (their values are sent wrapped, as the engine does). */
  secretKeys?: string[];
  /** Project name (PULUMI_NODEJS_PROJECT / PULUMI_PROJECT, and namespace for un-namespaced config keys). Default: Pulumi.yaml's name. */
  project?: string;
  /** Milliseconds to wait for the port line. Default 30000. */
  startTimeoutMs?: number;
  /** Node options put before the host script (the bench's opt-in CPU profile: `--cpu-prof ...`). Default none. */
  nodeArgs?: string[];
}

export interface CheckFailure {
  property: string;
  reason: string;
}
export interface CheckResult {
  inputs: PropertyMap;
  failures: CheckFailure[];
}
export type DiffChanges = "none" | "some" | "unknown";
export interface DiffResult {
  changes: DiffChanges;
  replaces: string[];
  deleteBeforeReplace: boolean;
  /** Changed keys as reported by the provider (the Node.js host never fills this: always []). */
  diffs: string[];
  stables: string[];
}
export interface CreateResult {
  id: string;
  properties: PropertyMap;
}
export interface ReadResult {
  id: string;
  properties: PropertyMap;
  /** Present only if the provider's read returned `inputs`. */
  inputs?: PropertyMap;
}
export interface UpdateResult {
  properties: PropertyMap;
}
export interface ConfigureResult {
  acceptSecrets: boolean;
  acceptResources: boolean;
  supportsPreview: boolean;
  acceptOutputs: boolean;
}
export interface HostCall {
  method: string;
  urn?: string;
  id?: string;
  preview?: boolean;
}

/** A rejected provider call. `message` is the provider's message (gRPC `details`). */
export class ProviderError extends Error {
  constructor(
    message: string,
    public readonly code: number,
    public readonly method: string,
    /** Create/Update that threw an error carrying `id` (ErrorResourceInitFailed): the object exists. */
    public readonly initFailed?: { id: string; properties: PropertyMap; reasons: string[] },
  ) {
    super(message);
    this.name = "ProviderError";
  }
}

export interface ProviderHost {
  readonly port: number;
  readonly pid: number;
  readonly project: string;
  /** Every RPC sent, in order (method names as in the proto: Configure, Check, Diff, Create, ...). */
  readonly calls: HostCall[];
  /** Result of the last Configure (undefined before). */
  readonly configured: ConfigureResult | undefined;
  configure(config: Record<string, string>, secretKeys?: string[]): Promise<ConfigureResult>;
  check(urn: string, olds: PropertyMap, news: PropertyMap, opts?: { preview?: boolean }): Promise<CheckResult>;
  diff(
    id: string,
    urn: string,
    olds: PropertyMap,
    news: PropertyMap,
    oldInputs?: PropertyMap,
    opts?: { preview?: boolean },
  ): Promise<DiffResult>;
  /** NB: the host ignores `preview` and really creates; the engine never sends a preview Create to it. */
  create(urn: string, props: PropertyMap, preview?: boolean): Promise<CreateResult>;
  read(id: string, urn: string, props: PropertyMap, inputs?: PropertyMap): Promise<ReadResult>;
  /** `preview`: the plan of an update, sent only to a provider that claims preview support (the plugin). */
  update(id: string, urn: string, olds: PropertyMap, news: PropertyMap, oldInputs?: PropertyMap, preview?: boolean): Promise<UpdateResult>;
  delete(id: string, urn: string, props: PropertyMap, oldInputs?: PropertyMap): Promise<void>;
  /** Everything the host wrote to stdout and stderr so far. */
  logs(): string;
  /** True once the process has exited. */
  readonly exited: boolean;
  /** SIGKILL the host (simulates a crash); in-flight calls reject. */
  kill(): Promise<void>;
  /** Close the channel and stop the host. */
  close(): Promise<void>;
}

/** The host's methods as the generated service describes them (their paths). */
const SERVICE = provrpc.ResourceProviderService as unknown as Record<string, { path: string }>;

function fromStruct(s: structproto.Struct | undefined): PropertyMap {
  return (s ? s.toJavaScript() : {}) as PropertyMap;
}

class Host implements ProviderHost {
  public readonly calls: HostCall[] = [];
  public configured: ConfigureResult | undefined;
  private output = "";
  private exitPromise: Promise<void>;
  private hasExited = false;
  private channel: UnaryChannel | undefined;
  public port = 0;

  constructor(
    private readonly child: ChildProcess,
    public readonly project: string,
  ) {
    this.exitPromise = new Promise((resolve) => {
      child.once("exit", () => {
        this.hasExited = true;
        resolve();
      });
    });
    child.stdout?.setEncoding("utf8");
    child.stderr?.setEncoding("utf8");
    child.stdout?.on("data", (d: string) => (this.output += d));
    child.stderr?.on("data", (d: string) => (this.output += d));
  }

  get pid(): number {
    return this.child.pid ?? -1;
  }
  get exited(): boolean {
    return this.hasExited;
  }

  async start(timeoutMs: number): Promise<void> {
    this.port = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`dynamic provider host did not print its port within ${timeoutMs}ms; output:\n${this.output}`));
      }, timeoutMs);
      const onData = () => {
        const m = /^(\d+)\s*$/m.exec(this.output);
        if (m) {
          cleanup();
          resolve(Number(m[1]));
        }
      };
      const onExit = (code: number | null, signal: string | null) => {
        cleanup();
        reject(
          new Error(`dynamic provider host exited (code=${code}, signal=${signal}) before printing its port; output:\n${this.output}`),
        );
      };
      const cleanup = () => {
        clearTimeout(timer);
        this.child.stdout?.off("data", onData);
        this.child.off("exit", onExit);
      };
      this.child.stdout?.on("data", onData);
      this.child.once("exit", onExit);
      onData();
    });
    this.channel = new UnaryChannel(`127.0.0.1:${this.port}`);
    // What the engine sends before Configure; both unimplemented answers are accepted by the engine.
    await this.send("Handshake", new provproto.ProviderHandshakeRequest().serializeBinary(), undefined, true);
    await this.send("GetPluginInfo", new emptyproto.Empty().serializeBinary(), undefined, true);
  }

  logs(): string {
    return this.output;
  }

  /** Issues one unary call; resolves the answer's bytes, or undefined on UNIMPLEMENTED when `tolerateUnimplemented` (Handshake etc.). */
  private async send(method: string, message: Uint8Array, call?: HostCall, tolerateUnimplemented = false): Promise<Buffer | undefined> {
    this.calls.push(call ?? { method });
    if (!this.channel) throw new ProviderError(`${method}: the host is not started`, GRPC_STATUS.UNAVAILABLE, method);
    try {
      return await this.channel.call(SERVICE[method.charAt(0).toLowerCase() + method.slice(1)].path, message);
    } catch (err) {
      if (!(err instanceof GrpcCallError)) throw err;
      if (tolerateUnimplemented && err.code === GRPC_STATUS.UNIMPLEMENTED) return undefined;
      throw toProviderError(method, err);
    }
  }

  /** One call that answers with a message (the host never answers these with UNIMPLEMENTED). */
  private async answer(method: string, message: Uint8Array, call?: HostCall): Promise<Buffer> {
    return (await this.send(method, message, call))!;
  }

  async configure(config: Record<string, string>, secretKeys: string[] = []): Promise<ConfigureResult> {
    const secrets = new Set(secretKeys.map((k) => this.namespaced(k)));
    const args: PropertyMap = {};
    const variables: Record<string, string> = {};
    for (const [rawKey, value] of Object.entries(config)) {
      const key = this.namespaced(rawKey);
      args[key] = secrets.has(key) ? secret(value) : value;
      // Legacy spelling the engine still fills: "<pkg>:config:<key>" → plaintext string.
      variables[`pulumi-nodejs:config:${key}`] = value;
    }
    // CheckConfig first (the host answers UNIMPLEMENTED; the engine then uses the news as-is).
    const providerUrn = `urn:pulumi:stack::${this.project}::pulumi:providers:pulumi-nodejs::default`;
    const news = toWireMap(args, { keepUnknowns: false, keepSecrets: false });
    await this.send("CheckConfig", checkRequest(providerUrn, {}, news), undefined, true);

    const configure = configureRequest(toWireMap(args, { keepUnknowns: true, keepSecrets: true }), variables);
    const resp = provproto.ConfigureResponse.deserializeBinary(await this.answer("Configure", configure));
    this.configured = {
      acceptSecrets: resp.getAcceptsecrets(),
      acceptResources: resp.getAcceptresources(),
      supportsPreview: resp.getSupportspreview(),
      acceptOutputs: resp.getAcceptoutputs(),
    };
    return this.configured;
  }

  private namespaced(key: string): string {
    return key.includes(":") ? key : `${this.project}:${key}`;
  }

  /** The engine refuses to call a provider before Configure; we configure with {} lazily to keep tests short. */
  private configuring: Promise<ConfigureResult> | undefined;
  private async ensureConfigured(): Promise<ConfigureResult> {
    if (this.configured) return this.configured;
    this.configuring ??= this.configure({});
    return this.configuring;
  }

  private wire(m: PropertyMap, keepUnknowns: boolean): PropertyMap {
    const keepSecrets = this.configured?.acceptSecrets ?? false;
    return toWireMap(m, { keepUnknowns, keepSecrets });
  }

  async check(urn: string, olds: PropertyMap, news: PropertyMap, opts: { preview?: boolean } = {}): Promise<CheckResult> {
    await this.ensureConfigured();
    const message = checkRequest(urn, this.wire(olds, !!opts.preview), this.wire(news, !!opts.preview));
    return checkResponse(await this.answer("Check", message, { method: "Check", urn, preview: opts.preview }));
  }

  async diff(
    id: string,
    urn: string,
    olds: PropertyMap,
    news: PropertyMap,
    oldInputs?: PropertyMap,
    opts: { preview?: boolean } = {},
  ): Promise<DiffResult> {
    await this.ensureConfigured();
    const keep = !!opts.preview;
    const message = diffRequest(id, urn, this.wire(olds, keep), this.wire(news, keep), this.wire(oldInputs ?? {}, keep));
    const resp = provproto.DiffResponse.deserializeBinary(
      await this.answer("Diff", message, { method: "Diff", urn, id, preview: opts.preview }),
    );
    const C = provproto.DiffResponse.DiffChanges;
    const changes: DiffChanges = resp.getChanges() === C.DIFF_SOME ? "some" : resp.getChanges() === C.DIFF_NONE ? "none" : "unknown";
    return {
      changes,
      replaces: resp.getReplacesList(),
      deleteBeforeReplace: resp.getDeletebeforereplace(),
      diffs: resp.getDiffsList(),
      stables: resp.getStablesList(),
    };
  }

  async create(urn: string, props: PropertyMap, preview = false): Promise<CreateResult> {
    await this.ensureConfigured();
    const resp = createResponse(
      await this.answer("Create", createRequest(urn, this.wire(props, preview), preview), { method: "Create", urn, preview }),
    );
    if (!resp.id && !preview) {
      // Same check as the engine.
      throw new ProviderError(
        `plugin for package 'pulumi-nodejs' returned empty resource.ID from create '${urn}'`,
        GRPC_STATUS.UNKNOWN,
        "Create",
      );
    }
    return resp;
  }

  async read(id: string, urn: string, props: PropertyMap, inputs?: PropertyMap): Promise<ReadResult> {
    await this.ensureConfigured();
    const message = readRequest(id, urn, this.wire(props, false), inputs && this.wire(inputs, false));
    return readResponse(await this.answer("Read", message, { method: "Read", urn, id }));
  }

  async update(
    id: string,
    urn: string,
    olds: PropertyMap,
    news: PropertyMap,
    oldInputs?: PropertyMap,
    preview = false,
  ): Promise<UpdateResult> {
    await this.ensureConfigured();
    const message = updateRequest(id, urn, this.wire(olds, false), this.wire(news, preview), this.wire(oldInputs ?? {}, false), preview);
    return updateResponse(await this.answer("Update", message, { method: "Update", urn, id, preview }));
  }

  async delete(id: string, urn: string, props: PropertyMap, oldInputs?: PropertyMap): Promise<void> {
    await this.ensureConfigured();
    const message = deleteRequest(id, urn, this.wire(props, false), this.wire(oldInputs ?? {}, false));
    await this.answer("Delete", message, { method: "Delete", urn, id });
  }

  async kill(): Promise<void> {
    if (!this.hasExited) this.child.kill("SIGKILL");
    await this.exitPromise;
    this.channel?.close();
  }

  async close(): Promise<void> {
    this.channel?.close();
    if (!this.hasExited) this.child.kill("SIGTERM");
    const timer = setTimeout(() => {
      if (!this.hasExited) this.child.kill("SIGKILL");
    }, 5000);
    await this.exitPromise;
    clearTimeout(timer);
  }
}

function toProviderError(method: string, err: GrpcCallError): ProviderError {
  // The host sends the provider's message as the status details.
  const message = err.details || err.message;
  let initFailed: ProviderError["initFailed"];
  if (err.statusDetails && err.statusDetails.length > 0) {
    try {
      const status = statusproto.Status.deserializeBinary(new Uint8Array(err.statusDetails));
      for (const any of status.getDetailsList()) {
        if (any.getTypeName() === "pulumirpc.ErrorResourceInitFailed") {
          const d = provproto.ErrorResourceInitFailed.deserializeBinary(any.getValue_asU8());
          initFailed = { id: d.getId(), properties: fromStruct(d.getProperties()), reasons: d.getReasonsList() };
        }
      }
    } catch {
      /* ignore malformed details */
    }
  }
  return new ProviderError(message, err.code, method, initFailed);
}

const liveChildren = new Set<ChildProcess>();
let exitHookInstalled = false;

/** Spawns the dynamic-provider host exactly as the engine does and connects a gRPC client to it. */
export async function startProviderHost(opts: ProviderHostOptions = {}): Promise<ProviderHost> {
  const cwd = opts.cwd ?? mainDirectory();
  const project = opts.project ?? readProjectName();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PULUMI_NODEJS_PROJECT: project,
    PULUMI_PROJECT: project,
    ...(opts.env ?? {}),
  };
  // The engine's address is only used by the host for logging; any address will do.
  const engineAddress = `127.0.0.1:${20000 + Math.floor(Math.random() * 40000)}`;
  const child = spawn(process.execPath, [...(opts.nodeArgs ?? []), hostScript(cwd), engineAddress], {
    cwd,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  // Like the engine, never leave plugin processes behind when we exit.
  liveChildren.add(child);
  child.once("exit", () => liveChildren.delete(child));
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once("exit", () => liveChildren.forEach((c) => c.kill("SIGKILL")));
  }
  const host = new Host(child, project);
  try {
    await host.start(opts.startTimeoutMs ?? 30000);
    if (opts.config) await host.configure(opts.config, opts.secretKeys);
  } catch (e) {
    await host.kill().catch(() => undefined);
    throw e;
  }
  return host;
}

/** Plaintext view of a property map (for assertions). */
export function plain(m: PropertyMap): PropertyMap {
  return unwrapSecrets(m) as PropertyMap;
}
