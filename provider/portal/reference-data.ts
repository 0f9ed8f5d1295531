// Reference data: operating systems, node types, the default backup server with
// its domains and client option sets, warning types, version and the account.
import { PortalCore, bunitPath } from "./core";
import { itemsOf } from "./collections";
import {
  BackupServer,
  ClientOptionSet,
  Collection,
  Domain,
  Me,
  NodeOperatingSystem,
  NodeType,
  NodeWarningType,
  PortalAction,
} from "./types";

/** The account's name in `/v1/me`: `username` (spec-era answers) or `name` (the real portal), whichever is there. */
export function accountName(me: Me): string | undefined {
  return me.username ?? me.name;
}

export class ReferenceData {
  constructor(private readonly core: PortalCore) {}

  async operatingSystems(): Promise<NodeOperatingSystem[]> {
    return itemsOf(await this.core.get<Collection<NodeOperatingSystem>>("/v1/nodeoperatingsystems"));
  }

  operatingSystem(id: number): Promise<NodeOperatingSystem> {
    return this.core.get(`/v1/nodeoperatingsystems/${id}`);
  }

  async nodeTypes(): Promise<NodeType[]> {
    return itemsOf(await this.core.get<Collection<NodeType>>("/v1/nodetypes"));
  }

  nodeType(id: number): Promise<NodeType> {
    return this.core.get(`/v1/nodetypes/${id}`);
  }

  defaultServer(bunitId: number): Promise<BackupServer> {
    return this.core.get(bunitPath(bunitId, "/defaultserver"));
  }

  async domains(bunitId: number): Promise<Domain[]> {
    return itemsOf(await this.core.get<Collection<Domain>>(bunitPath(bunitId, "/defaultserver/domains")));
  }

  async clientOptionSets(bunitId: number): Promise<ClientOptionSet[]> {
    return itemsOf(await this.core.get<Collection<ClientOptionSet>>(bunitPath(bunitId, "/defaultserver/clientoptionsets")));
  }

  async nodeWarningTypes(): Promise<NodeWarningType[]> {
    return itemsOf(await this.core.get<Collection<NodeWarningType>>("/v1/nodewarningtypes"));
  }

  /** The portal's version, four dot-separated numbers. */
  fullVersion(): Promise<string> {
    return this.core.call<string>({ method: "GET", path: "/v1/fullVersion", auth: false });
  }

  /** The logged-in account and its root business unit (`GET /v1/me`, real portal, not in the spec). */
  me(): Promise<Me> {
    return this.core.get("/v1/me");
  }

  /** `GET /v1/actions` (not in spec 000; the published Go client's GetActions reads it as a collection). */
  async actions(): Promise<PortalAction[]> {
    return itemsOf(await this.core.get<Collection<PortalAction> | PortalAction[]>("/v1/actions"));
  }

  /** `GET /v1/actions/{id}` (the Go client's GetAction). */
  action(id: number): Promise<PortalAction> {
    return this.core.get(`/v1/actions/${id}`);
  }
}
