// A user who manages tenants only: @pulumi/kubernetes (an optional peer dependency) is not installed. Every
// entry point still loads, the portal resources declare, and the Registry component fails with the one line
// that says what to install. Run by scripts/pack-smoke.sh before it installs @pulumi/kubernetes.
"use strict";
const assert = require("assert").strict;
const pulumi = require("@pulumi/pulumi");

assert.throws(() => require.resolve("@pulumi/kubernetes"), /Cannot find module/, "@pulumi/kubernetes was installed with the package");
pulumi.runtime.setMocks({ newResource: (a) => ({ id: `${a.name}-id`, state: a.inputs }), call: (a) => a.inputs }, "smoke", "dev", true);

const root = require("backup-portal-pulumi");
for (const sub of ["portal", "registry", "metadata", "data", "billing", "registration"]) require(`backup-portal-pulumi/${sub}`);
new root.BusinessUnit("acme", { parentId: 1, name: "Acme AB", timeZone: "UTC" });
// Every Kubernetes component fails the same way, with one line.
const missing = (err) =>
  /^the Registry, BillingReceiver and RegistrationBroker components need @pulumi\/kubernetes, which is not installed: run `npm install @pulumi\/kubernetes@\^4`/.test(
    err.message,
  ) && !err.message.includes("\n");
assert.throws(() => new root.Registry("zot", {}), missing);
const brokerArgs = {
  portal: { url: "https://portal.example", origin: "https://portal.example", clientId: "c", username: "u", password: "p" },
  secret: "x".repeat(32),
  image: `registry.example/broker@sha256:${"0".repeat(64)}`,
};
assert.throws(() => new root.RegistrationBroker("broker", brokerArgs), missing);
console.log("pack-smoke: without @pulumi/kubernetes every entry point loads, and the Kubernetes components name the package to install");
