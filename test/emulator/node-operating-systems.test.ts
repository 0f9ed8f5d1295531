// The emulator's operating systems carry every field of the published Go client's NodeOperatingSystem
// (safespring-community/cloutility-api-client at 3a29ec8, cloutility/nodeoperatingsystem.go), as recorded in
// test/portal/go-client-flow.json: `supportedNodeTypes` too, each a node type as /v1/nodetypes answers it.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import * as path from "node:path";
import { startEmulator } from "../../emulator";
import { goDecodeProblems } from "../portal/go-decode";
import { api, login, SEED, useEmulator, type Api } from "./helpers";

interface Step {
  method: string;
  path: string;
  decodes: unknown;
}
const recording = JSON.parse(readFileSync(path.join(__dirname, "..", "portal", "go-client-flow.json"), "utf8")) as { steps: Step[] };
/** What GetNodeOperatingSystem decodes the list into. */
const GO_LIST = recording.steps.find((s) => s.method === "GET" && s.path === "/v1/nodeoperatingsystems")!.decodes as {
  items: [Record<string, unknown>];
};
const GO_OS = GO_LIST.items[0];

/** The Go struct's fields an object lacks (keys compared as Go does, case ignored). */
function missingFields(value: Record<string, unknown>, struct: Record<string, unknown>): string[] {
  const have = new Set(Object.keys(value).map((k) => k.toLowerCase()));
  return Object.keys(struct).filter((k) => !have.has(k.toLowerCase()));
}

describe("emulator: /v1/nodeoperatingsystems as the Go client reads it", () => {
  const ctx = useEmulator();
  let a: Api;
  before(async () => {
    a = api(ctx.em, await login(ctx.em));
  });

  it("the recording's struct has supportedNodeTypes (the test reads the right entry)", () => {
    assert.deepEqual(Object.keys(GO_OS).sort(), ["createdDate", "href", "id", "name", "shortName", "supportedNodeTypes"]);
  });

  it("every operating system has every field of the struct, and the list and each item decode into it", async () => {
    const list = await a.get("/v1/nodeoperatingsystems");
    assert.equal(list.status, 200);
    assert.deepEqual(goDecodeProblems(list.body, GO_LIST), []);
    assert.ok(list.body.items.length >= 4, "the seed's four operating systems");
    for (const os of list.body.items) {
      assert.deepEqual(missingFields(os, GO_OS), [], `${os.name} lacks fields of the Go struct`);
      const one = await a.get(`/v1/nodeoperatingsystems/${os.id}`);
      assert.deepEqual(one.body, os, "one by id answers as the list does");
      assert.deepEqual(goDecodeProblems(one.body, GO_OS), []);
    }
  });

  it("supportedNodeTypes are node types of /v1/nodetypes, as it answers them; a server OS offers the file server", async () => {
    const types = (await a.get("/v1/nodetypes")).body.items as Array<{ id: number; name: string }>;
    const byId = new Map(types.map((t) => [t.id, t]));
    const oses = (await a.get("/v1/nodeoperatingsystems")).body.items as Array<{ name: string; supportedNodeTypes: Array<{ id: number }> }>;
    for (const os of oses) {
      assert.ok(Array.isArray(os.supportedNodeTypes) && os.supportedNodeTypes.length > 0, `${os.name}: no supported node types`);
      for (const t of os.supportedNodeTypes) assert.deepEqual(t, byId.get(t.id), `${os.name}: node type ${t.id}`);
    }
    const names = (osName: string) => oses.find((o) => o.name === osName)!.supportedNodeTypes.map((t) => byId.get(t.id)!);
    // What the README and the stack examples declare is offered: Linux and Windows server file servers.
    assert.ok(names("Linux").some((t) => t.name === SEED.nodeTypes.fileServer.name));
    assert.ok(names("Windows server").some((t) => t.name === SEED.nodeTypes.fileServer.name));
    assert.ok(!names("Windows workstation").some((t) => t.name === SEED.nodeTypes.fileServer.name));
  });

  it("an operating system from a data file written before the field lists every node type", async () => {
    const em = await startEmulator({ quiet: true });
    try {
      em.update((state) => {
        for (const os of state.operatingSystems) delete os.supportedNodeTypeIds;
      });
      const b = api(em, await login(em));
      const linux = (await b.get(`/v1/nodeoperatingsystems/${SEED.operatingSystems.linux.id}`)).body;
      const all = (await b.get("/v1/nodetypes")).body.items;
      assert.deepEqual(linux.supportedNodeTypes, all);
    } finally {
      await em.close();
    }
  });
});
