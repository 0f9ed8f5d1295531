// Writes stacks/tenants.schema.json, the JSON Schema of the stack files, from the stack-config key table and the field tables
// (provider/stack-config/schema.ts). Run after a rule changes: a test fails while the committed file is stale.
require("ts-node").register({ transpileOnly: true });
const { writeFileSync } = require("node:fs");
const { join } = require("node:path");
const { schemaText } = require("../provider/stack-config/schema");

const file = join(__dirname, "..", "stacks", "tenants.schema.json");
writeFileSync(file, schemaText());
console.log(`wrote ${file}`);
