// Create markers stay the client's business (provider/portal/marker.ts): every read that returns business units
// or consumers, one or a list, shows the user's tags only. Export reads children and lists; a marker there would
// land in a stack file as a tag the user never declared.
import assert from "node:assert/strict";
import type { PortalClient } from "../../provider/portal/client";
import { isMarker, markerFor } from "../../provider/portal/marker";
import { clientFor, startEmulator, type Emulator } from "../support/portal";

describe("portal client: create markers never show in what it reads", function () {
  this.timeout(30_000);
  let emu: Emulator;
  let client: PortalClient;
  before(async () => {
    emu = await startEmulator();
    client = clientFor(emu);
  });
  after(async () => {
    client?.close();
    await emu?.close();
  });

  it("business units: get, children, withChildren; consumers: get and list", async () => {
    const bu = await client.businessUnits.create(
      1,
      { name: "Marked", registrationNumber: "556677-0002", timeZone: { id: 4 }, tags: ["team:a"] },
      markerFor("bu-key"),
    );
    const consumer = await client.consumers.create(bu.id, { name: "marked01", tags: ["app:web"] }, markerFor("consumer-key"));
    // On the portal the markers are there: the client wrote them.
    const stored = emu.state();
    assert.ok(stored.businessUnits.find((b) => b.id === bu.id)?.tags?.some(isMarker), "the business unit carries its marker");
    assert.ok(stored.consumers.find((c) => c.id === consumer.id)?.tags?.some(isMarker), "the consumer carries its marker");

    const own = (xs: Array<{ id: number; tags?: string[] }>, id: number) => xs.find((x) => x.id === id)?.tags;
    assert.deepEqual(bu.tags, ["team:a"], "create");
    assert.deepEqual((await client.businessUnits.get(bu.id)).tags, ["team:a"], "get");
    assert.deepEqual(own(await client.businessUnits.children(1), bu.id), ["team:a"], "children");
    assert.deepEqual(own((await client.businessUnits.withChildren(1)).children, bu.id), ["team:a"], "withChildren");
    assert.deepEqual(consumer.tags, ["app:web"], "create");
    assert.deepEqual((await client.consumers.get(bu.id, consumer.id)).tags, ["app:web"], "get");
    assert.deepEqual(own(await client.consumers.list(bu.id), consumer.id), ["app:web"], "list");
  });
});
