// docs/reference/stack-config.md is generated from the key table: committed as generated, and naming every key.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { qualified, REGISTRY_KEYS, STACK_CONFIG_KEYS } from "../../provider/rules/stack-config";
import { stackConfigReference } from "../../provider/stack-config/reference";

const PAGE = join(__dirname, "..", "..", "docs", "reference", "stack-config.md");

describe("stack config reference page", () => {
  it("is committed exactly as `npm run reference:stack-config` generates it", () => {
    assert.ok(
      readFileSync(PAGE, "utf8") === stackConfigReference(),
      "docs/reference/stack-config.md is stale: run `npm run reference:stack-config`",
    );
  });

  it("has a row for every key of the namespace and of the blocks, with its default", () => {
    const page = stackConfigReference();
    for (const k of Object.keys(STACK_CONFIG_KEYS)) assert.match(page, new RegExp(`^\\| \`${qualified(k)}\` \\|`, "m"), k);
    for (const k of Object.keys(REGISTRY_KEYS)) assert.match(page, new RegExp(`^\\| \`${k}\` \\|`, "m"), `registry.${k}`);
    assert.match(page, /^\| `backup-portal:protectBusinessUnits` \| true or false \| {2}\| `true` \|/m, "protection defaults on");
    assert.match(page, /^## `backup-portal:registry.users\[\]`$/m);
  });
});
