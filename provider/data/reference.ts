// Reference data by name: time zones, operating systems, node types, the default backup server
// and its domains and client option sets, node warning types. Lookups go through the dynamic
// providers' `References` resolver (case-insensitive name, or id; an unknown name throws an
// UnknownReferenceError that lists the valid names). Each list is read once per client.
import { PortalClient } from "../portal/client";
import { BackupServer, ClientOptionSet, Domain, NodeOperatingSystem, NodeType, NodeWarningType, TimeZone } from "../portal/types";
import { References, UnknownReferenceError } from "../dynamic/references";

export { UnknownReferenceError };

const resolvers = new WeakMap<PortalClient, References>();

/** The client's reference resolver (one cache per client). */
export function referencesOf(client: PortalClient): References {
  let refs = resolvers.get(client);
  if (!refs) {
    refs = new References(client);
    resolvers.set(client, refs);
  }
  return refs;
}

function bunit(id: number): number {
  if (!Number.isSafeInteger(id) || id < 1) throw new RangeError(`business unit id must be a positive integer, got ${id}`);
  return id;
}

export async function getTimeZones(client: PortalClient): Promise<TimeZone[]> {
  return (await referencesOf(client).list("timeZone")) as TimeZone[];
}

/** A time zone by Windows id (`W. Europe Standard Time`), display name or id. */
export async function getTimeZone(client: PortalClient, nameOrId: string | number): Promise<TimeZone> {
  return (await referencesOf(client).resolve("timeZone", nameOrId)) as TimeZone;
}

export async function getOperatingSystems(client: PortalClient): Promise<NodeOperatingSystem[]> {
  return (await referencesOf(client).list("operatingSystem")) as NodeOperatingSystem[];
}

/** An operating system by name (`Linux`, case-insensitive) or id. */
export async function getOperatingSystem(client: PortalClient, nameOrId: string | number): Promise<NodeOperatingSystem> {
  return (await referencesOf(client).resolve("operatingSystem", nameOrId)) as NodeOperatingSystem;
}

export async function getNodeTypes(client: PortalClient): Promise<NodeType[]> {
  return (await referencesOf(client).list("type")) as NodeType[];
}

/** A node type by name (`File server`) or id. */
export async function getNodeType(client: PortalClient, nameOrId: string | number): Promise<NodeType> {
  return (await referencesOf(client).resolve("type", nameOrId)) as NodeType;
}

/** The business unit's default backup server (the only one used). */
export async function getDefaultServer(client: PortalClient, bunitId: number): Promise<BackupServer> {
  return (await referencesOf(client).defaultServer(bunit(bunitId))) as BackupServer;
}

/** The policy domains of the default backup server. */
export async function getDomains(client: PortalClient, bunitId: number): Promise<Domain[]> {
  return (await referencesOf(client).list("domain", bunit(bunitId))) as Domain[];
}

/** A policy domain of the default backup server by name (`STANDARD`) or id. */
export async function getDomain(client: PortalClient, bunitId: number, nameOrId: string | number): Promise<Domain> {
  return (await referencesOf(client).resolve("domain", nameOrId, bunit(bunitId))) as Domain;
}

/** The client option sets of the default backup server. */
export async function getClientOptionSets(client: PortalClient, bunitId: number): Promise<ClientOptionSet[]> {
  return (await referencesOf(client).list("clientOptionSet", bunit(bunitId))) as ClientOptionSet[];
}

/** A client option set of the default backup server by name (`DEDUP_AND_COMPRESS`) or id. */
export async function getClientOptionSet(client: PortalClient, bunitId: number, nameOrId: string | number): Promise<ClientOptionSet> {
  return (await referencesOf(client).resolve("clientOptionSet", nameOrId, bunit(bunitId))) as ClientOptionSet;
}

/** The warning types that explain report warnings (not cached: read on each call). */
export function getNodeWarningTypes(client: PortalClient): Promise<NodeWarningType[]> {
  return client.reference.nodeWarningTypes();
}
