// The tests' stand-in for zot chart 0.1.122 (test/real-engine/fixtures/charts/zot-test-standin) refuses what
// zot's chart would ignore: its list of value keys must be the one derived from zot's chart, which the component's
// own checks use too (provider/registry/data). Rendered for real by Helm in test/real-engine/registry-cluster.test.ts.
import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { parse } from "yaml";
import { CHART_KEY_DATA, ChartKeyNode } from "../../provider/registry/key-data";
import { STANDIN_CHART_DIR } from "../support/cluster/chart-repo";

function definedList(tpl: string, name: string): string[] {
  const m = new RegExp(`\\{\\{- define "${name}" -\\}\\}\\n([^{]*)\\{\\{- end -\\}\\}`).exec(tpl);
  assert.ok(m, `${name} is defined`);
  return m[1].trim().split(" ");
}

/** The keys zot's chart reads, and the maps whose keys it reads one by one (not rendered whole). */
function derived(keys: Record<string, ChartKeyNode>, prefix = "", out = { known: [] as string[], closed: [] as string[] }) {
  for (const [k, node] of Object.entries(keys)) {
    const at = prefix ? `${prefix}.${k}` : k;
    out.known.push(at);
    if (node.keys && !node.open) {
      out.closed.push(at);
      derived(node.keys, at, out);
    }
  }
  return out;
}

describe("registry: the tests' stand-in chart", () => {
  const tpl = fs.readFileSync(path.join(STANDIN_CHART_DIR, "templates", "_known-keys.tpl"), "utf8");

  it("knows exactly the value keys zot chart 0.1.122 reads, and checks inside the same maps", () => {
    const { known, closed } = derived(CHART_KEY_DATA.keys);
    assert.deepEqual(definedList(tpl, "standin.knownKeys").sort(), known.sort());
    assert.deepEqual(definedList(tpl, "standin.closedMaps").sort(), closed.sort());
  });

  it("is the pinned chart's version and says it is a stand-in", () => {
    const chart = parse(fs.readFileSync(path.join(STANDIN_CHART_DIR, "Chart.yaml"), "utf8"));
    assert.equal(chart.name, CHART_KEY_DATA.source.chart);
    assert.equal(chart.version, CHART_KEY_DATA.source.version);
    assert.equal(chart.appVersion, CHART_KEY_DATA.source.appVersion);
    assert.match(chart.description, /TEST STAND-IN/);
    assert.equal(chart.annotations["backup-portal-pulumi/test-stand-in"], "true");
  });

  it("its defaults use only keys it knows", () => {
    const values = parse(fs.readFileSync(path.join(STANDIN_CHART_DIR, "values.yaml"), "utf8"));
    const known = new Set(definedList(tpl, "standin.knownKeys"));
    const walk = (obj: Record<string, unknown>, prefix: string): void => {
      for (const [k, v] of Object.entries(obj)) {
        const at = prefix ? `${prefix}.${k}` : k;
        assert.ok(known.has(at), `${at} is a key of zot's chart`);
        if (v && typeof v === "object" && !Array.isArray(v) && definedList(tpl, "standin.closedMaps").includes(at))
          walk(v as Record<string, unknown>, at);
      }
    };
    walk(values, "");
  });
});
