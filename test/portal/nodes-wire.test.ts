// The node calls of the client against a scripted loopback portal: the request each one sends, and the answers a
// real portal may give where spec 000 leaves room (a node with its password in it, a name as bare text or a JSON
// string, an empty answer, a create whose answer was lost). Fast: no emulator, no waits beyond loopback.
import assert from "node:assert/strict";
import * as http from "node:http";
import { PortalClient, PortalError } from "../../provider/portal";
import { nameOf } from "../../provider/portal/nodes";
import { listenLoopback, closeServer } from "../support/loopback";

const PASSWORD = "Nodes-Wire-Account-Pa55word-7c9e21";
const NODE_PASSWORD = "Node-Wire-Secret-Pa55-41d8b3f0";
const BASE = "/v1/bunits/3/consumers/8/node";

/** What the scripted portal answers: a status and a body (JSON unless `type` says otherwise), or a dropped connection. */
type Reply = { status: number; body?: unknown; type?: string } | "drop";

interface Sent {
  method: string;
  path: string;
  query: string;
  type?: string;
  body: string;
}

describe("node calls on the wire", function () {
  this.timeout(10_000);
  let server: http.Server;
  let url: string;
  /** Replies by "METHOD path", used in turn; the last one repeats. */
  let script: Record<string, Reply[]>;
  let sent: Sent[];
  let client: PortalClient;

  before(async () => {
    server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const [path, query = ""] = req.url!.split("?");
        if (path === "/v1/oauth") {
          res
            .writeHead(200, { "Content-Type": "application/json" })
            .end(JSON.stringify({ access_token: "nodes-wire-token-5f0c", token_type: "bearer", expires_in: 299 }));
          return;
        }
        sent.push({ method: req.method!, path, query, type: req.headers["content-type"], body: Buffer.concat(chunks).toString() });
        const replies = script[`${req.method} ${path}`] ?? [{ status: 404, body: { code: "NotFound", message: "no such route" } }];
        const reply = replies.length > 1 ? replies.shift()! : replies[0];
        if (reply === "drop") return void req.socket.destroy();
        if (reply.body === undefined) return void res.writeHead(reply.status).end();
        const text = reply.type ? String(reply.body) : JSON.stringify(reply.body);
        res.writeHead(reply.status, { "Content-Type": reply.type ?? "application/json" }).end(text);
      });
    });
    url = await listenLoopback(server);
  });
  after(() => closeServer(server));
  beforeEach(() => {
    script = {};
    sent = [];
    client = new PortalClient({
      url,
      origin: "http://localhost",
      clientId: "c",
      username: "u",
      password: PASSWORD,
      timeoutMs: 2000,
      deadlineMs: 1500,
      maxAttempts: 2,
      retryBaseMs: 1,
      retryMaxMs: 5,
    });
  });
  afterEach(() => client.close());

  const node = (extra: Record<string, unknown> = {}) => ({ id: 55, tsmName: "ACME-WEB01", contact: "ops", ...extra });
  /** The node as a real portal returns it: with the node's password. */
  const withPassword = (extra: Record<string, unknown> = {}) => node({ tsmPassword: NODE_PASSWORD, ...extra });
  const failure = async (p: Promise<unknown>): Promise<PortalError> => {
    const err = await p.then(
      () => assert.fail("expected a failure"),
      (e: unknown) => e,
    );
    assert.ok(err instanceof PortalError, String(err));
    return err;
  };
  const asked = () => sent.map((s) => `${s.method} ${s.path}${s.query ? `?${s.query}` : ""}`);

  describe("the node's password in an answer is never kept", () => {
    it("get, create, update, setPassword and possibleProxyNodes drop tsmPassword and keep the rest", async () => {
      script[`GET ${BASE}`] = [{ status: 200, body: withPassword() }];
      script[`POST ${BASE}`] = [{ status: 201, body: withPassword() }];
      script[`PUT ${BASE}`] = [{ status: 200, body: withPassword({ contact: "changed" }) }];
      script[`POST ${BASE}/password`] = [{ status: 200, body: withPassword() }];
      script[`GET ${BASE}/possibleproxynodes`] = [{ status: 200, body: { total: 2, items: [withPassword({ id: 60 }), node({ id: 61 })] } }];
      const answers = [
        await client.nodes.get(3, 8),
        await client.nodes.create(3, 8, { contact: "ops", operatingSystem: { id: 3 } }),
        await client.nodes.update(3, 8, { contact: "changed" }),
        await client.nodes.setPassword(3, 8, NODE_PASSWORD),
        ...(await client.nodes.possibleProxyNodes(3, 8)),
      ];
      assert.deepEqual(answers, [node(), node(), node({ contact: "changed" }), node(), node({ id: 60 }), node({ id: 61 })]);
      assert.ok(!JSON.stringify(answers).includes(NODE_PASSWORD));
    });

    it("an answer that is not a node (empty, null, a text) is passed on as it is", async () => {
      script[`PUT ${BASE}`] = [{ status: 204 }, { status: 200, body: null }, { status: 200, body: "Updated", type: "text/plain" }];
      assert.equal(await client.nodes.update(3, 8, { cpuCount: 2 }), undefined);
      assert.equal(await client.nodes.update(3, 8, { cpuCount: 2 }), null);
      assert.equal(await client.nodes.update(3, 8, { cpuCount: 2 }), "Updated");
    });

    it("setPassword sends the password in the body and hides it in the error of a portal that quotes it", async () => {
      script[`POST ${BASE}/password`] = [{ status: 400, body: { code: "Weak", message: `password ${NODE_PASSWORD} is too weak` } }];
      const err = await failure(client.nodes.setPassword(3, 8, NODE_PASSWORD));
      assert.equal(err.code, "Weak");
      assert.match(err.message, /password \*\*\* is too weak/);
      assert.ok(!JSON.stringify([err.message, err.portalMessage, err.developerMessage]).includes(NODE_PASSWORD));
      assert.deepEqual(JSON.parse(sent[0].body), { tsmPassword: NODE_PASSWORD });
    });
  });

  describe("the requests sent", () => {
    it("change reads the node, then PUTs its settable fields with the given ones over them", async () => {
      // What keeps a one-field change whole on a portal whose PUT replaces the object (docs/portal-contract.md).
      const current = node({ cpuCount: 2, operatingSystem: { id: 4, name: "Linux" }, type: { id: 1, name: "File" }, server: { id: 9 } });
      script[`GET ${BASE}`] = [{ status: 200, body: current }];
      script[`PUT ${BASE}`] = [{ status: 200, body: { ...current, cpuCount: 8 } }];
      await client.nodes.change(3, 8, { cpuCount: 8 });
      assert.deepEqual(
        sent.map((r) => `${r.method} ${r.path}`),
        [`GET ${BASE}`, `PUT ${BASE}`],
      );
      assert.deepEqual(JSON.parse(sent[1].body), { contact: "ops", cpuCount: 8, operatingSystem: { id: 4 }, type: { id: 1 } });
    });

    it("update is a PUT of the fields; delete, relations and their removal send an empty JSON body", async () => {
      for (const key of [`PUT ${BASE}`, `POST ${BASE}/proxyagents`, `POST ${BASE}/proxytargets`])
        script[key] = [{ status: 200, body: node() }];
      for (const key of [`DELETE ${BASE}`, `DELETE ${BASE}/proxyagents/9`, `DELETE ${BASE}/proxytargets/9`])
        script[key] = [{ status: 204 }];
      await client.nodes.update(3, 8, { cpuCount: 4, domain: { id: 2 } });
      assert.equal(await client.nodes.delete(3, 8), true);
      await client.nodes.addProxyAgent(3, 8, 9);
      await client.nodes.addProxyTarget(3, 8, 9);
      assert.equal(await client.nodes.removeProxyAgent(3, 8, 9), true);
      assert.equal(await client.nodes.removeProxyTarget(3, 8, 9), true);
      assert.deepEqual(asked(), [
        `PUT ${BASE}`,
        `DELETE ${BASE}`,
        `POST ${BASE}/proxyagents?proxyAgentId=9`,
        `POST ${BASE}/proxytargets?proxyTargetId=9`,
        `DELETE ${BASE}/proxyagents/9`,
        `DELETE ${BASE}/proxytargets/9`,
      ]);
      assert.deepEqual(JSON.parse(sent[0].body), { cpuCount: 4, domain: { id: 2 } });
      for (const s of sent.slice(1)) assert.deepEqual([s.type, s.body], ["application/json", "{}"], `${s.method} ${s.path}`);
    });

    it("filespaces asks without tsmSync unless told, and lists the items", async () => {
      script[`GET ${BASE}/filespaces`] = [{ status: 200, body: { total: 1, items: [{ id: 4, name: "/home" }] } }];
      assert.deepEqual(await client.nodes.filespaces(3, 8), [{ id: 4, name: "/home" }]);
      assert.deepEqual(await client.nodes.filespaces(3, 8, true), [{ id: 4, name: "/home" }]);
      assert.deepEqual(asked(), [`GET ${BASE}/filespaces?tsmSync=false`, `GET ${BASE}/filespaces?tsmSync=true`]);
    });

    it("DELETE answered 200 with the node, 200 empty or 204 is done; 404 is already gone; other errors are thrown", async () => {
      script[`DELETE ${BASE}`] = [
        { status: 200, body: withPassword() },
        { status: 200, body: "", type: "application/json" },
        { status: 204 },
        { status: 404, body: { code: "NotFound" } },
        { status: 409, body: { code: "HasBackups", message: "the node holds backups" } },
      ];
      const results = [];
      for (let i = 0; i < 4; i++) results.push(await client.nodes.delete(3, 8));
      assert.deepEqual(results, [true, true, true, false]);
      assert.equal((await failure(client.nodes.delete(3, 8))).code, "HasBackups");
    });
  });

  describe("a proxy relation the portal says exists already (409)", () => {
    const conflict: Reply = { status: 409, body: { code: "Conflict", message: "The proxy relation exists" } };

    it("from the agent's side: success when the node lists the target, the 409 otherwise", async () => {
      script[`POST ${BASE}/proxytargets`] = [conflict];
      script[`GET ${BASE}`] = [
        { status: 200, body: withPassword({ proxyAgents: [], proxyTargets: { total: 1, items: [{ id: 9 }] } }) },
        { status: 200, body: node({ proxyAgents: [{ id: 9 }], proxyTargets: [{ id: 10 }] }) },
      ];
      const made = await client.nodes.addProxyTarget(3, 8, 9);
      assert.deepEqual(made.proxyTargets, { total: 1, items: [{ id: 9 }] });
      assert.equal("tsmPassword" in made, false);
      // The agent side looks for the target in proxyTargets only: 9 listed as an agent, or target 10, is not the relation asked for.
      assert.equal((await failure(client.nodes.addProxyTarget(3, 8, 9))).status, 409);
      assert.deepEqual(asked(), [
        `POST ${BASE}/proxytargets?proxyTargetId=9`,
        `GET ${BASE}`,
        `POST ${BASE}/proxytargets?proxyTargetId=9`,
        `GET ${BASE}`,
      ]);
    });

    it("a relation or a password whose answer was lost is sent again (repeating it changes nothing)", async () => {
      script[`POST ${BASE}/proxyagents`] = ["drop", { status: 200, body: node() }];
      script[`POST ${BASE}/password`] = ["drop", { status: 200, body: withPassword() }];
      assert.deepEqual(await client.nodes.addProxyAgent(3, 8, 9), node());
      assert.deepEqual(await client.nodes.setPassword(3, 8, NODE_PASSWORD), node());
      assert.deepEqual(asked(), [
        `POST ${BASE}/proxyagents?proxyAgentId=9`,
        `POST ${BASE}/proxyagents?proxyAgentId=9`,
        `POST ${BASE}/password`,
        `POST ${BASE}/password`,
      ]);
    });

    it("another refusal is thrown without reading the node", async () => {
      script[`POST ${BASE}/proxyagents`] = [{ status: 400, body: { code: "NotPossible", message: "not a possible proxy node" } }];
      assert.equal((await failure(client.nodes.addProxyAgent(3, 8, 9))).code, "NotPossible");
      assert.deepEqual(asked(), [`POST ${BASE}/proxyagents?proxyAgentId=9`]);
    });
  });

  describe("a create whose answer was lost", () => {
    const fields = { contact: "ops", operatingSystem: { id: 3 } };

    it("finds the node made: read back, not posted again", async () => {
      script[`POST ${BASE}`] = ["drop"];
      script[`GET ${BASE}`] = [{ status: 200, body: withPassword() }];
      assert.deepEqual(await client.nodes.create(3, 8, fields), node());
      assert.deepEqual(asked(), [`POST ${BASE}`, `GET ${BASE}`]);
    });

    it("no node made: posted again, and that answer is the node", async () => {
      script[`POST ${BASE}`] = ["drop", { status: 201, body: withPassword() }];
      script[`GET ${BASE}`] = [{ status: 404, body: { code: "NotFound" } }];
      assert.deepEqual(await client.nodes.create(3, 8, fields), node());
      assert.deepEqual(asked(), [`POST ${BASE}`, `GET ${BASE}`, `POST ${BASE}`]);
      assert.deepEqual(JSON.parse(sent[2].body), fields);
    });

    it("the repeat finds the node its own lost answer made (409): read back", async () => {
      script[`POST ${BASE}`] = ["drop", "drop", { status: 409, body: { code: "NodeExists" } }];
      script[`GET ${BASE}`] = [
        { status: 404, body: { code: "NotFound" } },
        { status: 200, body: withPassword() },
      ];
      assert.deepEqual(await client.nodes.create(3, 8, fields), node());
      // The repeat is safe (a consumer holds one node), so the transport tries it again itself.
      assert.deepEqual(asked(), [`POST ${BASE}`, `GET ${BASE}`, `POST ${BASE}`, `POST ${BASE}`, `GET ${BASE}`]);
    });

    it("a 409 with no node to be found, or another refusal of the repeat, is thrown", async () => {
      script[`POST ${BASE}`] = ["drop", { status: 409, body: { code: "NodeExists" } }];
      script[`GET ${BASE}`] = [{ status: 404, body: { code: "NotFound" } }];
      assert.equal((await failure(client.nodes.create(3, 8, fields))).code, "NodeExists");
      assert.equal(sent.length, 4, "POST, GET, POST, GET");

      sent = [];
      script[`POST ${BASE}`] = ["drop", { status: 400, body: { code: "BadDomain" } }];
      script[`GET ${BASE}`] = [{ status: 404, body: { code: "NotFound" } }];
      assert.equal((await failure(client.nodes.create(3, 8, fields))).code, "BadDomain");
      assert.deepEqual(asked(), [`POST ${BASE}`, `GET ${BASE}`, `POST ${BASE}`]);
    });

    it("a refused create (not a lost answer) is thrown at once", async () => {
      script[`POST ${BASE}`] = [{ status: 409, body: { code: "NodeExists" } }];
      assert.equal((await failure(client.nodes.create(3, 8, fields))).code, "NodeExists");
      assert.deepEqual(asked(), [`POST ${BASE}`]);
    });
  });

  describe("names: spname and activate", () => {
    it("spname: the bare name or a JSON string, at .../node/spname", async () => {
      script[`GET ${BASE}/spname`] = [
        { status: 200, body: "EMU-1A2B\r\n", type: "text/plain" },
        { status: 200, body: '"A\\u0026B-1"', type: "application/json" }, // .NET escapes & in JSON
        { status: 200, body: '  "EMU-3"\n', type: "text/plain" },
      ];
      assert.equal(await client.nodes.proposeName(3, 8), "EMU-1A2B");
      assert.equal(await client.nodes.proposeName(3, 8), "A&B-1");
      assert.equal(await client.nodes.proposeName(3, 8), "EMU-3");
      assert.deepEqual(asked(), [`GET ${BASE}/spname`, `GET ${BASE}/spname`, `GET ${BASE}/spname`]);
    });

    it("spname answered with something that is not a name is an error that names the call", async () => {
      script[`GET ${BASE}/spname`] = [{ status: 200, body: { name: "EMU-1" } }];
      await assert.rejects(client.nodes.proposeName(3, 8), { message: 'spname answered {"name":"EMU-1"}, not a node name' });
    });

    it("activate sends the name and answers the name the portal stored, as a JSON string or bare", async () => {
      script[`GET ${BASE}/activate`] = [
        { status: 200, body: "ACME-WEB01" },
        { status: 200, body: "ACME_WEB01\n", type: "text/plain" },
      ];
      assert.equal(await client.nodes.activate(3, 8, "acme-web01"), "ACME-WEB01");
      // The portal's stored name wins over the name sent.
      assert.equal(await client.nodes.activate(3, 8, "acme-web01"), "ACME_WEB01");
      assert.deepEqual(asked(), [`GET ${BASE}/activate?tsmName=acme-web01`, `GET ${BASE}/activate?tsmName=acme-web01`]);
    });

    it("activate answered with nothing or a message means the name as sent, upper-case", async () => {
      script[`GET ${BASE}/activate`] = [
        { status: 204 },
        { status: 200, body: { message: "Node activated" } },
        { status: 200, body: "Node activated", type: "text/plain" },
      ];
      for (let i = 0; i < 3; i++) assert.equal(await client.nodes.activate(3, 8, "acme-web01"), "ACME-WEB01", `answer ${i}`);
    });

    it("activate refuses a name the backup server would refuse, before asking the portal", async () => {
      await assert.rejects(client.nodes.activate(3, 8, "acme web01"), {
        message: 'tsmName "acme web01" contains " "; allowed are letters, digits and _ . - + &',
      });
      assert.equal(sent.length, 0);
    });

    it("a name answer that is none names the call, cut to 80 characters", () => {
      assert.throws(() => nameOf(undefined, "spname"), { message: "spname answered undefined, not a node name" });
      assert.throws(() => nameOf({ name: "x".repeat(100) }, "spname"), {
        message: `spname answered {"name":"${"x".repeat(71)}, not a node name`,
      });
      assert.throws(() => nameOf(`${"A".repeat(90)} !`, "spname"), {
        message: `spname answered "${"A".repeat(80)}", which is 92 characters long; the backup server allows at most 64`,
      });
      assert.throws(() => nameOf("EMU 1!", "spname"), {
        message: 'spname answered "EMU 1!", which contains " ", "!"; allowed are letters, digits and _ . - + &',
      });
    });

    it("a quoted name that is not a JSON string loses its quotes and spaces before the name rules judge it", () => {
      assert.equal(nameOf('"A\\u0026B"', "spname"), "A&B");
      assert.equal(nameOf('" EMU-7 "', "spname"), "EMU-7");
      // A sentence that holds a quoted name is not a quoted name.
      for (const [sentence, bad] of [
        ['"EMU-7" is free', '"\\"", " "'],
        ['Proposed: "EMU-7"', '":", " ", "\\""'],
      ]) {
        const message = `spname answered ${JSON.stringify(sentence)}, which contains ${bad}; allowed are letters, digits and _ . - + &`;
        assert.throws(() => nameOf(sentence, "spname"), { message });
      }
      assert.throws(() => nameOf('" EMU"7 "', "spname"), {
        message: 'spname answered "EMU\\"7", which contains "\\""; allowed are letters, digits and _ . - + &',
      });
    });
  });
});
