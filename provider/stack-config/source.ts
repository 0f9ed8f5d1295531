// What only a stack file's text shows, checked where the text is at hand (`export --merge`): a number written with a
// leading zero at a key whose rule takes numbers. The Pulumi CLI (yaml.v3) reads `adoptId: 0123` as 83 and hands
// the program 83, so the program cannot see it; YAML 1.2 readers (this package's merge, the fleet) read 123.
// Which keys take numbers comes from the tables (provider/rules/stack-config.ts, provider/tenants/fields.ts).
import { Document, isMap, isScalar, isSeq, Scalar, YAMLMap } from "yaml";
import { cliConfigKey, repeatedKeyProblem, Spelling } from "../rules/config-keys";
import { FieldRule, FieldTable, takesNumber } from "../rules/fields";
import { ConfigRule, ConfigTable, NAMESPACE, STACK_CONFIG_KEYS } from "../rules/stack-config";
import { cliKeyProblem, leadingZeroProblem, plainTextProblem } from "../rules/yaml-scalars";
import {
  BUSINESS_UNIT_CHILDREN,
  CONSUMER_CHILDREN,
  STACK_BUSINESS_UNIT_FIELDS,
  STACK_CONSUMER_FIELDS,
  STACK_NODE_FIELDS,
} from "../tenants/fields";
import { Problem } from "../tenants/model";

/** An entry of `backup-portal:tenants`: its field table and its children, each a map of entries or one entry. */
interface Entry {
  fields: FieldTable;
  maps?: Partial<Record<(typeof BUSINESS_UNIT_CHILDREN)[number], Entry>>;
  one?: Partial<Record<(typeof CONSUMER_CHILDREN)[number], Entry>>;
}
const NODE: Entry = { fields: STACK_NODE_FIELDS };
const CONSUMER: Entry = { fields: STACK_CONSUMER_FIELDS, one: { node: NODE } };
const BUSINESS_UNIT: Entry = { fields: STACK_BUSINESS_UNIT_FIELDS, maps: { consumers: CONSUMER } };
BUSINESS_UNIT.maps!.businessUnits = BUSINESS_UNIT;

const PREFIX = `${NAMESPACE}:`;
const keyOf = (n: unknown) => (isScalar(n) ? String(n.value) : typeof n === "string" ? n : undefined);
const pairs = (n: unknown) =>
  isMap(n) ? (n as YAMLMap).items.flatMap((p) => (keyOf(p.key) === undefined ? [] : [{ key: keyOf(p.key)!, value: p.value }])) : [];

/** A key of a stack file's `config:`, as written and as the CLI reads it (`namespace:name`, or undefined). */
interface ConfigEntry {
  written: string;
  key: string | undefined;
  value: unknown;
  /** Where the key starts in the text. */
  offset?: number;
}

/** The pairs of a stack file's `config:` map, each with the key the CLI reads it as in project `project`. */
export function configEntries(doc: Document, project: string = NAMESPACE): ConfigEntry[] {
  const config = doc.get("config");
  if (!isMap(config)) return [];
  return (config as YAMLMap).items.flatMap((p) => {
    const written = keyOf(p.key);
    if (written === undefined) return [];
    const offset = isScalar(p.key) ? p.key.range?.[0] : undefined;
    return [{ written, key: cliConfigKey(written, project), value: p.value, offset }];
  });
}

/** The entries of the `backup-portal:` namespace, by their name in it (`tenants`), in every spelling. */
const ownEntries = (doc: Document, project: string) =>
  configEntries(doc, project).flatMap((e) => (e.key?.startsWith(PREFIX) ? [{ ...e, name: e.key.slice(PREFIX.length) }] : []));

/**
 * Keys of the `backup-portal:` namespace written more than once in the CLI's spellings (`tenants:` and
 * `backup-portal:tenants:` in project backup-portal), each spelling with its line when `text` is given.
 */
export function repeatedKeyProblems(doc: Document, project: string = NAMESPACE, text?: string): Problem[] {
  const byName = new Map<string, Array<{ written: string; offset?: number }>>();
  for (const e of ownEntries(doc, project)) {
    const spellings = byName.get(e.name);
    if (spellings) spellings.push({ written: e.written, offset: e.offset });
    else byName.set(e.name, [{ written: e.written, offset: e.offset }]);
  }
  // Lines only for the keys written twice, from one index of where lines start: a stack file holds a key per
  // node's password, and counting the lines before each of them again would grow with the square of the file.
  let starts: number[] | undefined;
  const lineAt = (offset: number | undefined): number | undefined => {
    if (text === undefined || offset === undefined) return undefined;
    starts ??= lineStarts(text);
    return linesUpTo(starts, offset);
  };
  return [...byName].flatMap(([name, written]) =>
    written.length > 1
      ? [{ path: name, message: repeatedKeyProblem(written.map((s): Spelling => ({ written: s.written, line: lineAt(s.offset) }))) }]
      : [],
  );
}

/** Where each line of `text` starts (after each "\n"), in order. */
function lineStarts(text: string): number[] {
  const starts = [0];
  for (let at = text.indexOf("\n"); at >= 0; at = text.indexOf("\n", at + 1)) starts.push(at + 1);
  return starts;
}

/** The line `offset` is on (from 1), as `text.slice(0, offset).split("\n").length` counts it. */
function linesUpTo(starts: number[], offset: number): number {
  // The number of line starts at or before `offset` (a start at the offset itself: the "\n" before it is counted).
  let lo = 0;
  let hi = starts.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (starts[mid] <= offset) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The leading-zero numbers of a stack file's `backup-portal:` keys, by key path (`tenants.acme.adoptId`). */
export function leadingZeroProblems(doc: Document, project: string = NAMESPACE): Problem[] {
  const problems: Problem[] = [];
  // A list of walks to do instead of recursion: a file may nest business units deeper than the call stack goes.
  const todo: Array<() => void> = [];
  const number = (node: unknown, path: string) => {
    if (!isScalar(node) || node.type !== Scalar.PLAIN || typeof node.source !== "string") return;
    const problem = leadingZeroProblem(node.source);
    if (problem) problems.push({ path, message: problem });
  };
  const field = (node: unknown, rule: FieldRule | ConfigRule, path: string) => {
    if (!takesNumber(rule)) return;
    if (isSeq(node)) node.items.forEach((item, i) => number(item, `${path}[${i}]`));
    else number(node, path);
  };
  const block = (node: unknown, table: ConfigTable, path: string) => {
    for (const { key, value } of pairs(node)) if (Object.hasOwn(table, key)) config(value, table[key], `${path}.${key}`);
  };
  const entry = (node: unknown, e: Entry, path: string) => {
    for (const { key, value } of pairs(node)) {
      const at = `${path}.${key}`;
      const many = e.maps?.[key as keyof Entry["maps"]];
      const one = e.one?.[key as keyof Entry["one"]];
      if (Object.hasOwn(e.fields, key)) field(value, e.fields[key], at);
      else if (many && Object.hasOwn(e.maps!, key)) for (const c of pairs(value)) todo.push(() => entry(c.value, many, `${at}.${c.key}`));
      else if (one && Object.hasOwn(e.one!, key)) todo.push(() => entry(value, one, at));
    }
  };
  const config = (node: unknown, rule: ConfigRule, path: string) => {
    if (rule.kind === "tenants") for (const { key, value } of pairs(node)) todo.push(() => entry(value, BUSINESS_UNIT, `${path}.${key}`));
    else if (rule.kind === "block") block(node, rule.keys, path);
    else if (rule.kind === "blocks") (isSeq(node) ? node.items : []).forEach((item, i) => block(item, rule.keys, `${path}[${i}]`));
    else if (rule.kind !== "map") field(node, rule, path);
  };
  for (const { name, value } of ownEntries(doc, project)) {
    if (Object.hasOwn(STACK_CONFIG_KEYS, name)) config(value, STACK_CONFIG_KEYS[name], name);
  }
  while (todo.length) todo.pop()!();
  return problems;
}

/** A map's plain key the Pulumi CLI reads as another key than this reader (rules/yaml-scalars.ts: cliKeyProblem). */
function plainKeyProblem(key: unknown): string | undefined {
  // `<<` (a merge key, which yaml.v3 merges as this reader does) is read as a symbol: no key of its own.
  if (!isScalar(key) || key.type !== Scalar.PLAIN || typeof key.source !== "string" || typeof key.value === "symbol") return undefined;
  return cliKeyProblem(key.source, key.value);
}

/**
 * The plain scalars under a stack file's `backup-portal:` keys that this reader takes as text and the Pulumi CLI
 * (yaml.v3) as a date or a number (`name: 2024-01-01` reaches the program as "2024-01-01 00:00:00 +0000 UTC"),
 * by key path (`tenants.acme.name`, `registry.users[0].username`). Every key, whatever its rule: a text key is where
 * it bites.
 */
export function plainTextProblems(doc: Document, project: string = NAMESPACE): Problem[] {
  const problems: Problem[] = [];
  // A list of walks to do instead of recursion, as above.
  const todo: Array<[unknown, string]> = [];
  for (const { name, value } of ownEntries(doc, project)) todo.push([value, name]);
  while (todo.length) {
    const [node, path] = todo.pop()!;
    if (isMap(node)) {
      for (const p of (node as YAMLMap).items) {
        const problem = plainKeyProblem(p.key);
        if (problem) problems.push({ path: `${path}.${(p.key as Scalar).source}`, message: problem });
      }
      for (const { key, value } of pairs(node)) todo.push([value, `${path}.${key}`]);
    } else if (isSeq(node)) node.items.forEach((item, i) => todo.push([item, `${path}[${i}]`]));
    else if (isScalar(node) && node.type === Scalar.PLAIN && typeof node.value === "string") {
      const problem = plainTextProblem(node.source ?? node.value);
      if (problem) problems.push({ path, message: problem });
    }
  }
  return problems;
}

/**
 * Everything in a stack file's text that the Pulumi CLI reads otherwise than this package: one problem per key.
 * `project` is the project's name (the namespace of a key written without one); `text` the file's text, for the
 * lines of a key written twice.
 */
export function cliReadingProblems(doc: Document, project: string = NAMESPACE, text?: string): Problem[] {
  const zeros = leadingZeroProblems(doc, project);
  const at = new Set(zeros.map((p) => p.path));
  return [...repeatedKeyProblems(doc, project, text), ...zeros, ...plainTextProblems(doc, project).filter((p) => !at.has(p.path))];
}
