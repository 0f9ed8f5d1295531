// Derives the keys zot's config loader accepts from zot's Go config structs.
//
// zot reads config.json with viper's UnmarshalExact (mapstructure, ErrorUnused): a key is
// accepted when it matches, case-insensitively, an exported struct field's name or its
// `mapstructure` tag name; `mapstructure:"-"` fields are skipped; `,squash` embeds a struct's
// fields into its parent; any other key stops startup ("unknown keys"). This module parses
// just enough Go (type declarations, struct fields, tags, imports) to rebuild that tree.
import type { ZotField, ZotKeyNode } from "../../provider/registry/key-data";
import type { SourceTree } from "./source";

interface GoField {
  name?: string; // undefined: embedded
  type: string;
  tag: string;
}
type GoType = { kind: "struct"; fields: GoField[] } | { kind: "alias"; expr: string };
interface GoPackage {
  dir: string;
  types: Map<string, GoType>;
  /** Per type: the imports (name → package dir) of the file declaring it. */
  importsOf: Map<string, Map<string, string>>;
}

/** Removes comments, keeping string and raw-string literals (struct tags are raw strings). */
export function stripGoComments(src: string): string {
  let out = "";
  for (let i = 0; i < src.length;) {
    const c = src[i];
    if (c === "/" && src[i + 1] === "/") {
      while (i < src.length && src[i] !== "\n") i++;
    } else if (c === "/" && src[i + 1] === "*") {
      const end = src.indexOf("*/", i + 2);
      const body = src.slice(i, end < 0 ? src.length : end + 2);
      out += body.replace(/[^\n]/g, ""); // keep line structure
      i += body.length;
    } else if (c === '"' || c === "`" || c === "'") {
      let j = i + 1;
      while (j < src.length && src[j] !== c) j += c !== "`" && src[j] === "\\" ? 2 : 1;
      out += src.slice(i, j + 1);
      i = j + 1;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

/** The index just after the brace matching the `{` at `open`. */
function matchBrace(src: string, open: number): number {
  let depth = 0;
  for (let i = open; i < src.length; i++) {
    if (src[i] === "`" || src[i] === '"') {
      const q = src[i];
      i++;
      while (i < src.length && src[i] !== q) i += q === '"' && src[i] === "\\" ? 2 : 1;
    } else if (src[i] === "{") depth++;
    else if (src[i] === "}" && --depth === 0) return i + 1;
  }
  throw new Error("unbalanced braces");
}

function parseFields(body: string): GoField[] {
  const fields: GoField[] = [];
  for (const raw of body.split("\n")) {
    const line = raw.trim();
    if (line === "") continue;
    const tagMatch = /`([^`]*)`\s*$/.exec(line);
    const tag = tagMatch ? tagMatch[1] : "";
    const decl = (tagMatch ? line.slice(0, tagMatch.index) : line).trim();
    if (/\bstruct\s*\{/.test(decl) || /\binterface\s*\{\s*[^}\s]/.test(decl)) {
      throw new Error(`inline struct types are not supported: ${line}`);
    }
    const named = /^([A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)*)\s+(\S.*)$/.exec(decl);
    if (named) {
      for (const name of named[1].split(/\s*,\s*/)) fields.push({ name, type: named[2].trim(), tag });
    } else if (/^\*?[A-Za-z_][\w.]*$/.test(decl)) {
      fields.push({ type: decl, tag });
    } else {
      throw new Error(`cannot read struct field: ${line}`);
    }
  }
  return fields;
}

function parseImports(src: string, modulePath: string): Map<string, string> {
  const imports = new Map<string, string>();
  const blocks = [...src.matchAll(/^import\s*\(([\s\S]*?)\)/gm)].map((m) => m[1]);
  blocks.push(...[...src.matchAll(/^import\s+((?:\w+\s+)?"[^"]+")/gm)].map((m) => m[1]));
  for (const block of blocks) {
    for (const m of block.matchAll(/(?:([A-Za-z_]\w*|\.)\s+)?"([^"]+)"/g)) {
      const importPath = m[2];
      const name = m[1] ?? importPath.split("/").pop()!;
      // Only the module's own packages are read; the standard library (time, sync) is known by name.
      const dir = importPath.startsWith(`${modulePath}/`) ? importPath.slice(modulePath.length + 1) : `std:${importPath}`;
      imports.set(name, dir);
    }
  }
  return imports;
}

/** Reads the type declarations of the package in `dir` (non-test .go files). */
function loadPackage(tree: SourceTree, dir: string, modulePath: string): GoPackage {
  const pkg: GoPackage = { dir, types: new Map(), importsOf: new Map() };
  const files = tree.list(dir).filter((f) => f.endsWith(".go") && !f.endsWith("_test.go") && f.slice(dir.length + 1).indexOf("/") < 0);
  if (files.length === 0) throw new Error(`no Go files in ${dir}`);
  for (const file of files) {
    const src = stripGoComments(tree.read(file));
    const imports = parseImports(src, modulePath);
    const declare = (name: string, t: GoType) => {
      pkg.types.set(name, t);
      pkg.importsOf.set(name, imports);
    };
    // `type X struct {...}`, `type X Y`, and the same inside `type ( ... )` groups.
    const specs: string[] = [];
    for (let m, re = /^type\s+(\(|[A-Za-z_])/gm; (m = re.exec(src));) {
      if (m[1] === "(") {
        const start = m.index + m[0].length;
        let depth = 1;
        let i = start;
        for (; i < src.length && depth > 0; i++) {
          if (src[i] === "(") depth++;
          else if (src[i] === ")") depth--;
          else if (src[i] === "{") i = matchBrace(src, i) - 1;
        }
        specs.push(...splitSpecs(src.slice(start, i - 1)));
      } else {
        const start = m.index + "type".length;
        const brace = /^\s*[A-Za-z_]\w*(?:\[[^\]]*\])?\s+struct\s*\{/.exec(src.slice(start));
        const end = brace ? matchBrace(src, start + brace[0].length - 1) : src.indexOf("\n", start);
        specs.push(src.slice(start, end < 0 ? src.length : end));
      }
    }
    for (const spec of specs) {
      const s = /^\s*([A-Za-z_]\w*)\s+struct\s*\{([\s\S]*)\}\s*$/.exec(spec);
      if (s) declare(s[1], { kind: "struct", fields: parseFields(s[2]) });
      else {
        const a = /^\s*([A-Za-z_]\w*)\s*=?\s*(\S[^\n]*)$/.exec(spec.trim());
        if (a) declare(a[1], { kind: "alias", expr: a[2].trim() });
      }
    }
  }
  return pkg;
}

/** Splits the body of a `type ( ... )` group into single specs. */
function splitSpecs(body: string): string[] {
  const specs: string[] = [];
  let i = 0;
  while (i < body.length) {
    const m = /^\s*([A-Za-z_]\w*)\s+/.exec(body.slice(i));
    if (!m) break;
    const rest = body.slice(i);
    const brace = /^\s*[A-Za-z_]\w*\s+struct\s*\{/.exec(rest);
    const end = brace
      ? matchBrace(body, i + brace[0].length - 1)
      : (() => {
          const nl = body.indexOf("\n", i + m[0].length);
          return nl < 0 ? body.length : nl;
        })();
    specs.push(body.slice(i, end));
    i = end;
  }
  return specs.filter((s) => s.trim() !== "");
}

interface TagInfo {
  name?: string;
  skip: boolean;
  squash: boolean;
}

export function mapstructureTag(tag: string): TagInfo {
  const m = /(?:^|\s)mapstructure:"([^"]*)"/.exec(tag);
  if (!m) return { skip: false, squash: false };
  const [name, ...opts] = m[1].split(",");
  return { name: name === "" ? undefined : name, skip: name === "-", squash: opts.includes("squash") };
}

/** What mapstructure calls a field: its tag name, else its Go name. */
export class ZotKeyDeriver {
  private packages = new Map<string, GoPackage>();
  private active = new Set<string>();

  constructor(
    private readonly tree: SourceTree,
    private readonly modulePath: string,
    /** Types decoded by a hook that ignores unknown keys: kept, but marked open. */
    private readonly openTypes: Map<string, string> = new Map(),
  ) {}

  private pkg(dir: string): GoPackage {
    let p = this.packages.get(dir);
    if (!p) this.packages.set(dir, (p = loadPackage(this.tree, dir, this.modulePath)));
    return p;
  }

  /** The tree of keys below struct `typeName` of the package in `dir`. */
  derive(dir: string, typeName: string): ZotKeyNode {
    return this.named(dir, typeName);
  }

  private named(dir: string, name: string): ZotKeyNode {
    const pkg = this.pkg(dir);
    const t = pkg.types.get(name);
    if (!t) throw new Error(`type ${name} not found in ${dir}`);
    if (t.kind === "alias") return this.expr(t.expr, dir, pkg.importsOf.get(name)!);
    const id = `${dir}.${name}`;
    if (this.active.has(id)) throw new Error(`recursive config type ${id}`);
    this.active.add(id);
    try {
      const keys: Record<string, ZotField> = {};
      const add = (key: string, field: ZotField) => {
        const clash = Object.keys(keys).find((k) => k.toLowerCase() === key.toLowerCase());
        if (clash) throw new Error(`${id}: keys "${clash}" and "${key}" collide (zot matches keys case-insensitively)`);
        keys[key] = field;
      };
      for (const f of t.fields) {
        const tag = mapstructureTag(f.tag);
        if (tag.skip) continue;
        const goName = f.name ?? f.type.replace(/^\*/, "").split(".").pop()!;
        if (!/^[A-Z]/.test(goName)) continue; // unexported: mapstructure cannot set it
        const node = this.expr(f.type, dir, pkg.importsOf.get(name)!);
        if (f.name === undefined && tag.squash) {
          if (node.type !== "object") throw new Error(`${id}: squashed field ${f.type} is not a struct`);
          for (const [k, v] of Object.entries(node.keys)) add(k, v);
          continue;
        }
        add(tag.name ?? lowerCamel(goName), { field: goName, ...node });
      }
      const open = this.openTypes.get(`${dir}.${name}`);
      return { type: "object", go: `${dir}.${name}`, keys, ...(open ? { open } : {}) };
    } finally {
      this.active.delete(id);
    }
  }

  private expr(expr: string, dir: string, imports: Map<string, string>): ZotKeyNode {
    const e = expr.trim();
    if (e.startsWith("*")) return this.expr(e.slice(1), dir, imports);
    if (e === "[]byte") return { type: "any" };
    if (e.startsWith("[]")) return { type: "list", items: this.expr(e.slice(2), dir, imports) };
    const map = /^map\[([^\]]+)\](.+)$/.exec(e);
    if (map) return { type: "map", values: this.expr(map[2], dir, imports) };
    if (e === "string") return { type: "string" };
    if (e === "bool") return { type: "bool" };
    if (/^u?int(8|16|32|64)?$/.test(e)) return { type: "int" };
    if (/^float(32|64)$/.test(e)) return { type: "float" };
    if (e === "any" || e === "interface{}") return { type: "any" };
    const q = /^([A-Za-z_]\w*)\.([A-Za-z_]\w*)$/.exec(e);
    if (q) {
      const target = imports.get(q[1]);
      if (target === "std:time" && q[2] === "Duration") return { type: "duration" };
      if (target === undefined || target.startsWith("std:")) throw new Error(`unsupported type ${e} in ${dir}`);
      return this.named(target, q[2]);
    }
    if (/^[A-Za-z_]\w*$/.test(e)) return this.named(dir, e);
    throw new Error(`unsupported type expression ${e} in ${dir}`);
  }
}

/** zot's documented spelling of a Go field name: "GCDelay" → "gcDelay", "HTTP" → "http", "URLs" → "urls". */
export function lowerCamel(goName: string): string {
  const m = /^([A-Z]+)(.*)$/.exec(goName);
  if (!m) return goName;
  const [, caps, rest] = m;
  if (rest === "" || rest === "s") return goName.toLowerCase();
  if (caps.length === 1 || !/^[a-z]/.test(rest)) return caps.toLowerCase() + rest;
  return caps.slice(0, -1).toLowerCase() + caps.slice(-1) + rest;
}
