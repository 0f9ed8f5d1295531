// A tenant managed through the backupportal plugin with its generated TypeScript SDK (sdk/nodejs): an explicit
// provider for one portal and account, a business unit, a consumer with its backup node, and a lookup of the
// business unit by id. The SDK names where the plugin is published, so the Pulumi CLI installs it when the
// program first needs it (docs/plugin.md, "Install").
import * as pulumi from "@pulumi/pulumi";
import * as backupportal from "@backup-portal/backupportal";

const config = new pulumi.Config();

const portal = new backupportal.Provider("portal", {
  url: config.require("portalUrl"),
  origin: config.require("portalOrigin"),
  clientId: config.require("portalClientId"),
  username: config.require("portalUsername"),
  password: config.requireSecret("portalPassword"),
});
const opts = { provider: portal };

const acme = new backupportal.BusinessUnit(
  "acme",
  {
    parentId: config.requireNumber("parentBusinessUnitId"),
    name: "Acme Ltd",
    registrationNumber: "556677-8899",
    timeZone: "W. Europe Standard Time",
    note: "Managed with the backupportal TypeScript SDK",
  },
  opts,
);

const web = new backupportal.Consumer("web", { businessUnitId: acme.id, name: "web01", nodeName: "WEB01" }, opts);

const webNode = new backupportal.Node(
  "web",
  {
    businessUnitId: acme.id,
    consumerId: web.id,
    operatingSystem: "Linux",
    type: "File server",
    domain: "STANDARD",
    cpuCount: 2,
    tsmName: "WEB01",
    tsmPassword: config.requireSecret("web01Password"),
  },
  opts,
);

// A lookup by id (the plugin's Read): what the portal holds now, not managed by this program.
const seen = backupportal.BusinessUnit.get("acme-as-seen", acme.id, opts);

export const businessUnitId = acme.businessUnitId;
export const consumerId = web.consumerId;
export const nodeName = webNode.activatedName;
export const nodePassword = webNode.tsmPassword;
export const portalName = seen.name;
