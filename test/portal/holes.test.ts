// Secrets of the client, checked with a long distinctive password (a short one like "admin" was never searched
// for): the password and the tokens never reach an error, util.inspect or JSON of the client.
import assert from "node:assert/strict";
import * as http from "node:http";
import * as util from "node:util";
import { PortalClient, PortalError } from "../../provider/portal";
import { listenLoopback, closeServer } from "../support/loopback";

const PASSWORD = "Holes-Account-Pa55word-c41b7e09f2";
const TOKEN = "holes-access-token-8d2f61a0b7c3e5";

describe("portal client secrets (long distinctive values)", function () {
  this.timeout(20_000);
  let server: http.Server;
  let url: string;

  before(async () => {
    server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        if (req.url === "/v1/oauth") {
          res
            .writeHead(200, { "Content-Type": "application/json" })
            .end(JSON.stringify({ access_token: TOKEN, token_type: "bearer", expires_in: 299 }));
          return;
        }
        // A portal that quotes what it was sent: the bearer token, and the password (as if logged with the session).
        const message = `request refused for ${req.headers.authorization} (session of admin/${PASSWORD})`;
        res
          .writeHead(500, { "Content-Type": "application/json" })
          .end(JSON.stringify({ code: "Echo", message, developerMessage: message }));
      });
    });
    url = await listenLoopback(server);
  });
  after(() => closeServer(server));

  const client = () =>
    new PortalClient({
      url,
      origin: "http://localhost",
      clientId: "emulator",
      username: "admin",
      password: PASSWORD,
      maxAttempts: 1,
      timeoutMs: 5000,
    });

  it("an answer that quotes the password and the token: the error shows neither", async () => {
    const c = client();
    const err = await c.reference.nodeTypes().then(
      () => assert.fail("expected a failure"),
      (e: unknown) => e,
    );
    assert.ok(err instanceof PortalError);
    assert.equal(err.code, "Echo");
    assert.match(err.message, /request refused for/, "the rest of the portal's message is kept");
    const texts = [
      err.message,
      err.stack ?? "",
      String(err),
      JSON.stringify(err),
      util.inspect(err, { depth: 10, showHidden: true }),
      err.developerMessage ?? "",
    ];
    for (const t of texts) {
      assert.ok(!t.includes(PASSWORD), `password in: ${t.slice(0, 300)}`);
      assert.ok(!t.includes(TOKEN), `token in: ${t.slice(0, 300)}`);
    }
    c.close();
  });

  it("util.inspect and JSON of a client that holds a token show neither the password nor the token", async () => {
    const c = client();
    await c.reference.nodeTypes().catch(() => undefined); // a token is now held
    const texts = [
      util.inspect(c, { depth: Infinity, showHidden: true }),
      util.inspect(c, { depth: Infinity, getters: true }),
      JSON.stringify(c),
      String(c),
    ];
    for (const t of texts) {
      assert.ok(!t.includes(PASSWORD), `password in: ${t.slice(0, 300)}`);
      assert.ok(!t.includes(TOKEN), `token in: ${t.slice(0, 300)}`);
    }
    assert.match(util.inspect(c, { depth: Infinity }), /password: '\*\*\*'/, "the settings show the password masked");
    c.close();
  });
});
