// The doctor's write test called in process (in Stryker's spec list), against the emulator behind a proxy on
// 127.0.0.1 that refuses a request (the connection closed before it reaches the portal) or loses its answer
// (passed on, then the connection closed): what the portal is left holding, and what the report says, on each
// path of the cleanup: the DELETE worked or not, and the portal said afterwards whether the consumer is there or not.
import assert from "node:assert/strict";
import { Probe } from "../../provider/doctor/probe";
import { checkLogin } from "../../provider/doctor/read-checks";
import { Checks, type Check } from "../../provider/doctor/report";
import { writeTest } from "../../provider/doctor/write-test";
import { clientFor, ORIGIN } from "../support/portal";
import { proxiedEmulatorSuite, type Rule, type Verdict } from "../support/proxy";

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
  const suite = proxiedEmulatorSuite();

  /** One write test through the proxy with `r`; the checks by id, what it left, and the doctor consumers on the portal. */
  async function run(r: Rule): Promise<{ checks: Map<string, Check>; left: string[]; onPortal: Array<{ id: number; name: string }> }> {
    suite.em.reset();
    suite.rule = () => "pass";
    const client = clientFor(suite.em, "admin", { url: suite.proxy.url, maxAttempts: 1 });
    const checks = new Checks();
    const probe = new Probe({ url: suite.proxy.url, origin: ORIGIN, timeoutMs: 5000, secrets: () => ["admin"] });
    try {
      assert.ok(await checkLogin({ client, probe, checks, username: "admin", clientId: "emulator", password: "admin" }));
      suite.proxy.seen.length = 0; // each rule sees this run's requests only
      suite.rule = r;
      const left = await writeTest({ client, probe, checks, bunitId: 2, random: () => "0a1b2c3d" });
      const onPortal = suite.em
        .state()
        .consumers.filter((c) => c.name.startsWith("doctor-"))
        .map((c) => ({ id: c.id, name: c.name }));
      return { checks: new Map(checks.list.map((c) => [c.id, c])), left, onPortal };
    } finally {
      suite.rule = () => "pass";
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
    assert.equal(r.checks.get("consumer-removed")!.detail, "deleting the node removed its consumer, as the API documentation says");
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
      "GET .../node/spname answered HTTP 404 (Refused: refused with 404); the API documentation does not list it and the providers take tsmName from the config (handled)",
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

  describe("each step's line, pinned to the portal's answer", () => {
    type Req = { method: string; path: string };
    const step = (method: string, tail: RegExp) => (req: Req) => req.method === method && tail.test(req.path);
    const spname = step("GET", /\/node\/spname(\?|$)/);
    const activate = step("GET", /\/node\/activate\?/);
    const nodeDelete = step("DELETE", /\/node(\?|$)/);
    const consumerRead = (req: Req) => req.method === "GET" && CONSUMER.test(req.path);
    const list = (req: Req) => req.method === "GET" && /^\/v1\/bunits\/2\/consumers(\?|$)/.test(req.path);
    /** `v` for the first request `match` picks, the others passed on. */
    const first =
      (match: (req: Req) => boolean, v: Verdict, other: Rule = () => "pass"): Rule =>
      (req, seen, headers) =>
        match(req) && !seen.some(match) ? v : other(req, seen, headers);
    const portalSaid = (status: number) => ({ status, json: { status, code: "Refused", message: `refused with ${status}` } });

    it("a clean run: the node's names, its DELETE, and what is sent (note, contact, JSON bodies, comment, name)", async () => {
      const r = await run(() => "pass");
      // The first pair the portal lists (Windows workstation supports only the workstation), not the first of each list.
      assert.equal(r.checks.get("node-create")!.detail, "made its node (Windows workstation, Workstation, domain STANDARD)");
      assert.deepEqual(r.checks.get("node-delete"), {
        id: "node-delete",
        status: "ok",
        detail: "DELETE .../node answers 200 with the deleted node (what the published Go client decodes)",
        reading: "200 with the node",
      });
      const sent = suite.em.requestDetails();
      const body = (method: string, tail: RegExp) => sent.filter((d) => d.method === method && tail.test(d.path)).map((d) => d.body);
      assert.deepEqual(
        body("POST", /^\/v1\/bunits\/2\/consumers$/).map((b) => (b as { note?: string }).note),
        ["made by backup-portal doctor --write-test; removed when it ends"],
      );
      assert.deepEqual(
        body("POST", /\/node$/).map((b) => (b as { contact?: string }).contact),
        ["backup-portal doctor"],
      );
      assert.deepEqual(body("DELETE", /\/node$/), [{}, {}]);
      const paths = suite.proxy.seen.map((x) => `${x.method} ${x.path}`);
      assert.ok(
        paths.some((x) => /^DELETE \/v1\/bunits\/2\/consumers\/\d+\?.*deletionComment=backup-portal\+doctor\+--write-test/.test(x)),
        paths.join("\n"),
      );
      // Without a proposed name, the one made up from the random suffix, upper-cased.
      await run((req) => (spname(req) ? portalSaid(404) : "pass"));
      assert.ok(
        suite.proxy.seen.some((x) => x.path.endsWith("/node/activate?tsmName=DOCTOR-0A1B2C3D")),
        suite.proxy.seen.map((x) => x.path).join("\n"),
      );
    });

    it("reference items without a name: by their id; a node the portal refuses: failed with the fix", async () => {
      // Operating systems that list no node types (Windows server's id, which the emulator lets be a file server).
      const r = await run((req) =>
        req.method === "GET" && /^\/v1\/(nodeoperatingsystems|nodetypes|bunits\/2\/defaultserver\/domains)$/.test(req.path)
          ? { status: 200, json: [{ id: req.path.endsWith("systems") ? 2 : 1 }] }
          : "pass",
      );
      assert.equal(r.checks.get("node-create")!.detail, "made its node (2, 1, domain 1)");
      const refused = await run(first(step("POST", /\/node$/), portalSaid(400)));
      const c = refused.checks.get("node-create")!;
      assert.deepEqual([c.status, c.fix], ["failed", "check the reference data lines above"]);
      assert.equal(refused.checks.has("put"), false, "no further node step");
      assert.deepEqual(refused.onPortal, []);
    });

    it("a PUT that replaces: differs", async () => {
      const put = step("PUT", CONSUMER);
      const r = await run((req, seen) =>
        consumerRead(req) && seen.filter(put).length === 2 && !seen.some(spname)
          ? { status: 200, json: { id: Number(/consumers\/(\d+)/.exec(req.path)![1]), name: NAME, businessUnitId: 2 } }
          : "pass",
      );
      assert.deepEqual(r.checks.get("put"), {
        id: "put",
        status: "differs",
        detail: "a PUT replaces the object: fields it leaves out are cleared; the providers send every declared field (handled)",
        reading: "replace",
      });
    });

    it("the proposed name is the one activated, bare or as a JSON string", async () => {
      const bare = await run((req) => (spname(req) ? { status: 200, text: "DOCTOR-PROPOSED" } : "pass"));
      assert.equal(
        bare.checks.get("spname")!.detail,
        "GET .../node/spname answers the bare name (DOCTOR-PROPOSED), as the published Go client expects",
      );
      assert.match(bare.checks.get("activate")!.detail, /^activated as DOCTOR-PROPOSED; /);
      assert.ok(suite.proxy.seen.some((x) => x.path.includes("/node/activate?tsmName=DOCTOR-PROPOSED")));
      const json = await run((req) => (spname(req) ? { status: 200, json: "DOCTOR-JSONNAME" } : "pass"));
      assert.deepEqual(json.checks.get("spname"), {
        id: "spname",
        status: "differs",
        detail: 'GET .../node/spname answers a JSON string ("DOCTOR-JSONNAME"); the client takes both (handled)',
        reading: "json",
      });
      assert.match(json.checks.get("activate")!.detail, /^activated as DOCTOR-JSONNAME; /);
    });

    const noSpname: Rule = (req) => (spname(req) ? portalSaid(404) : "pass");

    it("the activation's answer: a JSON string, no body, the bare name; a node that does not carry the name fails", async () => {
      const cases: Array<[Verdict, string]> = [
        [{ status: 200, json: "DOCTOR-0A1B2C3D", forward: true }, "a JSON string"],
        [{ status: 200, text: "  ", forward: true }, "no body"],
        [{ status: 200, text: " DOCTOR-0A1B2C3D\n", forward: true }, "the bare name"],
      ];
      for (const [answer, shape] of cases) {
        const r = await run(first(activate, answer, noSpname));
        assert.deepEqual(
          r.checks.get("activate"),
          {
            id: "activate",
            status: "ok",
            detail: `activated as DOCTOR-0A1B2C3D; the answer was ${shape} (the client takes any)`,
            reading: shape,
          },
          shape,
        );
      }
      // Answered, but the portal never saw it: the node has no name.
      const unseen = await run(first(activate, { status: 200, json: "DOCTOR-0A1B2C3D" }, noSpname));
      const a = unseen.checks.get("activate")!;
      assert.deepEqual([a.status, a.fix], ["failed", "report this answer: the providers read the activated name back"]);
      assert.match(a.detail, /^activated as DOCTOR-0A1B2C3D, but the node reads tsmName (undefined|null)$/);
      assert.equal(unseen.checks.has("activate-again"), false);
    });

    it("a password change answered without the node: said with no id", async () => {
      const r = await run(first(step("POST", /\/node\/password$/), "fake204"));
      assert.equal(
        r.checks.get("password")!.detail,
        "POST .../node/password answered the node (id ?); the password is never kept from an answer",
      );
    });

    it("the node's DELETE answered otherwise: each shape said, anything but 200 or 204 a failure", async () => {
      const differs = (status: number, said: string) => ({
        id: "node-delete",
        status: "differs",
        detail: `DELETE .../node answers ${status}${said}; the client takes any 2xx (handled)`,
        reading: status === 200 ? "200 empty" : "204",
      });
      const cases: Array<[Verdict, unknown]> = [
        [{ status: 200, json: null, forward: true }, differs(200, ' with "null"')],
        [{ status: 200, json: {}, forward: true }, differs(200, ' with "{}"')],
        [{ status: 200, text: "x".repeat(50), forward: true }, differs(200, ` with "${"x".repeat(40)}"`)],
        [{ status: 204, text: "", forward: true }, differs(204, " without a body")],
        [
          { status: 202, json: { id: 5 }, forward: true },
          {
            id: "node-delete",
            status: "failed",
            detail: 'DELETE .../node answered HTTP 202: {"id":5}',
            fix: "the providers delete nodes this way: report this answer",
          },
        ],
      ];
      for (const [answer, want] of cases) {
        const r = await run(first(nodeDelete, answer));
        assert.deepEqual(r.checks.get("node-delete"), want, JSON.stringify(answer));
        assert.deepEqual(r.onPortal, []);
      }
    });

    it("the consumer kept after its node's DELETE: differs; its read failing then: the DELETE step failed", async () => {
      // The node's DELETE answered by the proxy: the portal still holds the node and the consumer.
      const kept = await run(first(nodeDelete, { status: 200, json: { id: 1 } }));
      assert.deepEqual(kept.checks.get("consumer-removed"), {
        id: "consumer-removed",
        status: "differs",
        detail: "the consumer stays after its node is deleted; the Consumer resource's delete removes it (handled)",
        reading: "consumer kept",
      });
      assert.deepEqual(kept.onPortal, []);
      const failing = await run((req, seen) =>
        consumerRead(req) && seen.some(nodeDelete) && !seen.some((x, i) => consumerRead(x) && i > seen.findIndex(nodeDelete))
          ? portalSaid(500)
          : "pass",
      );
      const d = failing.checks.get("node-delete")!;
      assert.equal(d.status, "failed");
      assert.match(d.detail, /^GET \/v1\/bunits\/2\/consumers\/\d+ failed \(HTTP 500\): Refused: refused with 500/);
      assert.equal(failing.checks.has("consumer-removed"), false);
    });

    it("after a refused DELETE, the portal's own word on the consumer wins over its failing list", async () => {
      const refusedThen = (read: Verdict): Rule =>
        keepConsumer((req, seen) =>
          isDelete(req) || (list(req) && seen.some(isDelete)) ? "refuse" : consumerRead(req) && seen.some(isDelete) ? read : "pass",
        );
      // 404: gone, whatever the list says.
      const gone = await run(refusedThen(portalSaid(404)));
      assert.deepEqual(gone.left, []);
      assert.match(gone.checks.get("cleanup")!.detail, /^removed consumer \d+ "doctor-0a1b2c3d" and its node$/);
      // Read as there: named as left, not "perhaps".
      const there = await run(refusedThen("pass"));
      assert.equal(there.onPortal.length, 1);
      const { id } = there.onPortal[0];
      assert.deepEqual(there.left, [`consumer ${id} "${NAME}" in business unit 2 (with its node, if any): ${removal(id)}`]);
    });
  });
});
