/**
 * TEST CODE — a portal for the import-file tests: hostile names (YAML look-alikes, quotes, interpolation, line
 * breaks, bidi controls) on business units, consumers and a node, nested units and a proxy relation; and the
 * request log counted.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { Emulator } from "../support/portal";
import { plant } from "../export/support";

/** Names a program's text or the import file could take for structure, if copied in as they are. */
export const HOSTILE = [
  "2024-01-01",
  "yes",
  "0123",
  '", "type": "x',
  "${acme.id}",
  "rtl \u202e txt",
  "# not a comment",
  "- item",
  "{x: 1}",
  // Written raw by the YAML code generator, in a quoted scalar; the CLI's reader (yaml.v3) reads it back as it is.
  "line\u2028sep",
  // A word the languages reserve: its variable is defaultUnit, not default.
  "Default",
];

/**
 * Names this CLI's YAML code generator (pulumi-language-yaml) writes as other text: `$` before `${` (it escapes
 * `${` as `$${` but not the `$` before it, so `$${x}` comes out as `$$${x}`: a `$` and a reference to x). Pinned:
 * when the CLI fixes it, the test fails and the name joins HOSTILE.
 */
export const MANGLED_BY_YAML_CODEGEN = ["$${x}"];

/** Plants one business unit per hostile name (with a nested unit, consumers, a node and a proxy relation). */
export function plantHostile(emu: Emulator): void {
  const node = { os: 3, type: 1, domain: 1, cpuCount: 2 };
  plant(emu, [
    ...HOSTILE.map((name, i) => ({
      name,
      registrationNumber: name,
      timeZoneId: 1,
      settings: { note: name, tags: [name] },
      consumers: [{ name, note: name, tags: [name], node: i === 0 ? { ...node, tsmName: "HOSTILE-0" } : undefined }],
    })),
    {
      name: "Acme AB",
      registrationNumber: "556000-0001",
      timeZoneId: 4,
      consumers: [
        { name: "web", node: { ...node, tsmName: "ACME-WEB" } },
        { name: "backup proxy", node: { ...node, tsmName: "ACME-PROXY" } },
      ],
      proxies: [[1, 0]],
      children: [{ name: "Acme Ölfabrik", registrationNumber: "X-1", timeZoneId: 1, consumers: [{ name: "東京" }] }],
    },
  ]);
}

/** Requests of the log, tokens apart: `logins` (POST /v1/oauth), `reads` (GET), `writes` (the rest). */
export function counted(emu: Emulator): { logins: number; reads: number; writes: number } {
  const all = emu.requests();
  const logins = all.filter((r) => r.path === "/v1/oauth").length;
  const reads = all.filter((r) => r.method === "GET").length;
  return { logins, reads, writes: all.length - logins - reads };
}

/** One resource of an import file (provider/export/pulumi-import.ts). */
export interface ImportEntryText {
  type: string;
  name: string;
  logicalName: string;
  parent?: string;
}

/** The inputs `pulumi import` left in the state (`pulumi stack export`) for the entry's resource. */
function stateInputs(e: ImportEntryText, state: any): Record<string, unknown> {
  const found = state.deployment.resources.filter((r: any) => r.type === e.type && r.urn.endsWith(`::${e.logicalName}`));
  if (found.length !== 1) throw new Error(`${e.name}: ${found.length} resources of the state are ${e.type} ${e.logicalName}`);
  return Object.fromEntries(Object.entries(found[0].inputs as Record<string, unknown>).filter(([k]) => !k.startsWith("__")));
}

/**
 * A TypeScript program on the SDK (sdk/nodejs) that declares the imported resources as `pulumi import` would have
 * written them, were the Node.js host built here able to (it is not: "GenerateProgram not implemented"): for
 * each entry of the import file, in its order, `new backupportal.<Type>(logicalName, inputs, { parent, protect })`
 * with the inputs the import left in the stack's state (`pulumi stack export`). Every value goes in as JSON.
 */
export function typescriptProgram(entries: ImportEntryText[], state: any): string {
  const lines = ['import * as backupportal from "@backup-portal/backupportal";', ""];
  for (const e of entries) {
    const inputs = stateInputs(e, state);
    const cls = e.type.split(":").pop();
    const opts = `{ ${e.parent ? `parent: ${e.parent}, ` : ""}protect: true }`;
    lines.push(`const ${e.name} = new backupportal.${cls}(${JSON.stringify(e.logicalName)}, ${JSON.stringify(inputs)}, ${opts});`);
  }
  lines.push("", `export const imported = [${entries.map((e) => `${e.name}.urn`).join(", ")}].length;`, "");
  return lines.join("\n");
}

/** "billingStorageTypeId" → "billing_storage_type_id": the Python SDK's argument names. */
const snake = (key: string) => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/**
 * The same program in Python on the Python SDK (pulumi_backupportal): each input as a keyword argument of its
 * snake_case name, the values through json.loads of a JSON text (a JSON string is a Python string literal).
 */
export function pythonProgram(entries: ImportEntryText[], state: any): string {
  const lines = ["import json", "import pulumi", "import pulumi_backupportal as backupportal", ""];
  for (const e of entries) {
    const inputs = stateInputs(e, state);
    const args = Object.fromEntries(Object.entries(inputs).map(([k, v]) => [snake(k), v]));
    const opts = `pulumi.ResourceOptions(${e.parent ? `parent=${snake(e.parent)}, ` : ""}protect=True)`;
    lines.push(
      `${snake(e.name)} = backupportal.${e.type.split(":").pop()}(${JSON.stringify(e.logicalName)}, opts=${opts}, **json.loads(${JSON.stringify(JSON.stringify(args))}))`,
    );
  }
  return `${lines.join("\n")}\n`;
}

/** The input fields of each `<Type>Args` struct of the generated Go SDK (`sdk/go/backupportal/*.go`): Go name → type. */
export function goArgFields(sdkDir: string): Map<string, Map<string, string>> {
  const out = new Map<string, Map<string, string>>();
  for (const file of fs.readdirSync(sdkDir).filter((f) => f.endsWith(".go"))) {
    const text = fs.readFileSync(path.join(sdkDir, file), "utf8");
    for (const m of text.matchAll(/^type (\w+)Args struct \{\n([\s\S]*?)\n\}/gm)) {
      const fields = new Map<string, string>();
      for (const f of m[2].matchAll(/^\t(\w+) (pulumi\.\w+)$/gm)) fields.set(f[1], f[2]);
      out.set(m[1], fields);
    }
  }
  return out;
}

/** A JSON value as a Go expression of the input type `goType` (pulumi.Input takes the value's own kind). */
function goValue(v: unknown, goType: string): string {
  if (Array.isArray(v)) {
    const items = v.map((x) => goValue(x, "pulumi.Input"));
    return `${goType === "pulumi.StringArrayInput" ? "pulumi.StringArray" : "pulumi.Array"}{${items.join(", ")}}`;
  }
  if (typeof v === "string") return `pulumi.String(${JSON.stringify(v)})`;
  if (typeof v === "boolean") return `pulumi.Bool(${v})`;
  if (typeof v === "number") return goType.startsWith("pulumi.Float64") ? `pulumi.Float64(${v})` : `pulumi.Int(${v})`;
  throw new Error(`no Go value for ${JSON.stringify(v)}`);
}

/**
 * The same program in Go on the generated Go SDK: a `program` function for test/real-engine/go-program's drive.go
 * (the Automation API runs it inline: no Go language host can be built here). Each input as the field of its Args
 * struct, typed as the SDK types it (`fields`: goArgFields); strings as JSON text, which Go reads as the same string.
 */
export function goProgram(entries: ImportEntryText[], state: any, fields: Map<string, Map<string, string>>): string {
  const lines = [
    "package main",
    "",
    "import (",
    '\t"fmt"',
    '\t"os"',
    "",
    '\t"github.com/backup-portal/backup-portal-pulumi/sdk/go/backupportal"',
    '\t"github.com/pulumi/pulumi/sdk/v3/go/pulumi"',
    ")",
    "",
    "// main runs the program inline through the Automation API (drive.go): `up`, `preview` or `destroy` <stack>.",
    "func main() {",
    "\tif err := drive(os.Args[1], os.Args[2:]); err != nil {",
    '\t\tfmt.Fprintf(os.Stderr, "go-program: %v\\n", err)',
    "\t\tos.Exit(1)",
    "\t}",
    "}",
    "",
    "func program(ctx *pulumi.Context) error {",
  ];
  for (const e of entries) {
    const cls = e.type.split(":").pop()!;
    const args = Object.entries(stateInputs(e, state)).map(([k, v]) => {
      const field = k[0].toUpperCase() + k.slice(1);
      const type = fields.get(cls)?.get(field);
      if (!type) throw new Error(`${cls}Args has no field ${field}`);
      return `${field}: ${goValue(v, type)}`;
    });
    const opts = [...(e.parent ? [`pulumi.Parent(${e.parent})`] : []), "pulumi.Protect(true)"];
    lines.push(
      `\t${e.name}, err := backupportal.New${cls}(ctx, ${JSON.stringify(e.logicalName)}, &backupportal.${cls}Args{${args.join(", ")}}, ${opts.join(", ")})`,
      "\tif err != nil {",
      "\t\treturn err",
      "\t}",
      `\t_ = ${e.name}`,
    );
  }
  lines.push("\treturn nil", "}", "");
  return lines.join("\n");
}
