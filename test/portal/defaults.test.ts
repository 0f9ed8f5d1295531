// The client's documented defaults (provider/portal/settings.ts), observed from a loopback portal rather than
// read from fields: at most 32 connections at once, 6 attempts of a read that keeps failing, a 30 s timeout,
// a bearer token on every call but the token's own.
import assert from "node:assert/strict";
import * as http from "node:http";
import { PortalCore } from "../../provider/portal/core";
import { listenLoopback, closeServer } from "../support/loopback";

describe("portal client defaults", function () {
  this.timeout(30_000);
  let server: http.Server;
  let url: string;
  let open = 0;
  let most = 0;
  let failing = false;
  const seen: Array<{ path: string; auth?: string }> = [];
  const held: Array<() => void> = [];
  let quiet: NodeJS.Timeout | undefined;

  before(async () => {
    server = http.createServer((req, res) => {
      req.resume();
      req.on("end", () => {
        seen.push({ path: req.url ?? "", auth: req.headers.authorization });
        if (req.url === "/v1/oauth") {
          res.writeHead(200, { "Content-Type": "application/json" });
          res.end(JSON.stringify({ access_token: "tok-defaults-0123456789", token_type: "bearer", expires_in: 299 }));
          return;
        }
        if (failing) {
          res.writeHead(503, { "Content-Type": "application/json" }).end(JSON.stringify({ message: "scripted" }));
          return;
        }
        open++;
        most = Math.max(most, open);
        // Every answer is held until no request has come for 500 ms: however slow the machine, the burst fills
        // every connection the client allows before any is freed, and more than it allows would show.
        held.push(() => {
          open--;
          res.writeHead(200, { "Content-Type": "application/json" }).end("[]");
        });
        clearTimeout(quiet);
        quiet = setTimeout(() => {
          for (const answer of held.splice(0)) answer();
        }, 500);
      });
    });
    url = await listenLoopback(server);
  });
  after(() => closeServer(server));

  const core = () =>
    new PortalCore(
      { url, origin: url, clientId: "c", username: "u", password: "defaults-test-password-7781" },
      undefined,
      async () => undefined,
    );

  it("uses at most 32 connections at once, and the token only where it belongs", async () => {
    const c = core();
    try {
      await c.get("/v1/timezones");
      most = 0;
      await Promise.all(Array.from({ length: 40 }, () => c.get("/v1/timezones")));
      assert.equal(most, 32);
    } finally {
      c.close();
    }
    assert.ok(
      seen.filter((s) => s.path === "/v1/oauth").every((s) => s.auth === undefined),
      "the token request carries no bearer",
    );
    assert.ok(seen.filter((s) => s.path !== "/v1/oauth").every((s) => s.auth === "Bearer tok-defaults-0123456789"));
  });

  it("tries a read that keeps failing 6 times; each try has 30 s", async () => {
    const c = core();
    failing = true;
    try {
      const before = seen.filter((s) => s.path === "/v1/nodetypes").length;
      await assert.rejects(c.get("/v1/nodetypes"));
      assert.equal(seen.filter((s) => s.path === "/v1/nodetypes").length - before, 6);
      assert.equal(c.timeoutMs, 30_000);
    } finally {
      failing = false;
      c.close();
    }
  });
});
