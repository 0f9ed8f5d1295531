// The program's entry point (Pulumi.yaml main: stacks/) reads the stack's config
// as Pulumi hands it over: structured tenants, numbers and booleans as text,
// secrets, and the portal connection for its read-only name checks.
import assert from "node:assert/strict";
import * as pulumi from "@pulumi/pulumi";
import { installMocks, valueOf } from "../support/mocks";
import { ORIGIN, startEmulator } from "../support/portal";
import { localStackConfig } from "./support";

describe("stack program entry point (stacks/index.ts)", function () {
  this.timeout(60_000);

  it("declares the local stack from its config file, checking names against the portal", async () => {
    const emu = await startEmulator({ port: 0, quiet: true });
    try {
      const recorded = await installMocks();
      // What the CLI passes a program: every value as text, objects as JSON.
      const config: Record<string, string> = {};
      for (const [k, v] of Object.entries(localStackConfig())) config[k] = typeof v === "string" ? v : JSON.stringify(v);
      config["backup-portal:url"] = emu.url;
      config["backup-portal:password"] = "admin";
      config["backup-portal:protectBusinessUnits"] = "true";
      pulumi.runtime.setAllConfig(config, ["backup-portal:password"]);

      const outputs = await (require("../../stacks/index") as Promise<Record<string, pulumi.Output<unknown>>>);
      const ids = await valueOf(outputs.businessUnitIds as pulumi.Output<Record<string, unknown>>);
      assert.deepEqual(Object.keys(ids).sort(), ["acme", "acme/acme-labs", "globex"]);
      for (let i = 0; i < 200 && recorded.length < 14; i++) await new Promise((r) => setTimeout(r, 25));
      const types = recorded.map((r) => r.type);
      assert.equal(types.filter((t) => t.endsWith(":Node")).length, 5);
      assert.equal(types.filter((t) => t.endsWith(":NodeProxy")).length, 1);
      const reads = emu.requests().filter((r) => r.method === "GET").map((r) => r.path);
      assert.ok(reads.includes("/v1/nodeoperatingsystems") && reads.includes("/v1/timezones"), "names were checked against the portal");
      assert.deepEqual(emu.requests().filter((r) => r.method !== "GET" && r.path !== "/v1/oauth"), [], "and nothing was written");
      assert.equal(ORIGIN, config["backup-portal:origin"]);
    } finally {
      pulumi.runtime.setAllConfig({});
      await emu.close();
    }
  });
});
