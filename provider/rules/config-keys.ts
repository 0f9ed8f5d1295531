// Which config key the Pulumi CLI (v3.260.0) reads a stack file's key as. Three spellings name one key:
// `tenants` (a key without `:` goes into the project's namespace: workspace/loaders.go
// stackConfigNamespacedWithProject), `backup-portal:tenants`, and the old `backup-portal:config:tenants`
// (resource/config/key.go ParseKey). Both steps fill a Go map, whose order Go randomises: a file that writes one key
// twice gets one of its values at random on each run, so such a file is refused, every spelling with its line.

/** The key `written` names for the CLI, `namespace:name`; undefined for a key the CLI refuses to read. */
export function cliConfigKey(written: string, project: string): string | undefined {
  const parts = written.split(":");
  if (parts.length === 1) return `${project}:${written}`;
  if (parts.length === 2) return written;
  if (parts.length === 3 && parts[1] === "config") return `${parts[0]}:${parts[2]}`;
  return undefined;
}

/** One spelling of a key and the line it stands on (1-based; undefined when the line is not known). */
export interface Spelling {
  written: string;
  line?: number;
}

/** Why a file that spells one key in each of `spellings` (two or more) is refused. */
export function repeatedKeyProblem(spellings: Spelling[]): string {
  const each = spellings.map((s) => `\`${s.written}\`${s.line === undefined ? "" : ` (line ${s.line})`}`);
  const listed = `${each.slice(0, -1).join(", ")} and ${each[each.length - 1]}`;
  return (
    `is written ${spellings.length === 2 ? "twice" : `${spellings.length} times`}, as ${listed}, which the Pulumi CLI ` +
    "reads as one key, taking one of the values at random on each run; keep one of them"
  );
}
