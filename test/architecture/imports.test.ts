// The architecture's import rules, read from the code with TypeScript's own parser: data flows one way, so
// nothing in provider/ imports stacks/, provider/portal/ knows nothing of Pulumi, and provider/ has no import
// cycle (a type-only import is no edge: it leaves nothing at run time; a lazy require() is one).
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import * as ts from "typescript";

const ROOT = path.join(__dirname, "..", "..");
const PROVIDER = path.join(ROOT, "provider");

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? sources(p) : e.name.endsWith(".ts") && !e.name.endsWith(".d.ts") ? [p] : [];
  });
}

/** The modules a file loads at run time: value imports and re-exports, and require() calls with a literal. */
function runtimeImports(file: string): string[] {
  const sf = ts.createSourceFile(file, fs.readFileSync(file, "utf8"), ts.ScriptTarget.ES2022, true);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) && !node.importClause?.isTypeOnly && ts.isStringLiteral(node.moduleSpecifier)) {
      const named = node.importClause?.namedBindings;
      const allTypes = !!named && ts.isNamedImports(named) && named.elements.length > 0 && named.elements.every((e) => e.isTypeOnly);
      if (!(allTypes && !node.importClause?.name)) found.push(node.moduleSpecifier.text);
    } else if (ts.isExportDeclaration(node) && !node.isTypeOnly && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      found.push(node.moduleSpecifier.text);
    } else if (
      ts.isCallExpression(node) &&
      ts.isIdentifier(node.expression) &&
      node.expression.text === "require" &&
      node.arguments.length === 1 &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      found.push(node.arguments[0].text);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

/** A relative specifier as the file it names (`./x` → x.ts or x/index.ts); undefined for a package. */
function resolve(from: string, spec: string): string | undefined {
  if (!spec.startsWith(".")) return undefined;
  const base = path.resolve(path.dirname(from), spec);
  return [`${base}.ts`, path.join(base, "index.ts"), base].find((p) => fs.existsSync(p) && fs.statSync(p).isFile());
}

const rel = (p: string) => path.relative(ROOT, p);

/** Every cycle's modules (strongly connected components of more than one module, or a module importing itself). */
function cycles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  // Tarjan's algorithm with an explicit stack of frames: the graph's depth is the code's, not the call stack's.
  for (const start of graph.keys()) {
    if (index.has(start)) continue;
    const frames: Array<{ v: string; edges: string[]; i: number }> = [];
    const open = (v: string) => {
      index.set(v, next);
      low.set(v, next++);
      stack.push(v);
      onStack.add(v);
      frames.push({ v, edges: graph.get(v) ?? [], i: 0 });
    };
    open(start);
    while (frames.length) {
      const f = frames[frames.length - 1];
      if (f.i < f.edges.length) {
        const w = f.edges[f.i++];
        if (!index.has(w)) open(w);
        else if (onStack.has(w)) low.set(f.v, Math.min(low.get(f.v)!, index.get(w)!));
        continue;
      }
      frames.pop();
      if (frames.length) {
        const parent = frames[frames.length - 1].v;
        low.set(parent, Math.min(low.get(parent)!, low.get(f.v)!));
      }
      if (low.get(f.v) === index.get(f.v)) {
        const component: string[] = [];
        let w: string;
        do {
          w = stack.pop()!;
          onStack.delete(w);
          component.push(w);
        } while (w !== f.v);
        if (component.length > 1 || (graph.get(f.v) ?? []).includes(f.v)) found.push(component.map(rel).sort());
      }
    }
  }
  return found;
}

describe("architecture: what provider/ imports", () => {
  const files = sources(PROVIDER);
  const graph = new Map(files.map((f) => [f, runtimeImports(f).flatMap((s) => resolve(f, s) ?? [])]));

  it("sees a lazy require, and finds a cycle where there is one", () => {
    const dynamic = graph.get(path.join(PROVIDER, "dynamic", "provider.ts"))!.map(rel);
    assert.ok(dynamic.includes("provider/plugin/trace.ts"), `the lazy require of the trace: ${dynamic.join(", ")}`);
    assert.ok(files.length > 100, `${files.length} files`);
    const g = new Map([
      ["a", ["b"]],
      ["b", ["c"]],
      ["c", ["a"]],
      ["d", ["a"]],
    ]);
    assert.deepEqual(cycles(g), [["a", "b", "c"].map((x) => rel(x)).sort()]);
  });

  it("nothing in provider/ imports stacks/", () => {
    const up = files.flatMap((f) =>
      graph
        .get(f)!
        .filter((t) => rel(t).startsWith("stacks/"))
        .map((t) => `${rel(f)} → ${rel(t)}`),
    );
    assert.deepEqual(up, []);
  });

  it("provider/portal/ knows nothing of Pulumi", () => {
    // Types included: the client is used where no Pulumi SDK is installed (the CLI, the registration broker).
    const pulumi = files
      .filter((f) => rel(f).startsWith("provider/portal/"))
      .filter((f) => /(?:from\s+|require\()["']@pulumi\//.test(fs.readFileSync(f, "utf8")))
      .map(rel);
    assert.deepEqual(pulumi, []);
  });

  it("provider/ has no import cycle", () => {
    assert.deepEqual(cycles(graph), []);
  });
});
