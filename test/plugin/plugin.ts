/**
 * TEST CODE — the engine's side of the conversation with the `backupportal` plugin process, as the engine
 * drives a resource plugin (sdk/go/common/resource/plugin/plugin.go: launch the executable, read the port
 * from the first line of stdout; provider_plugin.go: CheckConfig → DiffConfig → Configure with the provider's
 * inputs, secrets wrapped when the plugin accepts them, unknowns only in preview calls). Reuses the stand-in's
 * wire layer (test/engine/grpc-unary.ts, messages.ts, values.ts): the messages go on the wire as the Go engine
 * writes them.
 */
import { ChildProcess, spawn } from "child_process";
import * as os from "os";
import * as path from "path";
import * as emptyproto from "google-protobuf/google/protobuf/empty_pb";
import * as provrpc from "@pulumi/pulumi/proto/provider_grpc_pb";
import * as provproto from "@pulumi/pulumi/proto/provider_pb";
import * as plugproto from "@pulumi/pulumi/proto/plugin_pb";
import { GrpcCallError, UnaryChannel } from "../engine/grpc-unary";
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
} from "../engine/messages";
import { PropertyMap, toWireMap } from "../engine/values";

export const PLUGIN = path.resolve(__dirname, "..", "..", "bin", "pulumi-resource-backupportal");
const SERVICE = provrpc.ResourceProviderService as unknown as Record<string, { path: string }>;

export const urnOf = (type: string, name: string, project = "yaml-tenants", stack = "test") =>
  `urn:pulumi:${stack}::${project}::backupportal:index:${type}::${name}`;

export interface Diff {
  changes: "none" | "some" | "unknown";
  replaces: string[];
  diffs: string[];
  detailed: Record<string, "update" | "replace" | "other">;
  deleteBeforeReplace: boolean;
}

const wire = (m: PropertyMap, preview = false) => toWireMap(m, { keepUnknowns: preview, keepSecrets: true });

export class Plugin {
  private output = "";
  private channel!: UnaryChannel;
  private exited: Promise<void>;

  private constructor(private readonly child: ChildProcess) {
    this.exited = new Promise((resolve) => child.once("exit", () => resolve()));
    child.stdout!.setEncoding("utf8");
    child.stderr!.setEncoding("utf8");
    child.stdout!.on("data", (d: string) => (this.output += d));
    child.stderr!.on("data", (d: string) => (this.output += d));
  }

  /** Launches the plugin as the engine does (the executable, in another folder) and waits for its port line. */
  static async start(env: Record<string, string> = {}, timeoutMs = 60_000, executable = PLUGIN): Promise<Plugin> {
    // No BACKUP_PORTAL_* from the test's environment: the provider's configuration is what is tested.
    const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("BACKUP_PORTAL_"))) as Record<string, string>;
    const child = spawn(executable, [], { cwd: os.tmpdir(), env: { ...base, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    const p = new Plugin(child);
    const port = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no port within ${timeoutMs}ms; output:\n${p.output}`)), timeoutMs);
      const onData = () => {
        const m = /^(\d+)\n/.exec(p.output);
        if (m) {
          clearTimeout(timer);
          resolve(Number(m[1]));
        }
      };
      child.stdout!.on("data", onData);
      child.once("exit", (code) => {
        clearTimeout(timer);
        reject(new Error(`plugin exited (${code}) before printing its port:\n${p.output}`));
      });
    });
    p.channel = new UnaryChannel(`127.0.0.1:${port}`);
    return p;
  }

  logs(): string {
    return this.output;
  }

  get pid(): number {
    return this.child.pid ?? -1;
  }

  call(method: string, message: Uint8Array): Promise<Buffer> {
    return this.channel.call(SERVICE[method.charAt(0).toLowerCase() + method.slice(1)].path, message);
  }

  async version(): Promise<string> {
    return plugproto.PluginInfo.deserializeBinary(await this.call("GetPluginInfo", new emptyproto.Empty().serializeBinary())).getVersion();
  }

  async schema(): Promise<Record<string, any>> {
    const resp = provproto.GetSchemaResponse.deserializeBinary(
      await this.call("GetSchema", new provproto.GetSchemaRequest().serializeBinary()),
    );
    return JSON.parse(resp.getSchema());
  }

  /** CheckConfig of the default provider's inputs (keys without namespace, as the engine sends a provider's inputs). */
  async checkConfig(news: PropertyMap) {
    return checkResponse(
      await this.call("CheckConfig", checkRequest("urn:pulumi:test::yaml-tenants::pulumi:providers:backupportal::default", {}, wire(news))),
    );
  }

  async diffConfig(olds: PropertyMap, news: PropertyMap): Promise<Diff> {
    const urn = "urn:pulumi:test::yaml-tenants::pulumi:providers:backupportal::default";
    return diffOf(await this.call("DiffConfig", diffRequest("id", urn, wire(olds), wire(news), wire(olds))));
  }

  /** Configure as the engine sends it: the provider's inputs as args; `variables` as older engines also send them. */
  async configure(
    args: PropertyMap,
    opts: { variables?: Record<string, string>; acceptSecrets?: boolean } = {},
  ): Promise<{ acceptSecrets: boolean; supportsPreview: boolean }> {
    const resp = provproto.ConfigureResponse.deserializeBinary(
      await this.call("Configure", configureRequest(wire(args), opts.variables ?? {}, opts.acceptSecrets)),
    );
    return { acceptSecrets: resp.getAcceptsecrets(), supportsPreview: resp.getSupportspreview() };
  }

  async check(urn: string, olds: PropertyMap, news: PropertyMap, preview = false) {
    return checkResponse(await this.call("Check", checkRequest(urn, wire(olds, preview), wire(news, preview))));
  }

  /** `oldInputs`: the resource's inputs in state, which the engine sends beside its outputs (`olds`). */
  async diff(id: string, urn: string, olds: PropertyMap, news: PropertyMap, preview = false, oldInputs: PropertyMap = {}): Promise<Diff> {
    return diffOf(await this.call("Diff", diffRequest(id, urn, wire(olds, preview), wire(news, preview), wire(oldInputs))));
  }

  async create(urn: string, props: PropertyMap, preview = false) {
    return createResponse(await this.call("Create", createRequest(urn, wire(props, preview), preview)));
  }

  async read(id: string, urn: string, props: PropertyMap, inputs?: PropertyMap) {
    return readResponse(await this.call("Read", readRequest(id, urn, wire(props), inputs && wire(inputs))));
  }

  async update(id: string, urn: string, olds: PropertyMap, news: PropertyMap, preview = false, oldInputs: PropertyMap = {}) {
    return updateResponse(await this.call("Update", updateRequest(id, urn, wire(olds), wire(news, preview), wire(oldInputs), preview)));
  }

  async delete(id: string, urn: string, props: PropertyMap, oldInputs: PropertyMap = {}): Promise<void> {
    await this.call("Delete", deleteRequest(id, urn, wire(props), wire(oldInputs)));
  }

  async close(): Promise<void> {
    this.channel?.close();
    this.child.kill("SIGTERM");
    const timer = setTimeout(() => this.child.kill("SIGKILL"), 5000);
    await this.exited;
    clearTimeout(timer);
  }
}

function diffOf(bytes: Buffer): Diff {
  const resp = provproto.DiffResponse.deserializeBinary(bytes);
  const C = provproto.DiffResponse.DiffChanges;
  const K = provproto.PropertyDiff.Kind;
  const detailed: Diff["detailed"] = {};
  resp.getDetaileddiffMap().forEach((d: provproto.PropertyDiff, k: string) => {
    detailed[k] = d.getKind() === K.UPDATE_REPLACE ? "replace" : d.getKind() === K.UPDATE ? "update" : "other";
  });
  return {
    changes: resp.getChanges() === C.DIFF_SOME ? "some" : resp.getChanges() === C.DIFF_NONE ? "none" : "unknown",
    replaces: resp.getReplacesList(),
    diffs: resp.getDiffsList(),
    detailed,
    deleteBeforeReplace: resp.getDeletebeforereplace(),
  };
}

export { GrpcCallError };
