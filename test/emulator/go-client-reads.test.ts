// What the published Go client (safespring-community/cloutility-api-client at 3a29ec8) reads that spec 000
// does not list, over real HTTP: GetBusinessUnit's `GET /v1/bunits?bunitID=` (cloutility/businessunit.go),
// GetActions/GetAction's `/v1/actions` (cloutility/action.go), the user's `name` (cloutility/user.go) and a
// node's `name` and, after ActivateNode, its `tsmPassword` (cloutility/node.go).
import assert from "node:assert/strict";
import { startEmulator, type Emulator, type EmulatorOptions } from "../../emulator";
import { parseArgs } from "../../emulator/main";
import { api, login, nodeBody, SEED } from "./helpers";
import { goDecodeProblems } from "../portal/go-decode";

async function withEmulator(opts: EmulatorOptions, body: (em: Emulator, a: ReturnType<typeof api>) => Promise<void>): Promise<void> {
  const em = await startEmulator({ quiet: true, ...opts });
  try {
    await body(em, api(em, await login(em, "admin")));
  } finally {
    await em.close();
  }
}

// The Go client's structs (json tags and Go types) at 3a29ec8.
const GO_BUSINESS_UNIT = {
  name: "string",
  groupName: "string",
  businessUnits: [{ name: "string", groupName: "string", id: "int", invoiceDay: "int", reportRemotely: "bool" }],
  id: "int",
  invoiceDay: "int",
  reportRemotely: "bool",
};
const GO_ACTION = { createdDate: "time", href: "string", name: "string", id: "int" };
const GO_USER = { businessUnit: { name: "string", id: "int" }, href: "string", name: "string", id: "int", locked: "bool" };
const GO_NODE = { name: "string", href: "string", tsmName: "string", tsmPassword: "string", id: "int" };

describe("emulator: the reads of the published Go client", () => {
  it("GET /v1/bunits?bunitID= answers the business unit with its children as a plain array, each with a groupName", async () => {
    await withEmulator({}, async (_em, a) => {
      const r = await a.get(`/v1/bunits?bunitID=${SEED.businessUnits.reseller.id}`);
      assert.equal(r.status, 200);
      assert.deepEqual(goDecodeProblems(r.body, GO_BUSINESS_UNIT), []);
      assert.equal(r.body.id, SEED.businessUnits.reseller.id);
      assert.ok(Array.isArray(r.body.businessUnits), "businessUnits is an array, not a collection");
      assert.deepEqual(
        r.body.businessUnits.map((b: { id: number; groupName: string }) => [b.id, b.groupName]),
        [
          [SEED.businessUnits.tenantA.id, SEED.businessUnits.reseller.name],
          [SEED.businessUnits.tenantB.id, SEED.businessUnits.reseller.name],
        ],
      );
      assert.equal((await a.get("/v1/bunits?bunitID=999")).status, 404);
      assert.equal((await a.get("/v1/bunits?bunitID=x")).status, 400);
    });
  });

  it("GET /v1/actions and /v1/actions/{id} answer what GetActions and GetAction decode", async () => {
    await withEmulator({}, async (_em, a) => {
      const list = await a.get("/v1/actions");
      assert.equal(list.status, 200);
      assert.deepEqual(
        goDecodeProblems(list.body, { href: "string", first: "string", items: [GO_ACTION], total: "int", offset: "int" }),
        [],
      );
      assert.ok(list.body.items.length > 0);
      const first = list.body.items[0];
      const one = await a.get(`/v1/actions/${first.id}`);
      assert.equal(one.status, 200);
      assert.deepEqual(goDecodeProblems(one.body, GO_ACTION), []);
      assert.deepEqual(one.body, first);
      assert.equal((await a.get(`/v1/actions/${list.body.items.length + 1}`)).status, 404);
    });
  });

  it("--go-client-reads absent: a portal that keeps to spec 000 answers 404 to all three", async () => {
    assert.deepEqual(parseArgs(["--go-client-reads", "absent"]), { goClientReads: "absent" });
    await withEmulator({ goClientReads: "absent" }, async (_em, a) => {
      const statuses = [
        (await a.get("/v1/bunits?bunitID=1")).status,
        (await a.get("/v1/actions")).status,
        (await a.get("/v1/actions/1")).status,
      ];
      assert.deepEqual(statuses, [404, 404, 404]);
      assert.equal((await a.get("/v1/bunits/1")).status, 200, "the spec's own reads stay");
    });
  });

  it("/v1/me carries name as well as username; a node carries a name", async () => {
    await withEmulator({}, async (_em, a) => {
      const me = await a.get("/v1/me");
      assert.deepEqual(goDecodeProblems(me.body, GO_USER), []);
      assert.equal(me.body.username, SEED.users.admin.username);
      assert.equal(typeof me.body.name, "string");
      assert.ok(me.body.name.length > 0);
      const web = await a.get(`/v1/bunits/2/consumers/${SEED.consumers.web.id}/node`);
      assert.deepEqual(goDecodeProblems(web.body, GO_NODE), []);
      assert.equal(web.body.name, SEED.consumers.web.name);
    });
  });

  it("after activate, a node whose password was never set carries the password the portal chose; one set through the API is not echoed", async () => {
    await withEmulator({}, async (_em, a) => {
      const bu = SEED.businessUnits.tenantA.id;
      const made: number[] = [];
      for (const name of ["gen-01", "set-01"]) {
        const c = await a.post(`/v1/bunits/${bu}/consumers`, { name });
        made.push(c.body.id);
        assert.equal((await a.post(`/v1/bunits/${bu}/consumers/${c.body.id}/node`, nodeBody())).status, 200);
      }
      const [gen, set] = made.map((id) => `/v1/bunits/${bu}/consumers/${id}/node`);
      assert.equal((await a.post(`${set}/password`, { tsmPassword: "Chosen-by-caller-1" })).status, 200);
      assert.equal((await a.get(gen)).body.tsmPassword, undefined, "no password before activation");
      for (const [path, tsm] of [
        [gen, "GEN-01"],
        [set, "SET-01"],
      ]) {
        assert.equal((await a.get(`${path}/activate?tsmName=${tsm}`)).status, 200);
      }
      const generated = (await a.get(gen)).body.tsmPassword;
      assert.match(generated, /^[A-Za-z0-9]{16}$/);
      assert.equal((await a.get(gen)).body.tsmPassword, generated, "the same one on every read");
      assert.equal((await a.get(set)).body.tsmPassword, undefined);
      // A password set afterwards replaces the generated one, which is no longer answered.
      assert.equal((await a.post(`${gen}/password`, { tsmPassword: "Rotated-by-caller-2" })).status, 200);
      assert.equal((await a.get(gen)).body.tsmPassword, undefined);
    });
  });
});
