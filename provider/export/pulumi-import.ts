// `backup-portal export --format pulumi-import`: the exported tenants as Pulumi's import file
// (`pulumi import --file`): one entry per business unit, consumer, node and proxy relation of the plugin's types,
// each with the id `pulumi import` reads it by, nested by `parent`. Built from the tenants block the same walk
// mapped (map.ts), so it holds what that block declares and nothing it leaves out: a node left out for review is
// not imported. A value the rules refuse cannot be left out of an import (this CLI's `properties` only adds, it
// never drops a value Read returns), so its review line stands for the generated code: the plugin refuses it at
// preview until it is fixed. No text of the portal reaches the file: names come from the keys (slugs), ids are
// numbers.
import { freeNumbered } from "./keys";
import { Exported, Review } from "./map";
import { OutMap } from "./out";
import { tokenOfName } from "../plugin/package";
import { BUSINESS_UNIT, CONSUMER, NODE, NODE_PROXY, ResourceSpec } from "../rules/resources";

/** One resource of the file, as `pulumi import --file` reads it. */
export interface ImportEntry {
  type: string;
  /** The name in the generated code (an identifier), and what `parent` names. */
  name: string;
  /** The resource's Pulumi name: the stack program's name for the same object (the key path joined by `/`). */
  logicalName: string;
  id: string;
  parent?: string;
  provider?: string;
}

export interface ImportFile {
  nameTable?: Record<string, string>;
  resources: ImportEntry[];
}

/**
 * What the stack already has of the plugin's resources (`pulumi stack export`): its URN by type and the resource id
 * the import gave it, so that an export for a stack that adopted part of the portal adds only the rest.
 */
export type StackResources = Map<string, string>;

const stateKey = (type: string, id: string) => `${type} ${id}`;

/** The resource id `pulumi import` gives an entry (the plugin's import ids: the business unit's, else the last part). */
const stateIdOf = (entry: Pick<ImportEntry, "type" | "id">) => entry.id.slice(entry.id.indexOf("/") + 1);

/**
 * The plugin's resources in the output of `pulumi stack export` (`text`, read from `file`). A problem is a string:
 * one line naming the file and the fix.
 */
export function readStackState(text: string, file: string): StackResources | string {
  const how = "give the output of `pulumi stack export --stack <stack>`";
  let json: any;
  try {
    json = JSON.parse(text.replace(/^\uFEFF/, ""));
  } catch (err) {
    return `${file}: not JSON (${(err as Error).message.split("\n")[0]}); ${how}`;
  }
  const resources = json?.deployment?.resources ?? (json?.deployment && !("resources" in json.deployment) ? [] : undefined);
  if (!Array.isArray(resources)) return `${file}: has no deployment.resources, so it is no stack export; ${how}`;
  const out: StackResources = new Map();
  const types = [BUSINESS_UNIT, CONSUMER, NODE, NODE_PROXY].map((r) => tokenOfName(r.name));
  for (const r of resources) {
    if (types.includes(r?.type) && typeof r.id === "string" && typeof r.urn === "string") out.set(stateKey(r.type, r.id), r.urn);
  }
  return out;
}

/** An explicit provider: its name in the generated code and its URN in the stack. */
export interface ImportProvider {
  name: string;
  urn: string;
}

const PROVIDER_URN = /^urn:pulumi:[^:]+::[^:]+::pulumi:providers:backupportal::[^:]+$/;
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * `--provider <name>=<urn>` as `pulumi import --provider` takes it: the URN of a backupportal provider in the
 * stack (`pulumi stack --show-urns`). A problem is one line naming the flag and the fix.
 */
export function parseProvider(text: string): ImportProvider | string {
  const at = text.indexOf("=");
  const name = at < 0 ? "" : text.slice(0, at);
  const urn = at < 0 ? text : text.slice(at + 1);
  if (!IDENTIFIER.test(name)) {
    return `--provider needs <name>=<urn>, the name the program gives the provider (letters, digits, _), got ${JSON.stringify(text)}`;
  }
  if (!PROVIDER_URN.test(urn)) {
    return (
      `--provider ${name}=: ${JSON.stringify(urn)} is not the URN of a backupportal provider ` +
      "(urn:pulumi:<stack>::<project>::pulumi:providers:backupportal::<name>; `pulumi stack --show-urns` lists it)"
    );
  }
  return { name, urn };
}

/**
 * The ends of the tenants export's review notes for a refused value (map.ts), which speak of the stack file: the
 * value is left out of it, or the entry is refused. The import takes every value as the portal has it.
 */
const STACK_FILE_ENDS = [
  "; the stack refuses this entry until it holds a valid value (set it on the portal or here)",
  "; left out, so the first up leaves the portal's value as it is; set a valid one to manage it",
];

/** A review note as it holds for the import: `inFile`, whether its resource is in the file (else a node left out). */
function importMessage(message: string, inFile: boolean): string {
  const missing = /^the stack needs an? (\w+): set it on the portal or here$/.exec(message);
  if (missing) {
    return `the portal has no ${missing[1]}, which the plugin needs: ${inFile ? "the plugin refuses the resource at preview" : "the node is not in the import file"}; set it on the portal, then export again`;
  }
  const end = STACK_FILE_ENDS.find((e) => message.endsWith(e));
  if (end === undefined) return message;
  const problem = message.slice(0, -end.length);
  return inFile
    ? `${problem}; the import takes it as the portal has it and the plugin refuses it at preview: fix it on the portal and in the generated code`
    : `${problem}; the node is not in the import file: fix it on the portal, then export again`;
}

/**
 * Lower-case words that name no variable in TypeScript, Python or Go, and the packages a program on the SDK imports
 * (a unit named "Default" is `defaultUnit`, one named "Pulumi" `pulumiUnit`).
 */
const RESERVED = new Set(
  (
    "and as assert async await break case catch chan class const continue debugger def default defer del delete do elif else " +
    "enum except export extends false finally for from func function global go goto if import in instanceof interface is " +
    "lambda let map new nonlocal not null or package pass raise range return select struct super switch this throw true " +
    "try type typeof var void while with yield fallthrough implements private protected public static pulumi backupportal"
  ).split(" "),
);

/** "acme-ab/web01" → "acmeAbWeb01": an identifier in every language the CLI writes code in. */
function camel(logicalName: string, kind: string): string {
  const words = logicalName.split(/[^a-z0-9]+/).filter(Boolean);
  const text = words.map((w, i) => (i === 0 ? w : w[0].toUpperCase() + w.slice(1))).join("");
  if (RESERVED.has(text)) return `${text}${kind[0].toUpperCase()}${kind.slice(1)}`;
  return /^[a-z]/.test(text) ? text : `${kind}${text[0]?.toUpperCase() ?? ""}${text.slice(1)}`;
}

interface Walk {
  resources: ImportEntry[];
  /** The review notes, by the import name of the resource they belong to. */
  reviews: Review[];
}

/**
 * The import file of `exported` (toTenants' result). `provider`: every entry takes it (the name table maps it).
 * Review notes are returned with the import name and field (`acmeWeb01.note`) instead of the stack-config path.
 */
export function toImportFile(
  exported: Pick<Exported, "tenants" | "reviews">,
  provider?: ImportProvider,
  state?: StackResources,
): { file: ImportFile; reviews: Review[]; inState: number } {
  /** Entries the stack has (left out), by name → URN: a parent of a new entry is named through the name table. */
  const had = new Map<string, string>();
  const nameTable: Record<string, string> = provider ? { [provider.name]: provider.urn } : {};
  const walk: Walk = { resources: [], reviews: [] };
  const taken = new Set<string>();
  const numberedFrom = new Map<string, number>();
  /** Stack-config path of each object → its import name, for the review notes. */
  const byPath = new Map<string, string>();
  const add = (spec: ResourceSpec, path: string, logicalName: string, kind: string, id: string, parent?: string): string => {
    const base = camel(logicalName, kind) + (spec === NODE ? "Node" : spec === NODE_PROXY ? "Proxy" : "");
    const name = taken.has(base) ? freeNumbered(taken, numberedFrom, base, (n) => `${base}${n}`) : base;
    taken.add(name);
    byPath.set(path, name);
    const type = tokenOfName(spec.name);
    const urn = state?.get(stateKey(type, stateIdOf({ type, id })));
    if (urn !== undefined) {
      had.set(name, urn);
      return name;
    }
    if (parent !== undefined && had.has(parent)) nameTable[parent] = had.get(parent)!;
    walk.resources.push({
      type,
      name,
      logicalName,
      id,
      ...(parent === undefined ? {} : { parent }),
      ...(provider ? { provider: provider.name } : {}),
    });
    return name;
  };
  const units = (map: OutMap, path: string, parentLogical?: string, parent?: string) => {
    for (const { key, value } of map.entries) {
      const unit = value as OutMap;
      const logical = parentLogical === undefined ? key : `${parentLogical}/${key}`;
      const unitPath = `${path}.${key}`;
      const unitId = unit.get("adoptId") as number;
      const unitName = add(BUSINESS_UNIT, unitPath, logical, "unit", String(unitId), parent);
      const consumerIds = new Map<string, number>();
      const consumers = unit.get("consumers");
      if (consumers instanceof OutMap) {
        for (const c of consumers.entries) {
          const consumer = c.value as OutMap;
          const consumerId = consumer.get("adoptId") as number;
          consumerIds.set(c.key, consumerId);
          const cPath = `${unitPath}.consumers.${c.key}`;
          const cLogical = `${logical}/${c.key}`;
          const cName = add(CONSUMER, cPath, cLogical, "consumer", `${unitId}/${consumerId}`, unitName);
          if (consumer.get("node") instanceof OutMap) add(NODE, `${cPath}.node`, cLogical, "node", `${unitId}/${consumerId}`, cName);
        }
      }
      const children = unit.get("businessUnits");
      if (children instanceof OutMap) units(children, `${unitPath}.businessUnits`, logical, unitName);
      for (const p of (unit.get("proxies") as OutMap[] | undefined) ?? []) {
        const [agent, target] = [p.get("agent") as string, p.get("target") as string];
        add(
          NODE_PROXY,
          `${unitPath}.proxies.${agent}>${target}`,
          `${logical}/${agent}>${target}`,
          "proxy",
          `${unitId}/${consumerIds.get(agent)}:${consumerIds.get(target)}`,
          unitName,
        );
      }
    }
  };
  units(exported.tenants, "tenants");
  // Each note at the resource it belongs to (the longest path that is one), else at its stack-config path.
  for (const r of exported.reviews) {
    let at = r.path;
    while (at.includes(".") && !byPath.has(at)) at = at.slice(0, at.lastIndexOf("."));
    const name = byPath.get(at);
    const rest = r.path.slice(at.length);
    // A field of a resource in the file (`.invoiceDay`), or of a node left out (`.node.cpuCount` at its consumer).
    const message = /^\.[A-Za-z]+$/.test(rest)
      ? importMessage(r.message, true)
      : /^\.node\.[A-Za-z]+$/.test(rest)
        ? importMessage(r.message, false)
        : r.message;
    walk.reviews.push({ path: name === undefined ? r.path : `${name}${rest}`, message });
  }
  const file: ImportFile = {
    ...(Object.keys(nameTable).length ? { nameTable } : {}),
    resources: walk.resources,
  };
  return { file, reviews: walk.reviews, inState: had.size };
}

/** The file's text: JSON, so no name can change its structure. */
export const importFileText = (file: ImportFile): string => `${JSON.stringify(file, null, 2)}\n`;

/** The closing line on stderr for an import file. */
export function importSummaryLine(file: ImportFile, r: Pick<Exported, "counts" | "reviews">): string {
  const n = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`;
  const count = (spec: ResourceSpec) => file.resources.filter((e) => e.type === tokenOfName(spec.name)).length;
  const leftOut = r.counts.nodesLeftOut
    ? ` (and ${n(r.counts.nodesLeftOut, "node", "nodes")} left out until ${r.counts.nodesLeftOut === 1 ? "its" : "their"} values are fixed)`
    : "";
  return (
    `exported ${n(count(BUSINESS_UNIT), "business unit", "business units")}, ${n(count(CONSUMER), "consumer", "consumers")}, ` +
    `${n(count(NODE), "node", "nodes")}, ${n(count(NODE_PROXY), "proxy relation", "proxy relations")} for pulumi import${leftOut}; ` +
    `${n(r.reviews.length, "value needs", "values need")} review (see the review lines)`
  );
}
