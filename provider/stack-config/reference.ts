// The reference page of the stack config, docs/reference/stack-config.md, generated from the table of every
// `backup-portal:` key (provider/rules/stack-config.ts) and the tenant field tables, so the page cannot say
// what the checks do not. `node scripts/reference-stack-config.js` writes it; test/stacks/reference.test.ts fails
// when the committed page differs.
import { FieldRule, REFERENCE_WHAT } from "../rules/fields";
import { ConfigRule, ConfigTable, qualified, STACK_CONFIG_KEYS } from "../rules/stack-config";
import { STACK_BUSINESS_UNIT_FIELDS, STACK_CONSUMER_FIELDS, STACK_NODE_FIELDS } from "../tenants/fields";

/** The type column: what a value must be. */
export function typeText(rule: ConfigRule | FieldRule): string {
  switch (rule.kind) {
    case "string":
      return rule.text === "tsmName" ? "tsmName (1-64 of A-Z 0-9 _ . - + &)" : `string (≤ ${rule.maxLength})`;
    case "integer":
    case "number":
      return `${rule.kind} ${rule.max !== undefined ? `${rule.min}-${rule.max}` : `≥ ${rule.min}`}`;
    case "boolean":
      return "true or false";
    case "strings":
      return "list of strings";
    case "reference":
      return `${REFERENCE_WHAT[rule.ref]}: name or id`;
    case "references":
      return `list of ${REFERENCE_WHAT[rule.ref]} names or ids`;
    case "map":
      return "map";
    case "block":
      return "map (below)";
    case "blocks":
      return "list of maps (below)";
    case "tenants":
      return "map of business units (below)";
  }
}

const cell = (s: string) => s.replace(/\|/g, "\\|").replace(/\n/g, " ");

function table(rows: Array<[string, ConfigRule | FieldRule]>, withSecret: boolean): string[] {
  const head = withSecret
    ? ["| Key | Type | Secret | Default | Description |", "|---|---|---|---|---|"]
    : ["| Key | Type | Required | Description |", "|---|---|---|---|"];
  return [
    ...head,
    ...rows.map(([k, r]) => {
      const extra = r as { secret?: boolean; default?: unknown };
      return withSecret
        ? `| \`${k}\` | ${cell(typeText(r))} | ${extra.secret ? "yes" : ""} | ${extra.default !== undefined ? `\`${JSON.stringify(extra.default)}\`` : ""} | ${cell(r.doc)} |`
        : `| \`${k}\` | ${cell(typeText(r))} | ${r.required ? "yes" : ""} | ${cell(r.doc)} |`;
    }),
  ];
}

/** Every block table below a key, with its path (`registry`, `registry.users[]`, ...). */
function blocks(table: ConfigTable, path: string): Array<[string, ConfigTable]> {
  const out: Array<[string, ConfigTable]> = [];
  for (const [k, r] of Object.entries(table)) {
    if (r.kind === "block" || r.kind === "blocks") {
      const p = `${path}${k}${r.kind === "blocks" ? "[]" : ""}`;
      out.push([p, r.keys], ...blocks(r.keys, `${p}.`));
    }
  }
  return out;
}

/** The page's text, as committed. */
export function stackConfigReference(): string {
  const lines = [
    "# Stack config reference",
    "",
    "<!-- Generated from provider/rules/stack-config.ts and the field tables by `node scripts/reference-stack-config.js`; do not edit. -->",
    "",
    "Every key of the `backup-portal:` namespace of a stack file (`stacks/Pulumi.<stack>.yaml`). Any other key of",
    "that namespace fails the program before anything is registered (`unknown key; did you mean ...?`), except a",
    "secret that a block names (`passwordSecret`, `passwordSecretKey`, `secretKey`). Keys of other namespaces are",
    "left alone. How the checks report problems: [../stack-config.md](../stack-config.md).",
    "",
    "## `backup-portal:` keys",
    "",
    ...table(
      Object.entries(STACK_CONFIG_KEYS).map(([k, r]) => [qualified(k), r]),
      true,
    ),
  ];
  for (const [path, keys] of blocks(STACK_CONFIG_KEYS, "")) {
    lines.push("", `## \`${qualified(path)}\``, "", ...table(Object.entries(keys), true));
  }
  const tenantTables: Array<[string, Record<string, FieldRule>]> = [
    ["a business unit (`tenants.<key>`, `businessUnits.<key>`)", STACK_BUSINESS_UNIT_FIELDS],
    ["a consumer (`consumers.<key>`)", STACK_CONSUMER_FIELDS],
    ["a node (`consumers.<key>.node`)", STACK_NODE_FIELDS],
  ];
  lines.push(
    "",
    "## `backup-portal:tenants`",
    "",
    "Business units by key (the key is the resource's stable name). Besides the fields below, a business unit holds",
    "`businessUnits` (nested, by key), `consumers` (by key) and `proxies` (a list of `{agent, target}` consumer keys).",
  );
  for (const [what, fields] of tenantTables) lines.push("", `### Fields of ${what}`, "", ...table(Object.entries(fields), false));
  return `${lines.join("\n")}\n`;
}
