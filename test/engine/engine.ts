/**
 * TEST CODE — a small stand-in for the Pulumi engine (the CLI cannot be installed here), driving the
 * real Node.js dynamic-provider host through host.ts the way the engine's step generator/executor does:
 *
 *  preview  Check(urn, olds = old inputs | {}, news) and, for existing resources,
 *           Diff(id, olds = old OUTPUTS, news, oldInputs). Never Create/Update/Delete: the host does not
 *           claim preview support, so the engine fakes them (outputs = checked inputs, ids unknown).
 *  order    Check and Diff run for one resource at a time, in the order resources are registered (the
 *           engine's step generator is serial); Create/Update/Delete chains then run `parallel` at once.
 *  up       Check, Diff, then Create / Update(id, old outputs, news) / replace / same. A replacement is
 *           re-Checked with empty olds, then create-before-delete (old one kept as `delete: true` and
 *           deleted at the end) unless Diff says deleteBeforeReplace (or the resource option is set).
 *           Diff "unknown" (provider without diff) → engine compares old inputs with new inputs.
 *           Same → state keeps old outputs (and therefore the old `__provider` in outputs).
 *           Resources no longer declared are deleted in reverse dependency order, only if nothing failed.
 *  refresh  Read(id, props = outputs, inputs); empty id → gone; returned inputs replace stored inputs.
 *  destroy  Delete(id, outputs) with the `__provider` stored in state, reverse dependency order.
 *  import   NOT SUPPORTED, like the real thing: the engine's import sends Read(id) with no properties,
 *           so the host has no `__provider` to load and fails (pulumi#3550, #7534, #16175).
 *
 * Secrets: inputs may contain `secret(x)` values; the host gets plaintext (acceptSecrets=false); results
 * are re-marked with the engine's annotateSecrets (+ additionalSecretOutputs). `stateJson()` renders
 * secrets as ciphertext placeholders, as a checkpoint would.
 * On failure: failures are recorded, nothing new starts, in-flight steps finish, state keeps what
 * succeeded (+ `pendingOperations` for calls that never answered), and the promise rejects (UpdateError).
 * Not modelled: ignoreChanges, replaceOnChanges, aliases, protect, targets, replacing dependents of a
 * delete-before-replace resource, component resources, explicit providers.
 */
import * as fs from "fs";
import * as pulumi from "@pulumi/pulumi";
import { ProviderError, ProviderHost, readProjectName, PROJECT_ROOT, startProviderHost } from "./host";
import {
    annotateSecrets,
    changedKeys,
    deepEqual,
    isSecret,
    PropertyMap,
    redactSecrets,
    secret,
    UNKNOWN,
} from "./values";

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
    /** A dynamic provider object; serialized like the SDK does into `__provider`. */
    provider: object;
    inputs: Record<string, unknown>;
    dependsOn?: string[];
    deleteBeforeReplace?: boolean;
    additionalSecretOutputs?: string[];
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
}

export type StepOp = "create" | "update" | "replace" | "delete" | "same";
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
    /** Host working directory (default: project root). */
    cwd?: string;
    /** Extra env for the host process. */
    env?: Record<string, string>;
    /** Stack config sent with Configure (keys namespaced or bare → `<project>:key`). */
    config?: Record<string, string>;
    secretConfigKeys?: string[];
    /** Max concurrent resource operations (engine default is 4×cores; ours 16). */
    parallel?: number;
    /** "shared": one host per engine, restarted if it died (default). "perOperation": a fresh host per preview/up/refresh/destroy. */
    hostMode?: "shared" | "perOperation";
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
    const keys = new Set(nodes.map((n) => n.key));
    for (const n of nodes) {
        for (const d of n.deps) if (!keys.has(d)) throw new Error(`${n.key} depends on unknown ${d}`);
    }
    const done = new Set<string>();
    const started = new Set<string>();
    const errors = new Map<string, unknown>();
    let running = 0;
    let stop = false;
    return new Promise((resolve) => {
        let resolved = false;
        const pump = () => {
            if (!stop) {
                for (const n of nodes) {
                    if (running >= limit) break;
                    if (started.has(n.key) || !n.deps.every((d) => done.has(d))) continue;
                    started.add(n.key);
                    running++;
                    Promise.resolve()
                        .then(n.run)
                        .then(
                            () => void done.add(n.key),
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
            }
            if (running === 0 && !resolved) {
                resolved = true;
                const notStarted = nodes.filter((n) => !started.has(n.key)).map((n) => n.key);
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

    private async check(req: RegisterRequest, olds: PropertyMap): Promise<PropertyMap> {
        const chk = await this.host.check(req.urn, olds, req.inputs, { preview: this.preview });
        if (chk.failures.length > 0) {
            throw new Error(`check failed: ${chk.failures.map((f) => `${f.property}: ${f.reason}`).join("; ")}`);
        }
        return annotateSecrets(chk.inputs, req.inputs);
    }

    private finalizeOutputs(props: PropertyMap, inputs: PropertyMap, req: RegisterRequest): PropertyMap {
        const outs = annotateSecrets(props, inputs);
        for (const k of req.additionalSecretOutputs ?? []) if (k in outs && !isSecret(outs[k])) outs[k] = secret(outs[k]);
        return outs;
    }

    private async create(req: RegisterRequest, inputs: PropertyMap): Promise<StateResource> {
        const e = this.engine;
        e.beginOp({ urn: req.urn, type: "creating" });
        try {
            const res = await this.host.create(req.urn, inputs);
            const created: StateResource = {
                urn: req.urn,
                type: req.type,
                name: req.name,
                id: res.id,
                inputs,
                outputs: this.finalizeOutputs(res.properties, inputs, req),
                dependencies: req.dependencies,
            };
            e.state.set(req.urn, created);
            return created;
        } catch (err) {
            // Partial failure: the object exists; the engine records it, then fails the update.
            if (err instanceof ProviderError && err.initFailed?.id) {
                e.state.set(req.urn, {
                    urn: req.urn,
                    type: req.type,
                    name: req.name,
                    id: err.initFailed.id,
                    inputs,
                    outputs: this.finalizeOutputs(err.initFailed.properties, inputs, req),
                    dependencies: req.dependencies,
                    initErrors: err.initFailed.reasons,
                });
            }
            throw err;
        } finally {
            e.endOp(req.urn, "creating");
        }
    }

    /** The step generator's part: Check, Diff and the decision (a preview ends here). */
    private async generate(req: RegisterRequest): Promise<Plan> {
        const { urn } = req;
        const e = this.engine;
        const preview = this.preview;
        const old = e.state.get(urn);
        const done = (id: string, outputs: PropertyMap, op: StepOp): Plan => ({ kind: "done", result: { urn, id, outputs, op } });

        let inputs = await this.check(req, old ? old.inputs : {});

        if (!old) {
            this.steps.push({ urn, op: "create", diffs: [] });
            return preview ? done(UNKNOWN, inputs, "create") : { kind: "create", inputs };
        }

        const diff = await this.host.diff(old.id, urn, old.outputs, inputs, old.inputs, { preview });
        let changes = diff.changes;
        if (changes === "unknown") changes = deepEqual(old.inputs, inputs) ? "none" : "some";
        // A resource a create or update left half done is updated, whatever Diff says (step_generator.go).
        if (changes === "none" && old.initErrors?.length) changes = "some";
        const diffs = diff.diffs.length > 0 ? diff.diffs : changes === "some" ? changedKeys(old.inputs, inputs) : [];

        if (changes === "none") {
            this.steps.push({ urn, op: "same", diffs: [] });
            if (!preview) e.state.set(urn, { ...old, inputs, dependencies: req.dependencies });
            return done(old.id, old.outputs, "same");
        }

        if (diff.replaces.length > 0) {
            const deleteBeforeReplace = diff.deleteBeforeReplace || !!req.deleteBeforeReplace;
            this.steps.push({ urn, op: "replace", diffs, replaces: diff.replaces, deleteBeforeReplace });
            // The engine re-checks a replacement with no olds (defaults/autonames are recomputed).
            inputs = await this.check(req, {});
            return preview ? done(UNKNOWN, inputs, "replace") : { kind: "replace", inputs, old, deleteBeforeReplace };
        }

        this.steps.push({ urn, op: "update", diffs });
        return preview ? done(old.id, inputs, "update") : { kind: "update", inputs, old };
    }

    /** The step executor's part: the provider calls that change something. */
    private async execute(req: RegisterRequest, plan: Exclude<Plan, { kind: "done" }>): Promise<RegisterResult> {
        const { urn } = req;
        const e = this.engine;
        const { inputs } = plan;
        if (plan.kind === "create") {
            const created = await this.create(req, inputs);
            return { urn, id: created.id, outputs: created.outputs, op: "create" };
        }
        const { old } = plan;
        if (plan.kind === "replace") {
            if (plan.deleteBeforeReplace) {
                e.beginOp({ urn, type: "deleting", id: old.id });
                try {
                    await this.host.delete(old.id, urn, old.outputs, old.inputs);
                    e.state.delete(urn);
                } finally {
                    e.endOp(urn, "deleting");
                }
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
            e.state.set(urn, { ...old, inputs, outputs, dependencies: req.dependencies, initErrors: undefined });
            return { urn, id: old.id, outputs, op: "update" };
        } catch (err) {
            // Partially-failed update: the engine keeps the OLD inputs with the NEW outputs (pulumi#2011).
            if (err instanceof ProviderError && err.initFailed) {
                e.state.set(urn, { ...old, outputs: this.finalizeOutputs(err.initFailed.properties, inputs, req), initErrors: err.initFailed.reasons });
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
            const gone = [...e.state.values()].filter((r) => !this.registered.has(r.urn));
            if (this.preview) {
                for (const r of [...gone, ...e.pendingDeletes]) this.steps.push({ urn: r.urn, op: "delete", diffs: [] });
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
    readonly warnings: string[] = [];
    /** Every host this engine started (for inspecting calls/logs). */
    readonly hosts: ProviderHost[] = [];
    private host: ProviderHost | undefined;
    private readonly providerCache = new WeakMap<object, Promise<{ text: string; containsSecrets: boolean }>>();

    constructor(readonly options: TestEngineOptions = {}) {
        this.project = options.project ?? readProjectName(options.cwd ?? PROJECT_ROOT);
        this.stack = options.stack ?? "test";
        this.parallel = options.parallel ?? 16;
    }

    // ---------------------------------------------------------------- hosts

    private startHost(): Promise<ProviderHost> {
        return startProviderHost({
            cwd: this.options.cwd,
            env: this.options.env,
            project: this.project,
            config: this.options.config ?? {},
            secretKeys: this.options.secretConfigKeys,
        }).then((h) => {
            this.hosts.push(h);
            return h;
        });
    }

    /** The shared host (started, or restarted if it died). */
    async getHost(): Promise<ProviderHost> {
        if (!this.host || this.host.exited) this.host = await this.startHost();
        return this.host;
    }

    /** The host the most recent operation used. */
    get currentHost(): ProviderHost | undefined {
        return this.hosts[this.hosts.length - 1];
    }

    async restartHost(): Promise<ProviderHost> {
        if (this.host) await this.host.close();
        this.host = undefined;
        return this.getHost();
    }

    /** Host for one operation, and how to release it (closes it in perOperation mode). */
    async acquireHost(): Promise<{ host: ProviderHost; release: () => Promise<void> }> {
        if (this.options.hostMode === "perOperation") {
            const host = await this.startHost();
            return { host, release: () => host.close() };
        }
        return { host: await this.getHost(), release: async () => undefined };
    }

    async close(): Promise<void> {
        await Promise.all(this.hosts.filter((h) => !h.exited).map((h) => h.close()));
        this.host = undefined;
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

    private clearPendingOperations(): void {
        for (const op of this.pendingOperations) {
            this.warnings.push(
                `${op.urn}: interrupted while ${op.type}${op.id ? ` (id ${op.id})` : ""} in a previous deployment; ` +
                    `it may exist without being in state (refresh, or delete it manually)`,
            );
        }
        this.pendingOperations = [];
        this.checkpoint();
    }

    checkpoint(): void {
        if (this.options.stateFile) fs.writeFileSync(this.options.stateFile, JSON.stringify(this.exportState(), null, 1));
    }

    /** Serializes a provider object as the SDK does (cached per object, like dynamic.Resource). */
    serializeProvider(provider: object): Promise<{ text: string; containsSecrets: boolean }> {
        let p = this.providerCache.get(provider);
        if (!p) {
            p = pulumi.runtime
                .serializeFunction(() => provider, { allowSecrets: true })
                .then((sf) => ({ text: sf.text, containsSecrets: sf.containsSecrets }));
            this.providerCache.set(provider, p);
        }
        return p;
    }

    async beginDeployment(preview: boolean): Promise<Deployment> {
        if (!preview) this.clearPendingOperations();
        const { host, release } = await this.acquireHost();
        return new Deployment(this, host, preview, release);
    }

    // ---------------------------------------------------------------- operations

    preview(resources: DesiredResource[]): Promise<Step[]> {
        return this.run(resources, true).then((r) => r.steps);
    }

    up(resources: DesiredResource[]): Promise<UpResult> {
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
                    const sf = await this.serializeProvider(r.provider);
                    const result = await d.register({
                        urn: urns.get(r.name)!,
                        type: r.type,
                        name: r.name,
                        inputs: { ...resolved, __provider: sf.containsSecrets ? secret(sf.text) : sf.text },
                        dependencies: (deps.get(r.name) ?? []).map((n) => urns.get(n)!),
                        deleteBeforeReplace: r.deleteBeforeReplace,
                        additionalSecretOutputs: r.additionalSecretOutputs,
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

    /** Deletes the given resources in reverse dependency order, updating state; failures are appended. */
    async deleteAll(victims: StateResource[], steps: Step[], failures: StepFailure[], useHost?: ProviderHost): Promise<void> {
        if (victims.length === 0) return;
        const { host, release } = useHost ? { host: useHost, release: async () => undefined } : await this.acquireHost();
        try {
            const keyed = victims.map((v, i) => ({ key: `${i}:${v.urn}`, v }));
            const nodes: GraphNode[] = keyed.map(({ key, v }) => ({
                key,
                // Everything that depends on v must be deleted first.
                deps: keyed.filter((o) => o.v !== v && o.v.dependencies.includes(v.urn)).map((o) => o.key),
                run: async () => {
                    this.beginOp({ urn: v.urn, type: "deleting", id: v.id });
                    try {
                        await host.delete(v.id, v.urn, v.outputs, v.inputs);
                        if (v.delete) this.pendingDeletes = this.pendingDeletes.filter((p) => p !== v);
                        else if (this.state.get(v.urn) === v) this.state.delete(v.urn);
                        steps.push({ urn: v.urn, op: "delete", diffs: [] });
                    } catch (e) {
                        failures.push({ urn: v.urn, op: "delete", message: messageOf(e), error: e });
                        throw e;
                    } finally {
                        this.endOp(v.urn, "deleting");
                    }
                },
            }));
            await runGraph(nodes, this.parallel);
        } finally {
            await release();
        }
    }

    /** Read every resource; empty id removes it, otherwise outputs (and returned inputs) are replaced. */
    async refresh(): Promise<Step[]> {
        this.clearPendingOperations();
        const { host, release } = await this.acquireHost();
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
                            const res = await host.read(r.id, r.urn, r.outputs, r.inputs);
                            if (!res.id) {
                                if (r.delete) this.pendingDeletes = this.pendingDeletes.filter((p) => p !== r);
                                else this.state.delete(r.urn);
                                steps.push({ urn: r.urn, op: "delete", diffs: [] });
                            } else {
                                const outputs = annotateSecrets(res.properties, r.outputs);
                                const inputs = res.inputs ? annotateSecrets(res.inputs, r.inputs) : r.inputs;
                                const diffs = changedKeys(r.outputs, outputs);
                                const updated = { ...r, id: res.id, outputs, inputs };
                                if (r.delete) this.pendingDeletes = this.pendingDeletes.map((p) => (p === r ? updated : p));
                                else this.state.set(r.urn, updated);
                                steps.push({ urn: r.urn, op: diffs.length > 0 || !deepEqual(r.inputs, inputs) ? "update" : "same", diffs });
                            }
                            this.checkpoint();
                        } catch (e) {
                            failures.push({ urn: r.urn, op: "read", message: messageOf(e), error: e });
                            throw e;
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

    /** Deletes everything in state, using the `__provider` stored in each resource's outputs. */
    async destroy(): Promise<Step[]> {
        this.clearPendingOperations();
        const steps: Step[] = [];
        const failures: StepFailure[] = [];
        await this.deleteAll([...this.pendingDeletes, ...this.state.values()], steps, failures);
        if (failures.length > 0) throw new UpdateError(failures, steps);
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
        return clone({
            version: 1 as const,
            project: this.project,
            stack: this.stack,
            resources: [...this.state.values(), ...this.pendingDeletes],
            pendingOperations: this.pendingOperations,
        });
    }

    static fromState(snapshot: StateSnapshot | string, options: TestEngineOptions = {}): TestEngine {
        const s: StateSnapshot = typeof snapshot === "string" ? (JSON.parse(snapshot) as StateSnapshot) : clone(snapshot);
        const e = new TestEngine({ project: s.project, stack: s.stack, ...options });
        for (const r of s.resources) {
            if (r.delete) e.pendingDeletes.push(r);
            else e.state.set(r.urn, r);
        }
        e.pendingOperations = s.pendingOperations ?? [];
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
