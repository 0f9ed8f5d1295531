// The JSON Schema of the stack files (stacks/tenants.schema.json): committed as generated, referenced by every
// stack file, valid for each of them, and in agreement with the validation on every field rule.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import Ajv from "ajv";
import fc from "fast-check";
import { parse } from "yaml";
import { fieldProblem, FieldRule } from "../../provider/rules/fields";
import { STACK_BUSINESS_UNIT_FIELDS, STACK_CONSUMER_FIELDS, STACK_NODE_FIELDS } from "../../provider/tenants/fields";
import { fieldSchema } from "../../provider/tenants/schema";
import { schemaText, stackFileSchema } from "../../provider/stack-config/schema";
import { validateTenants } from "../../provider/tenants/validate";
import { qualified, STACK_CONFIG_KEYS } from "../../provider/rules/stack-config";
import { readStackConfig } from "../../provider/stack-config/read";

const STACKS = join(__dirname, "..", "..", "stacks");
const stackFiles = readdirSync(STACKS).filter((f) => /^Pulumi\..+\.yaml$/.test(f));

describe("stack file schema", () => {
  const ajv = new Ajv({ allErrors: true });
  // Compiled by each test, not when the file loads: code run at load is invisible to a mutation run's per-test
  // coverage, which then reloads the whole test process for every mutant of schema.ts.
  const compile = () => ajv.compile(stackFileSchema());
  const tenants = (t: unknown) => ({ config: { "backup-portal:url": "https://x", "some-other:key": [1], "backup-portal:tenants": t } });
  const acme = (extra: Record<string, unknown> = {}) => ({ acme: { registrationNumber: "1", timeZone: "UTC", ...extra } });

  it("is committed exactly as `npm run schema` generates it", () => {
    const committed = readFileSync(join(STACKS, "tenants.schema.json"), "utf8");
    assert.ok(committed === schemaText(), "stacks/tenants.schema.json is stale: run `npm run schema` and commit the result");
  });

  it("validates every stack file, each of which references it", () => {
    const validate = compile();
    assert.ok(stackFiles.length >= 3, stackFiles.join());
    for (const f of stackFiles) {
      const text = readFileSync(join(STACKS, f), "utf8");
      assert.match(
        text.split("\n")[0],
        /^# yaml-language-server: \$schema=\.\/tenants\.schema\.json$/,
        `${f}: the schema line comes first`,
      );
      const doc = parse(text);
      assert.ok(doc.config["backup-portal:tenants"], `${f} has tenants`);
      assert.ok(validate(doc), `${f}: ${ajv.errorsText(validate.errors)}`);
    }
  });

  it("flags what the validation refuses: wrong keys, types, ranges, blank names, control characters, plain passwords", () => {
    const validate = compile();
    const bad: Array<[string, unknown]> = [
      ["nodeLimit 2.5", acme({ nodeLimit: 2.5 })],
      ["an unknown key", acme({ consumer: {} })],
      ["a blank name", acme({ name: "   " })],
      ["NUL in a name", acme({ name: "a\u0000" })],
      ["ESC in a registration number", acme({ registrationNumber: "1\u001b" })],
      ["BEL in a tag", acme({ tags: ["\u0007"] })],
      ["a missing timeZone", { acme: { registrationNumber: "1" } }],
      ["a key with a space", { "acme corp": { registrationNumber: "1", timeZone: "UTC" } }],
      ["a domainFilter that is no list", acme({ domainFilter: "STANDARD" })],
      [
        "a plain password",
        acme({ consumers: { web: { node: { operatingSystem: "Linux", type: 1, domain: 1, cpuCount: 1, tsmPassword: "x" } } } }),
      ],
      ["cpuCount 0", acme({ consumers: { web: { node: { operatingSystem: "Linux", type: 1, domain: 1, cpuCount: 0 } } } })],
      ["a proxy without target", acme({ proxies: [{ agent: "a" }] })],
    ];
    for (const [what, t] of bad) {
      assert.equal(validate(tenants(t)), false, what);
      assert.ok(validateTenants(t, { hasSecret: () => true }).length > 0, `the validation refuses ${what} too`);
    }
    const good = acme({
      domainFilter: ["STANDARD", 6],
      clientOptionSetFilter: [],
      billingStorageTypeId: 0,
      requiredApproversOfDeleteRequest: 2,
      finalDeleteRequestApprover: true,
      usersCanApproveOwnRequests: false,
      note: "two\nlines",
      consumers: { web: { aliases: ["old-web"], node: { operatingSystem: "Linux", type: 1, domain: 1, cpuCount: 1, tsmName: "WEB-1" } } },
    });
    assert.ok(validate(tenants(good)), ajv.errorsText(validate.errors));
    assert.deepEqual(validateTenants(good, { hasSecret: () => true }), []);
  });

  it("agrees with the validation on every field rule (values at the edges)", () => {
    const chars = fc.constantFrom(
      "\u0000",
      "\u0007",
      "\u001b",
      "\u007f",
      "\u0085",
      "\t",
      "\n",
      "\r",
      " ",
      "\u00a0",
      "\u2028",
      "a",
      "Z",
      "1",
      "_",
      "&",
      "é",
    );
    const str = fc.oneof(
      fc.array(chars, { maxLength: 5 }).map((a) => a.join("")),
      fc.nat({ max: 260 }).map((n) => "x".repeat(n)),
    );
    const num = fc.oneof(
      fc.constantFrom(0, -1, 1, 1.5, 28, 29, 4096, 4097, -0.5),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.integer(),
    );
    const value = fc.oneof(str, num, fc.boolean(), fc.array(fc.oneof(str, num), { maxLength: 3 }));
    const rules: Array<[string, FieldRule]> = [STACK_BUSINESS_UNIT_FIELDS, STACK_CONSUMER_FIELDS, STACK_NODE_FIELDS].flatMap((t) =>
      Object.entries(t),
    );
    for (const [key, rule] of rules) {
      const check = ajv.compile(fieldSchema(rule));
      fc.assert(
        fc.property(value, (v) => {
          assert.equal(check(v), fieldProblem(v, rule) === undefined, `${key}=${JSON.stringify(v)}: schema and validation disagree`);
        }),
        { numRuns: 150, seed: 13 },
      );
    }
  });

  it("covers every backup-portal: key of the table with its type and description, and requires tenants", () => {
    const config = stackFileSchema().properties as { config: { properties: Record<string, Record<string, unknown>>; required: string[] } };
    assert.deepEqual(Object.keys(config.config.properties), Object.keys(STACK_CONFIG_KEYS).map(qualified));
    for (const [k, s] of Object.entries(config.config.properties)) {
      assert.ok(typeof s.description === "string" && s.description.length > 10, `${k} has a description`);
      // A key that may also be a secret: `if` a map, the secret, `else` its type.
      assert.ok(s.type || s.anyOf || s.$ref || s.else, `${k} has a type`);
    }
    assert.deepEqual(config.config.required, ["backup-portal:tenants"]);
  });

  it("refuses unknown backup-portal: keys, plain secrets and wrong types; leaves other namespaces free", () => {
    const validate = compile();
    const file = (extra: Record<string, unknown>) => ({ config: { "backup-portal:tenants": {}, ...extra } });
    const secure = { secure: "v1:abc" };
    const bad: Array<[string, Record<string, unknown>]> = [
      ["a misspelt namespace key", { "backup-portal:tennants": {} }],
      ["a misspelt safety switch", { "backup-portal:protectBusinessUnit": true }],
      ["a plain-text password", { "backup-portal:password": "hunter2" }],
      ["a plain-text node password", { "backup-portal:web01Password": "hunter2" }],
      ["protectBusinessUnits as text", { "backup-portal:protectBusinessUnits": "yes" }],
      ["rootBusinessUnitId 0", { "backup-portal:rootBusinessUnitId": 0 }],
      ["a misspelt registry key", { "backup-portal:registry": { storgeSize: "1Gi" } }],
      ["a misspelt registry user key", { "backup-portal:registry": { users: [{ username: "a", passwordSecretkey: "k" }] } }],
      ["a misspelt receiver key", { "backup-portal:billingReceiver": { namespce: "billing" } }],
      ["a misspelt key without its namespace (the project's)", { tennants: {} }],
    ];
    for (const [what, extra] of bad) assert.equal(validate(file(extra)), false, what);
    assert.equal(validate({ config: { "backup-portal:url": "https://x" } }), false, "tenants is required");
    const good = file({
      "kubernetes:context": "prod",
      "aws:region": "eu-north-1",
      "myapp:tennants": [1],
      "backup-portal:password": secure,
      "backup-portal:kubeconfig": secure,
      "backup-portal:web01Password": secure,
      "backup-portal:url": secure,
      "backup-portal:rootBusinessUnitId": 1000,
      "backup-portal:protectBusinessUnits": false,
      "backup-portal:registry": {
        enabled: true,
        users: [{ username: "admin" }],
        cve: { enabled: true },
        config: { log: { level: "debug" } },
      },
      "backup-portal:billingReceiver": { businessUnitId: 1, port: 8080, secretKey: "billingSecret" },
    });
    assert.ok(validate(good), ajv.errorsText(validate.errors));
  });

  it("refuses every key one edit off a known one, as the program does", () => {
    const validate = compile();
    const keys = Object.keys(STACK_CONFIG_KEYS);
    fc.assert(
      fc.property(fc.constantFrom(...keys), fc.nat(), fc.constantFrom(..."aeiouxyzXQ_-"), (key, at, ch) => {
        const i = at % key.length;
        const typo = key.slice(0, i) + ch + key.slice(i + 1);
        fc.pre(!keys.includes(typo));
        assert.equal(validate({ config: { "backup-portal:tenants": {}, [qualified(typo)]: "1" } }), false, typo);
        const read = readStackConfig({ config: { "backup-portal:tenants": "{}", [qualified(typo)]: "1" }, isSecret: () => false });
        assert.ok(
          read.problems.some((p) => p.path === typo),
          `the program refuses ${typo} too`,
        );
      }),
      { numRuns: 150, seed: 17 },
    );
  });
});
