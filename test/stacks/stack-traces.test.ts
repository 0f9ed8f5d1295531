// The program puts V8's own stack-trace formatting back in its process (provider/program/stack-traces.ts): the
// runtime's source-map-support otherwise maps every frame of the stack trace the SDK takes per resource and per
// output property, which was 40 % of a no-op preview's program CPU (docs/benchmark.md).
//
// It runs in a process of its own, as the language host starts the program: source-map-support installs its
// formatting once per process, so in the test runner's process an earlier test may already have installed it and
// the program taken it away.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

const PROGRAM = path.join(__dirname, "..", "..", "dist", "provider", "program");

describe("the program's stack traces", () => {
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "stack-traces-"));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("are V8's own once the program is made, with the runtime's source-map-support installed before it", () => {
    const probe = path.join(dir, "probe.js");
    fs.writeFileSync(
      probe,
      [
        // What @pulumi/pulumi's cmd/run does before it loads the program.
        `require(${JSON.stringify(require.resolve("source-map-support"))}).install({ environment: "node" });`,
        "const installed = typeof Error.prepareStackTrace;",
        `require(${JSON.stringify(PROGRAM)}).tenantsFromConfig();`,
        "const after = typeof Error.prepareStackTrace;",
        "console.log(JSON.stringify({ installed, after, stack: new Error().stack }));",
      ].join("\n"),
    );
    const out = JSON.parse(execFileSync(process.execPath, [probe], { cwd: dir, encoding: "utf8", timeout: 30_000 }));
    assert.equal(out.installed, "function", "source-map-support did not replace the formatting");
    assert.equal(out.after, "undefined");
    // The positions the SDK parses out of a stack trace are still there: file, line and column of each frame.
    assert.match(out.stack, /\(.*probe\.js:\d+:\d+\)/);
  });

  it("are cut to the source position only while the program declares, and whole again after, also when it throws", () => {
    // In-process: the hook is the SDK's, and the real CLI's state is judged in test/real-engine/stacks-program.test.ts.
    const { withSourcePositionsOnly } = require(path.join(PROGRAM, "stack-traces"));
    const sdk = require("@pulumi/pulumi").Resource as { stackTrace: (skip: number) => unknown[] };
    const whole = sdk.stackTrace;
    const deep = (n: number): unknown[] => (n ? deep(n - 1) : sdk.stackTrace(0));
    assert.ok(deep(5).length > 1, "the SDK's whole stack trace has more than one frame");
    assert.equal(withSourcePositionsOnly(() => deep(5)).length, 1);
    assert.throws(
      () =>
        withSourcePositionsOnly(() => {
          throw new Error("refused");
        }),
      /refused/,
    );
    assert.equal(sdk.stackTrace, whole);
    assert.ok(deep(5).length > 1);
  });
});
