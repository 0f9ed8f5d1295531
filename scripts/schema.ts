// Writes stacks/tenants.schema.json, the JSON Schema of the stack files (see stacks/tenants/schema.ts).
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { schemaText } from "../stacks/tenants/schema";

const file = join(__dirname, "..", "stacks", "tenants.schema.json");
writeFileSync(file, schemaText());
console.log(`wrote ${file}`);
