#!/usr/bin/env node
// `npm run bench:plugin -- --paths echo`: a provider process that speaks the plugin's wire (its HTTP/2 server,
// provider/plugin/grpc.ts, and its message coding, message-codec.ts) and does nothing else: Check gives the
// inputs back, Diff finds no change, Create answers with an id and sends no request. Its figures are the floor
// of any provider process under the engine stand-in: gRPC, coding and process, without the plugin's own work.
// Under the real CLI (`--engine cli`, bench/cli-engine.ts) it stands in for the `backupportal` plugin, so it also
// answers what the CLI and pulumi-language-yaml ask a plugin before any resource: Handshake, GetPluginInfo,
// GetSchema (the plugin's own schema, so the YAML program type-checks as it does on the plugin), CheckConfig,
// DiffConfig and Cancel. Needs `npm run build`.
const path = require("path");
const dist = path.join(__dirname, "..", "dist", "provider", "plugin");
const { unaryServer } = require(path.join(dist, "grpc.js"));
const { withPropertyMapsService } = require(path.join(dist, "message-codec.js"));
const provproto = require("@pulumi/pulumi/proto/provider_pb");
const provrpc = require("@pulumi/pulumi/proto/provider_grpc_pb");
const plugproto = require("@pulumi/pulumi/proto/plugin_pb");
const emptyproto = require("google-protobuf/google/protobuf/empty_pb");

const version = require(path.join(__dirname, "..", "package.json")).version;
let next = 1;
const handlers = {
  handshake: async () => {
    const resp = new provproto.ProviderHandshakeResponse();
    resp.setAcceptSecrets(true);
    return { message: resp };
  },
  getPluginInfo: async () => {
    const info = new plugproto.PluginInfo();
    info.setVersion(version);
    return { message: info };
  },
  getSchema: async () => {
    const resp = new provproto.GetSchemaResponse();
    resp.setSchema(JSON.stringify(await require(path.join(dist, "schema.js")).packageSchema(version)));
    return { message: resp };
  },
  checkConfig: async ({ maps }) => ({ message: new provproto.CheckResponse(), maps: { inputs: maps.news } }),
  diffConfig: async () => {
    const resp = new provproto.DiffResponse();
    resp.setChanges(provproto.DiffResponse.DiffChanges.DIFF_NONE);
    return { message: resp };
  },
  cancel: async () => ({ message: new emptyproto.Empty() }),
  configure: async () => {
    const resp = new provproto.ConfigureResponse();
    resp.setAcceptsecrets(true);
    resp.setSupportspreview(true);
    return { message: resp };
  },
  check: async ({ maps }) => ({ message: new provproto.CheckResponse(), maps: { inputs: maps.news } }),
  diff: async () => {
    const resp = new provproto.DiffResponse();
    resp.setChanges(provproto.DiffResponse.DiffChanges.DIFF_NONE);
    return { message: resp };
  },
  create: async ({ maps }) => {
    const resp = new provproto.CreateResponse();
    resp.setId(String(next++));
    return { message: resp, maps: { properties: maps.properties } };
  },
  read: async ({ message, maps }) => {
    const resp = new provproto.ReadResponse();
    resp.setId(message.getId());
    return { message: resp, maps: { properties: maps.properties, inputs: maps.inputs } };
  },
  update: async ({ maps }) => ({ message: new provproto.UpdateResponse(), maps: { properties: maps.news } }),
  delete: async () => ({ message: new emptyproto.Empty() }),
};
const server = unaryServer(withPropertyMapsService(provrpc.ResourceProviderService), handlers);
server.listen().then((port) => process.stdout.write(`${port}\n`));
process.once("SIGTERM", () => server.shutdown().then(() => process.exit(0)));
