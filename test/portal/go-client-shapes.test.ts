// The shapes the published Go client (safespring-community/cloutility-api-client at 3a29ec8) shows the real
// portal answers in, read by this project's client over real HTTP: a business unit whose `businessUnits` is a
// plain array (GetBusinessUnit, cloutility/businessunit.go) or a collection (spec 000), `/v1/me` with `name`
// and/or `username` (cloutility/user.go), and `/v1/actions` (cloutility/action.go).
import assert from "node:assert/strict";
import * as http from "node:http";
import { PortalClient } from "../../provider/portal";
import { accountName } from "../../provider/portal/reference-data";
import { closeServer, listenLoopback } from "../support/loopback";
import { clientFor, ORIGIN, startEmulator } from "../support/portal";
import { SEED } from "../../emulator";

/** A portal on loopback answering `answers[path]` (after a login) as JSON. */
async function portalAnswering(answers: Record<string, unknown>): Promise<{ client: PortalClient; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    if (req.url === "/v1/oauth") {
      res
        .writeHead(200, { "Content-Type": "application/json" })
        .end(JSON.stringify({ access_token: "t", token_type: "bearer", expires_in: 299 }));
      return;
    }
    const body = answers[req.url ?? ""];
    if (body === undefined)
      res.writeHead(404, { "Content-Type": "application/json" }).end(JSON.stringify({ status: 404, code: "NotFound" }));
    else res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify(body));
  });
  const url = await listenLoopback(server);
  const client = new PortalClient({ url, origin: ORIGIN, clientId: "c", username: "u", password: "p", retryBaseMs: 10, timeoutMs: 3000 });
  return {
    client,
    close: async () => {
      client.close();
      await closeServer(server);
    },
  };
}

describe("portal client: the Go client's shapes", () => {
  it("businessUnits as a plain array (the emulator's bunitID read) and as a collection give the same children", async () => {
    const em = await startEmulator({ goClientReads: "served" });
    const client = clientFor(em);
    try {
      const { unit, children } = await client.businessUnits.withChildren(SEED.businessUnits.reseller.id);
      assert.ok(Array.isArray(unit.businessUnits));
      assert.deepEqual(
        children.map((c) => [c.id, c.groupName]),
        [
          [SEED.businessUnits.tenantA.id, SEED.businessUnits.reseller.name],
          [SEED.businessUnits.tenantB.id, SEED.businessUnits.reseller.name],
        ],
      );
    } finally {
      client.close();
      await em.close();
    }
    const kids = [
      { id: 7, name: "a" },
      { id: 8, name: "b" },
    ];
    const p = await portalAnswering({ "/v1/bunits?bunitID=5": { id: 5, businessUnits: { href: "x", total: 2, items: kids } } });
    try {
      assert.deepEqual((await p.client.businessUnits.withChildren(5)).children, kids);
    } finally {
      await p.close();
    }
  });

  it("the account's name is username or name, whichever /v1/me carries", async () => {
    assert.equal(accountName({ username: "u1" }), "u1");
    assert.equal(accountName({ name: "n1" }), "n1");
    assert.equal(accountName({ username: "u1", name: "n1" }), "u1");
    const p = await portalAnswering({ "/v1/me": { id: 3, name: "real-portal-user", businessUnit: { id: 9 } } });
    try {
      assert.equal(accountName(await p.client.reference.me()), "real-portal-user");
    } finally {
      await p.close();
    }
  });

  it("/v1/actions is read as a collection, /v1/actions/{id} as one action", async () => {
    const em = await startEmulator({ goClientReads: "served" });
    const client = clientFor(em);
    try {
      const actions = await client.reference.actions();
      assert.ok(actions.length > 0);
      assert.deepEqual(await client.reference.action(actions[0].id), actions[0]);
    } finally {
      client.close();
      await em.close();
    }
  });
});
