// The program puts V8's own stack-trace formatting back in its process (provider/program/stack-traces.ts): the
// runtime's source-map-support otherwise maps every frame of the stack trace the SDK takes per resource and per
// output property, which was 40 % of a no-op preview's program CPU (docs/benchmark.md).
import assert from "node:assert/strict";
import { tenantsFromConfig } from "../../provider/program";

describe("the program's stack traces", () => {
  const before = Error.prepareStackTrace;
  after(() => {
    Error.prepareStackTrace = before;
  });

  it("are V8's own once the program is made, with the runtime's source-map-support installed before it", () => {
    // What @pulumi/pulumi's cmd/run does before it loads the program.
    require("source-map-support").install({ environment: "node" });
    assert.equal(typeof Error.prepareStackTrace, "function", "source-map-support replaced the formatting");
    tenantsFromConfig();
    assert.equal(Error.prepareStackTrace, undefined);
    // The positions the SDK parses out of a stack trace are still there: file, line and column of each frame.
    assert.match(new Error().stack ?? "", /\(.*stack-traces\.test\.ts:\d+:\d+\)/);
  });
});
