// The defaults the docs give are the code's. docs/reference/stack-config.md is generated from the stack-config
// key table (test/stacks/reference.test.ts holds the page to it); this holds the table to the components it feeds:
// where the stack's block and the component name the same argument, the block's default is the component's, and
// an argument the component requires has no default in the block (the program refuses a block without it).
import { strict as assert } from "assert";
import { BILLING_RECEIVER_KEYS, ConfigTable, REGISTRY_KEYS } from "../../provider/rules/stack-config";
import { REGISTRY_ARGS, type ComponentArgTable } from "../../provider/registry/args-table";
import { BILLING_RECEIVER_ARGS } from "../../provider/billing/args-table";
import { stackConfigReference } from "../../provider/stack-config/reference";
import { PortalCore } from "../../provider/portal/core";
import type { TransportOptions } from "../../provider/portal/transport";
import { read } from "./markdown";

/** A default as docs/emulator.md writes it: `30000`, `32 MiB`, `none`. */
function value(text: string): number | undefined {
  if (text === "none") return undefined;
  const m = /^(\d+)(?: (KiB|MiB))?$/.exec(text);
  if (!m) throw new Error(`not a default: ${text}`);
  return Number(m[1]) * (m[2] === "MiB" ? 1024 * 1024 : m[2] === "KiB" ? 1024 : 1);
}

/** Where a block's defaults disagree with its component's: `<block>.<key>: ...`. */
export function defaultProblems(block: string, keys: ConfigTable, args: ComponentArgTable): string[] {
  const problems: string[] = [];
  for (const [key, rule] of Object.entries(keys)) {
    const arg = args[key];
    if (!arg || rule.default === undefined) continue;
    if (arg.required) {
      problems.push(`${block}.${key}: the table gives a default (${JSON.stringify(rule.default)}), but the component requires a value`);
    } else if (arg.default !== undefined && arg.default !== rule.default) {
      problems.push(
        `${block}.${key}: the table's default ${JSON.stringify(rule.default)} is not the component's ${JSON.stringify(arg.default)}`,
      );
    }
  }
  return problems;
}

describe("docs: the defaults they give are the code's", () => {
  it("the registry and billing receiver blocks default as their components do, and give no default for what those require", () => {
    assert.deepEqual(
      [
        ...defaultProblems("registry", REGISTRY_KEYS, REGISTRY_ARGS),
        ...defaultProblems("billingReceiver", BILLING_RECEIVER_KEYS, BILLING_RECEIVER_ARGS),
      ],
      [],
    );
    // Not blind: a block that defaults what is required, or defaults otherwise.
    assert.deepEqual(
      defaultProblems(
        "b",
        {
          image: { kind: "string", text: "line", maxLength: 1000, doc: "", default: "node:20-alpine" },
          port: { kind: "integer", min: 1, doc: "", default: 80 },
        } as ConfigTable,
        { image: { type: "string", required: true, doc: "", mapsTo: "" }, port: { type: "number", default: 8080, doc: "", mapsTo: "" } },
      ),
      [
        'b.image: the table gives a default ("node:20-alpine"), but the component requires a value',
        "b.port: the table's default 80 is not the component's 8080",
      ],
    );
  });

  it("the reference page says the receiver's image is required and pinned by digest, and names no node image as its default", () => {
    const page = stackConfigReference();
    const row = page.split("\n").find((l) => l.startsWith("| `image` |") && l.includes("receiver"))!;
    assert.ok(row, "the billingReceiver.image row");
    assert.match(row, /required while enabled: the receiver image pinned by digest/);
    // | Key | Type | Secret | Default | Description |
    const cells = row.split("|").map((c) => c.trim());
    assert.equal(cells[4], "", `no default: ${row}`);
    assert.doesNotMatch(page, /node:\d+-alpine/);
  });

  it("docs/emulator.md's table of the client's deadlines and limits gives the defaults the client applies", () => {
    const page = read("docs/emulator.md");
    const table = page.slice(page.indexOf("| setting | default | what it bounds |"));
    const rows = [...table.split("\n\n")[0].matchAll(/^\| (`\w+`(?:, `\w+`)*) \| ([^|]+) \|/gm)];
    const documented: Record<string, number | undefined> = {};
    for (const [, names, defaults] of rows) {
      const keys = [...names.matchAll(/`(\w+)`/g)].map((m) => m[1]);
      const values = defaults.trim().split(/,\s*/);
      keys.forEach((k, i) => (documented[k] = value(values[i] ?? values[0])));
    }
    assert.deepEqual(Object.keys(documented).sort(), [
      "deadlineMs",
      "maxAnswerBytes",
      "maxAttempts",
      "retryBaseMs",
      "retryMaxMs",
      "timeoutMs",
    ]);
    const core = new PortalCore({ url: "http://127.0.0.1:1", origin: "http://localhost", clientId: "c", username: "u", password: "p" });
    try {
      const opts = (core.transport as unknown as { opts: TransportOptions }).opts;
      const applied = Object.fromEntries(Object.keys(documented).map((k) => [k, opts[k as keyof TransportOptions]]));
      assert.deepEqual(applied, documented);
    } finally {
      core.transport.close();
    }
  });
});
