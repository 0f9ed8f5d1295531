/**
 * TEST CODE — what every resource monitor stand-in serves the program besides registrations: the engine
 * service (the program's log messages and the root resource, as pkg/resource/provider/host_server.go serves
 * them), the stack's outputs as the program registers them, URNs qualified by their parent's type
 * (sdk/go/common/resource/urn.go NewURN), and the gRPC server on loopback both are served on. Used by the preview
 * monitor (test/stacks/cli.ts) and the plugin monitor (plugin-monitor.ts).
 */
import * as path from "node:path";

/** The grpc-js and protobuf runtime the SDK's generated services are built on (not direct dependencies). */
const sdkDir = path.dirname(require.resolve("@pulumi/pulumi/package.json"));
export const fromSdk = (id: string) => require(require.resolve(id, { paths: [sdkDir] }));
export const grpc = fromSdk("@grpc/grpc-js");
const enginerpc = require("@pulumi/pulumi/proto/engine_grpc_pb");
const engineproto = require("@pulumi/pulumi/proto/engine_pb");
const { Empty } = fromSdk("google-protobuf/google/protobuf/empty_pb");

export interface ProgramSide {
  /** Messages the program logged through the engine, `SEVERITY: text`. */
  logs: string[];
  readonly stackOutputs: Record<string, unknown> | undefined;
  /** The URN of `type` named `name` under `parent` (the parent's type qualifies it, except the Stack's). */
  urnOf(type: string, name: string, parent: string): string;
  /** The monitor's registerResourceOutputs: the root resource's outputs are the stack's. */
  registerResourceOutputs(call: any, cb: any): void;
  /** Adds the engine service to `server`, binds it on 127.0.0.1 and answers its address. */
  serve(server: any): Promise<string>;
}

export function programSide(project: string, stack: string): ProgramSide {
  const logs: string[] = [];
  const qualifiedTypes = new Map<string, string>();
  let rootResource = "";
  let stackOutputs: Record<string, unknown> | undefined;
  return {
    logs,
    get stackOutputs() {
      return stackOutputs;
    },
    urnOf(type, name, parent) {
      const parentType = parent ? qualifiedTypes.get(parent) : undefined;
      const qualified = parentType && parentType !== "pulumi:pulumi:Stack" ? `${parentType}$${type}` : type;
      const urn = `urn:pulumi:${stack}::${project}::${qualified}::${name}`;
      qualifiedTypes.set(urn, qualified);
      return urn;
    },
    registerResourceOutputs(call, cb) {
      if (call.request.getUrn() === rootResource) stackOutputs = call.request.getOutputs()?.toJavaScript();
      cb(null, new Empty());
    },
    async serve(server) {
      server.addService(enginerpc.EngineService, {
        log(call: any, cb: any) {
          const severity = ["DEBUG", "INFO", "WARNING", "ERROR"][call.request.getSeverity()] ?? "?";
          logs.push(`${severity}: ${call.request.getMessage()}`);
          cb(null, new Empty());
        },
        getRootResource(_call: any, cb: any) {
          const resp = new engineproto.GetRootResourceResponse();
          resp.setUrn(rootResource);
          cb(null, resp);
        },
        setRootResource(call: any, cb: any) {
          rootResource = call.request.getUrn();
          cb(null, new engineproto.SetRootResourceResponse());
        },
      });
      const port = await new Promise<number>((resolve, reject) =>
        server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err: Error | null, p: number) =>
          err ? reject(err) : resolve(p),
        ),
      );
      return `127.0.0.1:${port}`;
    },
  };
}
