/**
 * TEST CODE — a small stand-in for the Pulumi engine (the CLI cannot be installed here), driving the
 * real Node.js dynamic-provider host through host.ts the way the engine's step generator/executor does
 * (pulumi/pulumi pkg/resource/deploy/step_generator.go and step.go; the file named per rule below):
 *
 *  hosts    One fresh host per deployment (a plugin lives as long as its deployment's registry,
 *           deploy/providers/registry.go): `up` is a preview deployment and then an update deployment,
 *           each with its own host, so Check and Diff run twice and nothing in memory survives.
 *           Working directory: the project's `main` folder (pkg/engine/project.go, getPwdMain).
 *  config   preview and up configure the host with the current stack config, and record it in state as
 *           the default provider's inputs; refresh and destroy configure it with the config in state.
 *  preview  Check(urn, olds = old inputs | {}, news) and, for existing resources,
 *           Diff(id, olds = old OUTPUTS, news, oldInputs). Never Create/Update/Delete to the Node.js host: it
 *           does not claim preview support, so the engine fakes them (outputs = checked inputs, ids unknown);
 *           a provider that claims it (the plugin) gets Create/Update with `preview` for a create, a
 *           replacement and an update, and their answers are the planned outputs. Never Delete.
 *  order    Check and Diff run for one resource at a time, in the order resources are registered (the
 *           engine's step generator is serial); Create/Update/Delete chains then run `parallel` at once.
 *  up       Check, Diff, then Create / Update(id, old outputs, news) / replace / same. A replacement is
 *           re-Checked with empty olds, then create-before-delete (old one kept as `delete: true` and
 *           deleted at the end) unless Diff says deleteBeforeReplace; the resource option, when set,
 *           overrides Diff's answer both ways. A delete-before-replace keeps the deleted object in state as
 *           `pendingReplacement` until its replacement exists: the next up diffs it again and creates.
 *           Diff "unknown" (provider without diff) → engine compares old inputs with new inputs.
 *           Same → state keeps old outputs (and therefore the old `__provider` in outputs).
 *           Resources no longer declared are deleted in reverse dependency order, only if nothing failed.
 *  options  (step_generator.go) aliases: old state adopted under the new URN, no create or delete;
 *           ignoreChanges: the old values put back into the news before Check; replaceOnChanges: applied to
 *           the changed keys of the diff, which the Node.js host never reports (only the engine's own diff
 *           of a provider without diff has them); protect: a replacement or a delete fails the run;
 *           (step.go, DeleteStep) retainOnDelete and external (`get`) resources: no Delete is sent.
 *  get      A resource with an id (`opts.id`) is read: Read(id, props = inputs with `__provider`), during
 *           preview too; it is external, never created, updated or deleted (step_generator.go, ReadStep).
 *  refresh  (step.go, RefreshStep) Read(id, props = outputs, inputs); empty id → gone; returned inputs
 *           replace stored inputs; then the provider's Diff(id, olds = refreshed outputs, news = old
 *           inputs, oldInputs = refreshed inputs), shown inverted. A Read or Diff that throws fails that
 *           resource only; the others are refreshed. Also the first part of `preview --refresh` (in memory).
 *  destroy  Delete(id, outputs) with the `__provider` stored in state, reverse dependency order.
 *  --run-program  refresh and destroy run the program: the current stack config is used (refresh.go, destroy.go).
 *  import   NOT SUPPORTED, like the real thing: the engine's import sends Read(id) with no properties,
 *           so the host has no `__provider` to load and fails (pulumi#3550, #7534, #16175).
 *
 * Secrets: inputs may contain `secret(x)` values; the host gets plaintext (acceptSecrets=false); results
 * are re-marked with the engine's annotateSecrets (+ additionalSecretOutputs). `stateJson()` renders
 * secrets as ciphertext placeholders, as a checkpoint would.
 * On failure: failures are recorded, nothing new starts, in-flight steps finish, state keeps what
 * succeeded (+ `pendingOperations` for calls that never answered), and the promise rejects (UpdateError).
 * pending  (deployment_executor.go, pkg/backend/snapshot.go, refresh.go) A crash's pending operations: an up or
 *          destroy warns with the engine's text; interrupted updates/deletes leave the state, interrupted creates
 *          stay until `refresh --clear-pending-creates`.
 * Not modelled: targets, replacing dependents of a delete-before-replace resource, component resources,
 * explicit providers, replaceOnChanges paths into arrays.
 */
import * as fs from "fs";
import * as pulumi from "@pulumi/pulumi";
import { mainDirectory, ProviderError, ProviderHost, readProjectName, PROJECT_ROOT, startProviderHost } from "./host";
import { parsePropertyPath, resetPath } from "./property-path";
import { annotateSecrets, changedKeys, deepEqual, isSecret, PropertyMap, redactSecrets, secret, UNKNOWN } from "./values";

export { secret, UNKNOWN } from "./values";

export interface Ref {
  $ref: string;
  /** Output key of the referenced resource; "id" and "urn" are special. Default "id". */
  prop?: string;
}
/** An input value resolved from another resource's output (an implicit dependency). */
export function ref(name: string, prop = "id"): Ref {
  return { $ref: name, prop };
}

export interface DesiredResource {
  name: string;
  type: string;
  /**
   * A dynamic provider object, serialized like the SDK's `dynamic.Resource` does into `__provider`; or the
   * `__provider` text itself, as this product's resource classes pass it (provider/dynamic/resource.ts).
   * Absent for a resource of a provider plugin (`startHost`), which carries no `__provider`.
   */
  provider?: object | string;
  inputs: Record<string, unknown>;
  dependsOn?: string[];
  /** The resource option: when set, it overrides Diff's deleteBeforeReplace either way. */
  deleteBeforeReplace?: boolean;
  additionalSecretOutputs?: string[];
  protect?: boolean;
  retainOnDelete?: boolean;
  ignoreChanges?: string[];
  replaceOnChanges?: string[];
  /** Earlier names of this resource (same type): old state under them is adopted. */
  aliases?: string[];
  /** `get`: read the object with this id instead of managing it. */
  id?: string;
}

export interface StateResource {
  urn: string;
  type: string;
  name: string;
  id: string;
  inputs: PropertyMap;
  outputs: PropertyMap;
  /** URNs this resource depends on. */
  dependencies: string[];
  /** A replaced resource awaiting deletion. */
  delete?: boolean;
  /** Why a create or update left it half done (ErrorResourceInitFailed); the next up updates it whatever Diff says. */
  initErrors?: string[];
  protect?: boolean;
  retainOnDelete?: boolean;
  /** Read with `get`: not managed, never deleted. */
  external?: boolean;
  /** Deleted by a delete-before-replace whose create has not succeeded yet. */
  pendingReplacement?: boolean;
}

export interface PendingOperation {
  urn: string;
  type: "creating" | "updating" | "deleting";
  id?: string;
}

export interface StateSnapshot {
  version: 1;
  project: string;
  stack: string;
  resources: StateResource[];
  pendingOperations: PendingOperation[];
  /** The default provider's inputs as of the last update: the stack config (namespaced keys, secrets wrapped). */
  providerConfig?: PropertyMap;
}

export type StepOp = "create" | "update" | "replace" | "delete" | "same" | "read";
export interface Step {
  urn: string;
  op: StepOp;
  /** Changed top-level keys (from Diff, or the engine's own input diff when the provider gives none). */
  diffs: string[];
  replaces?: string[];
  deleteBeforeReplace?: boolean;
}

export interface StepFailure {
  urn: string;
  op: string;
  message: string;
  error: unknown;
}

/** A Check with failures: the engine stops the resource there (and the real CLI prints each failure). */
export class CheckFailedError extends Error {
  constructor(public readonly failures: Array<{ property: string; reason: string }>) {
    super(`check failed: ${failures.map((f) => `${f.property}: ${f.reason}`).join("; ")}`);
    this.name = "CheckFailedError";
  }
}

export class UpdateError extends Error {
  constructor(
    public readonly failures: StepFailure[],
    public readonly steps: Step[],
  ) {
    super(`update failed: ${failures.length} error(s):\n` + failures.map((f) => `  ${f.urn} (${f.op}): ${f.message}`).join("\n"));
    this.name = "UpdateError";
  }
}

export interface TestEngineOptions {
  project?: string;
  stack?: string;
  /** Host working directory (default: the project's `main` folder, as the engine runs it). */
  cwd?: string;
  /** Extra env for the host process. */
  env?: Record<string, string>;
  /** Stack config sent with Configure (keys namespaced or bare → `<project>:key`). */
  config?: Record<string, string>;
  secretConfigKeys?: string[];
  /** Max concurrent resource operations (engine default is 4×cores; ours 16). */
  parallel?: number;
  /** Called once a deployment's host is up and configured, and just before it is stopped (bench: CPU per host). */
  onHostStarted?: (host: ProviderHost, startMs: number) => void;
  onHostStopping?: (host: ProviderHost) => void;
  /** Node options for every host process (the bench's opt-in CPU profile). */
  hostNodeArgs?: string[];
  /**
   * Starts and configures the provider of a deployment instead of the dynamic-provider host: a provider plugin
   * behind the same interface (test/plugin/plugin-host.ts). Gets the stack config (plain values, secret keys).
   */
  startHost?: (config: Record<string, string>, secretKeys: string[], project: string) => Promise<ProviderHost>;
  /** If set, the state is written here (exportState JSON) after every change, like a checkpoint. */
  stateFile?: string;
}

export interface UpResult {
  steps: Step[];
  /** name → outputs (secrets wrapped) of the resources declared in this run. */
  outputs: Record<string, PropertyMap>;
  /** name → id */
  ids: Record<string, string>;
}

export interface RegisterRequest {
  urn: string;
  type: string;
  name: string;
  /** Resolved inputs including `__provider`; may hold secret wrappers and (preview) UNKNOWN. */
  inputs: PropertyMap;
  dependencies: string[];
  deleteBeforeReplace?: boolean;
  additionalSecretOutputs?: string[];
  protect?: boolean;
  retainOnDelete?: boolean;
  ignoreChanges?: string[];
  replaceOnChanges?: string[];
  /** URNs this resource had before (aliases). */
  aliasUrns?: string[];
  /** `get`: the id to read. */
  id?: string;
  /** `import`: the id to import (refused). */
  importId?: string;
}
export interface RegisterResult {
  urn: string;
  /** UNKNOWN during preview for resources that would be created/replaced. */
  id: string;
  outputs: PropertyMap;
  op: StepOp;
}

class SkippedError extends Error {
  constructor(urn: string) {
    super(`${urn}: not started because an earlier step failed`);
  }
}

class Semaphore {
  private waiters: Array<() => void> = [];
  private active = 0;
  constructor(private readonly limit: number) {}
  async acquire(): Promise<void> {
    if (this.active < this.limit) {
      this.active++;
      return;
    }
    await new Promise<void>((resolve) => this.waiters.push(resolve));
    this.active++;
  }
  release(): void {
    this.active--;
    const next = this.waiters.shift();
    if (next) next();
  }
}

interface GraphNode {
  key: string;
  deps: string[];
  run: () => Promise<void>;
}

/** Runs nodes as their deps complete, at most `limit` at once; after the first failure starts nothing new. */
function runGraph(nodes: GraphNode[], limit: number): Promise<{ errors: Map<string, unknown>; notStarted: string[] }> {
  const index = new Map(nodes.map((n, i) => [n.key, i]));
  for (const n of nodes) {
    for (const d of n.deps) if (!index.has(d)) throw new Error(`${n.key} depends on unknown ${d}`);
  }
  // Per node, its dependencies not yet done and the nodes that wait for it: a completion looks only at
  // its own dependents (scanning every node after each completion cost O(n²) in a 450-resource run).
  const pending = nodes.map((n) => new Set(n.deps).size);
  const dependents: number[][] = nodes.map(() => []);
  nodes.forEach((n, i) => new Set(n.deps).forEach((d) => dependents[index.get(d)!].push(i)));
  // Ready nodes start in declaration order.
  const ready: number[] = [];
  const makeReady = (i: number) => {
    let at = ready.length;
    while (at > 0 && ready[at - 1] > i) at--;
    ready.splice(at, 0, i);
  };
  pending.forEach((p, i) => p === 0 && ready.push(i));
  const started = new Set<number>();
  const errors = new Map<string, unknown>();
  let running = 0;
  let stop = false;
  return new Promise((resolve) => {
    let resolved = false;
    const pump = () => {
      while (!stop && running < limit && ready.length > 0) {
        const i = ready.shift()!;
        const n = nodes[i];
        started.add(i);
        running++;
        Promise.resolve()
          .then(n.run)
          .then(
            () => dependents[i].forEach((j) => --pending[j] === 0 && makeReady(j)),
            (e) => {
              errors.set(n.key, e);
              stop = true;
            },
          )
          .finally(() => {
            running--;
            pump();
          });
      }
      if (running === 0 && !resolved) {
        resolved = true;
        const notStarted = nodes.filter((_, i) => !started.has(i)).map((n) => n.key);
        if (!stop && notStarted.length > 0) errors.set(notStarted[0], new Error(`dependency cycle among: ${notStarted.join(", ")}`));
        resolve({ errors, notStarted });
      }
    };
    pump();
  });
}

function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

function clone<T>(v: T): T {
  return JSON.parse(JSON.stringify(v)) as T;
}

/** What the step generator decided for one registration; the executor carries it out. */
type Plan =
  | { kind: "done"; result: RegisterResult }
  | { kind: "create"; inputs: PropertyMap }
  | { kind: "update"; inputs: PropertyMap; old: StateResource }
  | { kind: "replace"; inputs: PropertyMap; old: StateResource; deleteBeforeReplace: boolean };

/**
 * step.go, deleteProtectedError: a DeleteStep of a protected resource fails with it. The step executor always
 * continues past this error (step_executor.go, cancelDueToError), so every other delete still runs except the
 * resources the protected one depends on (deployment_executor.go, erroredDeps); the run fails at the end.
 */
export class DeleteProtectedError extends Error {
  constructor(readonly urn: string) {
    super(deleteProtectedMessage(urn));
    this.name = "DeleteProtectedError";
  }
}

/** deployment_executor.go, printPendingOperationsWarning: the warning an update prints for a crash's leftovers. */
export function pendingOperationsWarning(ops: PendingOperation[]): string {
  return (
    `Attempting to deploy or update resources with ${ops.length} pending operations from previous deployment.\n` +
    ops.map((o) => `  * ${o.urn}, interrupted while ${o.type}\n`).join("") +
    "These resources are in an unknown state because the Pulumi CLI was interrupted while waiting for changes to these " +
    "resources to complete. You should confirm whether or not the operations listed completed successfully by checking the " +
    "state of the appropriate provider. For example, if you are using AWS, you can confirm using the AWS Console.\n\n" +
    "Once you have confirmed the status of the interrupted operations, you can repair your stack using `pulumi refresh` " +
    "which will refresh the state from the provider you are using and clear the pending operations if there are any.\n\n" +
    "Note that `pulumi refresh` will need to be run interactively to clear pending CREATE operations."
  );
}

/** step.go, deleteProtectedError.Error(). */
export function deleteProtectedMessage(urn: string): string {
  return (
    `resource "${urn}" cannot be deleted\nbecause it is protected. To unprotect the resource, either remove the ` +
    "`protect` flag from the resource in your Pulumi program and run `pulumi up`, or use the command:\n" +
    `\`pulumi state unprotect '${urn}'\``
  );
}

/** step_generator.go: a replacement of a resource protected before and after. */
export function replaceProtectedMessage(urn: string): string {
  return (
    `unable to replace resource "${urn}"\nas it is currently marked for protection. To unprotect the resource, ` +
    "remove the `protect` flag from the resource in your Pulumi program and run `pulumi up`"
  );
}

/**
 * step_generator.go, processIgnoreChanges: each ignored path, in the engine's property-path syntax
 * (`consumers[0].name`, `tags["x"]`; property-path.ts), gets its old value back in the news, or goes if it had
 * none. A path that cannot be parsed is skipped; one into an added or removed element is left as it is and
 * reported (`invalid`), as the engine's info message does.
 */
export function applyIgnoreChanges(news: PropertyMap, olds: PropertyMap, paths: string[] = [], invalid: string[] = []): PropertyMap {
  // Nothing ignored: the news as they are (the caller only reads them); a copy only when paths change it.
  if (paths.length === 0) return news;
  const out = clone(news);
  for (const p of paths) {
    let path;
    try {
      path = parsePropertyPath(p);
    } catch {
      continue;
    }
    if (!resetPath(path, olds, out)) invalid.push(p);
  }
  return out;
}

/** step_generator.go, processIgnoreChanges: the info line for paths that reach into added or removed elements. */
export function ignoreChangesInfo(paths: string[]): string {
  return `cannot ignore changes in added or removed elements of the path: ${JSON.stringify(paths.join(", "))}`;
}

/**
 * step_generator.go, ScheduleDeletes: the condemned resources in antichains (no two depend on each other); each
 * round takes those with no condemned dependency, and the list is reversed, so dependents go first.
 */
export function scheduleDeletes(victims: StateResource[]): StateResource[][] {
  const condemned = new Set(victims);
  const urnsOf = (set: Set<StateResource>) => new Set([...set].map((r) => r.urn));
  const rounds: StateResource[][] = [];
  while (condemned.size > 0) {
    const urns = urnsOf(condemned);
    const round = [...condemned].filter((r) => !r.dependencies.some((d) => d !== r.urn && urns.has(d)));
    // A dependency cycle cannot be in a snapshot; should one be, take the rest as one round rather than loop.
    const take = round.length > 0 ? round : [...condemned];
    for (const r of take) condemned.delete(r);
    rounds.push(take.sort((a, b) => victims.indexOf(a) - victims.indexOf(b)));
  }
  return rounds.reverse();
}

/** dg.TransitiveDependenciesOf (graph/dependency_graph.go): every resource `of` depends on, directly or not. */
export function transitiveDependencies(of: StateResource, all: StateResource[]): Set<string> {
  const byUrn = new Map<string, StateResource>();
  for (const r of all) if (!r.delete) byUrn.set(r.urn, r);
  const seen = new Set<string>();
  const frontier = [...of.dependencies];
  for (let guard = 0; frontier.length > 0 && guard < 100_000; guard++) {
    const urn = frontier.pop()!;
    if (seen.has(urn)) continue;
    seen.add(urn);
    frontier.push(...(byUrn.get(urn)?.dependencies ?? []));
  }
  return seen;
}

/** step_generator.go, applyReplaceOnChanges: changed keys under a replaceOnChanges path become replace keys. */
function applyReplaceOnChanges(replaces: string[], changed: string[], replaceOnChanges: string[] = []): string[] {
  const extra = changed.filter((k) => replaceOnChanges.some((p) => p === "*" || p === k || p.startsWith(`${k}.`) || k.startsWith(`${p}.`)));
  return [...new Set([...replaces, ...extra])];
}

/**
 * One preview/up run: steps are registered one by one (by up() or by the mock monitor in mocks.ts).
 * Like the engine's deployment executor, a registration goes through two queues, both first come, first
 * served: the step generator, which calls Check and Diff for ONE resource at a time (step generation is
 * serial, pulumi#12351; parallel Diff is an opt-in since pulumi#18872), then the step executor, which runs
 * up to `parallel` chains of Create/Update/Delete at once.
 */
export class Deployment {
  readonly steps: Step[] = [];
  readonly failures: StepFailure[] = [];
  readonly registered = new Map<string, RegisterResult>();
  /** URNs whose state a registration took over through an alias. */
  private readonly aliased = new Set<string>();
  private stopped = false;
  private readonly generator = new Semaphore(1);
  private readonly executor: Semaphore;

  constructor(
    private readonly engine: TestEngine,
    readonly host: ProviderHost,
    readonly preview: boolean,
    private readonly releaseHost: () => Promise<void>,
  ) {
    this.executor = new Semaphore(engine.parallel);
  }

  get failed(): boolean {
    return this.failures.length > 0;
  }

  /** Records a failure that happened outside a step (e.g. program error) and stops new steps. */
  fail(urn: string, op: string, error: unknown): void {
    this.failures.push({ urn, op, message: messageOf(error), error });
    this.stopped = true;
  }

  async register(req: RegisterRequest): Promise<RegisterResult> {
    if (this.registered.has(req.urn)) throw new Error(`Duplicate resource URN '${req.urn}'`);
    try {
      const plan = await this.exclusively(this.generator, req, () => this.generate(req));
      const result = plan.kind === "done" ? plan.result : await this.exclusively(this.executor, req, () => this.execute(req, plan));
      this.registered.set(req.urn, result);
      return result;
    } catch (e) {
      if (!(e instanceof SkippedError)) this.fail(req.urn, "register", e);
      throw e;
    }
  }

  /** Runs `work` holding one slot of `queue`; nothing new starts once the run has failed. */
  private async exclusively<T>(queue: Semaphore, req: RegisterRequest, work: () => Promise<T>): Promise<T> {
    if (this.stopped) throw new SkippedError(req.urn);
    await queue.acquire();
    try {
      if (this.stopped) throw new SkippedError(req.urn);
      return await work();
    } finally {
      queue.release();
    }
  }

  private async check(req: RegisterRequest, olds: PropertyMap, news: PropertyMap = req.inputs): Promise<PropertyMap> {
    const chk = await this.host.check(req.urn, olds, news, { preview: this.preview });
    if (chk.failures.length > 0) {
      // The failures as the provider gave them too (CheckFailedError), for a test that reads them one by one.
      throw new CheckFailedError(chk.failures);
    }
    return annotateSecrets(chk.inputs, news);
  }

  private finalizeOutputs(props: PropertyMap, inputs: PropertyMap, req: RegisterRequest): PropertyMap {
    const outs = annotateSecrets(props, inputs);
    for (const k of req.additionalSecretOutputs ?? []) if (k in outs && !isSecret(outs[k])) outs[k] = secret(outs[k]);
    return outs;
  }

  /** The state the new resource starts from: options from the registration. */
  private stateOf(req: RegisterRequest, id: string, inputs: PropertyMap, outputs: PropertyMap): StateResource {
    const r: StateResource = { urn: req.urn, type: req.type, name: req.name, id, inputs, outputs, dependencies: req.dependencies };
    if (req.protect) r.protect = true;
    if (req.retainOnDelete) r.retainOnDelete = true;
    return r;
  }

  private async create(req: RegisterRequest, inputs: PropertyMap): Promise<StateResource> {
    const e = this.engine;
    e.beginOp({ urn: req.urn, type: "creating" });
    try {
      const res = await this.host.create(req.urn, inputs);
      const created = this.stateOf(req, res.id, inputs, this.finalizeOutputs(res.properties, inputs, req));
      e.state.set(req.urn, created);
      return created;
    } catch (err) {
      // Partial failure: the object exists; the engine records it, then fails the update.
      if (err instanceof ProviderError && err.initFailed?.id) {
        e.state.set(req.urn, {
          ...this.stateOf(req, err.initFailed.id, inputs, this.finalizeOutputs(err.initFailed.properties, inputs, req)),
          initErrors: err.initFailed.reasons,
        });
      }
      throw err;
    } finally {
      e.endOp(req.urn, "creating");
    }
  }

  /** The old state of a registration: under its URN, or under one of its aliases (adopted, step_generator.go). */
  private oldState(req: RegisterRequest): StateResource | undefined {
    const e = this.engine;
    const own = e.state.get(req.urn);
    if (own) return own;
    for (const alias of req.aliasUrns ?? []) {
      const old = e.state.get(alias);
      if (!old || this.registered.has(alias) || this.aliased.has(alias)) continue;
      this.aliased.add(alias);
      const adopted = { ...old, urn: req.urn, name: req.name };
      if (!this.preview) {
        e.state.delete(alias);
        e.state.set(req.urn, adopted);
        for (const r of e.state.values()) r.dependencies = r.dependencies.map((d) => (d === alias ? req.urn : d));
        e.checkpoint();
      }
      return adopted;
    }
    return undefined;
  }

  /** `get` (step_generator.go, ReadStep): Read(id, props = inputs with `__provider`), the object stays external. */
  private async read(req: RegisterRequest): Promise<RegisterResult> {
    const id = req.id!;
    const res = await this.host.read(id, req.urn, req.inputs);
    if (!res.id) throw new Error(`resource '${id}' does not exist`);
    const outputs = this.finalizeOutputs(res.properties, req.inputs, req);
    const old = this.engine.state.get(req.urn);
    const op: StepOp = old && deepEqual(old.outputs, outputs) ? "same" : "read";
    this.steps.push({ urn: req.urn, op, diffs: [] });
    if (!this.preview) {
      this.engine.state.set(req.urn, { ...this.stateOf(req, res.id, req.inputs, outputs), external: true });
      this.engine.checkpoint();
    }
    return { urn: req.urn, id: res.id, outputs, op };
  }

  /**
   * `import`: the engine sends Read(id) with no properties, so the host has no `__provider` to run and
   * fails (pulumi#3550, #7534, #16175). Sent to the real host, whose error becomes the step's failure.
   */
  private async import(req: RegisterRequest): Promise<never> {
    try {
      await this.host.read(req.importId!, req.urn, {});
    } catch (err) {
      throw new Error(`import of ${req.urn} failed: the dynamic-provider host cannot read without __provider (${messageOf(err)})`);
    }
    throw new Error(`import of ${req.urn}: the host answered a Read without __provider, which it never does`);
  }

  /** The step generator's part: Check, Diff and the decision (a preview ends here). */
  private async generate(req: RegisterRequest): Promise<Plan> {
    const { urn } = req;
    const e = this.engine;
    const preview = this.preview;
    if (req.id) return { kind: "done", result: await this.read(req) };
    if (req.importId) return this.import(req);
    const old = this.oldState(req);
    const done = (id: string, outputs: PropertyMap, op: StepOp): Plan => ({ kind: "done", result: { urn, id, outputs, op } });

    const invalid: string[] = [];
    const news = old ? applyIgnoreChanges(req.inputs, old.inputs, req.ignoreChanges, invalid) : req.inputs;
    if (invalid.length > 0) e.infos.push(`${urn}: ${ignoreChangesInfo(invalid)}`);
    let inputs = await this.check(req, old ? old.inputs : {}, news);

    if (!old || old.external) {
      this.steps.push({ urn, op: "create", diffs: [] });
      // A provider that supports preview is asked for the outputs (step.go, CreateStep.Apply with preview), in
      // the executor's lanes; the dynamic-provider host does not, and the engine uses the inputs.
      if (preview && this.host.configured?.supportsPreview) return { kind: "create", inputs };
      return preview ? done(UNKNOWN, inputs, "create") : { kind: "create", inputs };
    }

    const diff = await this.host.diff(old.id, urn, old.outputs, inputs, old.inputs, { preview });
    let changes = diff.changes;
    // What the engine knows changed: the provider's keys (never filled by the Node.js host), or its own input diff.
    let changed = diff.diffs;
    if (changes === "unknown") {
      changed = changedKeys(old.inputs, inputs);
      changes = changed.length > 0 ? "some" : "none";
    }
    // A resource a create or update left half done is updated, whatever Diff says (step_generator.go).
    if (changes === "none" && old.initErrors?.length) changes = "some";
    const replaces = changes === "some" ? applyReplaceOnChanges(diff.replaces, changed, req.replaceOnChanges) : [];
    const diffs = changed.length > 0 ? changed : changes === "some" || old.pendingReplacement ? changedKeys(old.inputs, inputs) : [];

    if (changes === "none" && !old.pendingReplacement) {
      this.steps.push({ urn, op: "same", diffs: [] });
      if (!preview) e.state.set(urn, { ...this.stateOf(req, old.id, inputs, old.outputs), initErrors: old.initErrors });
      return done(old.id, old.outputs, "same");
    }

    if (replaces.length > 0 || old.pendingReplacement) {
      if (req.protect && old.protect) throw new Error(replaceProtectedMessage(urn));
      const deleteBeforeReplace = req.deleteBeforeReplace ?? diff.deleteBeforeReplace;
      this.steps.push({ urn, op: "replace", diffs, replaces, deleteBeforeReplace });
      // The engine re-checks a replacement with no olds (defaults/autonames are recomputed).
      inputs = await this.check(req, {});
      if (preview && !this.host.configured?.supportsPreview) return done(UNKNOWN, inputs, "replace");
      return { kind: "replace", inputs, old, deleteBeforeReplace };
    }

    this.steps.push({ urn, op: "update", diffs });
    if (preview && !this.host.configured?.supportsPreview) return done(old.id, inputs, "update");
    return { kind: "update", inputs, old };
  }

  /** The step executor's part: the provider calls that change something. */
  private async execute(req: RegisterRequest, plan: Exclude<Plan, { kind: "done" }>): Promise<RegisterResult> {
    const { urn } = req;
    const e = this.engine;
    const { inputs } = plan;
    // A preview of a provider that supports it (step.go: CreateStep, ReplaceStep and UpdateStep apply with the
    // deployment's DryRun; provider_plugin.go sends Create and Update with `preview` only to such a provider): the
    // replacement's Create and the Update are asked for the outputs they plan; nothing is deleted.
    if (this.preview && plan.kind === "update") {
      const res = await this.host.update(plan.old.id, urn, plan.old.outputs, inputs, plan.old.inputs, true);
      return { urn, id: plan.old.id, outputs: res.properties, op: "update" };
    }
    if (this.preview) {
      const res = await this.host.create(req.urn, inputs, true);
      return { urn, id: UNKNOWN, outputs: res.properties, op: plan.kind };
    }
    if (plan.kind === "create") {
      const created = await this.create(req, inputs);
      return { urn, id: created.id, outputs: created.outputs, op: "create" };
    }
    const { old } = plan;
    if (plan.kind === "replace") {
      if (old.pendingReplacement) {
        // Deleted by an earlier delete-before-replace: only the create is left to do.
        const created = await this.create(req, inputs);
        return { urn, id: created.id, outputs: created.outputs, op: "replace" };
      }
      if (plan.deleteBeforeReplace) {
        await e.deleteOne(this.host, old, true);
        // The deleted object stays in state until its replacement exists (step.go, DeleteStep).
        e.state.set(urn, { ...old, pendingReplacement: true });
        e.checkpoint();
        const created = await this.create(req, inputs);
        return { urn, id: created.id, outputs: created.outputs, op: "replace" };
      }
      // Create-before-delete: the old resource stays live until its replacement exists, then it is
      // marked `delete: true` and deleted at the end of the deployment.
      try {
        const created = await this.create(req, inputs);
        return { urn, id: created.id, outputs: created.outputs, op: "replace" };
      } finally {
        if (e.state.get(urn) !== old) {
          e.pendingDeletes.push({ ...old, delete: true });
          e.checkpoint();
        }
      }
    }
    e.beginOp({ urn, type: "updating", id: old.id });
    try {
      const res = await this.host.update(old.id, urn, old.outputs, inputs, old.inputs);
      const outputs = this.finalizeOutputs(res.properties, inputs, req);
      e.state.set(urn, this.stateOf(req, old.id, inputs, outputs));
      return { urn, id: old.id, outputs, op: "update" };
    } catch (err) {
      // Partially-failed update: the engine keeps the OLD inputs with the NEW outputs (pulumi#2011).
      if (err instanceof ProviderError && err.initFailed) {
        e.state.set(urn, {
          ...old,
          outputs: this.finalizeOutputs(err.initFailed.properties, inputs, req),
          initErrors: err.initFailed.reasons,
        });
      }
      throw err;
    } finally {
      e.endOp(urn, "updating");
    }
  }

  /**
   * Ends the run: in preview, adds delete steps; otherwise (only if nothing failed) deletes resources that
   * were not registered plus replaced ones, in reverse dependency order. Rejects with UpdateError on failures.
   */
  async finish(): Promise<Step[]> {
    try {
      const e = this.engine;
      const gone = [...e.state.values()].filter((r) => !this.registered.has(r.urn) && !this.aliased.has(r.urn));
      if (this.preview) {
        // step.go, DeleteStep: the protect check runs before the preview returns, so a preview reports every
        // protected resource it would delete, and the same steps as the update would.
        await e.runDeletes([...e.pendingDeletes, ...gone], this.steps, this.failures, async (r) => {
          if (r.protect && !r.delete) throw new DeleteProtectedError(r.urn);
        });
        if (this.failed) throw new UpdateError(this.failures, this.steps);
        return this.steps;
      }
      if (this.failed) throw new UpdateError(this.failures, this.steps);
      await e.deleteAll([...e.pendingDeletes, ...gone], this.steps, this.failures, this.host);
      if (this.failed) throw new UpdateError(this.failures, this.steps);
      return this.steps;
    } finally {
      await this.releaseHost();
    }
  }
}

export interface PreviewOptions {
  /** `pulumi preview --refresh`: refresh first, in memory, and preview against the refreshed state. */
  refresh?: boolean;
}
export interface RefreshOptions {
  /**
   * `pulumi refresh` as typed: the CLI runs a refresh preview first unless `--skip-preview` (refresh.go), a
   * Read and a Diff of every resource, saved nowhere, then the refresh: every object is read twice. Without it,
   * `pulumi refresh --skip-preview` (what the benches measure).
   */
  preview?: boolean;
  /** `pulumi refresh --clear-pending-creates` (refresh.go): drop the interrupted creates from the state. */
  clearPendingCreates?: boolean;
  /** `pulumi refresh --run-program`: the program runs, so the current stack config is used (and recorded). */
  runProgram?: boolean;
}
export interface DestroyOptions {
  /**
   * `pulumi destroy` as typed: the CLI previews first unless `--skip-preview` (destroy.go). The preview's
   * DeleteSteps call no provider but check protection (step.go), so a protected resource fails the preview
   * and nothing is deleted. Without it, `pulumi destroy --skip-preview`.
   */
  preview?: boolean;
  /** `pulumi destroy --run-program`: the program runs, so the current stack config is used. */
  runProgram?: boolean;
  /** `pulumi destroy --exclude-protected`. */
  excludeProtected?: boolean;
}
export interface UpOptions {
  /** `pulumi up --refresh`: refresh (persisted) before the update. */
  refresh?: boolean;
  /** `pulumi up --skip-preview`: no preview deployment before the update. */
  skipPreview?: boolean;
}

export class TestEngine {
  readonly project: string;
  readonly stack: string;
  readonly parallel: number;
  /** Live resources by URN. */
  readonly state = new Map<string, StateResource>();
  /** Replaced resources awaiting deletion (engine: `delete: true` entries). */
  pendingDeletes: StateResource[] = [];
  /** Operations started but not finished (left behind by a crash); cleared with a warning by the next run. */
  pendingOperations: PendingOperation[] = [];
  /** The default provider's inputs recorded by the last update (what refresh and destroy configure with). */
  providerConfig: PropertyMap | undefined;
  readonly warnings: string[] = [];
  /** The engine's info diagnostics (processIgnoreChanges' path errors). */
  readonly infos: string[] = [];
  /** What the CLI prints that is neither a warning nor an error (destroy.go's notice when nothing is left to destroy). */
  readonly notices: string[] = [];
  /** Every host this engine started, one per deployment (for inspecting calls/logs). */
  readonly hosts: ProviderHost[] = [];
  /** Set by `up --refresh` for its update deployment, which prints no pending-operations warning. */
  private quietPendingOnce = false;
  /** While true (the refresh of `preview --refresh`), nothing is written to the state file. */
  private dryRun = false;
  private readonly providerCache = new WeakMap<object, Promise<{ text: string; containsSecrets: boolean }>>();

  constructor(readonly options: TestEngineOptions = {}) {
    this.project = options.project ?? readProjectName(PROJECT_ROOT);
    this.stack = options.stack ?? "test";
    this.parallel = options.parallel ?? 16;
  }

  // ---------------------------------------------------------------- hosts

  /** The current stack config as the default provider's inputs: namespaced keys, secret values wrapped. */
  stackConfig(): PropertyMap {
    const ns = (k: string) => (k.includes(":") ? k : `${this.project}:${k}`);
    const secrets = new Set((this.options.secretConfigKeys ?? []).map(ns));
    const out: PropertyMap = {};
    for (const [k, v] of Object.entries(this.options.config ?? {})) out[ns(k)] = secrets.has(ns(k)) ? secret(v) : v;
    return out;
  }

  /** A new host, configured with `config` (default: the current stack config); closed by close(). */
  async startHost(config: PropertyMap = this.stackConfig()): Promise<ProviderHost> {
    const plain: Record<string, string> = {};
    const secretKeys: string[] = [];
    for (const [k, v] of Object.entries(config)) {
      plain[k] = String(isSecret(v) ? v.value : v);
      if (isSecret(v)) secretKeys.push(k);
    }
    const t0 = Date.now();
    const h = this.options.startHost
      ? await this.options.startHost(plain, secretKeys, this.project)
      : await startProviderHost({
          cwd: this.options.cwd ?? mainDirectory(PROJECT_ROOT),
          env: this.options.env,
          nodeArgs: this.options.hostNodeArgs,
          project: this.project,
          config: plain,
          secretKeys,
        });
    this.hosts.push(h);
    this.options.onHostStarted?.(h, Date.now() - t0);
    return h;
  }

  /** A new host for a test that drives it directly (the engine starts one per deployment itself). */
  getHost(): Promise<ProviderHost> {
    return this.startHost();
  }

  /** The host the most recent deployment used. */
  get currentHost(): ProviderHost | undefined {
    return this.hosts[this.hosts.length - 1];
  }

  /** A fresh host for one deployment, and how to stop it: nothing in memory outlives the deployment. */
  private async acquireHost(config?: PropertyMap): Promise<{ host: ProviderHost; release: () => Promise<void> }> {
    const host = await this.startHost(config);
    return {
      host,
      release: async () => {
        if (!host.exited) this.options.onHostStopping?.(host);
        await host.close();
      },
    };
  }

  /** The config refresh and destroy run with: the one in state (deploy/providers/registry.go), else the current one. */
  private stateConfig(): PropertyMap {
    return this.providerConfig ?? this.stackConfig();
  }

  /**
   * The config of a refresh or destroy: with `--run-program` (refresh.go, destroy.go: "Run the program to
   * determine up-to-date state for providers") the program registers the default provider with the current stack
   * config, which the command then runs with and records; without it, the config stored in state.
   */
  private commandConfig(runProgram = false): PropertyMap {
    if (!runProgram) return this.stateConfig();
    this.providerConfig = this.stackConfig();
    this.checkpoint();
    return this.providerConfig;
  }

  async close(): Promise<void> {
    await Promise.all(this.hosts.filter((h) => !h.exited).map((h) => h.close()));
  }

  // ---------------------------------------------------------------- bookkeeping

  urn(type: string, name: string, parentUrn?: string): string {
    if (parentUrn) {
      const parentType = parentUrn.split("::")[2].split("$").pop();
      type = `${parentType}$${type}`;
    }
    return `urn:pulumi:${this.stack}::${this.project}::${type}::${name}`;
  }

  beginOp(op: PendingOperation): void {
    this.pendingOperations.push(op);
    this.checkpoint();
  }
  endOp(urn: string, type: PendingOperation["type"]): void {
    const i = this.pendingOperations.findIndex((o) => o.urn === urn && o.type === type);
    if (i >= 0) this.pendingOperations.splice(i, 1);
    this.checkpoint();
  }

  /**
   * What a run does with the pending operations a crash left in the snapshot. An update or destroy warns
   * (deployment_executor.go, printPendingOperationsWarning; a refresh does not). The new snapshot drops the
   * interrupted updates and deletes but keeps the interrupted CREATES (pkg/backend/snapshot.go: "we don't want
   * to clear pending CREATE operations because these must require user intervention"), until
   * `pulumi refresh --clear-pending-creates` (refresh.go) removes them.
   */
  private settlePendingOperations(kind: "update" | "refresh", clearPendingCreates = false): void {
    const ops = this.pendingOperations;
    if (kind === "update" && ops.length > 0 && !this.quietPendingOnce) this.warnings.push(pendingOperationsWarning(ops));
    this.quietPendingOnce = false;
    this.pendingOperations = ops.filter((o) => o.type === "creating" && !clearPendingCreates);
    this.checkpoint();
  }

  checkpoint(): void {
    if (this.options.stateFile && !this.dryRun) fs.writeFileSync(this.options.stateFile, JSON.stringify(this.exportState(), null, 1));
  }

  /** Serializes a provider object as the SDK does (cached per object, like dynamic.Resource); a text is taken as it is. */
  serializeProvider(provider: object | string): Promise<{ text: string; containsSecrets: boolean }> {
    if (typeof provider === "string") return Promise.resolve({ text: provider, containsSecrets: false });
    let p = this.providerCache.get(provider);
    if (!p) {
      p = pulumi.runtime
        .serializeFunction(() => provider, { allowSecrets: true })
        .then((sf) => ({ text: sf.text, containsSecrets: sf.containsSecrets }));
      this.providerCache.set(provider, p);
    }
    return p;
  }

  /** Starts a preview or update deployment with its own host, configured with the current stack config. */
  async beginDeployment(preview: boolean): Promise<Deployment> {
    if (!preview) this.settlePendingOperations("update");
    const config = this.stackConfig();
    const { host, release } = await this.acquireHost(config);
    if (!preview) {
      // The default provider's state: its inputs are the config this update runs with.
      this.providerConfig = config;
      this.checkpoint();
    }
    return new Deployment(this, host, preview, release);
  }

  /**
   * Runs `work` against the state as a refresh finds it, then puts the state back: the refresh of
   * `pulumi preview --refresh` is itself a preview and saves nothing.
   */
  async withRefreshedState<T>(work: () => Promise<T>, refresh: RefreshOptions = {}): Promise<T> {
    const saved = this.exportState();
    this.dryRun = true;
    try {
      await this.refresh({ ...refresh, preview: false });
      return await work();
    } finally {
      this.loadState(saved);
      this.dryRun = false;
    }
  }

  // ---------------------------------------------------------------- operations

  preview(resources: DesiredResource[], opts: PreviewOptions = {}): Promise<Step[]> {
    if (opts.refresh) return this.withRefreshedState(() => this.preview(resources));
    return this.run(resources, true).then((r) => r.steps);
  }

  /** `pulumi up`: a preview deployment (fails the up if it fails), then the update deployment. */
  async up(resources: DesiredResource[], opts: UpOptions = {}): Promise<UpResult> {
    // `up --refresh` refreshes first and then prints no pending-operations warning (deployment_executor.go,
    // Execute: the warning is the else-branch of the refresh).
    if (opts.refresh) {
      await this.refresh();
      this.quietPendingOnce = true;
    }
    if (!opts.skipPreview) await this.run(resources, true);
    return this.run(resources, false);
  }

  private async run(resources: DesiredResource[], preview: boolean): Promise<UpResult> {
    const names = new Set<string>();
    for (const r of resources) {
      if (names.has(r.name)) throw new Error(`duplicate resource name ${r.name}`);
      names.add(r.name);
    }
    const deps = new Map<string, string[]>();
    for (const r of resources) {
      const d = new Set([...(r.dependsOn ?? []), ...collectRefs(r.inputs)]);
      for (const n of d) if (!names.has(n)) throw new Error(`${r.name} depends on undeclared resource ${n}`);
      deps.set(r.name, [...d]);
    }
    const urns = new Map(resources.map((r) => [r.name, this.urn(r.type, r.name)]));
    const results = new Map<string, RegisterResult>();
    const d = await this.beginDeployment(preview);
    const { errors } = await runGraph(
      resources.map((r) => ({
        key: r.name,
        deps: deps.get(r.name) ?? [],
        run: async () => {
          const resolved = resolveRefs(r.inputs, results, preview) as PropertyMap;
          const sf = r.provider === undefined ? undefined : await this.serializeProvider(r.provider);
          const result = await d.register({
            urn: urns.get(r.name)!,
            type: r.type,
            name: r.name,
            inputs: sf ? { ...resolved, __provider: sf.containsSecrets ? secret(sf.text) : sf.text } : resolved,
            dependencies: (deps.get(r.name) ?? []).map((n) => urns.get(n)!),
            deleteBeforeReplace: r.deleteBeforeReplace,
            additionalSecretOutputs: r.additionalSecretOutputs,
            protect: r.protect,
            retainOnDelete: r.retainOnDelete,
            ignoreChanges: r.ignoreChanges,
            replaceOnChanges: r.replaceOnChanges,
            aliasUrns: (r.aliases ?? []).map((a) => this.urn(r.type, a)),
            id: r.id,
          });
          results.set(r.name, result);
        },
      })),
      // The program registers each resource as soon as its inputs resolve; the deployment's queues limit the work.
      Infinity,
    );
    for (const [name, err] of errors) {
      if (!(err instanceof SkippedError) && !d.failures.some((f) => f.error === err)) d.fail(urns.get(name)!, "register", err);
    }
    const steps = await d.finish();
    const outputs: Record<string, PropertyMap> = {};
    const ids: Record<string, string> = {};
    for (const [name, res] of results) {
      outputs[name] = res.outputs;
      ids[name] = res.id;
    }
    return { steps, outputs, ids };
  }

  /**
   * One Delete step (step.go, DeleteStep): a protected resource fails it unless it is being replaced; a
   * retained, external or already deleted (pending replacement) one is dropped without calling the provider.
   */
  async deleteOne(host: ProviderHost, v: StateResource, replacing = false): Promise<void> {
    if (v.protect && !replacing && !v.delete) throw new DeleteProtectedError(v.urn);
    if (v.retainOnDelete || v.external || v.pendingReplacement) return;
    this.beginOp({ urn: v.urn, type: "deleting", id: v.id });
    try {
      await host.delete(v.id, v.urn, v.outputs, v.inputs);
    } finally {
      this.endOp(v.urn, "deleting");
    }
  }

  /**
   * Carries out delete steps as the engine's deployment executor does (deployment_executor.go, performPostSteps):
   * antichain by antichain (scheduleDeletes), each run in parallel and waited for. A protected resource's step
   * fails and the run goes on (step_executor.go continues past deleteProtectedError); the later antichains leave
   * out whatever a failed step's resource depends on. Any other failure stops everything not yet started.
   * `apply` is the step (the provider call); in a preview it only checks.
   */
  async runDeletes(
    victims: StateResource[],
    steps: Step[],
    failures: StepFailure[],
    apply: (v: StateResource) => Promise<void>,
  ): Promise<void> {
    const all = [...this.state.values(), ...this.pendingDeletes, ...victims];
    const skipped = new Set<string>();
    let stop = false;
    for (const round of scheduleDeletes(victims)) {
      if (stop) break;
      const chain = round.filter((v) => v.delete || !skipped.has(v.urn));
      const { errors } = await runGraph(
        chain.map((v, i) => ({
          key: `${i}:${v.urn}`,
          deps: [],
          run: async () => {
            try {
              await apply(v);
              steps.push({ urn: v.urn, op: "delete", diffs: [] });
            } catch (e) {
              failures.push({ urn: v.urn, op: "delete", message: messageOf(e), error: e });
              if (!(e instanceof DeleteProtectedError)) throw e;
              for (const d of transitiveDependencies(v, all)) skipped.add(d);
            }
          },
        })),
        this.parallel,
      );
      if (errors.size > 0) stop = true;
    }
  }

  /** Deletes the given resources (dependents first), updating state; failures are appended. */
  async deleteAll(
    victims: StateResource[],
    steps: Step[],
    failures: StepFailure[],
    useHost?: ProviderHost,
    config: PropertyMap = this.stateConfig(),
  ): Promise<void> {
    if (victims.length === 0) return;
    const { host, release } = useHost ? { host: useHost, release: async () => undefined } : await this.acquireHost(config);
    try {
      await this.runDeletes(victims, steps, failures, async (v) => {
        await this.deleteOne(host, v);
        if (v.delete) this.pendingDeletes = this.pendingDeletes.filter((p) => p !== v);
        else if (this.state.get(v.urn) === v) this.state.delete(v.urn);
        this.checkpoint();
      });
    } finally {
      await release();
    }
  }

  /**
   * One RefreshStep (step.go): Read, then the provider's Diff of the refreshed state against the old
   * inputs, inverted for display. Returns the step; throws if Read or Diff throws (state unchanged).
   */
  private async refreshOne(host: ProviderHost, r: StateResource): Promise<Step> {
    // Pending-replacement resources are not read (the object is gone already).
    if (r.pendingReplacement) return { urn: r.urn, op: "same", diffs: [] };
    const res = await host.read(r.id, r.urn, r.outputs, r.inputs);
    const replaceWith = (updated: StateResource | undefined) => {
      if (r.delete) this.pendingDeletes = this.pendingDeletes.flatMap((p) => (p === r ? (updated ? [updated] : []) : [p]));
      else if (updated) this.state.set(r.urn, updated);
      else this.state.delete(r.urn);
      this.checkpoint();
    };
    if (!res.id) {
      replaceWith(undefined);
      return { urn: r.urn, op: "delete", diffs: [] };
    }
    const outputs = annotateSecrets(res.properties, r.outputs);
    const inputs = res.inputs ? annotateSecrets(res.inputs, r.inputs) : r.inputs;
    let changed: string[];
    let changes: "some" | "none";
    if (r.external) {
      // External resources: outputs only, no Diff.
      changed = changedKeys(r.outputs, outputs);
      changes = changed.length > 0 ? "some" : "none";
    } else {
      // olds = the refreshed outputs (and inputs), news = the old inputs: what an `up` of an unchanged program would do.
      const diff = await host.diff(res.id, r.urn, outputs, r.inputs, inputs);
      changed = diff.diffs;
      if (diff.changes === "unknown") {
        changed = changedKeys(inputs, r.inputs);
        changes = changed.length > 0 ? "some" : "none";
      } else changes = diff.changes;
      // The Node.js host reports no keys: show the drifted ones.
      if (changes === "none") changed = [];
      else if (changed.length === 0) changed = changedKeys(r.outputs, outputs).filter((k) => k !== "__provider");
    }
    replaceWith({ ...r, id: res.id, outputs, inputs });
    return { urn: r.urn, op: changes === "some" ? "update" : "same", diffs: changed };
  }

  /** `pulumi refresh`: every resource is refreshed, each on its own (one failing does not stop the others). */
  async refresh(opts: RefreshOptions = {}): Promise<Step[]> {
    if (opts.preview) await this.withRefreshedState(async () => undefined, opts);
    this.settlePendingOperations("refresh", opts.clearPendingCreates);
    const { host, release } = await this.acquireHost(this.commandConfig(opts.runProgram));
    const steps: Step[] = [];
    const failures: StepFailure[] = [];
    try {
      const all = [...this.state.values(), ...this.pendingDeletes];
      await runGraph(
        all.map((r, i) => ({
          key: `${i}:${r.urn}`,
          deps: [],
          run: async () => {
            try {
              steps.push(await this.refreshOne(host, r));
            } catch (e) {
              // Recorded, not thrown: the other resources are still refreshed.
              failures.push({ urn: r.urn, op: "refresh", message: messageOf(e), error: e });
            }
          },
        })),
        this.parallel,
      );
    } finally {
      await release();
    }
    if (failures.length > 0) throw new UpdateError(failures, steps);
    return steps;
  }

  /**
   * `pulumi destroy`: deletes everything in state, using the `__provider` stored in each resource's outputs and
   * the config in state. `excludeProtected` (destroy.go, getProtectedExcludes): the protected resources and
   * everything they depend on are excluded (step_generator.go, determineForbiddenResourcesToDeleteFromExcludes);
   * what depends on a protected resource is still destroyed. When nothing is left to destroy, destroy.go prints
   * its notice (kept in `notices`) and runs nothing.
   */
  async destroy(opts: DestroyOptions = {}): Promise<Step[]> {
    this.settlePendingOperations("update");
    const steps: Step[] = [];
    const failures: StepFailure[] = [];
    let victims = [...this.pendingDeletes, ...this.state.values()];
    if (opts.excludeProtected) {
      const live = [...this.state.values()];
      const kept = new Set<string>();
      for (const r of live) if (r.protect) [r.urn, ...transitiveDependencies(r, live)].forEach((u) => kept.add(u));
      if (live.length > 0 && live.every((r) => kept.has(r.urn))) {
        // destroy.go counts the snapshot's resources, which also hold the stack resource and the default
        // provider: every resource depends on both (parent, provider), so both are among the excluded.
        this.notices.push(
          `There were no unprotected resources to destroy. There are still ${kept.size + 2} protected resources associated with this stack.`,
        );
        return steps;
      }
      victims = victims.filter((r) => r.delete || !kept.has(r.urn));
    }
    if (opts.preview) {
      // The preview deployment: its own provider, configured and stopped; no Delete is sent, protection is checked.
      const { release } = await this.acquireHost(opts.runProgram ? this.stackConfig() : this.stateConfig());
      try {
        await this.runDeletes(victims, [], failures, async (r) => {
          if (r.protect && !r.delete) throw new DeleteProtectedError(r.urn);
        });
      } finally {
        await release();
      }
      if (failures.length > 0) throw new UpdateError(failures, steps);
    }
    await this.deleteAll(victims, steps, failures, undefined, this.commandConfig(opts.runProgram));
    if (failures.length > 0) throw new UpdateError(failures, steps);
    if (this.state.size === 0) this.providerConfig = undefined;
    this.checkpoint();
    return steps;
  }

  /** Import of dynamic resources does not work with the real engine either; see the header. */
  import(_name: string, _type: string, _id: string): never {
    throw new Error(
      "import is not supported for dynamic providers: the engine sends Read(id) with no properties, so the " +
        "host has no __provider to load (pulumi#3550, #7534, #16175). Adopt through an input instead.",
    );
  }

  // ---------------------------------------------------------------- state

  /** The full state (secrets as `{sig, value}` plaintext, like `pulumi stack export --show-secrets`). */
  exportState(): StateSnapshot {
    const s: StateSnapshot = {
      version: 1 as const,
      project: this.project,
      stack: this.stack,
      resources: [...this.state.values(), ...this.pendingDeletes],
      pendingOperations: this.pendingOperations,
    };
    if (this.providerConfig) s.providerConfig = this.providerConfig;
    return clone(s);
  }

  private loadState(s: StateSnapshot): void {
    this.state.clear();
    this.pendingDeletes = [];
    for (const r of s.resources) {
      if (r.delete) this.pendingDeletes.push(r);
      else this.state.set(r.urn, r);
    }
    this.pendingOperations = s.pendingOperations ?? [];
    this.providerConfig = s.providerConfig;
  }

  static fromState(snapshot: StateSnapshot | string, options: TestEngineOptions = {}): TestEngine {
    const s: StateSnapshot = typeof snapshot === "string" ? (JSON.parse(snapshot) as StateSnapshot) : clone(snapshot);
    const e = new TestEngine({ project: s.project, stack: s.stack, ...options });
    e.loadState(s);
    return e;
  }

  static fromStateFile(file: string, options: TestEngineOptions = {}): TestEngine {
    return TestEngine.fromState(fs.readFileSync(file, "utf8"), { stateFile: file, ...options });
  }

  /** The state as a checkpoint would store it: secrets replaced by a ciphertext placeholder. */
  stateJson(): string {
    return JSON.stringify(redactSecrets(this.exportState()), null, 2);
  }

  /** Bytes of (redacted) state per resource URN. */
  stateBytesPerResource(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const r of [...this.state.values(), ...this.pendingDeletes]) {
      out[r.urn] = (out[r.urn] ?? 0) + Buffer.byteLength(JSON.stringify(redactSecrets(r)));
    }
    return out;
  }

  /** State resource by name (first match). */
  get(name: string): StateResource | undefined {
    return [...this.state.values()].find((r) => r.name === name);
  }
}

function isRef(v: unknown): v is Ref {
  return typeof v === "object" && v !== null && !Array.isArray(v) && typeof (v as Ref).$ref === "string";
}

function collectRefs(v: unknown, acc: Set<string> = new Set()): Set<string> {
  if (isRef(v)) acc.add(v.$ref);
  else if (Array.isArray(v)) v.forEach((x) => collectRefs(x, acc));
  else if (typeof v === "object" && v !== null) Object.values(v).forEach((x) => collectRefs(x, acc));
  return acc;
}

function resolveRefs(v: unknown, results: Map<string, RegisterResult>, preview: boolean): unknown {
  if (isRef(v)) {
    const res = results.get(v.$ref);
    if (!res) throw new Error(`reference to ${v.$ref} before it was registered`);
    const prop = v.prop ?? "id";
    if (prop === "id") return res.id;
    if (prop === "urn") return res.urn;
    const out = res.outputs[prop];
    if (out === undefined && preview && res.op !== "same") return UNKNOWN;
    return out;
  }
  if (Array.isArray(v)) return v.map((x) => resolveRefs(x, results, preview));
  if (isSecret(v)) return secret(resolveRefs(v.value, results, preview));
  if (typeof v === "object" && v !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      const r = resolveRefs(x, results, preview);
      if (r !== undefined) out[k] = r;
    }
    return out;
  }
  return v;
}
