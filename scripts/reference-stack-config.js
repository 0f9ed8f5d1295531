// Writes docs/reference/stack-config.md, the reference of every backup-portal: stack-config key, from the key
// table (provider/stack-config/reference.ts). Run after the table changes: a test fails while the page is stale.
require("ts-node").register({ transpileOnly: true });
const { mkdirSync, writeFileSync } = require("node:fs");
const { join } = require("node:path");
const { stackConfigReference } = require("../provider/stack-config/reference");

const file = join(__dirname, "..", "docs", "reference", "stack-config.md");
mkdirSync(join(__dirname, "..", "docs", "reference"), { recursive: true });
writeFileSync(file, stackConfigReference());
console.log(`wrote ${file}`);
