// What the engine stores as each resource's provider (`__provider`), and the
// provider object the host runs.
//
// The dynamic-provider host loads `__provider` with require-from-string and
// calls its `exports.handler()` for the provider object (@pulumi/pulumi,
// cmd/dynamic-provider). Ours is one line that `require`s the resource's own
// module by its specifier (specifier.ts) and takes the provider object that
// module exports: about 100 bytes instead of the 2.6 KB the SDK's closure
// serializer writes for an object of seven methods, and stored twice per
// resource (inputs and outputs). It holds no credential, token or absolute path.
//
// State written by 0.2.0 and earlier holds the serializer's text, which
// `require`s the same module and calls its `configurePortal` and
// `<type>Lifecycle` exports (test/dynamic/fixtures/provider-0.2.0/). The engine
// runs the stored text for read and delete, and keeps it in outputs while a
// diff finds no change, so those exports, and the `<type>Provider` ones the
// current text names, are a contract with every stack's state: never rename them.
import type * as pulumi from "@pulumi/pulumi";
import { configure } from "./connection";
import { printableError } from "../text/controls";

export interface Lifecycle {
  check(olds: any, news: any): Promise<pulumi.dynamic.CheckResult>;
  diff(id: string, olds: any, news: any): Promise<pulumi.dynamic.DiffResult>;
  create(inputs: any): Promise<pulumi.dynamic.CreateResult>;
  read(id: string, props: any): Promise<pulumi.dynamic.ReadResult>;
  update(id: string, olds: any, news: any): Promise<pulumi.dynamic.UpdateResult>;
  delete(id: string, props: any): Promise<void>;
}

/** A lifecycle call whose error, which may quote a tenant's text, reaches the engine printable (text/controls.ts). */
const shown = <T>(call: Promise<T>): Promise<T> => call.catch((e) => Promise.reject(printableError(e)));

/**
 * The provider object the host runs for one resource type: `configure` hands the stack config to the host's
 * one portal connection (synchronously: the host caches the provider before its configure settles), and each
 * method is the lifecycle's own.
 */
export function hostProvider(lifecycle: Lifecycle): pulumi.dynamic.ResourceProvider {
  // With BACKUPPORTAL_TRACE_FILE set, each call is also appended to that file, secrets masked (plugin/trace.ts,
  // the conformance test). Looked up at the first call: the plugin's modules load every resource's, this one too.
  let chosen: Lifecycle | undefined;
  const l = (): Lifecycle =>
    (chosen ??= process.env.BACKUPPORTAL_TRACE_FILE ? require("../plugin/trace").tracedLifecycle(lifecycle) : lifecycle);
  return {
    async configure(req: pulumi.dynamic.ConfigureRequest) {
      configure(req.config);
    },
    check: (olds, news) => shown(l().check(olds, news)),
    diff: (id, olds, news) => shown(l().diff(id, olds, news)),
    create: (inputs) => shown(l().create(inputs)),
    read: (id, props) => shown(l().read(id, props)),
    update: (id, olds, news) => shown(l().update(id, olds, news)),
    delete: (id, props) => shown(l().delete(id, props)),
  };
}

/**
 * The `__provider` text for the provider object `exportName` of the module at `specifier`: a module whose
 * `handler` returns it. `require` is the loaded text's own, which resolves from the host's working directory
 * (the program's folder), as the specifier expects.
 */
export function serializedProvider(specifier: string, exportName: string): string {
  if (!/^[A-Za-z_$][\w$]*$/.test(exportName)) throw new Error(`not an export name: ${exportName}`);
  return `exports.handler=()=>require(${JSON.stringify(specifier)}).${exportName}`;
}
