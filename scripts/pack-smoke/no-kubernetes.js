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
assert.throws(
  () => new root.Registry("zot", {}),
  (err) =>
    /^the Registry and BillingReceiver components need @pulumi\/kubernetes, which is not installed: run `npm install @pulumi\/kubernetes@\^4`/.test(
      err.message,
    ) && !err.message.includes("\n"),
);
console.log("pack-smoke: without @pulumi/kubernetes every entry point loads, and the Registry names the package to install");
