// The portal client's connection pool (provider/http/keep-alive-agent.ts) with a portal that answers chunked
// (no Content-Length, as many web servers send JSON): more reads than connections, so each connection a read
// frees goes straight to a waiting one. node-fetch 2 used to call those answers "Premature close".
import assert from "node:assert/strict";
import * as http from "node:http";
import { PortalCore } from "../../provider/portal/core";
import { listenLoopback, closeServer } from "../support/loopback";

describe("portal client: keep-alive connections and chunked answers", function () {
  this.timeout(30_000);
  let server: http.Server;
  let url: string;
  let connections = 0;
  let reads = 0;

  before(async () => {
    server = http.createServer((req, res) => {
      req.resume();
      req.on("end", () => {
        if (req.url === "/v1/oauth") {
          res.writeHead(200, { "Content-Type": "application/json" });
          res.end(JSON.stringify({ access_token: "tok-keepalive-0123456789", token_type: "bearer", expires_in: 299 }));
          return;
        }
        reads++;
        setTimeout(() => {
          res.writeHead(200, { "Content-Type": "application/json" });
          res.write('[{"id":1,');
          res.end('"name":"UTC"}]');
        }, 5);
      });
    });
    server.on("connection", () => connections++);
    url = await listenLoopback(server);
  });
  after(() => closeServer(server));

  for (const maxSockets of [2, 32]) {
    it(`${maxSockets} connections, ${maxSockets * 4} reads at once, three times: every answer read whole, each on its first try`, async () => {
      const log: string[] = [];
      const core = new PortalCore(
        { url, origin: url, clientId: "c", username: "u", password: "keepalive-test-password-3301", maxSockets },
        (line) => log.push(line),
        async () => undefined,
      );
      connections = 0;
      reads = 0;
      try {
        for (let round = 0; round < 3; round++) {
          const answers = await Promise.all(Array.from({ length: maxSockets * 4 }, () => core.get<unknown[]>("/v1/timezones")));
          assert.ok(
            answers.every((a) => JSON.stringify(a) === '[{"id":1,"name":"UTC"}]'),
            "every answer whole",
          );
        }
      } finally {
        core.close();
      }
      assert.deepEqual(log, [], "no retry");
      assert.equal(reads, maxSockets * 12, "one request per read");
      assert.ok(connections <= maxSockets, `${connections} connections for ${maxSockets} allowed: reused, never more`);
    });
  }
});
