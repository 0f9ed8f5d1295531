// `export --merge FILE`: adds the business units the portal has and the stack file lacks, and reports the entries
// whose portal values differ and the objects the portal no longer has, without changing them. The file's bytes are
// kept: additions are inserted as text (splice.ts), so a portal that brings nothing leaves the file as it was.
//
// An entry is a portal object when its id is that object's: its adoptId, else the id the stack's outputs give its
// resource (managed.ts). An entry with neither (made by the stack, no outputs given) is matched by name among its
// siblings, and only when one entry and one object have that name. No object whose id the file or the outputs hold
// is ever added (a second resource for one object would fight the first on every up, and removing it would delete
// the object); nor, without outputs, any while an entry without adoptId matches nothing (it may be that object,
// renamed or moved on the portal).
import { Document, isAlias, isMap, isScalar, isSeq, Node as YamlNode, Pair, YAMLMap } from "yaml";
import { matchReference, ReferenceKind } from "../dynamic/references";
import { sameValue } from "../dynamic/values";
import { FieldTable, portalId } from "../rules/fields";
import { cliConfigKey } from "../rules/config-keys";
import { MAX_CONFIG_DEPTH, NAMESPACE } from "../rules/stack-config";
import { configProblemsText } from "../stack-config/problems";
import { cliReadingProblems } from "../stack-config/source";
import { parseYamlDocument } from "../stack-config/yaml-document";
import { STACK_BUSINESS_UNIT_FIELDS, STACK_CONSUMER_FIELDS, STACK_NODE_FIELDS } from "../tenants/fields";
import { repeatedAdoptIdProblems } from "../tenants/validate";
import type { ManagedIds } from "./managed";
import { NODE_LEFT_OUT, Review } from "./map";
import { OutMap, OutValue, plain } from "./out";
import { ReferenceLists } from "./read";
import { ROOT_KEY, rootText, TENANTS_KEY } from "./render";
import { Layout, NewPairs, SpliceRefused, Splicer } from "./splice";

export interface MergeResult {
  /** The merged text: the file's own bytes, with the additions inserted. */
  text: string;
  /** Key paths of the business units added, those below an added one included. */
  added: string[];
  /** Entries whose portal values differ from the file (left as the file has them). */
  differences: Review[];
  /** Entries, nodes and proxy relations the portal no longer has where the file has them (left in the file). */
  gone: Review[];
  /** Business units on the portal that were not added, and why (the stack may manage them already). */
  notAdded: Review[];
}

/** A problem with the file itself: the merge does not start. */
export class MergeError extends Error {}

const NOT_COMPARED = new Set(["adoptId", "aliases", "protect", "adopt", "passwordSecret", "deleteAssociations", "deletionComment"]);

/** The indentation the file uses (of the first nested line), so that added and kept lines look alike. */
function indentOf(text: string): Layout {
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

// ---------------------------------------------------------------------------------------------------------------
// The two sides: the file's entries (with their YAML nodes, for the additions) and the portal's objects.

type Kind = "business unit" | "consumer";

export interface FileEntry {
  key: string;
  /** Key path, e.g. tenants.acme.consumers.web. */
  path: string;
  map: YAMLMap;
  /** The name the entry gives the object (its key when it has none). */
  name: unknown;
  id?: number;
  /** Where the id comes from: adoptId, or the stack's outputs (the resource name). */
  idFrom?: "adoptId" | string;
  bound?: PortalEntry;
  /** When its name cannot tell: the portal's objects of that name here, and the file's other entries of it. */
  ambiguous?: { objects: PortalEntry[]; entries: FileEntry[] };
}

interface FileUnit extends FileEntry {
  units: FileUnit[];
  consumers: FileEntry[];
}

export interface PortalEntry {
  id: number;
  name: unknown;
  key: string;
  path: string;
  out: OutMap;
}

interface PortalUnit extends PortalEntry {
  units: PortalUnit[];
  consumers: PortalEntry[];
}

const entriesOf = (node: unknown): Array<{ key: string; map: YAMLMap }> =>
  isMap(node)
    ? (node as YAMLMap).items.flatMap((p) =>
        isScalar(p.key) && isMap(p.value) ? [{ key: String(p.key.value), map: p.value as YAMLMap }] : [],
      )
    : [];

/**
 * What holds entries or a node (an entry itself, its businessUnits, consumers, node, proxies): written through a
 * YAML alias, one text stands for two places, and a line the merge adds or a difference it reports could not say
 * which. A scalar's alias (`adoptId: *id`, `name: *n`) is only a value, read as the CLI reads it.
 */
const STRUCTURE_KEYS = ["businessUnits", "consumers", "node", "proxies"];

/** A `<<: *base` pair: the `yaml` package reads its key as a symbol. */
const isMergePair = (p: Pair) => isScalar(p.key) && typeof p.key.value === "symbol";

const pairOf = (map: YAMLMap, key: string): Pair | undefined => map.items.find((p) => isScalar(p.key) && String(p.key.value) === key);

const idOf = (v: OutValue | undefined) => Number(v);
const shown = (v: unknown) => JSON.stringify(v);
const what = (kind: Kind, e: PortalEntry) => `${kind} ${e.id}${e.name === undefined ? "" : ` (${shown(e.name)})`}`;
const HOW_OUTPUTS = "give --stack-outputs <file> (`pulumi stack output --json` of the stack)";

/**
 * One level's entries and objects paired: by id; else by name, when exactly one entry without an id and one
 * object not held elsewhere (`notHeld`, asked once for each object no entry holds by id, in order) have it. Returns
 * the objects left over that nothing holds; the entries of their names are marked ambiguous.
 */
export function bindLevel<F extends FileEntry, P extends PortalEntry>(file: F[], portal: P[], notHeld: (p: P) => boolean): P[] {
  // By id: the entries holding each id, in the file's order (a search of the whole level for each object would
  // grow with the square of the tenants).
  const byId = new Map<number, F[]>();
  for (const e of file) {
    if (e.id === undefined) continue;
    const same = byId.get(e.id);
    if (same) same.push(e);
    else byId.set(e.id, [e]);
  }
  const free: P[] = [];
  for (const p of portal) {
    const f = byId.get(p.id)?.find((e) => !e.bound);
    if (f) f.bound = p;
    else if (notHeld(p)) free.push(p);
  }
  return bindByName(file, free);
}

/** Whether a name compares as its text (sameValue: text and numbers), so that names can be grouped by it. */
const plainName = (v: unknown) => typeof v === "string" || typeof v === "number";

/**
 * The objects no id bound, each bound to the one entry without an id that has its name when it alone has it
 * and no other object does; the others returned, and the entries of their name marked ambiguous.
 */
function bindByName<F extends FileEntry, P extends PortalEntry>(file: F[], free: P[]): P[] {
  const left: P[] = [];
  const unnamed = file.filter((e) => e.id === undefined);
  // A name of another kind (a list, a map: only a file can hold one) is compared one by one, as sameValue does.
  if (!free.every((p) => p.name === undefined || plainName(p.name)) || !unnamed.every((e) => plainName(e.name))) {
    for (const p of free) {
      const named = (e: { name: unknown }) => p.name !== undefined && e.name !== undefined && sameValue(e.name, p.name);
      const entries = unnamed.filter((e) => !e.bound && named(e));
      const objects = free.filter(named);
      if (entries.length === 1 && objects.length === 1) entries[0].bound = p;
      else {
        for (const e of entries) e.ambiguous = { objects, entries };
        left.push(p);
      }
    }
    return left;
  }
  // Text and numbers: grouped by their text, each group in the order of its list.
  const group = <T extends { name: unknown }>(list: T[]): Map<string, T[]> => {
    const by = new Map<string, T[]>();
    for (const x of list) {
      if (x.name === undefined) continue;
      const key = String(x.name);
      const same = by.get(key);
      if (same) same.push(x);
      else by.set(key, [x]);
    }
    return by;
  };
  const entriesByName = group(unnamed);
  const objectsByName = group(free);
  for (const p of free) {
    const key = p.name === undefined ? undefined : String(p.name);
    const entries = key === undefined ? [] : (entriesByName.get(key) ?? []).filter((e) => !e.bound);
    const objects = key === undefined ? [] : [...objectsByName.get(key)!];
    if (entries.length === 1 && objects.length === 1) entries[0].bound = p;
    else {
      for (const e of entries) e.ambiguous = { objects, entries };
      left.push(p);
    }
  }
  return left;
}

class Merger {
  readonly added: string[] = [];
  readonly differences: Review[] = [];
  readonly gone: Review[] = [];
  readonly notAdded: Review[] = [];
  private readonly portalUnits = new Map<number, PortalUnit>();
  private readonly portalConsumers = new Map<number, PortalEntry>();
  /** Ids the file or the outputs hold: where (a key path, or an output). */
  private readonly heldUnits = new Map<number, string>();
  private readonly heldConsumers = new Map<number, string>();
  /** Business units the portal has and the file lacks, by the map (key path) they would go into. */
  private readonly missing: Array<{ path: string; file: YAMLMap | undefined; owner?: FileUnit; units: PortalUnit[] }> = [];
  readonly fileUnits: FileUnit[];
  readonly portalTop: PortalUnit[];

  constructor(
    private readonly fileName: string,
    tenants: YAMLMap | undefined,
    portal: OutMap,
    private readonly refs: ReferenceLists,
    private readonly rootId: number,
    private readonly managed: ManagedIds | undefined,
    /** The file's document: values are read with their aliases (`*name`) resolved, as the Pulumi CLI reads them. */
    private readonly doc: Document,
  ) {
    this.fileUnits = this.readFile(tenants, "tenants", undefined, 1);
    this.portalTop = this.readPortal(portal, "tenants");
    // What the outputs hold and no entry is (its entry removed, or renamed without aliases): held all the same.
    for (const [name, id] of managed?.businessUnits ?? [])
      if (!this.heldUnits.has(id)) this.heldUnits.set(id, `businessUnitIds[${shown(name)}]`);
    for (const [name, id] of managed?.consumers ?? [])
      if (!this.heldConsumers.has(id)) this.heldConsumers.set(id, `consumerIds[${shown(name)}]`);
  }

  // --- reading -----------------------------------------------------------------------------------------------

  /** The id the outputs give a resource, by its name or an earlier name (its aliases). */
  private outputId(
    ids: Map<string, number> | undefined,
    parent: string | undefined,
    key: string,
    aliases: unknown,
  ): { id: number; name: string } | undefined {
    if (!ids) return undefined;
    const names = [key, ...(Array.isArray(aliases) ? aliases.filter((a): a is string => typeof a === "string") : [])];
    for (const n of names) {
      const name = parent === undefined ? n : `${parent}/${n}`;
      const id = ids.get(name);
      if (id !== undefined) return { id, name };
    }
    return undefined;
  }

  /** A key's value as the CLI reads it: an alias stands for the value it names, a merge key (`<<`) brings its keys. */
  private valueAt(map: YAMLMap, key: string): unknown {
    const v = map.get(key, true) as unknown;
    if (v === undefined && map.items.some(isMergePair)) return (map.toJS(this.doc) as Record<string, unknown>)[key];
    return isAlias(v) ? (v.toJS(this.doc) as unknown) : isScalar(v) ? v.value : v;
  }

  /**
   * The entries of a map of business units or consumers (at `path`), each a map; an entry, or what holds its
   * entries or node, written as an alias is refused (STRUCTURE_KEYS says why).
   */
  private entries(node: unknown, path: string): Array<{ key: string; map: YAMLMap }> {
    const places: Array<[string, unknown]> = isMap(node)
      ? (node as YAMLMap).items.flatMap((p) => {
          const at = `${path}.${String(isScalar(p.key) ? p.key.value : p.key)}`;
          const inner = isMap(p.value)
            ? STRUCTURE_KEYS.map((k): [string, unknown] => [`${at}.${k}`, (p.value as YAMLMap).get(k, true)])
            : [];
          return [[at, p.value] as [string, unknown], ...inner];
        })
      : [];
    // A merge key (`<<`) where entries are, or bringing what holds entries or a node: the same, through the merge.
    const merged = (isMap(node) && (node as YAMLMap).items.some(isMergePair) ? [`${path}.<<`] : []).concat(
      isMap(node)
        ? (node as YAMLMap).items.flatMap((p) => {
            const map = p.value;
            if (!isMap(map) || !map.items.some(isMergePair)) return [];
            const at = `${path}.${String(isScalar(p.key) ? p.key.value : p.key)}`;
            const brought = Object.keys(map.toJS(this.doc) as object).filter((k) => STRUCTURE_KEYS.includes(k) && !map.has(k));
            return brought.map((k) => `${at}.${k}`);
          })
        : [],
    );
    if (merged.length) {
      throw new MergeError(
        `${this.fileName}: ${merged[0]} comes from a YAML merge key (<<): the merge cannot tell which of the places it ` +
          "stands for a change belongs to; write it out; nothing was merged",
      );
    }
    const aliased = places.find(([, v]) => isAlias(v)) as [string, { source: string }] | undefined;
    if (aliased) {
      throw new MergeError(
        `${this.fileName}: ${aliased[0]} is a YAML alias (*${aliased[1].source}): the merge cannot tell which of the places it ` +
          "stands for a change belongs to; write it out; nothing was merged",
      );
    }
    return entriesOf(node);
  }

  private entry(key: string, map: YAMLMap, path: string, parent: string | undefined, kind: Kind): FileEntry & { resource: string } {
    const resource = parent === undefined ? key : `${parent}/${key}`;
    const adoptId = portalId(this.valueAt(map, "adoptId"));
    const aliases = (map.get("aliases", true) as YamlNode | undefined)?.toJS(this.doc);
    const ids = kind === "consumer" ? this.managed?.consumers : this.managed?.businessUnits;
    const out = adoptId === undefined ? this.outputId(ids, parent, key, aliases) : undefined;
    const e: FileEntry & { resource: string } = { key, path, map, name: this.valueAt(map, "name") ?? key, resource };
    if (adoptId !== undefined) Object.assign(e, { id: adoptId, idFrom: "adoptId" });
    else if (out) Object.assign(e, { id: out.id, idFrom: out.name });
    const held = kind === "consumer" ? this.heldConsumers : this.heldUnits;
    if (e.id !== undefined && !held.has(e.id)) held.set(e.id, path);
    return e;
  }

  private readFile(node: unknown, path: string, parent: string | undefined, depth: number): FileUnit[] {
    // A business unit is two levels of maps (itself and its businessUnits): the config reader's bound, in units.
    if (depth * 2 > MAX_CONFIG_DEPTH) {
      throw new MergeError(`${this.fileName}: ${path} nests more than ${MAX_CONFIG_DEPTH / 2} levels of business units; flatten it`);
    }
    return this.entries(node, path).map(({ key, map }) => {
      const p = `${path}.${key}`;
      const e = this.entry(key, map, p, parent, "business unit");
      const consumers = this.entries(map.get("consumers"), `${p}.consumers`).map((c) =>
        this.entry(c.key, c.map, `${p}.consumers.${c.key}`, e.resource, "consumer"),
      );
      return { ...e, consumers, units: this.readFile(map.get("businessUnits"), `${p}.businessUnits`, e.resource, depth + 1) };
    });
  }

  private readPortal(map: OutMap | undefined, path: string): PortalUnit[] {
    return (map?.entries ?? []).map(({ key, value }) => {
      const out = value as OutMap;
      const p = `${path}.${key}`;
      const consumers = ((out.get("consumers") as OutMap | undefined)?.entries ?? []).map((c) => {
        const cout = c.value as OutMap;
        const name = cout.get("name");
        const ce = {
          id: idOf(cout.get("adoptId")),
          name: name === undefined ? undefined : plain(name),
          key: c.key,
          path: `${p}.consumers.${c.key}`,
          out: cout,
        };
        this.portalConsumers.set(ce.id, ce);
        return ce;
      });
      const unit: PortalUnit = {
        id: idOf(out.get("adoptId")),
        name: out.get("name") === undefined ? undefined : plain(out.get("name")!),
        key,
        path: p,
        out,
        consumers,
        units: this.readPortal(out.get("businessUnits") as OutMap | undefined, `${p}.businessUnits`),
      };
      this.portalUnits.set(unit.id, unit);
      return unit;
    });
  }

  // --- matching ----------------------------------------------------------------------------------------------

  /**
   * One level's entries and objects paired: by id; else by name, when exactly one entry without an id and one
   * object not held elsewhere have it. Returns the objects left over that nothing holds; one held elsewhere is
   * said by the entry that holds it, or here when only the outputs hold it.
   */
  private bind<F extends FileEntry, P extends PortalEntry>(kind: Kind, file: F[], portal: P[], path: string): P[] {
    return bindLevel(file, portal, (p) => this.notHeld(kind, p, `${path}.${p.key}`));
  }

  /** Which entry of `file` each object is bound to. */
  private boundTo<F extends FileEntry>(file: F[]): Map<PortalEntry, F> {
    const to = new Map<PortalEntry, F>();
    for (const e of file) if (e.bound && !to.has(e.bound)) to.set(e.bound, e);
    return to;
  }

  differ(path: string, message: string): void {
    this.differences.push({ path, message });
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
    const fileValues = (file.toJS(this.doc) ?? {}) as Record<string, unknown>;
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

  /** One level of business units, in the portal's order: matched ones compared (their insides too), missing ones noted. */
  units(file: FileUnit[], portal: PortalUnit[], path: string, fileMap: YAMLMap | undefined, owner?: FileUnit): void {
    const left = this.bind("business unit", file, portal, path);
    if (left.length) this.missing.push({ path, file: fileMap, owner, units: left });
    const bound = this.boundTo(file);
    for (const p of portal) {
      const f = bound.get(p);
      if (!f) continue;
      this.compare(f.map, f.key, p.out, STACK_BUSINESS_UNIT_FIELDS, f.path);
      this.consumers(f, p);
      this.proxies(f, p);
      const children = f.map.get("businessUnits");
      this.units(f.units, p.units, `${f.path}.businessUnits`, isMap(children) ? (children as YAMLMap) : undefined, f);
    }
  }

  /** Consumers, in the portal's order, are compared, never added: one on the portal and not in the file is listed. */
  private consumers(f: FileUnit, p: PortalUnit): void {
    const left = new Set(this.bind("consumer", f.consumers, p.consumers, `${f.path}.consumers`));
    const bound = this.boundTo(f.consumers);
    for (const pc of p.consumers) {
      if (left.has(pc)) {
        this.differ(
          `${f.path}.consumers.${pc.key}`,
          `${what("consumer", pc)} is on the portal, not in the file; add it by hand or export it`,
        );
        continue;
      }
      const c = bound.get(pc);
      if (!c?.bound) continue; // held by an entry elsewhere: that entry says so
      this.compare(c.map, c.key, c.bound.out, STACK_CONSUMER_FIELDS, c.path);
      const node = c.bound.out.get("node") as OutMap | undefined;
      const fileNode = c.map.get("node");
      if (node && isMap(fileNode)) this.compare(fileNode as YAMLMap, "node", node, STACK_NODE_FIELDS, `${c.path}.node`);
      else if (node) this.differ(`${c.path}.node`, "the consumer has a node on the portal, none in the file");
      else if (fileNode !== undefined && fileNode !== null && !leftOut(c.bound.out)) {
        this.gone.push({
          path: `${c.path}.node`,
          message: "the consumer has no node on the portal any more (deleted there); the file keeps it",
        });
      }
    }
  }

  /** Proxy relations between the unit's matched consumers: those the portal lacks, and those the file lacks. */
  private proxies(f: FileUnit, p: PortalUnit): void {
    const fileKeyOf = new Map(f.consumers.filter((c) => c.bound).map((c) => [c.bound!.key, c]));
    const portalPairs = new Set(
      ((p.out.get("proxies") as OutValue[] | undefined) ?? []).flatMap((x) => {
        const [a, t] = [fileKeyOf.get(String((x as OutMap).get("agent"))), fileKeyOf.get(String((x as OutMap).get("target")))];
        return a && t ? [`${a.key}\u0000${t.key}`] : [];
      }),
    );
    const list = f.map.get("proxies");
    const filePairs = new Set<string>();
    const byKey = new Map<unknown, FileEntry>();
    for (const c of f.consumers) if (!byKey.has(c.key)) byKey.set(c.key, c);
    (isSeq(list) ? list.items : []).forEach((raw, i) => {
      const item = isAlias(raw) ? raw.resolve(this.doc) : raw;
      if (!isMap(item)) return;
      const [agent, target] = [this.valueAt(item, "agent"), this.valueAt(item, "target")];
      const [a, t] = [byKey.get(agent), byKey.get(target)];
      filePairs.add(`${String(agent)}\u0000${String(target)}`);
      // A relation whose consumer is gone is said at the consumer; one whose node export left out, by export.
      if (!a?.bound || !t?.bound || !a.bound.out.get("node") || !t.bound.out.get("node")) return;
      if (!portalPairs.has(`${a.key}\u0000${t.key}`)) {
        this.gone.push({
          path: `${f.path}.proxies[${i}]`,
          message: `the relation ${a.key} → ${t.key} is gone from the portal; the file keeps it`,
        });
      }
    });
    for (const pair of portalPairs) {
      if (filePairs.has(pair)) continue;
      const [a, t] = pair.split("\u0000");
      this.differ(
        `${f.path}.proxies`,
        `the portal has the relation ${a} → ${t}, the file does not; add {agent: ${a}, target: ${t}, adopt: true} by hand`,
      );
    }
  }

  // --- what the file has and the portal does not --------------------------------------------------------------

  /** Entries nothing on the portal matched: each said at its key (inside a gone one, only what moved). */
  reportUnmatched(units: FileUnit[], insideGone: boolean): void {
    for (const u of units) {
      if (u.bound) {
        this.reportUnmatchedConsumers(u.consumers, false);
        this.reportUnmatched(u.units, false);
        continue;
      }
      this.unmatched("business unit", u, this.portalUnits, insideGone);
      this.reportUnmatchedConsumers(u.consumers, true);
      this.reportUnmatched(u.units, true);
    }
  }

  private reportUnmatchedConsumers(consumers: FileEntry[], insideGone: boolean): void {
    for (const c of consumers) if (!c.bound) this.unmatched("consumer", c, this.portalConsumers, insideGone);
  }

  private unmatched(kind: Kind, e: FileEntry, portal: Map<number, PortalEntry>, insideGone: boolean): void {
    const at = (message: string) => this.gone.push({ path: e.path, message });
    const elsewhere = e.id === undefined ? undefined : portal.get(e.id);
    const source = e.idFrom === "adoptId" ? "" : ` (the stack's ${shown(e.idFrom)}, by ${this.managed?.file})`;
    if (elsewhere) {
      at(
        `${kind} ${e.id}${source} is at ${elsewhere.path} on the portal, not here (moved there); the file keeps it here: move the entry there, or the ${kind} back`,
      );
    } else if (insideGone) {
      return; // said at the gone entry it is in
    } else if (e.id !== undefined) {
      const how = kind === "consumer" ? "deleted there" : `deleted there, or moved out from below business unit ${this.rootId}`;
      // An adopted entry is made again only without its adoptId: the create would adopt an object that is no more.
      const back =
        e.idFrom === "adoptId"
          ? "; to make it again, remove its adoptId (and adopt: true on its nodes) and the next up creates it, with a new id"
          : "; else the next up creates it again, with a new id";
      at(`${kind} ${e.id}${source} is gone from the portal (${how}); the file keeps it: remove the entry if the portal is right${back}`);
    } else if (e.ambiguous) {
      const { objects, entries } = e.ambiguous;
      const ids = objects.map((p) => p.id).join(", ");
      const others = entries.filter((x) => x !== e).map((x) => x.path);
      const hint = `add adoptId: <id> to ${others.length ? "each" : "it"}${this.managed ? "" : `, or ${HOW_OUTPUTS}`}`;
      at(
        others.length
          ? `${others.join(", ")} ${others.length === 1 ? "has" : "have"} its name ${shown(e.name)} too, the portal has ${objects.length} ${kind}${objects.length === 1 ? "" : "s"} ` +
              `of it here (${ids}), and the entries have no adoptId, so the merge cannot tell which is which: ${hint}`
          : `${shown(e.name)} names ${objects.length} ${kind}s here on the portal (${ids}) and the entry has no adoptId, so the merge cannot tell which it is: ${hint}`,
      );
    } else if (!this.managed) {
      at(
        `no ${kind} named ${shown(e.name)} here on the portal: deleted or renamed there, or not made by the stack yet (the entry has no adoptId, ` +
          `and without --stack-outputs the merge cannot tell); the file keeps it`,
      );
    }
    // With outputs, an entry without an id is one the stack has not made yet: the portal cannot have it.
  }

  // --- additions -----------------------------------------------------------------------------------------------

  /**
   * Entries without an id that nothing matched: without outputs, any of them may be an object the portal renamed
   * or moved. The units inside one were never compared: it stands for them.
   */
  private unknowns(units: FileUnit[], out: FileUnit[] = []): FileUnit[] {
    for (const u of units) {
      if (u.bound) this.unknowns(u.units, out);
      else if (u.id === undefined) out.push(u);
    }
    return out;
  }

  /**
   * A missing business unit as the file gets it: without what it holds that the file or the outputs hold already
   * (said where it is), the proxy relations of a consumer left out dropped with it.
   */
  private addable(u: PortalUnit, path: string): OutMap {
    const copy = new OutMap();
    const droppedConsumers = new Set<string>();
    for (const item of u.out.items) {
      if (!("key" in item)) {
        copy.comment(...item.comment);
        continue;
      }
      if (item.key === "businessUnits") {
        const kids = new OutMap();
        for (const k of (item.value as OutMap).items) {
          if (!("key" in k)) kids.comment(...k.comment);
          else {
            const child = this.portalUnits.get(idOf((k.value as OutMap).get("adoptId")))!;
            if (this.notHeld("business unit", child, `${path}.businessUnits.${k.key}`))
              kids.set(k.key, this.addable(child, `${path}.businessUnits.${k.key}`), k.before);
          }
        }
        if (kids.entries.length) copy.set(item.key, kids, item.before);
      } else if (item.key === "consumers") {
        const kept = new OutMap();
        for (const k of (item.value as OutMap).items) {
          if (!("key" in k)) kept.comment(...k.comment);
          else if (
            this.notHeld("consumer", this.portalConsumers.get(idOf((k.value as OutMap).get("adoptId")))!, `${path}.consumers.${k.key}`)
          )
            kept.set(k.key, k.value, k.before);
          else droppedConsumers.add(k.key);
        }
        if (kept.entries.length) copy.set(item.key, kept, item.before);
      } else if (item.key === "proxies") {
        const pairs = (item.value as OutMap[]).filter(
          (x) => !droppedConsumers.has(String(x.get("agent"))) && !droppedConsumers.has(String(x.get("target"))),
        );
        if (pairs.length) copy.set(item.key, pairs, item.before);
      } else copy.set(item.key, item.value, item.before);
    }
    return copy;
  }

  /** Whether an object may be added: one the outputs hold is said here instead; one an entry holds, by the entry. */
  private notHeld(kind: Kind, p: PortalEntry, path: string): boolean {
    const where = (kind === "consumer" ? this.heldConsumers : this.heldUnits).get(p.id);
    if (where === undefined) return true;
    if (!where.startsWith("tenants.")) {
      this.notAdded.push({
        path,
        message:
          `${what(kind, p)} is on the portal, not added: the stack manages it (${this.managed!.file}: ${where}), but no entry of this file is it; ` +
          "if the entry was removed on purpose, the next up deletes the object; to keep it, put the entry back",
      });
    }
    return false;
  }

  /** The missing business units added (or said why not) into the splicer, each map's in one insertion. */
  add(splice: Splicer, tenantsAt: (pairs: NewPairs) => void): void {
    const blockers = this.managed ? [] : this.unknowns(this.fileUnits);
    for (const level of this.missing) {
      const taken = new Set(level.file?.items.flatMap((p) => (isScalar(p.key) ? [String(p.key.value)] : [])) ?? []);
      const pairs: NewPairs = [];
      for (const u of level.units) {
        let key = u.key;
        for (let n = 2; taken.has(key); n++) key = `${u.key}-${n}`;
        taken.add(key);
        const path = `${level.path}.${key}`;
        if (blockers.length) {
          const names =
            blockers
              .slice(0, 3)
              .map((b) => b.path)
              .join(", ") + (blockers.length > 3 ? ` and ${blockers.length - 3} more` : "");
          this.notAdded.push({
            path,
            message:
              `${what("business unit", u)} is on the portal, not added: ${names} ${blockers.length === 1 ? "has" : "have"} no adoptId and ` +
              `match${blockers.length === 1 ? "es" : ""} nothing on the portal by name, so this may be ${blockers.length === 1 ? "it" : "one of them"}, ` +
              `renamed or moved there; ` +
              `${HOW_OUTPUTS}, or add adoptId to the entry that is it`,
          });
          continue;
        }
        const out = this.addable(u, path);
        pairs.push([key, out]);
        this.counted(out, path);
      }
      if (!pairs.length) continue;
      try {
        if (level.owner === undefined) tenantsAt(pairs);
        else {
          const slot = pairOf(level.owner.map, "businessUnits");
          if (!slot) splice.append(level.owner.map, [["businessUnits", pairs.reduce((m, [k, v]) => m.set(k, v), new OutMap())]]);
          else if (isMap(slot.value) && (slot.value as YAMLMap).items.length) splice.append(slot.value as YAMLMap, pairs);
          else if (Splicer.fillable(slot)) splice.fill(slot, pairs);
          else throw new SpliceRefused("is not a map of business units");
        }
      } catch (err) {
        if (err instanceof SpliceRefused) {
          const where = level.owner === undefined ? `config.${TENANTS_KEY}` : level.owner.path;
          throw new MergeError(`${this.fileName}: ${where} ${err.message}; nothing was merged`);
        }
        throw err;
      }
    }
  }

  /** An added business unit and each one below it: every unit the file gains is counted. */
  private counted(bu: OutMap, path: string): void {
    this.added.push(path);
    const children = bu.get("businessUnits") as OutMap | undefined;
    for (const { key, value } of children?.entries ?? []) this.counted(value as OutMap, `${path}.businessUnits.${key}`);
  }
}

/** Whether export left the consumer's node out for review (the portal has one, the file cannot hold it as it is). */
const leftOut = (consumer: OutMap) => consumer.items.some((i) => "comment" in i && i.comment[0] === NODE_LEFT_OUT);

/**
 * Merges the export into the stack file's text; `fileName` names it in messages. `managed`: the ids the stack's
 * outputs hold, when given. `project`: the project's name, the namespace of a key written without one (`tenants:`
 * is backup-portal:tenants in project backup-portal): each key is found in any spelling the CLI reads.
 */
export function mergeInto(
  fileText: string,
  fileName: string,
  exported: { rootId: number; tenants: OutMap },
  refs: ReferenceLists,
  managed?: ManagedIds,
  project: string = NAMESPACE,
): MergeResult {
  // A BOM is no column: the text is worked on without it and given it back.
  const bom = fileText.startsWith("\uFEFF") ? "\uFEFF" : "";
  const text = fileText.slice(bom.length);
  // `<<: *base` merges the map it names, as yaml.v3 (the CLI's reader) does.
  const doc = parseYamlDocument(text, { merge: true }) as unknown as Document;
  if (doc.errors.length) throw new MergeError(`${fileName}: not YAML the merge can read: ${doc.errors[0].message.split("\n")[0]}`);
  // A key written twice (`tenants:` and `backup-portal:tenants:`) is among these: the CLI reads one at random.
  const misread = cliReadingProblems(doc, project, text);
  if (misread.length) throw new MergeError(configProblemsText(fileName, misread, "nothing was merged"));
  const body = doc.contents;
  if (body !== null && !isMap(body)) throw new MergeError(`${fileName}: the file must be a map with a config: key`);
  const configPair = body ? pairOf(body as YAMLMap, "config") : undefined;
  const config = configPair?.value;
  if (config !== undefined && config !== null && !(isScalar(config) && config.value === null) && !isMap(config)) {
    throw new MergeError(`${fileName}: config: must be a map`);
  }
  const cfg = isMap(config) ? (config as YAMLMap) : undefined;
  const configPairOf = (key: string) => cfg?.items.find((p) => isScalar(p.key) && cliConfigKey(String(p.key.value), project) === key);
  const rootNode = configPairOf(ROOT_KEY)?.value;
  const root = isScalar(rootNode) ? rootNode.value : rootNode;
  if (root !== undefined && Number(root) !== exported.rootId) {
    throw new MergeError(
      `${fileName}: config.${ROOT_KEY} is ${String(root)}, but the export is below business unit ${exported.rootId}; export with --bunit ${String(root)}`,
    );
  }
  const tenantsPair = configPairOf(TENANTS_KEY);
  const tenants = tenantsPair?.value;
  if (tenants !== undefined && tenants !== null && !(isScalar(tenants) && tenants.value === null) && !isMap(tenants)) {
    throw new MergeError(`${fileName}: config.${TENANTS_KEY} must be a map from key to business unit`);
  }
  const tenantsMap = isMap(tenants) ? (tenants as YAMLMap) : undefined;

  // The tenants as the CLI hands them to the program, aliases resolved; yaml refuses an alias that expands too far.
  let tenantsValue: unknown;
  try {
    tenantsValue = tenantsMap?.toJS(doc);
  } catch (err) {
    const why = (err as Error).message;
    throw new MergeError(
      `${fileName}: config.${TENANTS_KEY}: its YAML aliases expand too far (${why}); write the values out; nothing was merged`,
    );
  }
  const m = new Merger(fileName, tenantsMap, exported.tenants, refs, exported.rootId, managed, doc);
  // Two entries adopting one object: the merge could match only one of them, and the stack refuses the file.
  const repeated = repeatedAdoptIdProblems(tenantsValue, "tenants");
  if (repeated.length) throw new MergeError(configProblemsText(fileName, repeated, "nothing was merged"));
  m.units(m.fileUnits, m.portalTop, "tenants", tenantsMap);
  m.reportUnmatched(m.fileUnits, false);

  const splice = new Splicer(text, indentOf(text));
  const rootPair: NewPairs = root === undefined ? [[ROOT_KEY, rootText(exported.rootId)]] : [];
  const asMap = (pairs: NewPairs) => pairs.reduce((map, [k, v]) => map.set(k, v), new OutMap());
  /** Where the business units added at the top go, and the keys config lacks with them. */
  const tenantsAt = (pairs: NewPairs) => {
    if (tenantsMap && tenantsMap.items.length) return splice.append(tenantsMap, pairs);
    if (tenantsPair && Splicer.fillable(tenantsPair)) return splice.fill(tenantsPair, pairs);
    throw new SpliceRefused("is not a map of business units");
  };
  // Inner additions first: at one place, the deeper lines come first (splice.ts orders them so).
  let topPairs: NewPairs = [];
  m.add(splice, (pairs) => {
    if (tenantsPair) tenantsAt(pairs);
    else topPairs = pairs;
  });
  /** Keys config lacks (the root, the tenants block), written into it, or a config: made for them. */
  const configAdd = (pairs: NewPairs): void => {
    if (!pairs.length) return;
    try {
      if (cfg && cfg.items.length) splice.append(cfg, pairs);
      else if (configPair && Splicer.fillable(configPair)) splice.fill(configPair, pairs);
      else if (body && (body as YAMLMap).items.length) splice.append(body as YAMLMap, [["config", asMap(pairs)]]);
      else splice.appendToDocument([["config", asMap(pairs)]]);
    } catch (err) {
      if (err instanceof SpliceRefused) throw new MergeError(`${fileName}: config ${err.message}; nothing was merged`);
      throw err;
    }
  };
  configAdd(tenantsPair ? rootPair : [...rootPair, [TENANTS_KEY, asMap(topPairs)]]);

  return {
    text: splice.changed ? bom + splice.result() : fileText,
    added: m.added,
    differences: m.differences,
    gone: m.gone,
    notAdded: m.notAdded,
  };
}

/** What a merge says on stderr: a line per addition, difference, gone entry and unit not added, then the count. */
export function mergeReport(r: MergeResult, target: string): string[] {
  const n = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`;
  return [
    ...r.added.map((a) => `added ${a}`),
    ...r.differences.map((d) => `differs ${d.path}: ${d.message}`),
    ...r.gone.map((d) => `gone ${d.path}: ${d.message}`),
    ...r.notAdded.map((d) => `not added ${d.path}: ${d.message}`),
    `merged into ${target}: ${n(r.added.length, "business unit", "business units")} added, ${n(r.differences.length, "entry differs", "entries differ")} ` +
      `from the portal, ${r.gone.length} gone from it, ${r.notAdded.length} not added (all left as the file has them)`,
  ];
}

export type { OutValue };
