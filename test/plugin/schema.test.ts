// GetSchema: the package schema the plugin process answers is valid under Pulumi's package metaschema
// (fixtures/README.md names its version) and says what the rule tables and the lifecycles say: every field of
// each table with its type, its doc, required inputs, secrets, and replaceOnChanges where the resource's own Diff
// replaces.
import assert from "node:assert/strict";
import Ajv2020 from "ajv/dist/2020";
import { BUSINESS_UNIT_FIELDS, CONSUMER_FIELDS, NODE_FIELDS } from "../../provider/rules/fields";
import { inputType, packageSchema, schemaTypeOf } from "../../provider/plugin/schema";
import { RESOURCES, tokenOf } from "../../provider/plugin/resources";
import { secretKeys } from "../../provider/rules/resources";
import { Plugin } from "./plugin";

const metaschema = require("./fixtures/pulumi-package-schema.json");

function validator() {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  return ajv.compile(metaschema);
}

describe("backupportal package schema", function () {
  this.timeout(120_000);

  it("GetSchema over gRPC answers a schema valid under Pulumi's metaschema (schema.go loads it the same way)", async () => {
    const plugin = await Plugin.start();
    try {
      const schema = await plugin.schema();
      const validate = validator();
      assert.ok(validate(schema), JSON.stringify(validate.errors, null, 2));
      assert.deepEqual(Object.keys(schema.resources).sort(), [
        "backupportal:index:BusinessUnit",
        "backupportal:index:Consumer",
        "backupportal:index:Node",
        "backupportal:index:NodeProxy",
        "backupportal:index:Tenants",
      ]);
      assert.equal(schema.version, require("../../package.json").version);
    } finally {
      await plugin.close();
    }
  });

  it("Tenants is a component (the plugin constructs it) with no inputs, its outputs maps by resource name", async () => {
    const schema = (await packageSchema("1.0.0")) as any;
    const tenants = schema.resources["backupportal:index:Tenants"];
    assert.equal(tenants.isComponent, true);
    assert.deepEqual(tenants.inputProperties, {});
    assert.deepEqual(tenants.required, ["businessUnitIds", "consumerIds", "nodeNames"]);
    assert.deepEqual(tenants.properties.businessUnitIds.additionalProperties, { type: "integer" });
    assert.deepEqual(tenants.properties.nodeNames.additionalProperties, { type: "string" });
    for (const r of RESOURCES) assert.equal(schema.resources[tokenOf(r)].isComponent, undefined, `${r.spec.name} is a custom resource`);
  });

  it("the metaschema refuses what a schema must not hold (the validation can fail)", async () => {
    const schema = await packageSchema("1.0.0");
    const broken = structuredClone(schema) as any;
    broken.resources["backupportal:index:BusinessUnit"].inputProperties.name.type = "text";
    assert.equal(validator()(broken), false);
  });

  it("a type the tables write that the schema cannot map fails the generation instead of becoming a wrong type", () => {
    assert.deepEqual(schemaTypeOf("number[] | undefined"), { type: "array", items: { type: "integer" } });
    assert.deepEqual(schemaTypeOf("string | undefined"), { type: "string" });
    assert.throws(() => schemaTypeOf("Date"), /no schema type for the table's type "Date"/);
  });

  it("follows the tables: every field with its type, doc and requiredness", async () => {
    const schema = (await packageSchema("1.0.0")) as any;
    const tables = { BusinessUnit: BUSINESS_UNIT_FIELDS, Consumer: CONSUMER_FIELDS, Node: NODE_FIELDS } as const;
    for (const [name, table] of Object.entries(tables)) {
      const res = schema.resources[`backupportal:index:${name}`];
      for (const [key, rule] of Object.entries(table)) {
        const spec = res.inputProperties[key];
        assert.ok(spec, `${name}.${key} is in the schema`);
        const { description, replaceOnChanges, secret, ...type } = spec;
        void replaceOnChanges;
        void secret;
        assert.deepEqual(type, inputType(rule), `${name}.${key}: the table's type`);
        assert.ok(description.toLowerCase().includes(rule.doc.toLowerCase()), `${name}.${key}: the table's doc`);
        assert.equal(res.requiredInputs.includes(key), !!rule.required, `${name}.${key}: required as the table says`);
      }
    }
    assert.deepEqual(inputType(NODE_FIELDS.cpuCount), { type: "integer" });
    assert.deepEqual(inputType(BUSINESS_UNIT_FIELDS.tags), { type: "array", items: { type: "string" } });
  });

  it("replaceOnChanges, secrets and config: as the lifecycles' Diff and the connection settings say", async () => {
    const schema = (await packageSchema("1.0.0")) as any;
    const replacing = (token: string) =>
      Object.entries(schema.resources[token].inputProperties)
        .filter(([, s]: [string, any]) => s.replaceOnChanges)
        .map(([k]) => k)
        .sort();
    assert.deepEqual(replacing("backupportal:index:BusinessUnit"), ["parentId"]);
    assert.deepEqual(replacing("backupportal:index:Consumer"), ["businessUnitId", "nodeName"]);
    assert.deepEqual(replacing("backupportal:index:Node"), ["businessUnitId", "consumerId"]);
    assert.deepEqual(replacing("backupportal:index:NodeProxy"), ["agentConsumerId", "businessUnitId", "targetConsumerId"]);
    for (const r of RESOURCES) {
      const spec = schema.resources[tokenOf(r)];
      // Every input and output of the resource's table, and nothing else.
      assert.deepEqual(Object.keys(spec.inputProperties), [...Object.keys(r.spec.other), ...Object.keys(r.spec.fields)], r.spec.name);
      assert.deepEqual(
        Object.keys(spec.properties).sort(),
        [...new Set([...Object.keys(spec.inputProperties), ...Object.keys(r.spec.outputs)])].sort(),
        `${r.spec.name} outputs`,
      );
      const secrets = Object.entries({ ...spec.inputProperties, ...spec.properties })
        .filter(([, s]: [string, any]) => s.secret)
        .map(([k]) => k);
      assert.deepEqual([...new Set(secrets)].sort(), [...secretKeys(r.spec)].sort(), `${r.spec.name} secrets`);
    }
    const node = schema.resources["backupportal:index:Node"];
    assert.equal(node.inputProperties.tsmPassword.secret, true);
    assert.equal(node.properties.tsmPassword.secret, true);
    // The password the portal chose at activation is a secret output, as in the dynamic Node's state.
    assert.equal(node.properties.generatedPassword.secret, true);
    assert.deepEqual(node.properties.generatedPassword.type, "string");
    // The proxy's local adopt flag is an input like every field of its table.
    assert.deepEqual(schema.resources["backupportal:index:NodeProxy"].inputProperties.adopt.type, "boolean");
    assert.deepEqual(Object.keys(schema.config.variables).sort(), [
      "clientId",
      "origin",
      "password",
      "recoverInterruptedCreates",
      "url",
      "username",
    ]);
    assert.equal(schema.config.variables.password.secret, true);
    assert.equal(schema.provider.inputProperties.password.secret, true);
  });
});
