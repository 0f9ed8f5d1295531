// A user's blank Pulumi program that installed the packed tarball: it imports every public entry point
// and declares every exported resource and component under the SDK's mocks. Run by scripts/pack-smoke.sh
// from the program's own folder (plain Node, no ts-node: what a user's compiled program does).
"use strict";
const assert = require("assert").strict;
const fs = require("fs");
const pulumi = require("@pulumi/pulumi");

const registered = [];
pulumi.runtime.setMocks(
  {
    newResource: (args) => {
      registered.push({ type: args.type, name: args.name, inputs: args.inputs });
      return { id: `${args.name}-id`, state: { ...args.inputs, businessUnitId: 7, consumerId: 8, nodeId: 8 } };
    },
    call: (args) => args.inputs,
  },
  "smoke",
  "dev",
  true,
);

const root = require("backup-portal-pulumi");
// Every subpath the package exports, and the deep paths state written by earlier versions holds.
const subpaths = {
  portal: require("backup-portal-pulumi/portal"),
  registry: require("backup-portal-pulumi/registry"),
  metadata: require("backup-portal-pulumi/metadata"),
  data: require("backup-portal-pulumi/data"),
  billing: require("backup-portal-pulumi/billing"),
  registration: require("backup-portal-pulumi/registration"),
};
const legacy = {
  resource: require("backup-portal-pulumi/dist/provider/resources/business-unit"),
  portal: require("backup-portal-pulumi/dist/provider/portal"),
};
assert.equal(typeof subpaths.portal.PortalClient, "function");
assert.equal(subpaths.portal.PortalClient, root.PortalClient, "one module instance behind the root and ./portal");
assert.equal(typeof subpaths.registry.Registry, "function");
assert.equal(typeof subpaths.metadata, "object");
assert.equal(typeof subpaths.data, "object");
assert.equal(typeof subpaths.billing.BillingReceiver, "function");
assert.equal(typeof subpaths.registration.registrationUserData, "function");
// Tenants as data: a project's whole index.ts is `export = tenantsFromConfig();` (the runtime calls what it returns).
assert.equal(typeof root.tenantsFromConfig(), "function");
assert.equal(legacy.resource.BusinessUnit, root.BusinessUnit);
assert.equal(legacy.portal.PortalClient, root.PortalClient);
for (const internal of ["backup-portal-pulumi/dist/test/engine/engine", "backup-portal-pulumi/dist/emulator/server"]) {
  assert.throws(() => require(internal), /ERR_PACKAGE_PATH_NOT_EXPORTED|Cannot find module/, `${internal} is not in the package`);
}

const { BusinessUnit, Consumer, Node, NodeProxy, Registry, BillingReceiver, registrationUserData } = root;
const portal = {
  url: "https://portal.example.com",
  origin: "https://ops.example.com",
  clientId: "c-1",
  username: "ops",
  password: pulumi.secret("smoke-Password-1"),
};

const acme = new BusinessUnit("acme", { parentId: 1, name: "Acme AB", registrationNumber: "556677-8899", timeZone: "UTC" });
const web = new Consumer("web01", { businessUnitId: acme.id, name: "web01", nodeName: "ACME-WEB01" });
const proxy = new Consumer("proxy", { businessUnitId: acme.id, name: "proxy", nodeName: "ACME-PROXY" });
const node = { businessUnitId: acme.id, operatingSystem: "Linux", type: "File server", domain: "STANDARD", cpuCount: 2 };
new Node("web01", { ...node, consumerId: web.id, tsmName: "ACME-WEB01", tsmPassword: pulumi.secret("smoke-NodePw-1") });
new Node("proxy", { ...node, consumerId: proxy.id, tsmName: "ACME-PROXY" });
new NodeProxy("proxy>web01", { businessUnitId: acme.id, agentConsumerId: proxy.id, targetConsumerId: web.id });
new Registry("zot", { users: [{ username: "admin", password: pulumi.secret("smoke-Registry-1") }] });
new BillingReceiver("billing", {
  businessUnitId: 1,
  portal,
  image: "registry.example.com/backup-portal-receiver@sha256:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
  secret: pulumi.secret("smoke-notify-secret-123456"),
  namespace: "billing",
});
const userData = registrationUserData({ portal, integrity: `sha512-${"A".repeat(86)}==` }); // offline: the integrity is given

// Registration is asynchronous: wait until every resource is in, with a bound.
const deadline = Date.now() + 20000;
(async () => {
  assert.equal(await pulumi.isSecret(userData), true);
  const want = ["BusinessUnit", "Consumer", "Node", "NodeProxy"];
  const seen = () => new Set(registered.map((r) => r.type));
  while (!(want.every((t) => [...seen()].some((s) => s.endsWith(`:${t}`))) && [...seen()].some((s) => s.startsWith("kubernetes:")))) {
    if (Date.now() > deadline) throw new Error(`not all resources registered in 20 s: ${[...seen()].join(", ")}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  for (const r of registered.filter((x) => x.type.startsWith("pulumi-nodejs:dynamic"))) {
    const text = String(r.inputs.__provider ?? "");
    const specifiers = [...text.matchAll(/"(backup-portal-pulumi\/[^"]+)"/g)].map((m) => m[1]);
    assert.ok(specifiers.length > 0, `${r.type} ${r.name}: the serialized provider names the installed package`);
    for (const s of specifiers) require.resolve(s); // resolves from the program, as the provider host will
    assert.ok(!text.includes("smoke-"), `${r.type} ${r.name}: no secret in the serialized provider`);
    if (r.type.endsWith(":NodeProxy")) fs.writeFileSync("node-proxy.provider.js", text); // for host.js
  }
  const types = [...seen()].sort();
  console.log(`pack-smoke: ${registered.length} resources of ${types.length} types registered: ${types.join(", ")}`);
})().catch((err) => {
  console.error(`pack-smoke: ${err.stack || err}`);
  process.exitCode = 1;
});
