// Exactly once across a crash. When the provider host dies while a create is in
// flight, the portal may have made the object although state never learns of it;
// the next `pulumi up` creates it again, and the portal (which allows duplicate
// names) keeps both. Business units and consumers are therefore created with a
// marker derived from the resource's identity (project, stack, type, name and the
// inputs that replace it), and a run with recovery switched on first looks for an
// object carrying that marker and takes it over instead of creating another.
//
// Recovery is opt-in (`backup-portal:recoverInterruptedCreates: true` or
// BACKUP_PORTAL_RECOVER_INTERRUPTED=true), for the run after a crash: in a forced
// replacement (`pulumi up --replace`) the old object carries the same marker and
// would be taken over instead of replaced.
import { createHash } from "crypto";
// The SDK's metadata module, not its index: the plugin loads this file too, and the index loads all of the SDK.
import { getProject, getStack } from "@pulumi/pulumi/metadata";
import { markerFor } from "../portal/marker";

/** The stable identity of a resource, stored as its hidden `createKey` input. */
export function createKeyFor(type: string, name: string, project = getProject(), stack = getStack()): string {
  return createHash("sha256").update(`${project}\u0000${stack}\u0000${type}\u0000${name}`).digest("hex").slice(0, 32);
}

/** The marker of one create: the resource's key and the inputs whose change replaces it. */
export function createMarker(createKey: unknown, replacing: unknown[]): string | undefined {
  if (typeof createKey !== "string" || !createKey) return undefined;
  return markerFor(
    createHash("sha256")
      .update(JSON.stringify([createKey, ...replacing]))
      .digest("hex")
      .slice(0, 32),
  );
}

/** Parents this host process created: nothing can be left over under them. */
const createdHere = new Set<string>();

export function noteCreated(kind: "businessUnit", id: number): void {
  createdHere.add(`${kind}:${id}`);
}

export function createdInThisRun(kind: "businessUnit", id: number): boolean {
  return createdHere.has(`${kind}:${id}`);
}
