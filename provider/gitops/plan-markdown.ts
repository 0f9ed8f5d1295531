// The plan of one `pulumi preview --json` as Markdown, for a pull request's comment or a job's summary: what each
// resource would go through (the CLI's own symbols, the changed inputs with old and new values), the preview's
// errors and the plan guard's verdict. The workflow runs one preview and posts this, so what the reviewers read is
// the plan the guard judged. Values are the preview's own (it prints a secret as "[secret]"); inputs named like a
// secret are never shown. Everything is inside code fences longer than any run of backticks in it: a name from
// the portal cannot close the fence and write Markdown of its own.
import { escapeControls } from "../text/controls";
import { Digest, parseUrn, Step } from "./preview-digest";

/** The CLI's symbol for each op that changes something; other ops (same, refresh, read, discard) are not listed. */
const SYMBOLS: Record<string, string> = {
  create: "+",
  update: "~",
  delete: "-",
  replace: "+-",
  "create-replacement": "+-",
  "delete-replaced": "+-",
  "remove-pending-replace": "-",
  import: "=",
  "import-replacement": "=>",
};

const SECRET_NAME = /password|secret|token|passphrase/i;
const MAX_VALUE = 200;

const shortType = (step: Step) => {
  const type = step.newState?.type || step.oldState?.type || parseUrn(step.urn).type;
  return type.slice(type.lastIndexOf(":") + 1);
};

function value(key: string, v: unknown): string {
  if (SECRET_NAME.test(key)) return "[secret]";
  const text = v === undefined ? "(none)" : JSON.stringify(v);
  return escapeControls(text.length > MAX_VALUE ? `${text.slice(0, MAX_VALUE)}…` : text);
}

/** One line per changed resource (a replacement's several steps are one line), with its changed inputs below. */
export function planLines(digest: Digest): string[] {
  const seen = new Set<string>();
  const lines: string[] = [];
  for (const step of digest.steps) {
    const symbol = SYMBOLS[step.op];
    if (symbol === undefined || seen.has(step.urn)) continue;
    seen.add(step.urn);
    const diffs = Array.isArray(step.diffs) ? step.diffs.filter((d) => typeof d === "string") : [];
    const replaced = digest.steps.some((s) => s.urn === step.urn && SYMBOLS[s.op] === "+-");
    lines.push(
      `${replaced ? "+-" : symbol} ${shortType(step)} ${escapeControls(parseUrn(step.urn).name)}${diffs.length ? ` [diff: ~${diffs.join(",")}]` : ""}`,
    );
    for (const key of diffs) {
      lines.push(`    ${escapeControls(key)}: ${value(key, step.oldState?.inputs?.[key])} => ${value(key, step.newState?.inputs?.[key])}`);
    }
  }
  return lines;
}

/** `text` in a fence no run of backticks in it can close. */
function fenced(text: string, lang = ""): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = "`".repeat(Math.max(3, longest + 1));
  return `${fence}${lang}\n${text}\n${fence}\n`;
}

/** The report: the changes as counted by the CLI, each change, the preview's errors, and the guard's lines. */
export function planMarkdown(digest: Digest, guard: string): string {
  const counts = Object.entries(digest.changeSummary ?? {})
    .filter(([op]) => op !== "same")
    .map(([op, n]) => `${n} to ${op}`);
  const unchanged = digest.changeSummary?.same;
  const lines = planLines(digest);
  const errors = (digest.diagnostics ?? []).filter((d) => d && d.severity === "error" && typeof d.message === "string");
  return [
    `**Plan:** ${counts.length ? counts.join(", ") : "no changes"}${unchanged ? `, ${unchanged} unchanged` : ""}\n`,
    lines.length ? fenced(lines.join("\n"), "diff") : "",
    errors.length ? `**The preview failed:**\n${fenced(errors.map((d) => escapeControls(d.message!.trim(), ["\n"])).join("\n"))}` : "",
    `**Plan guard:**\n${fenced(guard)}`,
  ]
    .filter(Boolean)
    .join("\n");
}
