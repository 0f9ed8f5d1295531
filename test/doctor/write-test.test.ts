// The doctor's write test called in process (in Stryker's spec list), against the emulator behind a proxy on
// 127.0.0.1 that refuses a request (the connection closed before it reaches the portal) or loses its answer
// (passed on, then the connection closed): what the portal is left holding, and what the report says, on each
// path of the cleanup: the DELETE worked or not, and the portal said afterwards whether the consumer is there or not.
import assert from "node:assert/strict";
import { startEmulator, type Emulator } from "../../emulator";
import { Probe } from "../../provider/doctor/probe";
import { checkLogin } from "../../provider/doctor/read-checks";
import { Checks, type Check } from "../../provider/doctor/report";
import { writeTest } from "../../provider/doctor/write-test";
import { clientFor, ORIGIN } from "../support/portal";
import { startProxy, type Proxy, type Rule } from "../support/proxy";

const NAME = "doctor-0a1b2c3d";
const CONSUMER = /^\/v1\/bunits\/2\/consumers\/\d+(\?|$)/;
const isDelete = (r: { method: string; path: string }) => r.method === "DELETE" && CONSUMER.test(r.path);
/** The node's DELETE refused: the emulator's removes the consumer with it, and the cleanup would find nothing to do. */
const keepConsumer =
  (r: Rule): Rule =>
  (req, seen, headers) =>
    req.method === "DELETE" && /\/node(\?|$)/.test(req.path) ? "refuse" : r(req, seen, headers);

describe("doctor: the write test, in process", function () {
  this.timeout(60_000);
  let em: Emulator;
  let proxy: Proxy;
  let rule: Rule = () => "pass";
  before(async () => {
    em = await startEmulator({ quiet: true });
    proxy = await startProxy(em.url, () => rule);
  });
  after(async () => {
    await proxy?.close();
    await em?.close();
  });

  /** One write test through the proxy with `r`; the checks by id, what it left, and the doctor consumers on the portal. */
  async function run(r: Rule): Promise<{ checks: Map<string, Check>; left: string[]; onPortal: Array<{ id: number; name: string }> }> {
    em.reset();
    rule = () => "pass";
    const client = clientFor(em, "admin", { url: proxy.url, maxAttempts: 1 });
    const checks = new Checks();
    const probe = new Probe({ url: proxy.url, origin: ORIGIN, timeoutMs: 5000, secrets: () => ["admin"] });
    try {
      assert.ok(await checkLogin({ client, probe, checks, username: "admin", clientId: "emulator", password: "admin" }));
      proxy.seen.length = 0; // each rule sees this run's requests only
      rule = r;
      const left = await writeTest({ client, probe, checks, bunitId: 2, random: () => "0a1b2c3d" });
      const onPortal = em
        .state()
        .consumers.filter((c) => c.name.startsWith("doctor-"))
        .map((c) => ({ id: c.id, name: c.name }));
      return { checks: new Map(checks.list.map((c) => [c.id, c])), left, onPortal };
    } finally {
      rule = () => "pass";
      client.close();
    }
  }

  const removal = (id: number | string) =>
    `delete it in the portal (business unit 2, consumption units; its node goes with it), or with the API: DELETE /v1/bunits/2/consumers/${id}?deleteAssociations=true`;

  it("a clean run: every step said as it happened, the fixed name used, nothing left", async () => {
    const r = await run(() => "pass");
    const made = r.checks.get("create")!;
    const id = Number(/^made consumer (\d+) "doctor-0a1b2c3d" in business unit 2$/.exec(made.detail)?.[1]);
    assert.ok(id > 0, made.detail);
    assert.equal(made.status, "ok");
    assert.match(r.checks.get("node-create")!.detail, /^made its node \(.+, .+, domain .+\)$/);
    assert.equal(r.checks.get("put")!.detail, "a PUT merges: fields it leaves out keep their value");
    assert.match(
      r.checks.get("spname")!.detail,
      /^GET \.\.\.\/node\/spname answers the bare name \(.+\), as the published Go client expects$/,
    );
    assert.match(
      r.checks.get("activate")!.detail,
      /^activated as .+; the answer was (a JSON string|no body|the bare name) \(the client takes any\)$/,
    );
    assert.equal(r.checks.get("activate-again")!.detail, "activating again under the same name succeeds");
    assert.match(
      r.checks.get("password")!.detail,
      /^POST \.\.\.\/node\/password answered the node \(id \d+\); the password is never kept from an answer$/,
    );
    assert.equal(r.checks.get("delete-again")!.detail, "a second DELETE answers 404, which the client takes as done");
    // The emulator removes the consumer with its node, as spec 000 says: the cleanup finds nothing to do.
    assert.equal(r.checks.get("consumer-removed")!.detail, "deleting the node removed its consumer, as spec 000 says");
    assert.deepEqual(r.checks.get("cleanup"), { id: "cleanup", status: "ok", detail: "nothing left to remove" });
    assert.deepEqual(r.left, []);
    assert.deepEqual(r.onPortal, []);
  });

  it("the DELETE worked but the portal answers no read afterwards: not a failure, nothing left", async () => {
    const r = await run(keepConsumer((req, seen) => (seen.some(isDelete) && req.method === "GET" ? "refuse" : "pass")));
    assert.deepEqual(r.onPortal, []);
    assert.deepEqual(r.left, []);
    assert.equal(r.checks.get("cleanup")!.status, "ok");
    assert.match(r.checks.get("cleanup")!.detail, /^removed consumer \d+ "doctor-0a1b2c3d" and its node$/);
  });

  it("the DELETE's answer lost, the consumer gone: removed, nothing left", async () => {
    const r = await run(keepConsumer((req) => (isDelete(req) ? "lose" : "pass")));
    assert.deepEqual(r.onPortal, []);
    assert.deepEqual(r.left, []);
    assert.match(r.checks.get("cleanup")!.detail, /^removed consumer \d+ "doctor-0a1b2c3d" and its node$/);
  });

  it("the DELETE refused and no read answered: named as perhaps left, with how to remove it", async () => {
    const r = await run(keepConsumer((req, seen) => (isDelete(req) || (seen.some(isDelete) && req.method === "GET") ? "refuse" : "pass")));
    assert.equal(r.onPortal.length, 1);
    const { id } = r.onPortal[0];
    const what = `perhaps consumer ${id} "${NAME}" in business unit 2 (with its node, if any)`;
    assert.deepEqual(r.left, [`${what}: ${removal(id)}`]);
    const cleanup = r.checks.get("cleanup")!;
    assert.equal(cleanup.status, "failed");
    assert.ok(cleanup.detail.startsWith(`could not remove ${what}: `), cleanup.detail);
    assert.equal(cleanup.fix, removal(id));
  });

  it("the DELETE refused, the consumer read failing but listed: named as left (not perhaps)", async () => {
    const r = await run(
      keepConsumer((req, seen) =>
        isDelete(req) || (seen.some(isDelete) && req.method === "GET" && CONSUMER.test(req.path)) ? "refuse" : "pass",
      ),
    );
    assert.equal(r.onPortal.length, 1);
    const { id } = r.onPortal[0];
    assert.deepEqual(r.left, [`consumer ${id} "${NAME}" in business unit 2 (with its node, if any): ${removal(id)}`]);
  });

  it("the DELETE answered but the consumer is still there: a failure that says so", async () => {
    // The node's DELETE passes; the consumer's DELETE is answered 200 by the proxy without reaching the portal.
    const r = await run(keepConsumer((req) => (isDelete(req) ? "fake204" : "pass")));
    assert.equal(r.onPortal.length, 1);
    const { id } = r.onPortal[0];
    const what = `consumer ${id} "${NAME}" in business unit 2 (with its node, if any)`;
    assert.deepEqual(r.left, [`${what}: ${removal(id)}`]);
    assert.equal(r.checks.get("cleanup")!.detail, `could not remove ${what}: it is still there after DELETE`);
  });

  it("the create's answer lost: the consumer found by its name and removed; the list failing too: named as perhaps", async () => {
    const isCreate = (req: { method: string; path: string }) =>
      req.method === "POST" && req.path.startsWith("/v1/bunits/2/consumers") && !req.path.includes("/node");
    const isList = (req: { method: string; path: string }) => req.method === "GET" && /^\/v1\/bunits\/2\/consumers(\?|$)/.test(req.path);
    // The answer lost and the client's own look-up refused: the create fails, though the portal made the consumer.
    const found = await run((req, seen) =>
      isCreate(req)
        ? "lose"
        : isList(req) && seen.some(isCreate) && !seen.some((x, i) => isList(x) && i > seen.findIndex(isCreate))
          ? "refuse"
          : "pass",
    );
    assert.equal(found.checks.get("create")!.status, "failed");
    assert.match(found.checks.get("create")!.detail, /^could not make a consumer in business unit 2: /);
    assert.equal(found.checks.get("create")!.fix, "use --bunit with a business unit the account may write to");
    assert.deepEqual(found.left, []);
    assert.deepEqual(found.onPortal, []);
    assert.match(found.checks.get("cleanup")!.detail, /^removed consumer \d+ "doctor-0a1b2c3d" and its node$/);

    const unknown = await run((req, seen) => (isCreate(req) ? "lose" : seen.some(isCreate) && req.method === "GET" ? "refuse" : "pass"));
    assert.equal(unknown.onPortal.length, 1);
    assert.deepEqual(unknown.left, [`perhaps a consumer named "${NAME}" in business unit 2: ${removal("<id>")}`]);

    const refused = await run((req) => (isCreate(req) ? "refuse" : "pass"));
    assert.deepEqual(refused.left, []);
    assert.deepEqual(refused.onPortal, []);
    assert.equal(refused.checks.has("cleanup"), false, "nothing made, nothing to clean up");
  });

  it("a node check that throws half-way: the run is said stopped, and the consumer is still removed", async () => {
    const r = await run((req) => (req.method === "GET" && req.path.startsWith("/v1/nodetypes") ? "refuse" : "pass"));
    const stopped = r.checks.get("write-test")!;
    assert.equal(stopped.status, "failed");
    assert.ok(stopped.detail.startsWith("stopped: "), stopped.detail);
    assert.equal(stopped.fix, "see the check before it");
    assert.equal(r.checks.get("cleanup")!.status, "ok");
    assert.deepEqual(r.left, []);
    assert.deepEqual(r.onPortal, []);
  });

  it("the node steps' other answers: each said as that answer, with the fix where one failed", async () => {
    const step = (method: string, tail: RegExp) => (req: { method: string; path: string }) => req.method === method && tail.test(req.path);
    const spname = step("GET", /\/node\/spname(\?|$)/);
    const activate = step("GET", /\/node\/activate\?/);
    const nodeDelete = step("DELETE", /\/node(\?|$)/);
    const portalSaid = (status: number) => ({ status, json: { status, code: "Refused", message: `refused with ${status}` } });

    // No spname: the name the doctor made up is used; the second activation refused with 409.
    const a = await run((req, seen) => (spname(req) ? portalSaid(404) : activate(req) && seen.some(activate) ? portalSaid(409) : "pass"));
    assert.equal(
      a.checks.get("spname")!.detail,
      "GET .../node/spname answered HTTP 404 (Refused: refused with 404); it is not in spec 000 and the providers take tsmName from the config (handled)",
    );
    assert.equal(a.checks.get("spname")!.reading, "none");
    assert.match(a.checks.get("activate")!.detail, /^activated as DOCTOR-0A1B2C3D; the answer was /);
    const again = a.checks.get("activate-again")!;
    assert.equal(again.status, "differs");
    assert.equal(again.reading, "409");
    assert.match(
      again.detail,
      /^activating again under the same name is refused \(.*refused with 409.*\); a retried activation then fails and `pulumi refresh` settles it$/,
    );

    // The second activation refused otherwise than 409: a failure of the activation, not a reading.
    const a2 = await run((req, seen) => (activate(req) && seen.some(activate) ? portalSaid(500) : "pass"));
    assert.equal(a2.checks.has("activate-again"), false);
    assert.equal(a2.checks.get("activate")!.status, "failed", "the last activate line");
    assert.match(a2.checks.get("activate")!.detail, /refused with 500/);

    // The activation and the node's DELETE fail: each failed with its fix; the cleanup still removes the consumer.
    const b = await run((req) => (activate(req) ? portalSaid(500) : nodeDelete(req) ? portalSaid(500) : "pass"));
    assert.deepEqual(b.checks.get("activate"), {
      id: "activate",
      status: "failed",
      detail: "GET .../node/activate answered HTTP 500: Refused: refused with 500",
      fix: "the providers activate nodes this way: report this answer",
    });
    const del = b.checks.get("node-delete")!;
    assert.equal(del.status, "failed");
    assert.equal(del.detail, "DELETE .../node answered HTTP 500: Refused: refused with 500");
    assert.equal(del.fix, "the providers delete nodes this way: report this answer");
    assert.match(b.checks.get("cleanup")!.detail, /^removed consumer \d+ "doctor-0a1b2c3d" and its node$/);
    assert.deepEqual(b.onPortal, []);

    // A second DELETE answered 200 rather than 404: a reading, not a failure.
    const c = await run((req, seen) => (nodeDelete(req) && seen.some(nodeDelete) ? { status: 200, json: {} } : "pass"));
    assert.equal(c.checks.get("delete-again")!.detail, "a second DELETE answers HTTP 200; the client takes 2xx and 404 as done");
    assert.equal(c.checks.get("delete-again")!.reading, "200");
  });

  it("a refused PUT, spname read, password change: each failed with its own fix", async () => {
    const put = (req: { method: string; path: string }) => req.method === "PUT" && CONSUMER.test(req.path);
    const spname = (req: { method: string; path: string }) => req.method === "GET" && /\/node\/spname(\?|$)/.test(req.path);
    const password = (req: { method: string; path: string }) => req.method === "POST" && /\/node\/password(\?|$)/.test(req.path);
    const r = await run((req, seen) =>
      put(req)
        ? "refuse"
        : spname(req) && seen.some(spname)
          ? "refuse"
          : password(req)
            ? { status: 500, json: { code: "X", message: "no" } }
            : "pass",
    );
    assert.deepEqual(
      [r.checks.get("put")!.status, r.checks.get("put")!.fix],
      ["failed", "the providers update with PUT: check the account's rights"],
    );
    assert.deepEqual(
      [r.checks.get("spname")!.status, r.checks.get("spname")!.fix],
      ["failed", "the client could not read the proposed name: report this answer"],
    );
    assert.deepEqual(
      [r.checks.get("password")!.status, r.checks.get("password")!.fix],
      ["failed", "the providers set node passwords this way: report this answer"],
    );
    assert.deepEqual(r.onPortal, []);
  });
});
