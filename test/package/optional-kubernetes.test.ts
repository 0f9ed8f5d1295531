// @pulumi/kubernetes is an optional peer dependency: a program that manages tenants only does not install it.
// A child process loads the built package with that module made unresolvable (as in a program that never
// installed it): every entry point loads, the portal resources declare, and each Kubernetes component fails
// with the one line that says what to install. The tarball run (scripts/pack-smoke.sh) checks the same on a
// real install; this catches a top-level import of the package in any module before the release job does.
import { strict as assert } from "assert";
import { execFileSync } from "child_process";
import { existsSync } from "fs";
import { join } from "path";

const root = join(__dirname, "..", "..");
const dist = join(root, "dist", "provider");

const child = `
const Module = require("module");
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  if (request === "@pulumi/kubernetes" || request.startsWith("@pulumi/kubernetes/")) {
    const err = new Error("Cannot find module '" + request + "'");
    err.code = "MODULE_NOT_FOUND";
    throw err;
  }
  return resolve.call(this, request, ...rest);
};
const pulumi = require("@pulumi/pulumi");
pulumi.runtime.setMocks({ newResource: (a) => ({ id: a.name + "-id", state: a.inputs }), call: (a) => a.inputs }, "p", "s", true);
const root = require(${JSON.stringify(join(dist, "index.js"))});
for (const sub of ["portal", "registry", "metadata", "data", "billing", "registration", "broker"])
  require(${JSON.stringify(dist)} + "/" + sub);
new root.BusinessUnit("acme", { parentId: 1, name: "Acme AB", timeZone: "UTC" });
const brokerArgs = {
  portal: { url: "https://p.example", origin: "https://p.example", clientId: "c", username: "u", password: "p" },
  secret: "x".repeat(32),
  image: "registry.example/broker@sha256:" + "0".repeat(64),
};
const messages = {};
for (const [name, make] of Object.entries({
  Registry: () => new root.Registry("zot", {}),
  BillingReceiver: () =>
    new root.BillingReceiver("billing", {
      businessUnitId: 1,
      portal: brokerArgs.portal,
      image: brokerArgs.image,
      secret: "notify-secret-123456",
    }),
  RegistrationBroker: () => new root.RegistrationBroker("broker", brokerArgs),
})) {
  try { make(); messages[name] = "no error"; } catch (err) { messages[name] = err.message; }
}
process.stdout.write(JSON.stringify(messages));
`;

describe("the package without @pulumi/kubernetes", function () {
  this.timeout(30000);

  it("loads every entry point, and each Kubernetes component names the package to install in one line", () => {
    assert.ok(existsSync(join(dist, "index.js")), "dist/ is missing: `npm test` builds it; alone, run `npm run build` first");
    const out = execFileSync(process.execPath, ["-e", child], { cwd: root, encoding: "utf8" });
    const messages = JSON.parse(out) as Record<string, string>;
    assert.deepEqual(Object.keys(messages), ["Registry", "BillingReceiver", "RegistrationBroker"]);
    for (const [component, message] of Object.entries(messages))
      assert.match(
        message,
        /^the Registry, BillingReceiver and RegistrationBroker components need @pulumi\/kubernetes, which is not installed: run `npm install @pulumi\/kubernetes@\^4` in your Pulumi program$/,
        component,
      );
  });
});
