// `backup-portal export`: a live portal's business-unit tree as the `backup-portal:tenants` block of a stack file,
// every object adopted, so that the first `pulumi up` takes them over instead of creating them.
import { PortalClient } from "../portal/client";
import { Exported, toTenants } from "./map";
import { ProgressListener, PortalTree, readPortalTree } from "./read";
import { renderJson, renderYaml, StackFileParts } from "./render";
import { setSecretHint } from "../rules/stack-config";
import { PASSWORD_KEY } from "./connection";

export type ExportFormat = "yaml" | "json";

export interface ExportResult extends Exported {
  tree: PortalTree;
  parts: StackFileParts;
  text: string;
}

/** The comment that names the stack files' JSON Schema to editors (the YAML language server reads it). */
export const schemaLine = (schema: string): string => `yaml-language-server: $schema=${schema}`;

/** The comment at the top of an exported file; with `schema`, its first line names the JSON Schema. */
export function header(rootId: number, schema?: string, connection = false): string[] {
  return [
    ...(schema === undefined ? [] : [schemaLine(schema)]),
    `Exported by \`backup-portal export\`: everything below business unit ${rootId}, each object adopted`,
    "(adoptId, adopt: true), so the first `pulumi up` takes it over. Review the lines marked `review:` before you commit.",
    ...(connection
      ? [`The connection is the export's; add its password, a secret: ${setSecretHint(PASSWORD_KEY)} (in CI: BACKUP_PORTAL_PASSWORD).`]
      : []),
    "A node's password cannot be read back from the portal (the backup client rotates it), so none is exported.",
    `To set one from the stack: ${setSecretHint("<key>")}, and passwordSecret: <key> on the node.`,
  ];
}

/**
 * Reads the tree below `rootId` and renders it. `schema`: where the stack files' JSON Schema is, from the file
 * written (YAML only: JSON has no comments, and a key would be config). `connection`: the plain connection keys to
 * write first (connection.ts), so that the file's first preview needs only the password.
 */
export async function exportPortal(
  client: PortalClient,
  rootId: number,
  opts: { format?: ExportFormat; onProgress?: ProgressListener; schema?: string; connection?: Record<string, string> } = {},
): Promise<ExportResult> {
  const tree = await readPortalTree(client, rootId, { onProgress: opts.onProgress });
  const exported = toTenants(tree);
  const connection = opts.connection && Object.keys(opts.connection).length ? opts.connection : undefined;
  const parts = { connection, rootId, tenants: exported.tenants, header: header(rootId, opts.schema, connection !== undefined) };
  const text = opts.format === "json" ? renderJson(parts) : renderYaml(parts);
  return { ...exported, tree, parts, text };
}

/**
 * Why the root's own consumers are not in the file, in one line (undefined when it has none): the stack file
 * declares business units below rootBusinessUnitId and their consumers, not the consumers of that unit itself.
 * `parentId`: the root's parent, when the account can read it. Consumer names are the portal's (shown quoted).
 */
export function leftOutLine(tree: Pick<PortalTree, "rootId" | "rootConsumers">, parentId?: number): string | undefined {
  const consumers = tree.rootConsumers ?? [];
  const n = consumers.length;
  if (n === 0) return undefined;
  const shown = consumers.slice(0, 3).map((c) => JSON.stringify(c.name ?? `#${c.id}`));
  const names = `${shown.join(", ")}${n > 3 ? `, and ${n - 3} more` : ""}`;
  const from =
    parentId !== undefined
      ? `export from its parent (--bunit ${parentId})`
      : "export from the business unit above it (--bunit <its id>, with an account that can read it)";
  return (
    `business unit ${tree.rootId}'s own ${n === 1 ? "consumer" : `${n} consumers`} (${names}) ${n === 1 ? "is" : "are"} not exported: ` +
    `a stack file declares the business units below backup-portal:rootBusinessUnitId, not that unit's own consumers; ` +
    `to manage ${n === 1 ? "it" : "them"} as code, ${from}, which adopts business unit ${tree.rootId} with ${n === 1 ? "it" : "them"}`
  );
}

/** The closing line on stderr: what the file declares (as `validate` counts it), and what it holds only as comments. */
export function summaryLine(r: Pick<Exported, "counts" | "reviews">): string {
  const { businessUnits, consumers, nodes, nodesLeftOut } = r.counts;
  const n = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`;
  const leftOut = nodesLeftOut
    ? ` (and ${n(nodesLeftOut, "node", "nodes")} left out as a comment until ${nodesLeftOut === 1 ? "its" : "their"} values are fixed)`
    : "";
  return (
    `exported ${n(businessUnits, "business unit", "business units")}, ${n(consumers, "consumer", "consumers")}, ${n(nodes, "node", "nodes")}${leftOut}; ` +
    `${n(r.reviews.length, "value needs", "values need")} review (see comments)`
  );
}

export { minimumReads, readPortalTree } from "./read";
export { toTenants } from "./map";
export { keysFor, slug } from "./keys";
