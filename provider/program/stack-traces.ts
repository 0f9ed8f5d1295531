// The stack traces the SDK takes in the program's process: formatted by V8 without source maps, and kept in the
// state as each resource's source position only (withSourcePositionsOnly, below).
//
// The Node.js runtime installs source-map-support before it loads the program (@pulumi/pulumi cmd/run), and its
// Error.prepareStackTrace maps every frame of every stack trace through whatever source maps it finds. The SDK
// takes a stack trace for each resource it registers and for each promise of an output property
// (runtime/debuggable.js: `new Error().stack`): thousands for 450 resources, and their mapping was 40 % of the
// program's CPU in a no-op preview (docs/benchmark.md, "The main job at the engine's floor"). This package ships
// JavaScript without source maps, so V8's own formatting gives the same file, line and column for its frames and
// for a compiled program's; only frames inside the SDK lose their mapping to its TypeScript sources.

import * as pulumi from "@pulumi/pulumi";

/** Puts V8's own stack-trace formatting back for this process. */
export function plainStackTraces(): void {
  // Node's typings declare the hook as always there; V8 formats by itself when it is not.
  (Error as { prepareStackTrace?: unknown }).prepareStackTrace = undefined;
}

/** The SDK's private hook that takes a resource's stack trace (@pulumi/pulumi resource.js, `Resource.stackTrace`). */
interface StackTraceHook {
  stackTrace?: (skip: number) => unknown[];
}

/**
 * Declares with each resource's stack trace cut to its source position, the frame that constructs it.
 *
 * The SDK sends every resource's whole call stack with its registration, and the engine keeps it in the state:
 * for a tenant declared from the stack config that is the same path through this package and the SDK for every
 * resource, about a fifth of the state, which the file backend writes again after every step (docs/benchmark.md,
 * "The main job at the engine's floor"). Resource constructors take the trace synchronously, so only the
 * resources `declare` constructs are affected; with an SDK that no longer has the hook, nothing changes.
 */
export function withSourcePositionsOnly<T>(declare: () => T): T {
  const hook = pulumi.Resource as unknown as StackTraceHook;
  const whole = hook.stackTrace;
  if (typeof whole !== "function") return declare();
  // One frame more to skip: this function's own.
  hook.stackTrace = (skip: number) => whole.call(hook, skip + 1).slice(0, 1);
  try {
    return declare();
  } finally {
    hook.stackTrace = whole;
  }
}
