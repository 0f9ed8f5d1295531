// A customer under your reseller business unit, with two servers: each a consumer carrying
// one backup node, and the second server's node allowed to act for the first's.
import * as pulumi from "@pulumi/pulumi";
import { BusinessUnit, Consumer, Node, NodeProxy } from "backup-portal-pulumi";

const config = new pulumi.Config();
// The business unit the customer goes under (yours, the reseller's): its id in the portal.
const parentId = config.requireNumber("parentBusinessUnitId");

const customer = new BusinessUnit(
  "acme",
  {
    parentId,
    name: "Acme AB",
    registrationNumber: "556677-8899",
    timeZone: "W. Europe Standard Time",
    invoiceDay: 1,
    tags: ["customer"],
  },
  // A business unit removed from the code is not deleted with everything below it by accident.
  { protect: true },
);

/** One server: its consumer, and the node it carries activated under `tsmName`. */
function server(key: string, tsmName: string, passwordKey: string) {
  // The consumer records the node's name: a new name replaces both (the portal deletes them together).
  const consumer = new Consumer(key, { businessUnitId: customer.businessUnitId, name: `${key}.acme.example`, nodeName: tsmName });
  const node = new Node(key, {
    businessUnitId: customer.businessUnitId,
    consumerId: consumer.consumerId,
    operatingSystem: "Linux",
    type: "File server",
    domain: "STANDARD",
    cpuCount: 4,
    tsmName,
    // `pulumi config set --secret <key>`: a secret in the state, never in plain text.
    tsmPassword: config.requireSecret(passwordKey),
  });
  return { consumer, node };
}

const web = server("web01", "ACME-WEB01", "web01Password");
const proxy = server("proxy01", "ACME-PROXY01", "proxy01Password");

// proxy01's node may back up on behalf of web01's.
new NodeProxy("proxy01-for-web01", {
  businessUnitId: customer.businessUnitId,
  agentConsumerId: proxy.consumer.consumerId,
  targetConsumerId: web.consumer.consumerId,
});

export const customerId = customer.businessUnitId;
export const nodes = { web01: web.node.activatedName, proxy01: proxy.node.activatedName };
