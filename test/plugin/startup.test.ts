// The plugin's start-up: the engine starts a plugin for every deployment (a `pulumi up` is two: preview and
// update), and waits for its port line. The SDK's index loads all of @pulumi/pulumi (automation, npm's
// arborist, the language host's TypeScript): about 2 s on this machine, against 0.4 s without it. The plugin
// and the lifecycle modules it shares with the dynamic types take only the SDK modules they use.
import assert from "node:assert/strict";
import { execFileSync } from "child_process";
import * as path from "path";

const ROOT = path.resolve(__dirname, "..", "..");

describe("the plugin's start-up", function () {
  this.timeout(60_000);

  it("loads neither the SDK's index nor what only programs need (TypeScript, npm's arborist)", () => {
    const script = `require(${JSON.stringify(path.join(ROOT, "dist", "provider", "plugin", "main.js"))});
      process.stdout.write(JSON.stringify(Object.keys(require.cache)));`;
    const loaded: string[] = JSON.parse(execFileSync(process.execPath, ["-e", script], { encoding: "utf8" }));
    const sdk = path.join("node_modules", "@pulumi", "pulumi");
    assert.ok(
      loaded.some((f) => f.includes(path.join(sdk, "resource.js"))),
      "the lifecycles' classes still load the SDK's resource module",
    );
    const heavy = loaded.filter(
      (f) => f.endsWith(path.join(sdk, "index.js")) || f.includes(`${path.sep}typescript${path.sep}`) || f.includes("@npmcli"),
    );
    assert.deepEqual(heavy, []);
  });
});
