// `backup-portal export`: a live portal's business-unit tree as the `backup-portal:tenants` block of a stack file,
// every object adopted, so that the first `pulumi up` takes them over instead of creating them.
import { PortalClient } from "../portal/client";
import { Exported, toTenants } from "./map";
import { ProgressListener, PortalTree, readPortalTree } from "./read";
import { renderJson, renderYaml, StackFileParts } from "./render";

export type ExportFormat = "yaml" | "json";

export interface ExportResult extends Exported {
  tree: PortalTree;
  parts: StackFileParts;
  text: string;
}

export function header(rootId: number): string[] {
  return [
    `Exported by \`backup-portal export\`: everything below business unit ${rootId}, each object adopted`,
    "(adoptId, adopt: true), so the first `pulumi up` takes it over. Review the lines marked `review:` before you commit.",
    "A node's password cannot be read back from the portal (the backup client rotates it), so none is exported.",
    "To set one from the stack: `pulumi config set --secret <key> <password>`, and passwordSecret: <key> on the node.",
  ];
}

/** Reads the tree below `rootId` and renders it. */
export async function exportPortal(
  client: PortalClient,
  rootId: number,
  opts: { format?: ExportFormat; onProgress?: ProgressListener } = {},
): Promise<ExportResult> {
  const tree = await readPortalTree(client, rootId, { onProgress: opts.onProgress });
  const exported = toTenants(tree);
  const parts = { rootId, tenants: exported.tenants, header: header(rootId) };
  const text = opts.format === "json" ? renderJson(parts) : renderYaml(parts);
  return { ...exported, tree, parts, text };
}

/** The closing line on stderr. */
export function summaryLine(r: Pick<Exported, "counts" | "reviews">): string {
  const { businessUnits, consumers, nodes } = r.counts;
  const n = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`;
  return (
    `exported ${n(businessUnits, "business unit", "business units")}, ${n(consumers, "consumer", "consumers")}, ${n(nodes, "node", "nodes")}; ` +
    `${n(r.reviews.length, "value needs", "values need")} review (see comments)`
  );
}

export { minimumReads, readPortalTree } from "./read";
export { toTenants } from "./map";
export { keysFor, slug } from "./keys";
