// The program's entry point (Pulumi.yaml main: stacks/index.js) reads the stack's config
// as Pulumi hands it over: structured tenants, numbers and booleans as text,
// secrets, and the portal connection its name check's Check uses in the provider host.
import assert from "node:assert/strict";
import * as pulumi from "@pulumi/pulumi";
import { installMocks, valueOf } from "../support/mocks";
import { ORIGIN, startEmulator } from "../support/portal";
import { localStackConfig } from "./support";
import { namesOf } from "../../provider/tenants/names";
import type { TenantsConfig } from "../../provider/tenants/model";

describe("stack program entry point (stacks/index.js)", function () {
  this.timeout(60_000);

  it("declares the local stack from its config file, its names handed to the name check first, asking the portal nothing", async () => {
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

      const outputs = await (require("../../stacks/index") as () => Promise<Record<string, pulumi.Output<unknown>>>)();
      const ids = await valueOf(outputs.businessUnitIds as pulumi.Output<Record<string, unknown>>);
      assert.deepEqual(Object.keys(ids).sort(), ["acme", "acme/acme-labs", "globex"]);
      for (let i = 0; i < 200 && recorded.length < 15; i++) await new Promise((r) => setTimeout(r, 25));
      const types = recorded.map((r) => r.type);
      assert.equal(types.filter((t) => t.endsWith(":Node")).length, 5);
      assert.equal(types.filter((t) => t.endsWith(":NodeProxy")).length, 1);
      // The names go to the name check, registered before every tenant; its Check reads them in the provider host.
      const check = recorded.filter((r) => r.type.endsWith(":NameCheck"));
      assert.deepEqual(
        check.map((r) => [r.name, r.inputs.file, r.inputs.rootBusinessUnitId, r.inputs.tenants]),
        [["tenants", "Pulumi.test.yaml", 1, namesOf(localStackConfig()["backup-portal:tenants"] as TenantsConfig)]],
      );
      assert.ok(recorded.indexOf(check[0]) < recorded.findIndex((r) => r.type.endsWith(":BusinessUnit")), "before the tenants");
      assert.deepEqual(emu.requests(), [], "the program itself asks the portal nothing");
      assert.equal(ORIGIN, config["backup-portal:origin"]);
    } finally {
      pulumi.runtime.setAllConfig({});
      await emu.close();
    }
  });

  it("refuses a password set without --secret, naming the command that stores it as a secret", async () => {
    await installMocks();
    const config: Record<string, string> = {
      "backup-portal:url": "http://127.0.0.1:9",
      "backup-portal:origin": ORIGIN,
      "backup-portal:clientId": "emulator",
      "backup-portal:username": "admin",
      "backup-portal:password": "admin",
      "backup-portal:tenants": JSON.stringify({
        acme: {
          name: "Acme",
          registrationNumber: "1",
          timeZone: "UTC",
          consumers: {
            web: {
              name: "web",
              node: {
                operatingSystem: "Linux",
                type: "File server",
                domain: "STANDARD",
                cpuCount: 1,
                tsmName: "ACME-WEB",
                passwordSecret: "webPassword",
              },
            },
          },
        },
      }),
      "backup-portal:webPassword": "plain-text-pw",
      "backup-portal:registry": JSON.stringify({ users: [{ username: "admin" }] }),
      "backup-portal:registryPassword-admin": "plain-registry-pw",
      "backup-portal:kubeconfig": "apiVersion: v1",
    };
    pulumi.runtime.setAllConfig(config, ["backup-portal:password", "backup-portal:kubeconfig"]);
    try {
      const modulePath = require.resolve("../../stacks/index");
      delete require.cache[modulePath];
      const err = await (require(modulePath) as () => Promise<unknown>)().then(
        () => assert.fail("refused"),
        (e: Error) => e,
      );
      assert.match(
        err.message,
        /no secret config key backup-portal:webPassword \(a key set without its backup-portal: namespace goes into the project's, and one set without --secret .* does not count\)/,
      );
      assert.match(
        err.message,
        /registry.users\[0\]: backup-portal:registryPassword-admin is stored in plain text .*`pulumi config set --secret backup-portal:registryPassword-admin/,
      );
      assert.ok(!err.message.includes("plain-text-pw") && !err.message.includes("plain-registry-pw"), "never the values");
    } finally {
      pulumi.runtime.setAllConfig({});
    }
  });
});
