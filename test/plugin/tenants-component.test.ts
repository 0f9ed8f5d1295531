// The Tenants component's reading of the stack config (provider/plugin/tenants-component.ts readTenants): the
// TypeScript program's reader with its messages, one line per problem naming the stack file, plus what only the
// component refuses (settings it does not act on). Its construction under the real engine, against the emulator:
// test/real-engine/plugin-tenants.test.ts.
import assert from "node:assert/strict";
import { readTenants } from "../../provider/plugin/tenants-component";

const TENANTS = JSON.stringify({
  acme: {
    name: "Acme Ltd",
    registrationNumber: "1",
    timeZone: "UTC",
    consumers: {
      web01: { node: { operatingSystem: "Linux", type: "File server", domain: "STANDARD", cpuCount: 2, passwordSecret: "web01Password" } },
    },
  },
});

const source = (config: Record<string, string>, secrets: string[] = ["backup-portal:web01Password"]) => ({
  stack: "dev",
  config: { "backup-portal:tenants": TENANTS, "backup-portal:web01Password": "pw", ...config },
  isSecret: (key: string) => secrets.includes(key),
});

/** The message readTenants throws, or undefined. */
function refusal(config: Record<string, string>, secrets?: string[]): string | undefined {
  try {
    readTenants(source(config, secrets));
    return undefined;
  } catch (e) {
    return (e as Error).message;
  }
}

describe("the plugin's Tenants component: reading the stack config", () => {
  it("reads the block, the root business unit and the defaults as the TypeScript program does", () => {
    const config = readTenants(source({ "backup-portal:rootBusinessUnitId": "7", "backup-portal:protectBusinessUnits": "false" }));
    assert.deepEqual(Object.keys(config.tenants), ["acme"]);
    assert.equal(config.rootBusinessUnitId, 7);
    assert.equal(config.protectBusinessUnits, false);
    assert.ok(config.hasSecret("web01Password"));
  });

  it("refuses a config with problems in one line each, naming the stack file and the key, all at once", () => {
    const tenants = JSON.parse(TENANTS);
    tenants.acme.timeZon = tenants.acme.timeZone;
    delete tenants.acme.timeZone;
    const message = refusal({ "backup-portal:tenants": JSON.stringify(tenants), "backup-portal:protectBusinesUnits": "false" }, []);
    const lines = message!.split("\n");
    assert.match(lines[0], /^the stack config has \d+ problems; nothing was changed:$/);
    assert.ok(
      lines.slice(1).every((l) => l.startsWith("Pulumi.dev.yaml: backup-portal:")),
      message,
    );
    assert.ok(
      lines.some((l) => /^Pulumi\.dev\.yaml: backup-portal:tenants\.acme\.timeZon: unknown key; did you mean "timeZone"\?$/.test(l)),
      message,
    );
    assert.ok(
      lines.some((l) => l.startsWith("Pulumi.dev.yaml: backup-portal:protectBusinesUnits: unknown key; did you mean")),
      message,
    );
    assert.ok(
      lines.some((l) =>
        l.startsWith(
          "Pulumi.dev.yaml: backup-portal:tenants.acme.consumers.web01.node.passwordSecret: no secret config key backup-portal:web01Password",
        ),
      ),
      "the node's password key set in plain text",
    );
    assert.ok(!message!.includes(" at "), "no stack trace");
  });

  it("refuses the TypeScript program's connection keys: the component connects through its provider (backupportal:*)", () => {
    const message = refusal(
      {
        "backup-portal:url": "https://portal.example.com",
        "backup-portal:origin": "https://portal.example.com",
        "backup-portal:clientId": "x",
        "backup-portal:username": "ops",
        "backup-portal:password": "pw",
      },
      ["backup-portal:web01Password", "backup-portal:password"],
    );
    assert.match(message!, /^the stack config has 5 problems; nothing was changed:\n/);
    assert.match(
      message!,
      /^Pulumi\.dev\.yaml: backup-portal:url: the Tenants component connects through its provider, whose settings are backupportal:url; move it there: `pulumi config set backupportal:url <value>` and `pulumi config rm backup-portal:url`$/m,
    );
    assert.match(
      message!,
      /^Pulumi\.dev\.yaml: backup-portal:password: .*`pulumi config set --secret backupportal:password` \(it asks for the value/m,
    );
  });
});
