// What the README promises of retries, through the public client against a scripted loopback portal:
// 502 and 504 are repeated for reads (500 is not), and Retry-After is a minimum wait.
import assert from "node:assert/strict";
import * as http from "node:http";
import { PortalClient, PortalError } from "../../provider/portal";
import { listenLoopback, closeServer } from "../support/loopback";

const PASSWORD = "Retry-Test-Account-Pa55word-5e1d";

describe("portal client retries", function () {
  this.timeout(20_000);
  let server: http.Server;
  let url: string;
  /** Answers of GET /v1/nodetypes, one per request; then 200. */
  let script: Array<{ status: number; headers?: Record<string, string> }>;
  let arrivals: number[];

  before(async () => {
    server = http.createServer((req, res) => {
      req.resume();
      req.on("end", () => {
        if (req.url === "/v1/oauth") {
          res
            .writeHead(200, { "Content-Type": "application/json" })
            .end(JSON.stringify({ access_token: "tok-retries-0123456789", token_type: "bearer", expires_in: 299 }));
          return;
        }
        arrivals.push(Date.now());
        const next = script.shift() ?? { status: 200 };
        const body =
          next.status === 200
            ? JSON.stringify([{ id: 1, name: "File server" }])
            : JSON.stringify({ code: `Status${next.status}`, message: "scripted" });
        res.writeHead(next.status, { "Content-Type": "application/json", ...next.headers }).end(body);
      });
    });
    url = await listenLoopback(server);
  });
  after(() => closeServer(server));
  beforeEach(() => {
    arrivals = [];
  });

  const client = (extra: Record<string, number> = {}, sleep?: (ms: number) => Promise<void>) =>
    new PortalClient(
      {
        url,
        origin: "http://localhost",
        clientId: "emulator",
        username: "admin",
        password: PASSWORD,
        timeoutMs: 2000,
        maxAttempts: 4,
        retryBaseMs: 1,
        retryMaxMs: 5000,
        ...extra,
      },
      { sleep },
    );

  for (const status of [502, 504, 503, 429]) {
    it(`a read answered ${status} twice is repeated and succeeds on the third try`, async () => {
      script = [{ status }, { status }];
      const c = client();
      assert.deepEqual(
        (await c.reference.nodeTypes()).map((t) => t.name),
        ["File server"],
      );
      assert.equal(arrivals.length, 3);
      c.close();
    });
  }

  it("a read answered 500 is not repeated", async () => {
    script = [{ status: 500 }];
    const c = client();
    await assert.rejects(c.reference.nodeTypes(), (e: PortalError) => e.status === 500);
    assert.equal(arrivals.length, 1);
    c.close();
  });

  it("a read that keeps failing with 502 stops after maxAttempts and names the status", async () => {
    script = [{ status: 502 }, { status: 502 }, { status: 502 }, { status: 502 }, { status: 502 }];
    const c = client({ maxAttempts: 3 });
    await assert.rejects(c.reference.nodeTypes(), (e: PortalError) => e.status === 502 && e.code === "Status502");
    assert.equal(arrivals.length, 3);
    c.close();
  });

  it("Retry-After is a minimum wait: the next try comes no sooner, whatever the backoff says", async () => {
    script = [{ status: 503, headers: { "Retry-After": "2" } }];
    // The pause is recorded, not waited: what matters is how long the client would wait, and that the next try
    // comes only after that wait.
    const pauses: Array<{ ms: number; arrivals: number }> = [];
    const c = client({}, async (ms) => void pauses.push({ ms, arrivals: arrivals.length }));
    await c.reference.nodeTypes();
    assert.equal(arrivals.length, 2);
    // retryBaseMs is 1 ms: only Retry-After explains a pause of two seconds.
    assert.deepEqual(pauses, [{ ms: 2000, arrivals: 1 }]);
    c.close();
  });
});
