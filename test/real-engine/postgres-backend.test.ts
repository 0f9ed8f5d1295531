// The stacks/ program under the real Pulumi CLI (v3.260.0, scripts/pulumi-tools.sh) with its state in PostgreSQL
// (the DIY backend's postgres:// URL, docs/backends.md) instead of a folder, against the emulator over HTTP: the
// lifecycle, where the state lives, and two `pulumi up` on one stack at once. The server: .ci/run's
// (BACKUP_PORTAL_TEST_POSTGRES_URL) or one this suite starts (test/support/postgres.ts); a database of its own.
import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import YAML from "yaml";
import { postgresSuite } from "../support/postgres";
import { startEmulator, type Emulator } from "../support/portal";
import { waitFor } from "../support/wait";
import { CliResult, Workspace } from "./cli";
import { connectionYaml, portalWrites, PORTAL_PASSWORD, setAdminPassword, stacksWorkspace } from "./project";

const STACK = "pg";
/** The DIY backend's refusal while another process holds the stack's lock (pkg/backend/diy/lock.go, v3.260.0). */
const LOCKED =
  /the stack is currently locked by 1 lock\(s\)\. Either wait for the other process\(es\) to end or delete the lock file with `pulumi cancel`\./;
// The DIY backend's default table (pkg/backend/diy/postgres/bucket.go, v3.260.0), made by the CLI on first use.
const TABLE = "pulumi_state";

interface Tenant {
  key: string;
  name: string;
  consumer: string;
  tsmName: string;
}

const tenant = (i: number): Tenant => ({
  key: `t${i}`,
  name: `PG Tenant ${i}`,
  consumer: `files.t${i}.example`,
  tsmName: `PG-T${i}-FILES`,
});
const tenants = (n: number): Tenant[] => Array.from({ length: n }, (_, i) => tenant(i + 1));

/** The stack file's tenants block: a business unit per tenant, with one consumer and its node. */
function tenantsBlock(list: Tenant[]): Record<string, unknown> {
  return Object.fromEntries(
    list.map((t, i) => [
      t.key,
      {
        name: t.name,
        registrationNumber: `556600-${String(1000 + i)}`,
        timeZone: "UTC",
        consumers: {
          files: {
            name: t.consumer,
            node: { operatingSystem: "Linux", type: "File server", domain: "STANDARD", cpuCount: 2, tsmName: t.tsmName },
          },
        },
      },
    ]),
  );
}

/** Rewrites the stack file's tenants, keeping the CLI's encryptionsalt and secure values. */
function setTenants(ws: Workspace, list: Tenant[]): void {
  const doc = YAML.parseDocument(fs.readFileSync(ws.stackFile, "utf8"));
  doc.setIn(["config", "backup-portal:tenants"], tenantsBlock(list));
  fs.writeFileSync(ws.stackFile, doc.toString());
}

/** Fails unless the portal holds each tenant's business unit, consumer and node exactly once. */
function assertPortalHoldsOnce(emu: Emulator, list: Tenant[]): void {
  const st = emu.state();
  for (const t of list) {
    const bus = st.businessUnits.filter((b) => b.name === t.name);
    assert.equal(bus.length, 1, `business unit ${t.name}: ${bus.length} on the portal`);
    const consumers = st.consumers.filter((c) => c.name === t.consumer && c.businessUnitId === bus[0].id);
    assert.equal(consumers.length, 1, `consumer ${t.consumer}: ${consumers.length} on the portal`);
    const nodes = st.nodes.filter((n) => n.tsmName === t.tsmName);
    assert.equal(nodes.length, 1, `node ${t.tsmName}: ${nodes.length} on the portal`);
    assert.equal(nodes[0].consumerId, consumers[0].id, `node ${t.tsmName} under its consumer`);
  }
}

interface StateResource {
  urn: string;
  type: string;
}

/** The stacks/ program's resources of a tenant: its business unit, its consumer and the consumer's node. */
const KINDS = ["BusinessUnit", "Consumer", "Node"] as const;
const urnOf = (t: Tenant, kind: (typeof KINDS)[number]) =>
  `urn:pulumi:${STACK}::backup-portal::pulumi-nodejs:dynamic/backup-portal:${kind}::${kind === "BusinessUnit" ? t.key : `${t.key}/files`}`;

/** Fails unless the state holds every URN once, and exactly the tenants' business units, consumers and nodes. */
function assertStateHoldsOnce(resources: StateResource[], list: Tenant[]): void {
  const urns = resources.map((r) => r.urn);
  assert.equal(new Set(urns).size, urns.length, `a URN twice in the state:\n${urns.join("\n")}`);
  const portalObjects = urns.filter((u) => KINDS.some((k) => u.includes(`:dynamic/backup-portal:${k}::`))).sort();
  assert.deepEqual(portalObjects, list.flatMap((t) => KINDS.map((k) => urnOf(t, k))).sort());
}

/** The password of the URL's pgpass file (scripts/postgres-test-server.sh's), if it names one. */
function dbPassword(url: string): string | undefined {
  const file = new URL(url).searchParams.get("passfile");
  if (!file || !fs.existsSync(file)) return undefined;
  return fs.readFileSync(file, "utf8").trim().split(":").pop();
}

describe("real engine: the stacks/ program with its state in PostgreSQL (postgres:// DIY backend)", function () {
  this.timeout(20 * 60_000);
  const pg = postgresSuite();
  let emu: Emulator;
  let ws: Workspace;
  let tableBefore: string | undefined;

  /** The table's rows under this database's prefix (the CLI keys every object by the URL's path: the database). */
  const keys = async (like: string) =>
    (await pg.db.query(`SELECT key FROM ${TABLE} WHERE key LIKE '${like}' ORDER BY key`)).map((r) => r[0]);
  const stackKey = () => `${pg.db.name}/.pulumi/stacks/backup-portal/${STACK}.json`;
  const lockKeys = () => keys(`${pg.db.name}/.pulumi/locks/%`);
  /** The stack's checkpoint as the table holds it: the CLI's JSON, base64 in a JSON object's `data`. */
  const checkpoint = async () => {
    const rows = await pg.db.query(`SELECT data->>'data' FROM ${TABLE} WHERE key = '${stackKey()}'`);
    assert.equal(rows.length, 1, `one row ${stackKey()} in ${TABLE}`);
    return JSON.parse(Buffer.from(rows[0][0], "base64").toString("utf8")) as {
      checkpoint: { latest?: { resources?: StateResource[] } };
    };
  };
  const exported = async () =>
    (JSON.parse((await ws.ok(["stack", "export"])).stdout) as { deployment: { resources?: StateResource[] } }).deployment.resources ?? [];
  const assertEmptyPreview = async () => {
    emu.clearRequests();
    const preview = await ws.ok(["preview", "--diff"]);
    assert.match(preview.stdout, /\d+ unchanged/);
    assert.doesNotMatch(preview.stdout, /to create|to update|to delete|to replace/, preview.stdout);
    assert.deepEqual(portalWrites(emu), []);
  };

  before(async () => {
    emu = await startEmulator({ port: 0, quiet: true });
    setAdminPassword(emu);
    ws = stacksWorkspace(STACK, connectionYaml(emu, "  backup-portal:protectBusinessUnits: false"), { backendUrl: pg.db.url });
    setTenants(ws, tenants(2));
    tableBefore = (await pg.db.query(`SELECT to_regclass('${TABLE}')`))[0][0];
    await ws.ok(["stack", "init"]);
    await ws.setSecret("backup-portal:password", PORTAL_PASSWORD);
    // Every write of the stack's checkpoint and its .bak, as the CLI sent it, into a table of the test's own.
    await pg.db.query(`
      CREATE TABLE checkpoint_writes (n serial PRIMARY KEY, key text NOT NULL, data json NOT NULL);
      CREATE FUNCTION log_checkpoint_write() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN INSERT INTO checkpoint_writes (key, data) VALUES (NEW.key, NEW.data); RETURN NEW; END $$;
      CREATE TRIGGER log_checkpoint_write AFTER INSERT OR UPDATE ON ${TABLE}
        FOR EACH ROW WHEN (NEW.key LIKE '%/.pulumi/stacks/%') EXECUTE FUNCTION log_checkpoint_write();`);
    emu.clearRequests();
  });
  after(async () => {
    await emu?.close();
    ws?.remove();
  });

  it("up creates the tenants once, and the state is the table's row, not a folder", async () => {
    // The CLI made the table on first use (it was not there before `stack init`).
    assert.equal(tableBefore, "");
    assert.equal((await pg.db.query(`SELECT to_regclass('${TABLE}')`))[0][0], TABLE);
    const r = await ws.ok(["up", "--yes"]);
    const created = Number(/\+ (\d+) created/.exec(r.stdout)?.[1]);
    assert.ok(created > 0, r.stdout);
    assertPortalHoldsOnce(emu, tenants(2));
    // The checkpoint in the table is the state the CLI reads back.
    const stored = (await checkpoint()).checkpoint.latest?.resources ?? [];
    const state = await exported();
    assert.deepEqual(
      stored.map((x) => x.urn),
      state.map((x) => x.urn),
    );
    assertStateHoldsOnce(state, tenants(2));
    // The file backend's folder of the workspace (cli.ts) stays empty, and no .pulumi folder appears anywhere in it.
    assert.deepEqual(fs.readdirSync(path.join(ws.dir, "state")), []);
    const found: string[] = [];
    const walk = (d: string, depth: number) => {
      for (const e of fs.readdirSync(d, { withFileTypes: true })) {
        if (e.name === ".pulumi") found.push(path.join(d, e.name));
        if (e.isDirectory() && depth < 4 && e.name !== "node_modules" && e.name !== "plugins") walk(path.join(d, e.name), depth + 1);
      }
    };
    walk(ws.dir, 0);
    assert.deepEqual(found, [], "no file backend folder");
    assert.deepEqual(await lockKeys(), [], "the lock is released");
  });

  it("the up wrote the whole state after every step: two writes per created resource, each a complete checkpoint", async () => {
    const decode = (b64: string) =>
      JSON.parse(Buffer.from(b64, "base64").toString("utf8")) as { checkpoint: { stack: string; latest?: { resources?: unknown[] } } };
    const writes = await pg.db.query(`SELECT key, data->>'data' FROM checkpoint_writes ORDER BY n`);
    const own = writes.filter(([key]) => key === stackKey()).map(([, b64]) => decode(b64));
    const created = (await exported()).length;
    // pkg/backend/snapshot.go: a create is two mutations (the pending operation, then the resource), each saved.
    assert.ok(own.length >= 2 * created, `${own.length} writes of the checkpoint for ${created} resources`);
    const counts = own.map((c) => c.checkpoint.latest?.resources?.length ?? 0);
    for (let i = 1; i < counts.length; i++) assert.ok(counts[i] >= counts[i - 1], `resources per write: ${counts.join(" ")}`);
    assert.equal(counts[counts.length - 1], created);
    for (const c of own) assert.equal(c.checkpoint.stack, `organization/backup-portal/${STACK}`);
    // pkg/backend/diy/state.go, saveCheckpoint: before each write the previous checkpoint is copied to .bak.
    const baks = writes.filter(([key]) => key === `${stackKey()}.bak`).length;
    assert.ok(baks >= own.length - 1, `${baks} copies to .bak for ${own.length} writes`);
  });

  it("an unchanged preview and a refresh find nothing to do and write nothing", async () => {
    await assertEmptyPreview();
    emu.clearRequests();
    const refresh = await ws.ok(["refresh", "--yes"]);
    assert.doesNotMatch(refresh.stdout, /~ \d+ updated|- \d+ deleted|\+ \d+ created/, refresh.stdout);
    assert.deepEqual(portalWrites(emu), []);
    assertPortalHoldsOnce(emu, tenants(2));
  });

  it("a second up while the first holds the stack's lock is refused with the CLI's lock message; nothing is lost", async () => {
    setTenants(ws, tenants(4));
    let firstDone = false;
    const first = ws.pulumi(["up", "--yes"]).finally(() => (firstDone = true));
    // The DIY backend takes the lock before the up's preview (pkg/backend/diy/backend.go, Update): a row appears.
    await waitFor(async () => firstDone || (await lockKeys()).length > 0, "the first up's lock row", 120_000);
    assert.ok(!firstDone, "the first up was still running when its lock was seen");
    const [lock] = await lockKeys();
    const holder = JSON.parse(
      Buffer.from((await pg.db.query(`SELECT data->>'data' FROM ${TABLE} WHERE key = '${lock}'`))[0][0], "base64").toString(),
    ) as { pid: number };
    const second: CliResult = await ws.pulumi(["up", "--yes"]);
    assert.ok(!firstDone, "the second up ended while the first was still running: it did not wait");
    assert.notEqual(second.code, 0, second.stdout + second.stderr);
    const out = second.stdout + second.stderr;
    assert.match(out, LOCKED);
    // It names the first up's lock row and process; the URL's user is masked.
    assert.ok(out.includes(`/${lock}?`), `the lock ${lock} named:\n${out}`);
    assert.match(out, new RegExp(`\\(pid ${holder.pid}\\)`));
    assert.match(out, /postgres:\/\/\*\*\*\*:\*\*\*\*@127\.0\.0\.1:\d+\//);
    // The URL carries no password (the pgpass file's, which the driver reads): nor does anything the CLI printed.
    const password = dbPassword(pg.db.url);
    if (password) assert.ok(!out.includes(password), "the database password in the CLI's output");

    const done = await first;
    assert.equal(done.code, 0, done.stdout + done.stderr);
    assert.match(done.stdout, /\+ \d+ created/);
    assert.deepEqual(await lockKeys(), [], "the first up released its lock");
    const state = await exported();
    assertStateHoldsOnce(state, tenants(4));
    assert.deepEqual(
      ((await checkpoint()).checkpoint.latest?.resources ?? []).map((x) => x.urn),
      state.map((x) => x.urn),
    );
    assertPortalHoldsOnce(emu, tenants(4));
    await assertEmptyPreview();
  });

  it("two ups started at the same instant: at most one proceeds, each refusal is the lock message, nothing is lost", async () => {
    setTenants(ws, tenants(5));
    emu.clearRequests();
    const both = await Promise.all([ws.pulumi(["up", "--yes"]), ws.pulumi(["up", "--yes"])]);
    const refused = both.filter((r) => r.code !== 0 && LOCKED.test(r.stdout + r.stderr));
    const proceeded = both.filter((r) => !refused.includes(r));
    // Each writes its lock row and looks again (pkg/backend/diy/lock.go, Lock): whoever sees another's row gives up,
    // so one may proceed, or neither (each saw the other's); never both.
    assert.ok(refused.length >= 1, `neither up was refused with the lock message:\n${both.map((r) => r.stdout + r.stderr).join("\n")}`);
    for (const r of proceeded) assert.equal(r.code, 0, r.stdout + r.stderr);
    if (proceeded.length === 0) {
      assert.deepEqual(portalWrites(emu), [], "neither up proceeded, yet the portal was written");
      await ws.ok(["up", "--yes"]);
    }
    assert.deepEqual(await lockKeys(), []);
    assertStateHoldsOnce(await exported(), tenants(5));
    assertPortalHoldsOnce(emu, tenants(5));
    await assertEmptyPreview();
  });

  it("destroy leaves none of the tenants on the portal and no resource in the table's state", async () => {
    const r = await ws.ok(["destroy", "--yes"]);
    assert.match(r.stdout, /- \d+ deleted/);
    const st = emu.state();
    for (const t of tenants(5)) {
      assert.ok(!st.businessUnits.some((b) => b.name === t.name), `${t.name} removed`);
      assert.ok(!st.consumers.some((c) => c.name === t.consumer), `${t.consumer} removed`);
      assert.ok(!st.nodes.some((n) => n.tsmName === t.tsmName), `${t.tsmName} removed`);
    }
    assert.deepEqual((await checkpoint()).checkpoint.latest?.resources ?? [], []);
    assert.deepEqual(await lockKeys(), []);
  });
});
