// The reference pages are generated from the rule tables: the committed pages must be what
// `npm run docs` writes now, and the tables must cover what the resources and components take.
import { strict as assert } from "assert";
import { readdirSync, readFileSync } from "fs";
import { join } from "path";
import { REFERENCE_DIR, referencePages } from "../../scripts/reference-docs";
import { BUSINESS_UNIT, CONSUMER, NODE, NODE_PROXY, replacingChanges, resourceInputs } from "../../provider/rules/resources";
import { REGISTRY_ARGS } from "../../provider/registry/args-table";
import { BILLING_RECEIVER_ARGS } from "../../provider/billing/args-table";
import { businessUnitLifecycle } from "../../provider/resources/business-unit";
import { consumerLifecycle } from "../../provider/resources/consumer";
import { nodeLifecycle } from "../../provider/resources/node";
import { nodeProxyLifecycle } from "../../provider/resources/node-proxy";

const root = join(__dirname, "..", "..");
/** Keys an args interface declares, read from its source (the tables must name each one). */
function declaredKeys(file: string, iface: string): string[] {
  const src = readFileSync(join(root, file), "utf8");
  const body = src.slice(src.indexOf(`export interface ${iface} {`));
  const block = body.slice(0, body.indexOf("\n}\n"));
  return [...block.matchAll(/^ {2}([A-Za-z]+)\??:/gm)].map((m) => m[1]).sort();
}

describe("reference pages (docs/reference/)", function () {
  this.timeout(30_000);

  it("are what `npm run docs` generates from the tables (run it after changing a table)", () => {
    const pages = referencePages();
    const committed = readdirSync(REFERENCE_DIR).filter((f) => f.endsWith(".md") && f !== "stack-config.md");
    assert.deepEqual(committed.sort(), Object.keys(pages).sort(), "a page was added or removed: run npm run docs");
    for (const [name, text] of Object.entries(pages)) {
      const committedText = readFileSync(join(REFERENCE_DIR, name), "utf8");
      assert.equal(committedText, text, `docs/reference/${name} differs from the tables: run npm run docs`);
    }
  });

  it("name every input the resources' args declare, and every argument of the components", () => {
    const cases: Array<[string, string, string[]]> = [
      ["provider/resources/business-unit.ts", "BusinessUnitArgs", resourceInputs(BUSINESS_UNIT).map(([k]) => k)],
      ["provider/resources/consumer.ts", "ConsumerArgs", resourceInputs(CONSUMER).map(([k]) => k)],
      ["provider/resources/node.ts", "NodeArgs", resourceInputs(NODE).map(([k]) => k)],
      ["provider/resources/node-proxy.ts", "NodeProxyArgs", resourceInputs(NODE_PROXY).map(([k]) => k)],
      ["provider/registry/plan.ts", "RegistryArgs", Object.keys(REGISTRY_ARGS)],
      ["provider/billing/component.ts", "BillingReceiverArgs", Object.keys(BILLING_RECEIVER_ARGS)],
    ];
    for (const [file, iface, keys] of cases) assert.deepEqual([...keys].sort(), declaredKeys(file, iface), `${iface} (${file})`);
  });

  it("say what replaces, and Diff replaces exactly that", async () => {
    const specs = [
      { spec: BUSINESS_UNIT, diff: businessUnitLifecycle.diff! },
      { spec: CONSUMER, diff: consumerLifecycle.diff! },
      { spec: NODE, diff: nodeLifecycle.diff! },
      { spec: NODE_PROXY, diff: nodeProxyLifecycle.diff! },
    ];
    for (const { spec, diff } of specs) {
      for (const [key, rule] of resourceInputs(spec)) {
        const olds: Record<string, unknown> = { [key]: 1 };
        const news: Record<string, unknown> = { [key]: 2 };
        const result = await diff("1", olds, news);
        const expected = rule.replaces ? [key] : [];
        assert.deepEqual(result.replaces ?? [], expected, `${spec.name}.${key}: the table says replaces=${rule.replaces ?? "no"}`);
        assert.deepEqual(replacingChanges(spec, [key], olds), expected);
      }
    }
    // "onceSet": setting nodeName the first time keeps the consumer.
    assert.deepEqual((await consumerLifecycle.diff!("1", {}, { nodeName: "N1" })).replaces, []);
  });
});
