// Stack traces without source-map rewriting, in the program's process.
//
// The Node.js runtime installs source-map-support before it loads the program (@pulumi/pulumi cmd/run), and its
// Error.prepareStackTrace maps every frame of every stack trace through whatever source maps it finds. The SDK
// takes a stack trace for each resource it registers and for each promise of an output property
// (runtime/debuggable.js: `new Error().stack`): thousands for 450 resources, and their mapping was 40 % of the
// program's CPU in a no-op preview (docs/benchmark.md, "The main job at the engine's floor"). This package ships
// JavaScript without source maps, so V8's own formatting gives the same file, line and column for its frames and
// for a compiled program's; only frames inside the SDK lose their mapping to its TypeScript sources.

/** Puts V8's own stack-trace formatting back for this process. */
export function plainStackTraces(): void {
  // Node's typings declare the hook as always there; V8 formats by itself when it is not.
  (Error as { prepareStackTrace?: unknown }).prepareStackTrace = undefined;
}
