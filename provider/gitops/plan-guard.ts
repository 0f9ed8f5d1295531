// The GitOps plan guard (issues 23, 37, 45): reads what `pulumi preview --json` wrote and refuses a plan that deletes
// or replaces a business unit (dynamic or plugin), replaces the plugin's provider, or deletes or replaces more
// consumers and nodes than allowed, unless the pull request allows it. `backup-portal plan-guard` runs it in a
// project that installed the package (provider/cli/plan-guard.ts), `npm run plan-guard` in this repository
// (scripts/plan-guard.js); both are `main` below, with the same exits and table.
//
//   pulumi preview --refresh --json > preview.json
//   backup-portal plan-guard preview.json [--max-deletes N] [--allow] [--markdown <file>]
//
//   --max-deletes N    consumers and nodes the plan may delete or replace together (default 0)
//   --allow            the pull request carries the label `allow-tenant-deletion`: print the table, pass
//   --markdown <file>  also append the whole plan and the verdict as Markdown (a pull request comment, a job summary)
//
// Exit status: 0 the plan passes (or is allowed), 1 it is refused, 2 the file is no preview or one of a shape
// the guard does not know (fails closed).
// Every delete or replace in the plan is printed as a table (kind, name, URN, op), whatever the outcome.
//
// The input is the CLI's preview digest, as pulumi/pulumi v3.260.0 writes it (pkg/backend/display/json.go,
// ShowPreviewDigest; the shape in pkg/display/json.go, PreviewDigest/PreviewStep, and
// sdk/go/common/apitype/core.go, ResourceV3): `{ steps: [{ op, urn, oldState?, newState?, ... }],
// diagnostics, changeSummary, ... }`. Only steps that change something are listed (`same` only with
// --show-sames). A replacement is one `replace` step, or with --show-replacement-steps also
// `create-replacement` and `delete-replaced` for the same URN: all count as one replace. With --refresh, an
// object the refresh found gone on the portal is dropped from the state and planned as a `create` (v3.260.0, both
// paths: test/real-engine/plan-guard-plugin.test.ts); a `delete` a refresh lists is counted (someone should look).
// The kind of a resource is its type token (oldState/newState `type`, else the URN's type) without its family's
// prefix: the dynamic providers register as `pulumi-nodejs:dynamic/backup-portal:<Kind>` (the module and type the
// classes in provider/resources/*.ts pass to dynamic.Resource), the plugin's as `backupportal:index:<Kind>`
// (provider/plugin/resources.ts tokenOf); test/gitops/plan-guard.test.ts checks both.
// The plugin's own provider (`pulumi:providers:backupportal`, default or explicit) is replaced when its `url` or
// `username` changes (provider/plugin/config.ts REPLACING_CONFIG_KEYS), and the engine then replaces every resource
// it manages: a replaced provider counts as a replace of each resource whose state names it, and is itself
// refused like a business unit (it may manage business units the digest does not list).
// Anything else is no preview this guard knows and fails closed (exit 2): no `steps` array, a step without a
// string `urn`, an `op` that is not exactly one of the engine's, or a `changeSummary` that counts deletes or
// replaces the steps do not show.
import * as fs from "fs";
import { planMarkdown } from "./plan-markdown";
import { Digest, parseUrn, Step } from "./preview-digest";

export { parseUrn } from "./preview-digest";

export const LABEL = "allow-tenant-deletion";
/** The type-token prefixes of this product's resources: the dynamic providers' and the plugin's. */
export const FAMILIES = ["pulumi-nodejs:dynamic/backup-portal:", "backupportal:index:"];
export const TYPE_PREFIX = FAMILIES[0];
export const PLUGIN_PREFIX = FAMILIES[1];
/** The plugin's provider resource type (its replace replaces what it manages). */
export const PROVIDER_TYPE = "pulumi:providers:backupportal";
const PROVIDER_KIND = "provider";
/**
 * The one table of rules, by kind (the same for both families): a business unit never goes without the label, nor
 * the plugin's provider (its replace replaces every resource it manages); consumers and nodes up to --max-deletes.
 */
const GUARDED: Record<string, "never" | "limit"> = { BusinessUnit: "never", [PROVIDER_KIND]: "never", Consumer: "limit", Node: "limit" };
type Effect = "delete" | "replace" | null;
/**
 * Every step op of the engine, exactly as it spells them (pulumi/pulumi pkg/v3 v3.260.0, resource/deploy/step.go
 * StepOps), and what each does to an object this guard counts: removes it (`delete`), replaces it (`replace`), or
 * neither (null). A replacement with --show-replacement-steps is `create-replacement`, `replace` and
 * `delete-replaced` of one URN: one replace. `remove-pending-replace` drops a resource whose replacement failed
 * half-way: a delete. Reads, discards and imports act on read or imported resources, not on the stack's objects.
 */
export const OPS: Readonly<Record<string, Effect>> = {
  same: null,
  create: null,
  update: null,
  delete: "delete",
  replace: "replace",
  "create-replacement": "replace",
  "delete-replaced": "replace",
  read: null,
  "read-replacement": null,
  refresh: null,
  discard: null,
  "discard-replaced": null,
  "remove-pending-replace": "delete",
  import: null,
  "import-replacement": "replace",
  diff: null,
  "extend-parameterize": null,
};
const effectOf = (op: unknown): Effect | undefined => (typeof op === "string" && Object.hasOwn(OPS, op) ? OPS[op] : undefined);

const typeOf = (step: Step): string => step.oldState?.type || step.newState?.type || parseUrn(step.urn).type;

/** BusinessUnit, Consumer, Node, NodeProxy for this product's resources (either family); `provider` for the plugin's provider; otherwise the type token itself. */
export function kindOf(step: Step): string {
  const type = typeOf(step);
  if (type === PROVIDER_TYPE) return PROVIDER_KIND;
  const family = FAMILIES.find((f) => type.startsWith(f));
  return family ? type.slice(family.length) : type;
}

/** The provider reference of a step's old (else new) state, `<provider URN>::<id>`, without the id. */
function providerUrnOf(step: Step): string | undefined {
  const ref = step.oldState?.provider || step.newState?.provider;
  return typeof ref === "string" && ref.includes("::") ? ref.slice(0, ref.lastIndexOf("::")) : undefined;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Why `digest` is no preview digest this guard knows (a one-line reason), or undefined: it must be an object with a
 * `steps` array of objects, each with a string `urn` and an `op` of the engine's, and a `changeSummary` (when there
 * is one) of the engine's ops that counts no more deletes or replaces of an op than the steps show.
 */
export function shapeProblem(digest: unknown): string | undefined {
  if (!isObject(digest)) return "not an object";
  if (!Array.isArray(digest.steps)) return 'no "steps" array';
  const seen: Record<string, number> = {};
  for (const [i, step] of (digest.steps as unknown[]).entries()) {
    if (!isObject(step)) return `steps[${i}] is not an object`;
    if (typeof step.urn !== "string") return `steps[${i}] has no string "urn"`;
    if (effectOf(step.op) === undefined) return `steps[${i}] has an op the engine does not write: ${JSON.stringify(step.op)}`;
    const op = step.op as string;
    seen[op] = (seen[op] || 0) + 1;
  }
  const summary = digest.changeSummary;
  if (summary === undefined) return undefined;
  if (!isObject(summary)) return '"changeSummary" is not an object';
  for (const [op, count] of Object.entries(summary)) {
    if (effectOf(op) === undefined) return `"changeSummary" counts an op the engine does not write: ${JSON.stringify(op)}`;
    if (!Number.isSafeInteger(count) || (count as number) < 0) return `"changeSummary".${op} is not a count: ${JSON.stringify(count)}`;
    // The steps may show more (the default provider's steps are not counted); never fewer destructive ones.
    if (OPS[op] && (count as number) > (seen[op] || 0)) {
      return `"changeSummary" counts ${count} ${op} but the steps show ${seen[op] || 0}`;
    }
  }
  return undefined;
}

export interface Row {
  kind: string;
  name: string;
  urn: string;
  op: "delete" | "replace";
  protected: boolean;
}

/** The deletes and replaces of a preview digest, one row per URN (a replace wins over a delete). */
export function changesOf(digest: Digest): Row[] {
  const rows = new Map<string, Row>();
  const add = (step: Step, op: "delete" | "replace") => {
    const row = rows.get(step.urn);
    if (row) {
      if (op === "replace") row.op = "replace";
      row.protected = row.protected || Boolean(step.oldState?.protect);
      return;
    }
    rows.set(step.urn, {
      kind: kindOf(step),
      name: parseUrn(step.urn).name,
      urn: step.urn,
      op,
      protected: Boolean(step.oldState?.protect),
    });
  };
  const steps = (digest.steps || []).filter((s) => s && typeof s.urn === "string");
  for (const step of steps) {
    const op = effectOf(step.op);
    if (op) add(step, op);
  }
  // A replaced plugin provider replaces every resource it manages, shown as a replace step or not at all.
  const replacedProviders = new Set([...rows.values()].filter((r) => r.kind === PROVIDER_KIND && r.op === "replace").map((r) => r.urn));
  if (replacedProviders.size > 0) {
    for (const step of steps) {
      const provider = providerUrnOf(step);
      if (provider !== undefined && replacedProviders.has(provider)) add(step, "replace");
    }
  }
  return [...rows.values()];
}

export interface Verdict {
  rows: Row[];
  reasons: string[];
  refused: boolean;
}

/** The verdict on a digest: `refused` with the reasons, and the rows to print. */
export function judge(digest: Digest, { maxDeletes = 0, allow = false }: { maxDeletes?: number; allow?: boolean } = {}): Verdict {
  const rows = changesOf(digest);
  const never = rows.filter((r) => GUARDED[r.kind] === "never");
  const businessUnits = never.filter((r) => r.kind !== PROVIDER_KIND);
  const providers = never.filter((r) => r.kind === PROVIDER_KIND);
  const limited = rows.filter((r) => GUARDED[r.kind] === "limit");
  const reasons: string[] = [];
  if (businessUnits.length > 0) {
    reasons.push(
      `the plan deletes or replaces ${businessUnits.length} business unit(s); a business unit is never removed without the label`,
    );
  }
  if (providers.length > 0) {
    reasons.push(
      `the plan replaces ${providers.length} backupportal provider(s) (a changed url or username): every resource it manages is replaced`,
    );
  }
  if (limited.length > maxDeletes) {
    reasons.push(`the plan deletes or replaces ${limited.length} consumer(s) and node(s); at most ${maxDeletes} may go without the label`);
  }
  return { rows, reasons, refused: reasons.length > 0 && !allow };
}

export function table(rows: Row[]): string {
  const head = ["kind", "name", "URN", "op"];
  const body = rows.map((r) => [r.kind, r.name, r.urn, r.op + (r.protected ? " (protected: the up fails on it)" : "")]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]))
      .join("  ")
      .trimEnd();
  return [line(head), line(widths.map((w) => "-".repeat(w))), ...body.map(line)].join("\n");
}

export interface Options {
  file: string;
  maxDeletes: number;
  allow: boolean;
  markdown?: string;
}

/** The usage line, for the way the guard is started (`backup-portal plan-guard`, `npm run plan-guard --`). */
export const usage = (command: string) => `usage: ${command} <preview.json> [--max-deletes N] [--allow] [--markdown <file>]`;

/** Command-line arguments → options, or a usage error (thrown as a string). */
export function parseArgs(argv: string[], command = "backup-portal plan-guard"): Options {
  const USAGE = usage(command);
  let file: string | undefined;
  const opts: Omit<Options, "file"> = { maxDeletes: 0, allow: false };
  const valueOf = (a: string, i: number): string | undefined => (a.includes("=") ? a.slice(a.indexOf("=") + 1) : argv[i]);
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--allow") opts.allow = true;
    else if (a === "--max-deletes" || a.startsWith("--max-deletes=")) {
      const v = valueOf(a, a.includes("=") ? i : ++i);
      if (v === undefined || !/^\d+$/.test(v)) throw `--max-deletes: expected a whole number, got ${JSON.stringify(v ?? "")}; ${USAGE}`;
      opts.maxDeletes = Number(v);
    } else if (a === "--markdown" || a.startsWith("--markdown=")) {
      const v = valueOf(a, a.includes("=") ? i : ++i);
      if (!v || v.startsWith("--")) throw `--markdown: expected a file to append to; ${USAGE}`;
      opts.markdown = v;
    } else if (a.startsWith("-")) throw `unknown option ${a}; ${USAGE}`;
    else if (file === undefined) file = a;
    else throw `one preview file only (got ${file} and ${a}); ${USAGE}`;
  }
  if (file === undefined) throw `no preview file; ${USAGE}`;
  return { file, ...opts };
}

/** The digest in `file`, or a one-line reason it is none (an empty file: the preview printed nothing). */
export function readDigest(file: string): Digest {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (e) {
    throw `${file}: cannot read it (${(e as NodeJS.ErrnoException).code || (e as Error).message})`;
  }
  let digest: unknown;
  try {
    digest = JSON.parse(text);
  } catch {
    throw `${file}: not JSON; save the output of \`pulumi preview --json\` (did the preview fail before printing?)`;
  }
  const problem = shapeProblem(digest);
  if (problem) throw `${file}: not the output of \`pulumi preview --json\` this guard knows (${problem}); it fails closed`;
  return digest as Digest;
}

/** The guard's lines on a digest, each for stdout or stderr, and its exit status. */
function verdictLines(digest: Digest, opts: Options): { lines: Array<{ to: "out" | "err"; text: string }>; status: number } {
  const lines: Array<{ to: "out" | "err"; text: string }> = [];
  const out = (text: string) => lines.push({ to: "out", text });
  const { rows, reasons, refused } = judge(digest, opts);
  const errors = (digest.diagnostics || []).filter((d) => d && d.severity === "error").length;
  if (errors > 0) out(`plan-guard: the preview reported ${errors} error(s); its own step fails on them`);
  if (rows.length === 0) {
    out("plan-guard: the plan deletes and replaces nothing");
    return { lines, status: 0 };
  }
  out(`plan-guard: the plan deletes or replaces ${rows.length} resource(s):\n${table(rows)}`);
  if (reasons.length === 0) {
    out(`plan-guard: within the limits (business units: none; consumers and nodes: at most ${opts.maxDeletes})`);
    return { lines, status: 0 };
  }
  if (!refused) {
    out(`plan-guard: allowed by the label "${LABEL}": ${reasons.join("; ")}`);
    return { lines, status: 0 };
  }
  for (const r of reasons) lines.push({ to: "err", text: `plan-guard: refused: ${r}` });
  lines.push({
    to: "err",
    text:
      `plan-guard: if this is meant, add the label "${LABEL}" to the pull request; a protected business unit also ` +
      "needs `protect: false` on it first (docs/stack-config.md, Removing a tenant on purpose)",
  });
  return { lines, status: 1 };
}

/**
 * Runs the guard; returns the exit status. `command`: how the usage line names it. A --markdown file that cannot be
 * written is exit 2 as well: the check must not pass without the report it was asked for.
 */
export function main(
  argv: string[],
  out: (line: string) => void = console.log,
  err: (line: string) => void = console.error,
  command?: string,
): number {
  let opts: Options;
  try {
    opts = parseArgs(argv, command);
  } catch (e) {
    if (typeof e !== "string") throw e;
    err(`plan-guard: ${e}`);
    return 2;
  }
  return guard(opts, out, err);
}

/** The guard on the options read (its file not read yet); returns the exit status. */
export function guard(opts: Options, out: (line: string) => void, err: (line: string) => void): number {
  let digest: Digest;
  try {
    digest = readDigest(opts.file);
  } catch (e) {
    if (typeof e !== "string") throw e;
    err(`plan-guard: ${e}`);
    return 2;
  }
  const { lines, status } = verdictLines(digest, opts);
  for (const l of lines) (l.to === "out" ? out : err)(l.text);
  if (opts.markdown !== undefined) {
    try {
      fs.appendFileSync(opts.markdown, planMarkdown(digest, lines.map((l) => l.text).join("\n")));
    } catch (e) {
      err(`plan-guard: --markdown ${opts.markdown}: cannot write it (${(e as NodeJS.ErrnoException).code || (e as Error).message})`);
      return 2;
    }
  }
  return status;
}
