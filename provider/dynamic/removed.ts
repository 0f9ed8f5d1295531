// Consumers the portal removed together with their node in this provider host.
// Spec 000: deleting a node removes its consumption unit. The engine still calls the
// consumer's Delete after its node's, and that Delete need not ask the portal again.
// Only a node DELETE that succeeded here counts: a node not managed, already gone
// (404: its consumer's fate is unknown) or whose delete failed leaves the consumer's
// Delete to send its own request. Keyed by the client (one portal, one connection)
// and by the consumer's id, which the portal never reuses.
import type { PortalClient } from "../portal/client";

const removed = new WeakMap<PortalClient, Set<string>>();

const key = (bunitId: number, consumerId: number) => `${Number(bunitId)}/${Number(consumerId)}`;

/** Records that the node of `consumerId` was deleted through `client`, taking its consumer with it. */
export function noteRemovedWithNode(client: PortalClient, bunitId: number, consumerId: number): void {
  let set = removed.get(client);
  if (!set) removed.set(client, (set = new Set()));
  set.add(key(bunitId, consumerId));
}

/** Whether the consumer went with its node's DELETE in this host (asked once: the record is used up). */
export function takeRemovedWithNode(client: PortalClient, bunitId: number, consumerId: number): boolean {
  return removed.get(client)?.delete(key(bunitId, consumerId)) ?? false;
}
