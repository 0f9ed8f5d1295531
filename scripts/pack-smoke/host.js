// The lowest SDK the package supports runs its providers: starts the dynamic-provider host of the
// program's own @pulumi/pulumi (the one pack-smoke.sh installed) in the program's folder, as the engine
// does, and sends Configure and Check for a NodeProxy with the `__provider` text program.js recorded.
// The host must load the package through its exports and answer the provider's own Check failures.
"use strict";
const assert = require("assert").strict;
const { spawn } = require("child_process");
const fs = require("fs");
const path = require("path");

const sdk = path.dirname(require.resolve("@pulumi/pulumi/package.json"));
const fromSdk = (name) => require(require.resolve(name, { paths: [sdk] }));
const grpc = fromSdk("@grpc/grpc-js");
const { Struct } = fromSdk("google-protobuf/google/protobuf/struct_pb");
const rpc = require("@pulumi/pulumi/proto/provider_grpc_pb");
const pb = require("@pulumi/pulumi/proto/provider_pb");

const providerText = fs.readFileSync("node-proxy.provider.js", "utf8");
const URN = "urn:pulumi:dev::smoke::pulumi-nodejs:dynamic/backup-portal:NodeProxy::proxy>web01";

function startHost() {
  const host = spawn(process.execPath, [path.join(sdk, "cmd/dynamic-provider/index.js"), "127.0.0.1:1"], { cwd: process.cwd() });
  return new Promise((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error("the provider host printed no port in 20 s")), 20000);
    host.stdout.on("data", (d) => {
      out += d;
      const m = /^(\d+)\s*$/m.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ host, port: Number(m[1]) });
      }
    });
    host.on("exit", (code) => reject(new Error(`the provider host exited (${code})`)));
  });
}

const call = (client, method, req) =>
  new Promise((resolve, reject) => client[method](req, { deadline: Date.now() + 20000 }, (err, res) => (err ? reject(err) : resolve(res))));

async function check(client, news) {
  const req = new pb.CheckRequest();
  req.setUrn(URN);
  req.setOlds(Struct.fromJavaScript({}));
  req.setNews(Struct.fromJavaScript({ __provider: providerText, ...news }));
  const res = await call(client, "check", req);
  return res.getFailuresList().map((f) => `${f.getProperty()}: ${f.getReason()}`);
}

(async () => {
  const { host, port } = await startHost();
  const client = new rpc.ResourceProviderClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  try {
    const configure = new pb.ConfigureRequest();
    configure.setArgs(Struct.fromJavaScript({}));
    await call(client, "configure", configure);
    assert.deepEqual(await check(client, { businessUnitId: 1, agentConsumerId: 2, targetConsumerId: 3 }), []);
    const refused = await check(client, { businessUnitId: 1, agentConsumerId: 2, targetConsumerId: 2 });
    assert.equal(refused.length, 1, refused.join("\n"));
    assert.match(refused[0], /^targetConsumerId: a node cannot be its own proxy/);
    console.log(
      `pack-smoke: the provider host of @pulumi/pulumi ${require("@pulumi/pulumi/package.json").version} runs the package's providers`,
    );
  } finally {
    client.close();
    host.kill();
  }
})().catch((err) => {
  console.error(`pack-smoke: ${err.stack || err}`);
  process.exitCode = 1;
});
