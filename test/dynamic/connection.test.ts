// The provider host's portal connection, in process: settings from stack config with the BACKUP_PORTAL_*
// environment as fallback, one shared client, retries on the engine's log, the rotated-credentials hint on a
// refused login; and what rides on it: recovery of interrupted creates, and a consumer removed with its node.
import assert from "node:assert/strict";
import { configure, portal, recoverInterruptedCreates, resetConnection, ROTATED_CREDENTIALS_HINT } from "../../provider/dynamic/connection";
import { createKeyFor, createMarker } from "../../provider/dynamic/recovery";
import { noteRemovedWithNode, takeRemovedWithNode } from "../../provider/dynamic/removed";
import { PortalError } from "../../provider/portal/errors";
import { businessUnitLifecycle as bu } from "../../provider/resources/business-unit";
import { consumerLifecycle as consumer } from "../../provider/resources/consumer";
import { nodeLifecycle as node } from "../../provider/resources/node";
import { clientFor, clientSuite, envFor, ORIGIN, stackConfigFor, writes } from "../support/portal";

/** Business unit ids above any the other tests of this process reach. */
let freshBusinessUnitId = 900_000;
const WRONG_PASSWORD = "Connection-Test-Wr0ng-Pa55word-5d1f83";
const ENV_KEYS = [
  "BACKUP_PORTAL_URL",
  "BACKUP_PORTAL_ORIGIN",
  "BACKUP_PORTAL_CLIENT_ID",
  "BACKUP_PORTAL_USERNAME",
  "BACKUP_PORTAL_PASSWORD",
  "BACKUP_PORTAL_RECOVER_INTERRUPTED",
];

describe("the provider host's portal connection", function () {
  this.timeout(20_000);
  const s = clientSuite();
  let savedEnv: Record<string, string | undefined>;

  /** Stack config as the engine hands it to `configure`. */
  const stackConfig = (extra: Record<string, string> = {}, user = "admin") => {
    const c = stackConfigFor(s.emu.url, user, extra);
    configure({ get: (k) => c[k] });
  };
  const setEnv = (env: Record<string, string>) => Object.assign(process.env, env);
  const writesSince = (from: number) => writes(s.emu).slice(from);
  const writeCount = () => writes(s.emu).length;

  beforeEach(() => {
    savedEnv = Object.fromEntries(ENV_KEYS.map((k) => [k, process.env[k]]));
    for (const k of ENV_KEYS) delete process.env[k];
    resetConnection();
  });
  afterEach(() => {
    resetConnection();
    for (const k of ENV_KEYS) {
      if (savedEnv[k] === undefined) delete process.env[k];
      else process.env[k] = savedEnv[k];
    }
  });

  describe("settings", () => {
    it("come from the stack config; every resource shares one client until the connection is reset", async () => {
      setEnv({ ...envFor(s.emu), BACKUP_PORTAL_URL: "http://127.0.0.1:1" }); // the stack config wins
      stackConfig();
      const c = portal();
      assert.equal(portal(), c, "one client per host process");
      assert.equal((await c.businessUnits.get(2)).name, "Tenant A");
      resetConnection();
      setEnv({ BACKUP_PORTAL_URL: s.emu.url });
      assert.notEqual(portal(), c, "a reset forgets the client");
    });

    it("fall back to the BACKUP_PORTAL_* environment, per key, and name every key missing from both", async () => {
      setEnv(envFor(s.emu));
      assert.equal((await portal().businessUnits.get(3)).name, "Tenant B", "no configure at all: the environment");
      resetConnection();
      const { BACKUP_PORTAL_PASSWORD: password, ...rest } = envFor(s.emu);
      for (const k of Object.keys(rest)) delete process.env[k];
      setEnv({ BACKUP_PORTAL_PASSWORD: password });
      configure({ get: (k) => configOf(s.emu.url)[k] });
      assert.equal((await portal().businessUnits.get(2)).name, "Tenant A", "the password from the environment, the rest from config");
      resetConnection();
      delete process.env.BACKUP_PORTAL_PASSWORD;
      configure({ get: (k) => (k === "backup-portal:url" ? s.emu.url : undefined) });
      assert.throws(
        () => portal(),
        new RegExp(
          "^Error: Backup Portal connection is not configured: set backup-portal:origin \\(or BACKUP_PORTAL_ORIGIN\\), " +
            "backup-portal:clientId \\(or BACKUP_PORTAL_CLIENT_ID\\), backup-portal:username \\(or BACKUP_PORTAL_USERNAME\\), " +
            "backup-portal:password \\(or BACKUP_PORTAL_PASSWORD\\)\\.",
        ),
      );
    });

    it("a reset also forgets the stack config", () => {
      stackConfig();
      resetConnection();
      assert.throws(() => portal(), /connection is not configured: set backup-portal:url \(or BACKUP_PORTAL_URL\), /);
    });

    it("a retry is written to the engine's log (stderr), marked as ours", async () => {
      stackConfig();
      s.emu.setFaults({ errorRate: 1, statuses: [503], count: 1, match: { method: "GET", pathPrefix: "/v1/bunits/2" } });
      const lines: string[] = [];
      const original = console.error;
      console.error = (...args: unknown[]) => void lines.push(args.join(" "));
      try {
        assert.equal((await portal().businessUnits.get(2)).name, "Tenant A");
      } finally {
        console.error = original;
      }
      assert.equal(lines.length, 1, lines.join("\n"));
      assert.match(lines[0], /^backup-portal: GET \/v1\/bunits\/2: HTTP 503 Unavailable; try 2 of 6 in \d\.\d s$/);
    });
  });

  describe("a refused login", () => {
    it("says that refresh and destroy use the credentials of the last up; other failures do not", async () => {
      stackConfig({ "backup-portal:password": WRONG_PASSWORD });
      const err = await bu.read("2", { parentId: 1, name: "Tenant A" }).then(
        () => assert.fail("the login should be refused"),
        (e: unknown) => e,
      );
      assert.ok(err instanceof PortalError, String(err));
      assert.equal(err.path, "/v1/oauth");
      assert.ok(err.message.endsWith(`. ${ROTATED_CREDENTIALS_HINT}`), err.message);
      assert.match(err.message, /Hint: authentication failed: check the client ID/);
      assert.equal(err.message.split(ROTATED_CREDENTIALS_HINT).length, 2, "said once");
      assert.ok(!err.message.includes(WRONG_PASSWORD));
      assert.match(ROTATED_CREDENTIALS_HINT, /Run `pulumi up` first, or add `--run-program` to the refresh or destroy\.$/);

      resetConnection();
      stackConfig();
      const other = await bu.delete("2", { parentId: 1 }).then(
        () => assert.fail("a business unit with children is not deleted"),
        (e: Error) => e,
      );
      assert.match(other.message, /business unit 2 still has child business units or consumers/);
      assert.ok(!other.message.includes("--run-program"), other.message);
    });
  });

  describe("recovery of interrupted creates", () => {
    const declared = { parentId: 1, name: "Acme", registrationNumber: "556-1", timeZone: "UTC" };

    it("is off unless the stack config or the environment switches it on; the stack config wins", () => {
      const cases: Array<[string | undefined, string | undefined, boolean]> = [
        [undefined, undefined, false],
        ["true", undefined, true],
        ["1", undefined, true],
        ["false", undefined, false],
        ["yes", undefined, false],
        [undefined, "true", true],
        [undefined, "1", true],
        [undefined, "TRUE", false],
        ["false", "true", false],
        ["true", "false", true],
      ];
      for (const [config, env, on] of cases) {
        if (env === undefined) delete process.env.BACKUP_PORTAL_RECOVER_INTERRUPTED;
        else process.env.BACKUP_PORTAL_RECOVER_INTERRUPTED = env;
        configure({ get: (k) => (k === "backup-portal:recoverInterruptedCreates" ? config : undefined) });
        assert.equal(recoverInterruptedCreates(), on, `config ${config}, environment ${env}`);
      }
      resetConnection();
      process.env.BACKUP_PORTAL_RECOVER_INTERRUPTED = "1";
      assert.equal(recoverInterruptedCreates(), true, "no stack config at all: the environment");
    });

    it("the create key and marker of a resource are stable across versions and differ between resources", () => {
      // Pinned: a run after an upgrade must find what the run before it left.
      const key = createKeyFor("BusinessUnit", "acme", "backup-portal", "prod");
      assert.equal(key, PINNED_KEY);
      assert.equal(createMarker(key, [1]), PINNED_MARKER);
      const others = [
        createKeyFor("Consumer", "acme", "backup-portal", "prod"),
        createKeyFor("BusinessUnit", "acme2", "backup-portal", "prod"),
        createKeyFor("BusinessUnit", "acme", "other", "prod"),
        createKeyFor("BusinessUnit", "acme", "backup-portal", "dev"),
        createKeyFor("BusinessUnitacme", "", "backup-portal", "prod"),
      ];
      assert.equal(new Set([key, ...others]).size, 6);
      for (const k of others) assert.match(k, /^[0-9a-f]{32}$/);
      assert.notEqual(createMarker(key, [2]), createMarker(key, [1]), "a replacing input changed: another object");
      assert.notEqual(createMarker(key, [1, null]), createMarker(key, [1]));
      for (const none of [undefined, "", 7, null]) assert.equal(createMarker(none, [1]), undefined);
    });

    it("on: a create takes over what an interrupted create of the same resource left, and makes nothing", async () => {
      stackConfig({ "backup-portal:recoverInterruptedCreates": "true" });
      const inputs = { ...declared, createKey: createKeyFor("BusinessUnit", "acme", "p", "s") };
      const first = await bu.create(inputs); // its answer is lost: the engine never records it
      let mark = writeCount();
      const again = await bu.create({ ...inputs });
      assert.equal(again.id, first.id);
      assert.deepEqual(writesSince(mark), [], "taken over as it is");
      assert.equal(again.outs.businessUnitId, Number(first.id));
      assert.deepEqual(again.outs.tags ?? [], [], "the marker is not shown as a tag");

      mark = writeCount();
      const other = await bu.create({ ...inputs, createKey: createKeyFor("BusinessUnit", "acme-2", "p", "s") });
      assert.notEqual(other.id, first.id, "another resource of the same name gets its own object");
      assert.deepEqual(
        writesSince(mark).map((w) => `${w.method} ${w.path}`),
        ["POST /v1/bunits/1/bunits"],
      );
      const made = s.emu.state().businessUnits.filter((b) => b.name === "Acme");
      assert.equal(made.length, 2);
    });

    it("on through the environment: a consumer is taken over too; its business unit made in this run is not searched", async () => {
      setEnv({ BACKUP_PORTAL_RECOVER_INTERRUPTED: "true" });
      stackConfig();
      const key = createKeyFor("Consumer", "web-9", "p", "s");
      const first = await consumer.create({ businessUnitId: 3, name: "web-9", createKey: key });
      let mark = s.emu.requests().length;
      const again = await consumer.create({ businessUnitId: 3, name: "web-9", createKey: key });
      assert.equal(again.id, first.id);
      assert.deepEqual(writesSince(writeCount()), []);
      assert.ok(
        s.emu
          .requests()
          .slice(mark)
          .some((r) => r.method === "GET" && r.path.startsWith("/v1/bunits/3/consumers")),
        "looked for what an interrupted create left",
      );
      assert.equal(s.emu.state().consumers.filter((c) => c.name === "web-9").length, 1);

      // An id no earlier test used: the record of business units this host created outlives an emulator reset.
      s.emu.update((st) => {
        st.nextIds.businessUnit = ++freshBusinessUnitId;
      });
      const made = await bu.create({ ...declared, name: "Fresh", createKey: createKeyFor("BusinessUnit", "fresh", "p", "s") });
      assert.equal(Number(made.id), freshBusinessUnitId);
      const b = Number(made.id);
      mark = s.emu.requests().length;
      await consumer.create({ businessUnitId: b, name: "web-1", createKey: createKeyFor("Consumer", "web-1", "p", "s") });
      assert.deepEqual(
        s.emu
          .requests()
          .slice(mark)
          .filter((r) => r.path !== "/v1/oauth")
          .map((r) => `${r.method} ${r.path}`),
        [`POST /v1/bunits/${b}/consumers`],
        "nothing can be left over under a business unit this host created",
      );
    });

    it("off: a second create makes a second object (a forced replacement must not take over the old one)", async () => {
      stackConfig();
      const inputs = { ...declared, createKey: createKeyFor("BusinessUnit", "acme", "p", "s") };
      const first = await bu.create(inputs);
      const mark = s.emu.requests().length;
      const again = await bu.create({ ...inputs });
      assert.notEqual(again.id, first.id);
      const sent = s.emu
        .requests()
        .slice(mark)
        .map((r) => `${r.method} ${r.path}`);
      assert.deepEqual(
        sent.filter((r) => r.includes("/bunits/1/bunits")),
        ["POST /v1/bunits/1/bunits"],
        "no search for a leftover",
      );
    });
  });

  describe("a consumer removed with its node", () => {
    it("is not deleted again; a consumer whose node was not deleted here is", async () => {
      stackConfig();
      await node.delete("2", { businessUnitId: 2, consumerId: 2 });
      let mark = writeCount();
      await consumer.delete("2", { businessUnitId: 2, name: "db-01" });
      assert.deepEqual(writesSince(mark), [], "the portal removed it with its node");
      mark = writeCount();
      await consumer.delete("2", { businessUnitId: 2, name: "db-01" });
      assert.deepEqual(
        writesSince(mark).map((w) => `${w.method} ${w.path.replace(/\?.*/, "")}`),
        ["DELETE /v1/bunits/2/consumers/2"],
        "the record is used once: a Delete asked again asks the portal (already gone is fine)",
      );

      await node.delete("99", { businessUnitId: 2, consumerId: 99 }); // gone already: its consumer's fate is unknown
      mark = writeCount();
      await consumer.delete("99", { businessUnitId: 2 });
      assert.deepEqual(
        writesSince(mark).map((w) => `${w.method} ${w.path.replace(/\?.*/, "")}`),
        ["DELETE /v1/bunits/2/consumers/99"],
      );
      mark = writeCount();
      await consumer.delete("1", { businessUnitId: 2, name: "web-01" });
      assert.deepEqual(
        writesSince(mark).map((w) => `${w.method} ${w.path.replace(/\?.*/, "")}`),
        ["DELETE /v1/bunits/2/consumers/1"],
      );
    });

    it("is recorded per portal connection, business unit and consumer", () => {
      const a = clientFor(s.emu);
      const b = clientFor(s.emu);
      try {
        noteRemovedWithNode(a, 2, 5);
        noteRemovedWithNode(a, 2, 6);
        noteRemovedWithNode(a, 3, 7);
        assert.equal(takeRemovedWithNode(b, 2, 5), false, "another connection");
        assert.equal(takeRemovedWithNode(a, 3, 5), false, "another business unit");
        assert.equal(takeRemovedWithNode(a, 2, 7), false);
        assert.equal(takeRemovedWithNode(a, 2, 5), true);
        assert.equal(takeRemovedWithNode(a, 2, 5), false, "used up");
        assert.equal(takeRemovedWithNode(a, 2, 6), true);
        assert.equal(takeRemovedWithNode(a, 3, 7), true);
      } finally {
        a.close();
        b.close();
      }
    });
  });
});

// sha256 of "backup-portal\0prod\0BusinessUnit\0acme", and of the JSON of [that key, 1], each cut to 32 hex digits.
const PINNED_KEY = "03569b725bc373cb4a7272ce6cf8cab7";
const PINNED_MARKER = "create-request:461a8c37157795dbdddb3b7b6c2930b0";

/** Stack config without the password. */
function configOf(url: string): Record<string, string | undefined> {
  return {
    "backup-portal:url": url,
    "backup-portal:origin": ORIGIN,
    "backup-portal:clientId": "emulator",
    "backup-portal:username": "admin",
  };
}
