// `export --merge FILE`: adds the business units the portal has and the stack file lacks, in place (the `yaml`
// Document API keeps every existing entry, its order and its comments), and lists the entries whose portal values
// differ from the file, without changing them. An entry is the portal's object when its adoptId is that object's
// id; an entry without adoptId (made by the stack) is matched by name among its siblings.
import { Document, isMap, isScalar, parseDocument, Scalar, YAMLMap } from "yaml";
import { matchReference, ReferenceKind } from "../dynamic/references";
import { sameValue } from "../dynamic/values";
import { FieldTable } from "../rules/fields";
import { configProblemsText } from "../stack-config/problems";
import { leadingZeroProblems } from "../stack-config/source";
import { STACK_BUSINESS_UNIT_FIELDS, STACK_CONSUMER_FIELDS, STACK_NODE_FIELDS } from "../tenants/fields";
import { Review } from "./map";
import { OutMap, OutValue, plain } from "./out";
import { ReferenceLists } from "./read";
import { ROOT_KEY, TENANTS_KEY, yamlNode } from "./render";
import { SOURCE_TAGS, stackYamlText } from "./stack-yaml";

export interface MergeResult {
  text: string;
  /** Key paths of the business units added, those below an added one included. */
  added: string[];
  /** Entries whose portal values differ from the file (left as the file has them). */
  differences: Review[];
}

/** A problem with the file itself: the merge does not start. */
export class MergeError extends Error {}

const NOT_COMPARED = new Set(["adoptId", "aliases", "protect", "adopt", "passwordSecret", "deleteAssociations", "deletionComment"]);

/** The indentation the file uses (of the first nested line), so that added and kept lines look alike. */
function indentOf(text: string): { indent: number; indentSeq: boolean } {
  const lines = text.split("\n");
  const nested = lines.find((l) => /^ +[^ #-]/.test(l));
  const indent = nested ? nested.length - nested.trimStart().length : 2;
  let indentSeq = true;
  for (let i = 1; i < lines.length; i++) {
    const m = /^( *)- /.exec(lines[i]);
    const prev = /^( *)[^ #-][^:]*:\s*$/.exec(lines[i - 1]);
    if (m && prev) {
      indentSeq = m[1].length > prev[1].length;
      break;
    }
  }
  return { indent, indentSeq };
}

class Merger {
  readonly added: string[] = [];
  readonly differences: Review[] = [];

  constructor(
    private readonly doc: Document,
    private readonly refs: ReferenceLists,
    private readonly rootId: number,
  ) {}

  differ(path: string, message: string): void {
    this.differences.push({ path, message });
  }

  /** The file's entries of one level that name portal objects: by adoptId, else by name. */
  private match(fileMap: YAMLMap, id: number, name: unknown, used: Set<string>): { key: string; value: YAMLMap } | undefined {
    const entries = fileMap.items
      .filter((p) => isScalar(p.key) && isMap(p.value))
      .map((p) => ({ key: String((p.key as Scalar).value), value: p.value as YAMLMap }))
      .filter((e) => !used.has(e.key));
    const byId = entries.find((e) => Number(e.value.get("adoptId")) === id);
    if (byId) return byId;
    const byName = entries.filter((e) => e.value.get("adoptId") === undefined && (e.value.get("name") ?? e.key) === name);
    return byName.length === 1 ? byName[0] : undefined;
  }

  private freeKey(fileMap: YAMLMap, key: string): string {
    if (!fileMap.has(key)) return key;
    let n = 2;
    while (fileMap.has(`${key}-${n}`)) n++;
    return `${key}-${n}`;
  }

  private same(rule: FieldTable[string] | undefined, a: unknown, b: unknown): boolean {
    if (sameValue(a, b)) return true;
    if (!rule || (rule.kind !== "reference" && rule.kind !== "references")) return false;
    const list = this.refs.list(rule.ref as ReferenceKind, this.rootId);
    const ids = (v: unknown) => (Array.isArray(v) ? v : [v]).map((x) => matchReference(list, x as string | number)?.id ?? `?${String(x)}`);
    return sameValue(ids(a), ids(b));
  }

  /** The settings of a matched entry against the portal's: each difference listed. */
  private compare(file: YAMLMap, key: string, portal: OutMap, table: FieldTable, path: string): void {
    const fileValues = (file.toJSON() ?? {}) as Record<string, unknown>;
    const names = new Set([...portal.entries.map((e) => e.key), ...Object.keys(fileValues)]);
    for (const k of [...names].filter((n) => n in table && !NOT_COMPARED.has(n))) {
      const p = portal.get(k);
      const f = k === "name" ? (fileValues.name ?? key) : fileValues[k];
      const pv = p === undefined ? undefined : plain(p);
      if (this.same(table[k], pv, f) || (k === "tsmName" && String(pv).toUpperCase() === String(f).toUpperCase())) continue;
      this.differ(
        `${path}.${k}`,
        `the portal has ${pv === undefined ? "none" : JSON.stringify(pv)}, the file ${f === undefined ? "none" : JSON.stringify(f)}`,
      );
    }
  }

  /** An added business unit and each one below it: every unit the file gains is counted. */
  private addedWithin(bu: OutMap, path: string): void {
    this.added.push(path);
    const children = bu.get("businessUnits") as OutMap | undefined;
    for (const { key, value } of children?.entries ?? []) this.addedWithin(value as OutMap, `${path}.businessUnits.${key}`);
  }

  /** One level of business units: matched ones compared (and their children merged), missing ones added. */
  businessUnits(fileMap: YAMLMap, portal: OutMap, path: string): void {
    const used = new Set<string>();
    for (const { key, value } of portal.entries) {
      const bu = value as OutMap;
      const found = this.match(fileMap, Number(bu.get("adoptId")), plain(bu.get("name")!), used);
      if (!found) {
        const k = this.freeKey(fileMap, key);
        // `tenants: {}` in the file: the entries added are written as blocks, like the rest of the file.
        fileMap.flow = false;
        fileMap.items.push(this.doc.createPair(new Scalar(k), yamlNode(this.doc, bu)));
        used.add(k);
        this.addedWithin(bu, `${path}.${k}`);
        continue;
      }
      used.add(found.key);
      const p = `${path}.${found.key}`;
      this.compare(found.value, found.key, bu, STACK_BUSINESS_UNIT_FIELDS, p);
      this.consumers(found.value, (bu.get("consumers") as OutMap | undefined) ?? new OutMap(), `${p}.consumers`);
      const children = bu.get("businessUnits") as OutMap | undefined;
      if (children) {
        let map = found.value.get("businessUnits");
        if (!isMap(map)) {
          map = new YAMLMap();
          found.value.set("businessUnits", map);
        }
        this.businessUnits(map as YAMLMap, children, `${p}.businessUnits`);
      }
    }
  }

  /** Consumers are compared, never added: one on the portal and not in the file is listed. */
  private consumers(file: YAMLMap, portal: OutMap, path: string): void {
    const map = file.get("consumers");
    const fileMap = isMap(map) ? (map as YAMLMap) : new YAMLMap();
    const used = new Set<string>();
    for (const { key, value } of portal.entries) {
      const c = value as OutMap;
      const found = this.match(fileMap, Number(c.get("adoptId")), plain(c.get("name")!), used);
      if (!found) {
        this.differ(
          `${path}.${key}`,
          `consumer ${c.get("adoptId")} (${JSON.stringify(plain(c.get("name")!))}) is on the portal, not in the file; add it by hand or export it`,
        );
        continue;
      }
      used.add(found.key);
      this.compare(found.value, found.key, c, STACK_CONSUMER_FIELDS, `${path}.${found.key}`);
      const node = c.get("node") as OutMap | undefined;
      const fileNode = found.value.get("node");
      if (node && isMap(fileNode)) this.compare(fileNode as YAMLMap, "node", node, STACK_NODE_FIELDS, `${path}.${found.key}.node`);
      else if (node) this.differ(`${path}.${found.key}.node`, "the consumer has a node on the portal, none in the file");
    }
  }
}

/** Merges the export into the stack file's text; `fileName` names it in messages. */
export function mergeInto(
  fileText: string,
  fileName: string,
  exported: { rootId: number; tenants: OutMap },
  refs: ReferenceLists,
): MergeResult {
  const doc = parseDocument(fileText, { customTags: (tags) => [...tags, ...SOURCE_TAGS] }) as unknown as Document;
  if (doc.errors.length) throw new MergeError(`${fileName}: not YAML the merge can read: ${doc.errors[0].message.split("\n")[0]}`);
  const zeros = leadingZeroProblems(doc);
  if (zeros.length) {
    throw new MergeError(configProblemsText(fileName, zeros, "nothing was merged"));
  }
  if (doc.contents === null) doc.contents = new YAMLMap();
  if (!isMap(doc.contents)) throw new MergeError(`${fileName}: the file must be a map with a config: key`);
  let config = doc.get("config");
  if (config === undefined || config === null) {
    config = new YAMLMap();
    doc.set("config", config);
  }
  if (!isMap(config)) throw new MergeError(`${fileName}: config: must be a map`);
  const cfg = config as YAMLMap;
  const root = cfg.get(ROOT_KEY);
  if (root === undefined) cfg.set(ROOT_KEY, exported.rootId);
  else if (Number(root) !== exported.rootId) {
    throw new MergeError(
      `${fileName}: config.${ROOT_KEY} is ${String(root)}, but the export is below business unit ${exported.rootId}; export with --bunit ${String(root)}`,
    );
  }
  let tenants = cfg.get(TENANTS_KEY);
  if (tenants === undefined || tenants === null) {
    tenants = new YAMLMap();
    cfg.set(TENANTS_KEY, tenants);
  }
  if (!isMap(tenants)) throw new MergeError(`${fileName}: config.${TENANTS_KEY} must be a map from key to business unit`);
  const m = new Merger(doc, refs, exported.rootId);
  m.businessUnits(tenants as YAMLMap, exported.tenants, "tenants");
  return { text: stackYamlText(doc, indentOf(fileText)), added: m.added, differences: m.differences };
}

export type { OutValue };
