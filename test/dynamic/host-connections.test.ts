// One provider host process keeps its connections to the portal open and reuses them: every resource type and
// every call share the host's one client (dynamic/connection.ts) and its keep-alive pool (portal/transport.ts).
// Counted at a TCP relay on loopback between the real dynamic-provider host and the emulator. Needs dist/.
import assert from "node:assert/strict";
import * as net from "node:net";
import { startProviderHost, ProviderHost } from "../engine/host";
import { Emulator, startEmulator, stackConfigFor } from "../support/portal";
import { businessUnitProviderText } from "../../provider/resources/business-unit";
import { consumerProviderText } from "../../provider/resources/consumer";

const URN = "urn:pulumi:test::backup-portal::pulumi-nodejs:dynamic/backup-portal:";

/** Relays TCP connections to `port`, counting them. */
async function countingRelay(port: number) {
  const sockets = new Set<net.Socket>();
  let connections = 0;
  const server = net.createServer((client) => {
    connections++;
    const upstream = net.connect(port, "127.0.0.1");
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on("error", () => undefined);
      s.on("close", () => (client.destroy(), upstream.destroy(), sockets.delete(s)));
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    connections: () => connections,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

describe("the provider host's connections to the portal", function () {
  this.timeout(60_000);
  let emu: Emulator;
  let relay: Awaited<ReturnType<typeof countingRelay>>;
  let host: ProviderHost;

  beforeEach(async () => {
    emu = await startEmulator();
    relay = await countingRelay(emu.port);
    host = await startProviderHost({ config: stackConfigFor(relay.url), secretKeys: ["backup-portal:password"], env: {} });
  });
  afterEach(async () => {
    await host?.close();
    await relay?.close();
    await emu?.close();
  });

  it("calls one after another, of two resource types, share one connection; bursts reuse the pool's", async () => {
    const bu = { __provider: businessUnitProviderText, parentId: 1, name: "keep", registrationNumber: "R-1", timeZone: "UTC" };
    const checked = await host.check(`${URN}BusinessUnit::keep`, {}, bu);
    assert.deepEqual(checked.failures, []);
    const made = await host.create(`${URN}BusinessUnit::keep`, checked.inputs);
    const consumer = { __provider: consumerProviderText, businessUnitId: Number(made.id), name: "c" };
    const c = await host.create(`${URN}Consumer::c`, (await host.check(`${URN}Consumer::c`, {}, consumer)).inputs);
    for (let i = 0; i < 10; i++) {
      await host.read(made.id, `${URN}BusinessUnit::keep`, made.properties);
      await host.read(c.id, `${URN}Consumer::c`, c.properties);
    }
    const sequential = emu.requests().length;
    assert.ok(sequential >= 23, `${sequential} requests`);
    assert.equal(relay.connections(), 1, `${sequential} requests, one after another, over ${relay.connections()} connections`);

    // 8 at once need up to 8 connections; the next 8 at once find them open.
    const burst = () => Promise.all(Array.from({ length: 8 }, () => host.read(made.id, `${URN}BusinessUnit::keep`, made.properties)));
    await burst();
    const afterFirst = relay.connections();
    assert.ok(afterFirst <= 8, `${afterFirst} connections`);
    await burst();
    await burst();
    assert.equal(relay.connections(), afterFirst, "later bursts open no connection");
    assert.equal(emu.requests().length, sequential + 24);
  });
});
