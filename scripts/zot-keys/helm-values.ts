// Derives the values a Helm chart reads: the keys of its values.yaml (with the type of each
// default) merged with every `.Values` reference of its templates, followed through `with`,
// `range` and template variables, so that `range .Values.externalSecrets` + `.secretName`
// yields `externalSecrets[].secretName`.
//
// A value is "open" when a template renders it verbatim (toYaml, toJson, tpl) or iterates it as
// a map (`range $k, $v := ...`): its contents are then not chart keys but Kubernetes fields or
// free names. Every other value is closed: only the keys the templates read exist.
import { parse as parseYaml } from "yaml";
import type { ChartKeyNode } from "../../provider/registry/key-data";

type DefaultKind = NonNullable<ChartKeyNode["default"]>;

type Ctx = { kind: "root" } | { kind: "values"; path: string[] } | { kind: "other" };
const ITEM = "[]";

/** The tree being built; paths are key names with "[]" for a list element. */
export class ChartKeyTree {
  readonly root: ChartKeyNode = { sources: [] };

  node(path: string[], source: string): ChartKeyNode {
    let cur = this.root;
    for (const k of path) {
      if (k === ITEM) cur = cur.items ??= { sources: [] };
      else cur = (cur.keys ??= {})[k] ??= { sources: [] };
      if (!cur.sources.includes(source)) cur.sources.push(source);
    }
    return cur;
  }

  /** Adds values.yaml: every key, with its default's type; list elements from the default's items. */
  addValuesYaml(text: string, source = "values.yaml"): void {
    const walk = (v: unknown, path: string[]) => {
      const n = this.node(path, source);
      const kind = kindOf(v);
      if (path.length > 0 && path[path.length - 1] !== ITEM) n.default ??= kind;
      if (kind === "map") for (const [k, x] of Object.entries(v as object)) walk(x, [...path, k]);
      if (kind === "list") for (const x of v as unknown[]) if (kindOf(x) === "map") walk(x, [...path, ITEM]);
    };
    walk(parseYaml(text) ?? {}, []);
  }

  /** Adds the `.Values` references of one template file. */
  addTemplate(text: string, source: string): void {
    const frames: { ctx: Ctx; outer: Ctx; scopes: boolean }[] = [];
    let ctx: Ctx = { kind: "root" };
    const vars = new Map<string, Ctx>();
    const actions = [...text.matchAll(/\{\{-?\s*([\s\S]*?)\s*-?\}\}/g)].map((m) => m[1].trim());
    for (const action of actions) {
      if (action.startsWith("/*")) continue;
      const head = /^([a-z]+)\b\s*([\s\S]*)$/.exec(action);
      const word = head?.[1];
      const rest = head?.[2] ?? action;
      if (word === "end") {
        const f = frames.pop();
        if (f) ctx = f.outer;
        continue;
      }
      if (word === "else") {
        const f = frames[frames.length - 1];
        // The else branch of `with`/`range` runs in the outer context; `else if X` tests X there.
        if (f) ctx = f.outer;
        const cond = /^(if|with)\b\s*([\s\S]*)$/.exec(rest);
        if (cond) this.refs(cond[2], ctx, vars, source, false);
        continue;
      }
      if (word === "define" || word === "block") {
        frames.push({ ctx, outer: ctx, scopes: true });
        ctx = { kind: "root" }; // helpers are included with the root context (`include "x" .`)
        continue;
      }
      if (word === "if") {
        this.refs(rest, ctx, vars, source, false);
        frames.push({ ctx, outer: ctx, scopes: true });
        continue;
      }
      if (word === "with" || word === "range") {
        let expr = rest;
        let keyVar = false;
        const decl = /^(\$\w+)\s*(?:,\s*(\$\w+)\s*)?:=\s*([\s\S]*)$/.exec(rest);
        if (decl) {
          keyVar = decl[2] !== undefined;
          expr = decl[3];
        }
        const target = this.single(expr, ctx, vars);
        this.refs(expr, ctx, vars, source, false);
        let inner: Ctx = { kind: "other" };
        if (target.kind === "values") {
          if (word === "with") inner = target;
          else if (keyVar) {
            this.node(target.path, source).open = true; // a map: its keys are free names
          } else inner = { kind: "values", path: [...target.path, ITEM] };
          if (decl && word === "range") vars.set(decl[2] ?? decl[1], inner);
        }
        frames.push({ ctx: inner, outer: ctx, scopes: true });
        ctx = inner;
        continue;
      }
      const assign = /^(\$\w+)\s*:?=\s*([\s\S]*)$/.exec(action);
      if (assign) {
        const target = this.single(assign[2], ctx, vars);
        vars.set(assign[1], target);
        this.refs(assign[2], ctx, vars, source, false);
        continue;
      }
      this.refs(action, ctx, vars, source, true);
    }
  }

  /** The context an expression denotes when it is a single reference (`.Values.a.b`, `.x`, `$v.y`). */
  private single(expr: string, ctx: Ctx, vars: Map<string, Ctx>): Ctx {
    const e = expr.trim();
    const abs = /^\$?\.Values((?:\.\w+)*)$/.exec(e);
    if (abs) return { kind: "values", path: abs[1].split(".").filter(Boolean) };
    const v = /^(\$\w+)((?:\.\w+)*)$/.exec(e);
    if (v) return extend(vars.get(v[1]) ?? { kind: "other" }, v[2]);
    if (/^(\.\w+)+$/.test(e) || e === ".") return extend(ctx, e === "." ? "" : e);
    return { kind: "other" };
  }

  /** Records every values reference of an expression. `output`: the action prints its result. */
  private refs(expr: string, ctx: Ctx, vars: Map<string, Ctx>, source: string, output: boolean): void {
    const verbatim = /\b(toYaml|toJson|toPrettyJson|tpl|toString)\b/.test(expr);
    const whole = (c: Ctx) => {
      if (c.kind !== "values") return;
      const n = this.node(c.path, source);
      if (verbatim) n.open = true;
      else if (output) n.scalar = true;
    };
    // index .Values "a" "b" → a.b
    for (const m of expr.matchAll(/\bindex\s+\$?\.Values((?:\s+"[^"]*")+)/g)) {
      this.node(
        [...m[1].matchAll(/"([^"]*)"/g)].map((x) => x[1]),
        source,
      );
    }
    const bare = expr.replace(/"(?:[^"\\]|\\.)*"/g, '""');
    for (const m of bare.matchAll(/(\$\w*)?((?:\.[A-Za-z_]\w*)+)|(\$[A-Za-z_]\w*)|(?<![\w.)\]])\.(?![\w.])/g)) {
      const [, varName, chain, soleVar] = m;
      let c: Ctx;
      if (chain !== undefined) {
        if (varName === "$" || (varName === undefined && chain.startsWith(".Values"))) {
          if (!chain.startsWith(".Values")) continue; // .Release, .Chart, ...
          c = { kind: "values", path: chain.split(".").slice(2) };
        } else if (varName !== undefined) c = extend(vars.get(varName) ?? { kind: "other" }, chain);
        else c = extend(ctx, chain);
      } else if (soleVar !== undefined) c = vars.get(soleVar) ?? { kind: "other" };
      else c = ctx; // a bare "."
      if (c.kind !== "values") continue;
      if (c.path.length === 0) continue; // .Values itself
      this.node(c.path, source);
      whole(c);
    }
  }
}

function extend(c: Ctx, chain: string): Ctx {
  if (c.kind !== "values")
    return c.kind === "root" && chain.startsWith(".Values") ? { kind: "values", path: chain.split(".").slice(2) } : { kind: "other" };
  return { kind: "values", path: [...c.path, ...chain.split(".").filter(Boolean)] };
}

function kindOf(v: unknown): DefaultKind {
  if (v === null || v === undefined) return "null";
  if (Array.isArray(v)) return "list";
  if (typeof v === "object") return "map";
  if (typeof v === "number") return Number.isInteger(v) ? "integer" : "number";
  if (typeof v === "boolean") return "boolean";
  return "string";
}

/** Sorts keys and sources recursively, so that the data file is stable. */
export function normalize(node: ChartKeyNode): ChartKeyNode {
  const out: ChartKeyNode = { ...(node.default ? { default: node.default } : {}), sources: [...node.sources].sort() };
  if (node.open) out.open = true;
  if (node.scalar) out.scalar = true;
  if (node.keys)
    out.keys = Object.fromEntries(
      Object.keys(node.keys)
        .sort()
        .map((k) => [k, normalize(node.keys![k])]),
    );
  if (node.items) out.items = normalize(node.items);
  return out;
}
