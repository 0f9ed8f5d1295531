/**
 * TEST CODE — runs a real Pulumi program under `pulumi.runtime.setMocks`, forwarding every dynamic
 * resource (type `pulumi-nodejs:dynamic:Resource` or `pulumi-nodejs:dynamic/<module>:<Type>`) to the
 * engine stand-in (engine.ts), which drives the real dynamic-provider host. So `__provider` is
 * serialized by the SDK itself, and the program's outputs see the ids/outputs the provider returned.
 *
 * - `up` runs the program twice, as `pulumi up` does: a preview deployment, then the update deployment,
 *   each with its own host (unless `skipPreview`, `pulumi up --skip-preview`). `refresh` refreshes first
 *   (for a preview, in memory: `pulumi preview --refresh`).
 * - newResource for a dynamic resource runs Check+Diff+Create/Update/replace (up) or Check+Diff only
 *   (preview: outputs = checked inputs, unknown id) immediately and returns `{ id, state: outputs }`.
 * - A dynamic resource with `opts.id` (`get`) is read (Read with its `__provider`), never created; one with
 *   `import` fails as the real host does (it is sent Read without `__provider`).
 * - Inputs from the mock monitor keep secrets wrapped and unknowns as `pulumi.unknown`; they are kept
 *   wrapped in engine state (so outputs with the same key come back secret) and sent as plaintext.
 * - Dependencies and the options the engine applies (deleteBeforeReplace, additionalSecretOutputs, protect,
 *   retainOnDelete, ignoreChanges, replaceOnChanges, aliases, import) are read from the RegisterResource
 *   request (the mock API does not pass them), by wrapping the mock monitor's registerResource.
 * - Non-dynamic resources get id `<name>_id` and their inputs as state (not recorded in engine state).
 * - After the program and all registrations settle, resources in state that the program did not
 *   register are deleted (like `pulumi up`), unless something failed.
 */
import * as pulumi from "@pulumi/pulumi";
import { Deployment, Step, TestEngine, UpdateError } from "./engine";
import { normalizeSdkValue, PropertyMap, UNKNOWN } from "./values";

// Internal SDK module (stable for years): getMonitor()/waitForRPCs() of the mock runtime.

const settings = require("@pulumi/pulumi/runtime/settings") as {
  getMonitor(): unknown;
  waitForRPCs(): Promise<void>;
};

interface AliasLike {
  getUrn(): string;
  hasSpec(): boolean;
  getSpec():
    | { getName(): string; getType(): string; getStack(): string; getProject(): string; getParenturn(): string; getNoparent(): boolean }
    | undefined;
}
interface RegisterReqLike {
  getType(): string;
  getName(): string;
  getParent(): string;
  getDependenciesList(): string[];
  getDeletebeforereplace(): boolean;
  getDeletebeforereplacedefined(): boolean;
  getAdditionalsecretoutputsList(): string[];
  getProtect(): boolean;
  getRetainondelete(): boolean;
  getIgnorechangesList(): string[];
  getReplaceonchangesList(): string[];
  getAliasesList(): AliasLike[];
  getAliasurnsList(): string[];
  getImportid(): string;
}
interface ReadReqLike {
  getParent(): string;
  getDependenciesList(): string[];
  getAdditionalsecretoutputsList(): string[];
}

export interface RunProgramOptions {
  /** Run as `pulumi preview`: only Check/Diff reach the host. */
  preview?: boolean;
  /** `--refresh`: refresh before (in memory for a preview). */
  refresh?: boolean;
  /** `pulumi up --skip-preview`: no preview deployment before the update. */
  skipPreview?: boolean;
  /** Defaults: the engine's project and stack (URNs must match the engine's). */
  project?: string;
  stack?: string;
  /** Answers invokes (`mocks.call`). Default: returns {}. */
  call?: (args: pulumi.runtime.MockCallArgs) => Record<string, unknown>;
}

export interface RegisteredResource {
  urn: string;
  type: string;
  name: string;
  id: string | undefined;
  dynamic: boolean;
}

export interface ProgramRunResult<T> {
  steps: Step[];
  registered: RegisteredResource[];
  /** What the program function returned. */
  result: T;
}

export function isDynamicType(type: string): boolean {
  return (
    type === "pulumi-nodejs:dynamic:Resource" || type.startsWith("pulumi-nodejs:dynamic/") || type.startsWith("pulumi-nodejs:dynamic:")
  );
}

/** The URNs a registration's aliases name (the engine's alias resolution, for specs with a name, type or parent). */
function aliasUrns(engine: TestEngine, req: RegisterReqLike): string[] {
  const urns = [...req.getAliasurnsList()];
  for (const a of req.getAliasesList()) {
    if (a.getUrn()) urns.push(a.getUrn());
    const spec = a.hasSpec() ? a.getSpec() : undefined;
    if (!spec) continue;
    if ((spec.getStack() && spec.getStack() !== engine.stack) || (spec.getProject() && spec.getProject() !== engine.project)) {
      throw new Error("aliases into another stack or project are not modelled by the engine stand-in");
    }
    const parent = spec.getNoparent() ? undefined : spec.getParenturn() || req.getParent() || undefined;
    urns.push(engine.urn(spec.getType() || req.getType(), spec.getName() || req.getName(), parent));
  }
  return urns;
}

/** `pulumi up` (a preview deployment, then the update), `pulumi preview`, each optionally `--refresh`. */
export async function runProgramWithEngine<T>(
  program: () => Promise<T> | T,
  engine: TestEngine,
  opts: RunProgramOptions = {},
): Promise<ProgramRunResult<T>> {
  if (opts.preview) {
    const once = () => runDeployment(program, engine, opts, true);
    return opts.refresh ? engine.withRefreshedState(once) : once();
  }
  if (opts.refresh) await engine.refresh();
  if (!opts.skipPreview) await runDeployment(program, engine, opts, true);
  return runDeployment(program, engine, opts, false);
}

/** One deployment: the program runs once under the mocks, its registrations go to the engine. */
async function runDeployment<T>(
  program: () => Promise<T> | T,
  engine: TestEngine,
  opts: RunProgramOptions,
  preview: boolean,
): Promise<ProgramRunResult<T>> {
  const project = opts.project ?? engine.project;
  const stack = opts.stack ?? engine.stack;
  if (project !== engine.project || stack !== engine.stack) {
    throw new Error(`project/stack (${project}/${stack}) must match the engine's (${engine.project}/${engine.stack}) for URNs to line up`);
  }
  const deployment: Deployment = await engine.beginDeployment(preview);
  const registered: RegisteredResource[] = [];
  const pending = new Set<Promise<unknown>>();
  let currentReq: RegisterReqLike | undefined;
  let currentRead: ReadReqLike | undefined;

  const mocks: pulumi.runtime.Mocks = {
    call: (args) => (opts.call ? opts.call(args) : {}),
    newResource: (args: pulumi.runtime.MockResourceArgs) => {
      const req = currentReq;
      const read = currentRead;
      currentReq = undefined;
      currentRead = undefined;
      const parent = (read ?? req)?.getParent() || undefined;
      if (!isDynamicType(args.type)) {
        const id = args.id || `${args.name}_id`;
        registered.push({ urn: engine.urn(args.type, args.name, parent), type: args.type, name: args.name, id, dynamic: false });
        return { id, state: args.inputs };
      }
      const urn = engine.urn(args.type, args.name, parent);
      const p = deployment
        .register({
          urn,
          type: args.type,
          name: args.name,
          inputs: normalizeSdkValue(args.inputs) as PropertyMap,
          dependencies: (read ?? req)?.getDependenciesList() ?? [],
          additionalSecretOutputs: (read ?? req)?.getAdditionalsecretoutputsList(),
          // A read (`get`) carries its id; a registration's `id` is its import id.
          id: read ? args.id : undefined,
          ...(req && {
            deleteBeforeReplace: req.getDeletebeforereplacedefined() ? req.getDeletebeforereplace() : undefined,
            protect: req.getProtect(),
            retainOnDelete: req.getRetainondelete(),
            ignoreChanges: req.getIgnorechangesList(),
            replaceOnChanges: req.getReplaceonchangesList(),
            aliasUrns: aliasUrns(engine, req),
            importId: req.getImportid() || undefined,
          }),
        })
        .then((res) => {
          const id = res.id === UNKNOWN ? undefined : res.id;
          registered.push({ urn, type: args.type, name: args.name, id, dynamic: true });
          return { id, state: res.outputs };
        });
      pending.add(p);
      p.catch(() => undefined).finally(() => pending.delete(p));
      return p;
    },
  };

  await pulumi.runtime.setMocks(mocks, project, stack, preview);
  const monitor = settings.getMonitor() as {
    registerResource: (req: RegisterReqLike, cb: unknown) => unknown;
    readResource: (req: ReadReqLike, cb: unknown) => unknown;
  };
  const original = monitor.registerResource.bind(monitor);
  const originalRead = monitor.readResource.bind(monitor);
  // MockMonitor.registerResource/readResource call mocks.newResource synchronously: hand it the request.
  monitor.registerResource = (req: RegisterReqLike, cb: unknown) => {
    currentReq = req;
    return original(req, cb);
  };
  monitor.readResource = (req: ReadReqLike, cb: unknown) => {
    currentRead = req;
    return originalRead(req, cb);
  };

  let result: T | undefined;
  let programError: unknown;
  try {
    result = await program();
  } catch (e) {
    programError = e;
  }
  // Wait until the SDK has no outstanding registrations and our engine calls are done.
  for (;;) {
    await settings.waitForRPCs().catch(() => undefined);
    if (pending.size === 0) {
      await new Promise((r) => setImmediate(r));
      if (pending.size === 0) break;
    }
    await Promise.allSettled([...pending]);
  }

  if (programError !== undefined) {
    // The engine does not delete anything when the program fails.
    deployment.fail(`urn:pulumi:${stack}::${project}::pulumi:pulumi:Stack::${project}-${stack}`, "program", programError);
  }
  try {
    const steps = await deployment.finish();
    return { steps, registered, result: result as T };
  } catch (e) {
    if (e instanceof UpdateError && programError !== undefined && e.failures.length === 1) throw programError;
    throw e;
  }
}
