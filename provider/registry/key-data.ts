// The key lists derived from the pinned sources (scripts/derive-zot-keys.ts writes them; see
// docs/registry.md for a version bump): the values zot chart 0.1.122 reads, and the keys zot
// v2.1.18's config loader accepts. The chart-values schema and the config.json validator are
// built from these; only semantic rules (zot's startup checks, Kubernetes field shapes) are
// kept by hand, next to the code that applies them.
import chartData from "./data/zot-chart-0.1.122.keys.json";
import zotData from "./data/zot-v2.1.18.config-keys.json";

/** A value the chart reads (see scripts/zot-keys/helm-values.ts for how it is derived). */
export interface ChartKeyNode {
  /** The JSON type of its default in values.yaml, if values.yaml sets it. */
  default?: "string" | "integer" | "number" | "boolean" | "map" | "list" | "null";
  /** values.yaml and/or the template files that read it. */
  sources: string[];
  /** Rendered verbatim (toYaml, tpl) or iterated as a map: its contents are not chart keys. */
  open?: boolean;
  /** Printed whole: may be a scalar even though keys are read below it. */
  scalar?: boolean;
  keys?: Record<string, ChartKeyNode>;
  /** The element of a list the templates iterate. */
  items?: ChartKeyNode;
}

/** A config.json key zot knows (see scripts/zot-keys/go-structs.ts for how it is derived). */
export type ZotKeyNode =
  | { type: "string" | "bool" | "int" | "float" | "duration" | "any" }
  | { type: "list"; items: ZotKeyNode }
  | { type: "map"; values: ZotKeyNode }
  | { type: "object"; go: string; keys: Record<string, ZotField>; open?: string };
/** A key of an object node, with the Go field it sets. */
export type ZotField = { field: string } & ZotKeyNode;

export interface ChartKeyData {
  source: {
    repository: string;
    path: string;
    chart: string;
    version: string;
    appVersion: string;
    ref: string;
    commit: string;
    read: string[];
  };
  keys: Record<string, ChartKeyNode>;
}
export interface ZotKeyData {
  source: { repository: string; module: string; version: string; ref: string; commit: string; root: string; loader: string };
  /** Facts the rules follow, derived beside the keys (scripts/derive-zot-keys.ts `zotFacts`). */
  facts: { compatValues: string[]; imageDefaultCompat: string[]; distSpecModule: string; from: string[] };
  config: ZotKeyNode;
}

export const CHART_KEY_DATA: ChartKeyData = chartData as ChartKeyData;
export const ZOT_KEY_DATA: ZotKeyData = zotData as ZotKeyData;

/** The chart version the values checks are those of. */
export const PINNED_CHART_VERSION = CHART_KEY_DATA.source.version;
/** The zot version the config.json checks are those of. */
export const PINNED_ZOT_VERSION = ZOT_KEY_DATA.source.version;

/** Every key path of the chart's values ("a.b", list elements as "a[].c"), sorted. */
export function chartKeyPaths(keys: Record<string, ChartKeyNode> = CHART_KEY_DATA.keys, prefix = ""): string[] {
  const out: string[] = [];
  for (const [k, node] of Object.entries(keys)) {
    const p = prefix === "" ? k : `${prefix}.${k}`;
    out.push(p, ...chartKeyPaths(node.keys ?? {}, p));
    if (node.items) out.push(...chartKeyPaths(node.items.keys ?? {}, `${p}[]`));
  }
  return out.sort();
}

/** Every key path of zot's config (map entries as "*", list elements as "[]"), sorted. */
export function zotKeyPaths(node: ZotKeyNode = ZOT_KEY_DATA.config, prefix = ""): string[] {
  switch (node.type) {
    case "object":
      return Object.entries(node.keys)
        .flatMap(([k, child]) => {
          const p = prefix === "" ? k : `${prefix}.${k}`;
          return [p, ...zotKeyPaths(child, p)];
        })
        .sort();
    case "list":
      return zotKeyPaths(node.items, `${prefix}[]`);
    case "map":
      return zotKeyPaths(node.values, `${prefix}.*`);
    default:
      return [];
  }
}
