// The stack config reader on what an untrusted or careless file can hold (issue 36 items 7, 9, 10): a tenants block
// that is null, a secret named by a key of the stack's own config, and nesting deeper than any stack goes. Each is
// one line naming the key path and the fix, never a trace.
import assert from "node:assert/strict";
import { checkNamespace, formatConfigProblems, readStackConfig } from "../../provider/stack-config/read";
import { MAX_CONFIG_DEPTH, STACK_CONFIG_KEYS } from "../../provider/rules/stack-config";
import { readWithYamlV3, yamlV3Binary } from "../support/yaml-v3";

/** The config as the CLI hands it to the program: text values, objects as JSON text. */
const text = (config: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(config).map(([k, v]) => [k, typeof v === "string" ? v : JSON.stringify(v)]));
function lines(config: Record<string, unknown>, secrets: string[] = []): string[] {
  const r = readStackConfig({ config: text(config), isSecret: (k) => secrets.includes(k) });
  return formatConfigProblems("Pulumi.prod.yaml", r.problems);
}

const NODE = { operatingSystem: "Linux", type: "File server", domain: "STANDARD", cpuCount: 1 };
const withSecret = (passwordSecret: string) => ({
  acme: { registrationNumber: "1", timeZone: "UTC", consumers: { web: { node: { ...NODE, passwordSecret } } } },
});

describe("stack config: a null tenants block (issue 36 item 7)", function () {
  this.timeout(300_000);

  it("is what the CLI hands the program for an empty key or a block whose every entry is commented out", () => {
    yamlV3Binary();
    for (const file of ["config:\n  backup-portal:tenants:\n", "config:\n  backup-portal:tenants:\n    # acme:\n    #   adoptId: 2\n"]) {
      assert.deepEqual(readWithYamlV3(file).values, { config: { "backup-portal:tenants": null } }, file);
    }
  });

  it("is a problem that says to write {} (the program and the fleet's checks alike), not no tenants", () => {
    const expected = [
      "Pulumi.prod.yaml: backup-portal:tenants: is empty (null: nothing after the key, or every entry commented out); write " +
        "`backup-portal:tenants: {}` to declare none on purpose (an empty block would plan to delete every tenant the stack manages)",
    ];
    assert.deepEqual(lines({ "backup-portal:tenants": "null" }), expected);
    const fleet = checkNamespace({ config: { "backup-portal:tenants": "null" }, isSecret: () => false });
    assert.deepEqual(formatConfigProblems("Pulumi.prod.yaml", fleet.problems), expected);
    assert.deepEqual(lines({ "backup-portal:tenants": "{}" }), []);
  });
});

describe("stack config: a secret named by a key of the stack's own config (issue 36 item 9)", () => {
  it("passwordSecret: password (the portal password as a node's) is refused at its path", () => {
    const config = { "backup-portal:tenants": withSecret("password"), "backup-portal:password": "s" };
    assert.deepEqual(lines(config, ["backup-portal:password"]), [
      'Pulumi.prod.yaml: backup-portal:tenants.acme.consumers.web.node.passwordSecret: "password" names backup-portal:password, ' +
        "a key of the stack's own config, not a secret of its own; name another key and set it with `pulumi config set --secret backup-portal:<key>` (it asks for the value, or reads it from stdin)",
    ]);
  });

  it("passwordSecret: tenants is one line, without the hint that would overwrite the tenants block", () => {
    const [line, ...more] = lines({ "backup-portal:tenants": withSecret("tenants") });
    assert.deepEqual(more, []);
    assert.match(line, /node\.passwordSecret: "tenants" names backup-portal:tenants, a key of the stack's own config/);
    assert.doesNotMatch(line, /set --secret tenants/);
  });

  it("every key of the table is refused, and so are the registry's and the receiver's secret keys", () => {
    for (const key of Object.keys(STACK_CONFIG_KEYS)) {
      assert.match(
        lines({ "backup-portal:tenants": withSecret(key) }).join("\n"),
        new RegExp(`passwordSecret: "${key}" names backup-portal:${key},`),
      );
    }
    const blocks = lines(
      {
        "backup-portal:tenants": {},
        "backup-portal:kubeconfig": "k",
        "backup-portal:registry": { users: [{ username: "ci", passwordSecretKey: "url" }] },
        "backup-portal:billingReceiver": { enabled: false, secretKey: "clientId" },
      },
      ["backup-portal:kubeconfig"],
    );
    assert.ok(
      blocks.some((l) =>
        l.startsWith('Pulumi.prod.yaml: backup-portal:registry.users[0].passwordSecretKey: "url" names backup-portal:url,'),
      ),
      blocks.join("\n"),
    );
    assert.ok(
      blocks.some((l) =>
        l.startsWith('Pulumi.prod.yaml: backup-portal:billingReceiver.secretKey: "clientId" names backup-portal:clientId,'),
      ),
      blocks.join("\n"),
    );
  });
});

describe(`stack config: nesting deeper than ${MAX_CONFIG_DEPTH} levels (issue 36 item 10)`, () => {
  it("4,000 nested business units are one line, not a RangeError", () => {
    const unit = '{"registrationNumber":"1","timeZone":"UTC","businessUnits":{"u":';
    const tenants = `{"u":${unit.repeat(4000)}{}${"}}".repeat(4000)}}`;
    assert.deepEqual(lines({ "backup-portal:tenants": tenants }), [
      `Pulumi.prod.yaml: backup-portal:tenants: nests more than ${MAX_CONFIG_DEPTH} levels of maps and lists (about 30 levels of business units); flatten it`,
    ]);
  });

  it("a registry config nested 10,000 deep is one line too, and never reaches the registry's deep merge", () => {
    const config = `{"enabled":true,"config":${'{"a":'.repeat(10_000)}1${"}".repeat(10_000)}}`;
    assert.deepEqual(
      lines({ "backup-portal:tenants": "{}", "backup-portal:kubeconfig": "k", "backup-portal:registry": config }, [
        "backup-portal:kubeconfig",
      ]),
      [
        `Pulumi.prod.yaml: backup-portal:registry: nests more than ${MAX_CONFIG_DEPTH} levels of maps and lists (about 30 levels of business units); flatten it`,
      ],
    );
  });

  it("30 levels of business units pass", () => {
    let tenants: Record<string, unknown> = {};
    for (let i = 0; i < 30; i++) tenants = { [`u${i}`]: { registrationNumber: "1", timeZone: "UTC", businessUnits: tenants } };
    assert.deepEqual(lines({ "backup-portal:tenants": tenants }), []);
  });
});
