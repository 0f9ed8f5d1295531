/**
 * TEST CODE — runs a real Pulumi program under `pulumi.runtime.setMocks`, forwarding every dynamic
 * resource (type `pulumi-nodejs:dynamic:Resource` or `pulumi-nodejs:dynamic/<module>:<Type>`) to the
 * engine stand-in (engine.ts), which drives the real dynamic-provider host. So `__provider` is
 * serialized by the SDK itself, and the program's outputs see the ids/outputs the provider returned.
 *
 * - newResource for a dynamic resource runs Check+Diff+Create/Update/replace (up) or Check+Diff only
 *   (preview: outputs = checked inputs, unknown id) immediately and returns `{ id, state: outputs }`.
 * - Inputs from the mock monitor keep secrets wrapped and unknowns as `pulumi.unknown`; they are kept
 *   wrapped in engine state (so outputs with the same key come back secret) and sent as plaintext.
 * - Dependencies, deleteBeforeReplace and additionalSecretOutputs are read from the RegisterResource
 *   request (the mock API does not pass them), by wrapping the mock monitor's registerResource.
 * - Non-dynamic resources get id `<name>_id` and their inputs as state (not recorded in engine state).
 * - After the program and all registrations settle, resources in state that the program did not
 *   register are deleted (like `pulumi up`), unless something failed.
 */
import * as pulumi from "@pulumi/pulumi";
import { Deployment, Step, TestEngine, UpdateError } from "./engine";
import { normalizeSdkValue, PropertyMap, UNKNOWN } from "./values";

// Internal SDK module (stable for years): getMonitor()/waitForRPCs() of the mock runtime.
// eslint-disable-next-line @typescript-eslint/no-var-requires
const settings = require("@pulumi/pulumi/runtime/settings") as {
    getMonitor(): unknown;
    waitForRPCs(): Promise<void>;
};

interface RegisterReqLike {
    getType(): string;
    getName(): string;
    getParent(): string;
    getDependenciesList(): string[];
    getDeletebeforereplace(): boolean;
    getAdditionalsecretoutputsList(): string[];
}

export interface RunProgramOptions {
    /** Run as `pulumi preview`: only Check/Diff reach the host. */
    preview?: boolean;
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
    return type === "pulumi-nodejs:dynamic:Resource" || type.startsWith("pulumi-nodejs:dynamic/") || type.startsWith("pulumi-nodejs:dynamic:");
}

export async function runProgramWithEngine<T>(
    program: () => Promise<T> | T,
    engine: TestEngine,
    opts: RunProgramOptions = {},
): Promise<ProgramRunResult<T>> {
    const preview = !!opts.preview;
    const project = opts.project ?? engine.project;
    const stack = opts.stack ?? engine.stack;
    if (project !== engine.project || stack !== engine.stack) {
        throw new Error(`project/stack (${project}/${stack}) must match the engine's (${engine.project}/${engine.stack}) for URNs to line up`);
    }
    const deployment: Deployment = await engine.beginDeployment(preview);
    const registered: RegisteredResource[] = [];
    const pending = new Set<Promise<unknown>>();
    let currentReq: RegisterReqLike | undefined;

    const mocks: pulumi.runtime.Mocks = {
        call: (args) => (opts.call ? opts.call(args) : {}),
        newResource: (args: pulumi.runtime.MockResourceArgs) => {
            const req = currentReq;
            currentReq = undefined;
            if (!isDynamicType(args.type)) {
                const id = args.id || `${args.name}_id`;
                registered.push({ urn: engine.urn(args.type, args.name, req?.getParent() || undefined), type: args.type, name: args.name, id, dynamic: false });
                return { id, state: args.inputs };
            }
            const urn = engine.urn(args.type, args.name, req?.getParent() || undefined);
            const p = deployment
                .register({
                    urn,
                    type: args.type,
                    name: args.name,
                    inputs: normalizeSdkValue(args.inputs) as PropertyMap,
                    dependencies: req ? req.getDependenciesList() : [],
                    deleteBeforeReplace: req?.getDeletebeforereplace(),
                    additionalSecretOutputs: req?.getAdditionalsecretoutputsList(),
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
    const monitor = settings.getMonitor() as { registerResource: (req: RegisterReqLike, cb: unknown) => unknown };
    const original = monitor.registerResource.bind(monitor);
    // MockMonitor.registerResource calls mocks.newResource synchronously: hand it the request.
    monitor.registerResource = (req: RegisterReqLike, cb: unknown) => {
        currentReq = req;
        return original(req, cb);
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
