// Instance registration through the registration broker, end to end over loopback: the portal emulator, the
// broker (holding the reseller's account), the metadata service, and `backup-portal register --broker`.
// The instance's user data holds a one-time token for one business unit, never a portal credential.
import assert from "node:assert/strict";
import * as fs from "fs";
import * as path from "path";
import { parse as parseYaml } from "yaml";
import { hashSecret } from "../../emulator/util";
import { PortalClient } from "../../provider/portal/client";
import { BrokerHandle, mintRegistrationToken, startRegistrationBroker } from "../../provider/broker";
import { main as brokerMain, SECRET_ENV } from "../../provider/broker/main";
import { renderRegistrationUserData } from "../../provider/registration/user-data";
import { envFor, ORIGIN, writes } from "../support/portal";
import { blockWhenTempAppears, CPU_COUNT, instanceDocument, modeOf, Outcome, register, registrationSuite, TSM_NAME, UUID } from "./helpers";

const SECRET = "broker-secret-0123456789-abcdefghijklmnop";
const BUNIT = 2;
const OTHER_BUNIT = 3;
/** The reseller's account, held by the broker alone: a password distinctive enough to search for. */
const RESELLER = { username: "reseller-ops", password: "R3seller/Pa55+w=rd&only-in-the-broker" };
const OTHER_UUID = "9f8e7d6c-5b4a-4f3e-8d2c-1b0a9f8e7d6c";

/** The reseller password as it could appear when encoded. */
function encodings(secret: string): string[] {
  const b = Buffer.from(secret);
  return [
    secret,
    b.toString("base64"),
    b.toString("base64url"),
    b.toString("hex"),
    encodeURIComponent(secret),
    JSON.stringify(secret).slice(1, -1),
    `'${secret.replace(/'/g, `'\\''`)}'`,
    Buffer.from(`${RESELLER.username}:${secret}`).toString("base64"),
  ];
}

describe("registration: through the registration broker", function () {
  const suite = registrationSuite();
  let broker: BrokerHandle;
  let client: PortalClient;
  let tokenFile: string;
  const logs: string[] = [];

  beforeEach(async () => {
    suite.emu.update((s) => {
      s.users.push({
        id: 90,
        createdDate: "2020-01-01T00:00:00Z",
        username: RESELLER.username,
        name: "Reseller operations",
        email: "ops@portal.example",
        passwordSalt: "salt-ops",
        passwordHash: hashSecret(RESELLER.password, "salt-ops"),
        businessUnitId: 1,
      });
    });
    client = new PortalClient({ url: suite.emu.url, origin: ORIGIN, clientId: "emulator", ...RESELLER, retryBaseMs: 20, retryMaxMs: 200 });
    logs.length = 0;
    broker = await startRegistrationBroker({ secret: SECRET, client, log: (l) => logs.push(l) });
    tokenFile = path.join(suite.dir, "registration-token");
  });
  afterEach(async () => {
    await broker.close();
    client.close();
  });

  const files = (): string[] => ["--option-file", suite.optionFile, "--password-file", suite.passwordFile];
  /** `register --broker` on an instance (uuid, backup_bunit) whose token file holds `token`; no portal variables. */
  function run(token: string, o: { uuid?: string; bunit?: number; args?: string[] } = {}): Promise<Outcome> {
    fs.writeFileSync(tokenFile, `${token}\n`, { mode: 0o600 });
    const doc = { ...instanceDocument({ backup_bunit: String(o.bunit ?? BUNIT) }), uuid: o.uuid ?? UUID };
    return register([...files(), "--broker", broker.url, "--token-file", tokenFile, ...(o.args ?? [])], { doc, env: {} });
  }
  const mint = (extra: { businessUnitId?: number; now?: number; ttlSeconds?: number } = {}) =>
    mintRegistrationToken(SECRET, { businessUnitId: BUNIT, ...extra });
  const tagged = (uuid = UUID) => suite.emu.state().consumers.filter((c) => c.tags?.includes(`instance-uuid:${uuid}`));

  it("registers the instance: consumer, node, password (in the instance's file only), activation, option file", async () => {
    const outcome = await run(mint());
    assert.equal(outcome.code, 0, outcome.stderr);
    const [c] = tagged();
    assert.equal(c.businessUnitId, BUNIT);
    const node = suite.emu.state().nodes.find((n) => n.consumerId === c.id)!;
    assert.equal(node.tsmName, TSM_NAME);
    assert.equal(node.cpuCount, CPU_COUNT, "the instance's CPU count");
    const password = fs.readFileSync(suite.passwordFile, "utf8");
    assert.equal(node.passwordHash, hashSecret(password, `node-${node.id}`), "the file holds the portal's node password");
    assert.equal(modeOf(suite.passwordFile), 0o600);
    assert.match(fs.readFileSync(suite.optionFile, "utf8"), new RegExp(`NODENAME\\s+${TSM_NAME}`));
    assert.match(outcome.stdout, /^created consumer \d+, created node, set node password, activated as WEB01-1A2B3C, wrote /);
    // The portal saw the reseller's account, not a tenant's.
    assert.ok(suite.emu.requests().some((r) => r.method === "POST" && r.path === "/v1/oauth" && r.status === 200));
    for (const text of [outcome.stdout, outcome.stderr, logs.join("\n")]) {
      assert.ok(!text.includes(password), "node password printed");
      for (const e of encodings(RESELLER.password)) assert.ok(!text.includes(e), "reseller password printed");
    }
  });

  it("the rendered user data holds no reseller credential, and its token is refused after use, for another instance, bunit, after an hour", async () => {
    const token = mint();
    const userData = renderRegistrationUserData({ broker: { url: broker.url, token }, integrity: `sha512-${"A".repeat(86)}==` });
    for (const e of encodings(RESELLER.password)) assert.ok(!userData.includes(e), `reseller password (as ${e}) in the user data`);
    assert.ok(!userData.includes(SECRET) && !userData.includes(Buffer.from(SECRET).toString("base64")), "broker secret in the user data");
    assert.doesNotMatch(userData, /BACKUP_PORTAL_(PASSWORD|USERNAME|CLIENT_ID)/);
    // The only credential in it is the token, in a 0600 file.
    const cfg = parseYaml(userData, { version: "1.1" }) as { write_files: Array<{ path: string; permissions: string; content: string }> };
    const tokenEntry = cfg.write_files.find((f) => f.content.trim() === token)!;
    assert.equal(tokenEntry.permissions, "0600");

    // Another instance presenting it first: it is claimed by the first; then the rightful instance is refused...
    const thief = await run(token, { uuid: OTHER_UUID, args: ["--dry-run"] });
    assert.equal(thief.code, 0, thief.stderr);
    const late = await run(token);
    assert.equal(late.code, 3, late.stderr);
    assert.match(late.stderr, /the registration broker refused the token: the registration token has been used already/);
    assert.deepEqual(tagged(), [], "nothing registered for the refused instance");

    // ...and a token registered once is spent, even for the instance that used it.
    const fresh = mint();
    assert.equal((await run(fresh)).code, 0);
    suite.emu.clearRequests();
    const replay = await run(fresh, { args: ["--rotate-password"] });
    assert.equal(replay.code, 3);
    assert.match(replay.stderr, /has been used already/);
    assert.deepEqual(writes(suite.emu), [], "a replayed token changes nothing");

    // Another business unit than the token's: refused, whatever the instance's metadata says.
    const other = await run(mint(), { uuid: OTHER_UUID, bunit: OTHER_BUNIT });
    assert.equal(other.code, 3);
    assert.match(other.stderr, /the registration token is for another business unit than the instance's backup_bunit/);
    assert.deepEqual(tagged(OTHER_UUID), []);
    assert.equal(
      suite.emu.state().consumers.filter((c) => c.businessUnitId === OTHER_BUNIT).length,
      1,
      "business unit 3 keeps its one consumer",
    );

    // An hour after it was minted: expired.
    const old = mint({ now: Date.now() - 3600_000 - 1000 });
    const expired = await run(old, { uuid: OTHER_UUID });
    assert.equal(expired.code, 3);
    assert.match(expired.stderr, /the registration token has expired/);

    // A token signed with another secret, or altered: not a token of this broker.
    const forged = mintRegistrationToken("another-secret-of-at-least-32-bytes!!", { businessUnitId: BUNIT });
    assert.match((await run(forged, { uuid: OTHER_UUID })).stderr, /not a token of this broker/);
    const t = mint({ businessUnitId: BUNIT });
    const payload = JSON.parse(Buffer.from(t.split(".")[1], "base64url").toString());
    const raised = `rt1.${Buffer.from(JSON.stringify({ ...payload, b: OTHER_BUNIT })).toString("base64url")}.${t.split(".")[2]}`;
    const altered = await run(raised, { uuid: OTHER_UUID, bunit: OTHER_BUNIT });
    assert.equal(altered.code, 3);
    assert.match(altered.stderr, /not a token of this broker/);
    assert.deepEqual(tagged(OTHER_UUID), []);
    assert.ok(!logs.join("\n").includes(t) && !logs.join("\n").includes(fresh), "tokens are never logged");
  });

  it("the instance that claimed a token may retry until it has registered (a portal failure at boot)", async () => {
    const token = mint();
    suite.emu.setFaults({ errorRate: 1, statuses: [500], match: { method: "POST", pathPrefix: `/v1/bunits/${BUNIT}/consumers` } });
    const failed = await run(token);
    suite.emu.clearFaults();
    assert.equal(failed.code, 1, failed.stderr);
    assert.ok(!fs.existsSync(suite.passwordFile), "no password file before the portal took one");
    const again = await run(token);
    assert.equal(again.code, 0, again.stderr);
    assert.equal(tagged().length, 1);
  });

  it("the password file moves into place only after the portal took the password; a failed move names the command", async () => {
    // The portal refuses the password: no file, no temp file.
    suite.emu.setFaults({
      errorRate: 1,
      statuses: [500],
      match: { method: "POST", pathPrefix: `/v1/bunits/${BUNIT}/consumers/4/node/password` },
    });
    const refused = await run(mint());
    suite.emu.clearFaults();
    assert.equal(refused.code, 1, refused.stderr);
    assert.deepEqual(fs.readdirSync(path.dirname(suite.passwordFile)), [], "no password file, no temp file");
    // The portal took it, the file cannot be moved in place (a directory there).
    // Put there after the flag check, while the portal (delayed) takes the password.
    suite.emu.setFaults({ latencyMs: 800, match: { method: "POST", pathPrefix: `/v1/bunits/${BUNIT}/consumers/` } });
    const [blocked] = await Promise.all([run(mint(), { uuid: OTHER_UUID }), blockWhenTempAppears(suite.passwordFile)]);
    suite.emu.clearFaults();
    assert.equal(blocked.code, 1, blocked.stderr);
    assert.match(
      blocked.stderr,
      /the node password was set on the portal but the password file .* could not be written .*run `backup-portal register --rotate-password --password-file /,
    );
    assert.deepEqual(fs.readdirSync(path.dirname(suite.passwordFile)), ["node-password"], "the temp file is removed");
  });

  it("a bad backup_* key is reported by the instance before the token is spent", async () => {
    const token = mint();
    fs.writeFileSync(tokenFile, token);
    const bad = await register([...files(), "--broker", broker.url, "--token-file", tokenFile], {
      doc: instanceDocument({ backup_bunit: String(BUNIT), backup_cpu_count: "many" }),
      env: {},
    });
    assert.equal(bad.code, 3);
    assert.match(bad.stderr, /backup_cpu_count/);
    assert.equal((await run(token)).code, 0, "the token is still good");
  });

  it("answers health checks, and fixed bodies for what it does not serve; refuses too large a body", async () => {
    const health = await fetch(`${broker.url}/healthz`);
    assert.equal(health.status, 200);
    assert.deepEqual(await health.json(), { status: "ok" });
    assert.equal((await fetch(`${broker.url}/v1/register`)).status, 405);
    assert.equal((await fetch(`${broker.url}/v1/other`, { method: "POST" })).status, 404);
    const big = await fetch(`${broker.url}/v1/register`, { method: "POST", body: "x".repeat(70 * 1024) });
    assert.equal(big.status, 413);
    const noToken = await fetch(`${broker.url}/v1/register`, {
      method: "POST",
      body: JSON.stringify({ instance: { uuid: UUID, name: "x", meta: { backup_bunit: "2" } }, cpuCount: 1 }),
    });
    assert.equal(noToken.status, 401);
    assert.deepEqual(await noToken.json(), { error: "the registration token is not a token of this broker", kind: "token" });
    assert.deepEqual(writes(suite.emu), []);
  });

  it("refuses to start with a short secret; --token-file needs --broker; --broker needs a token", async () => {
    await assert.rejects(startRegistrationBroker({ secret: "short", client }), /at least 32 bytes/);
    const doc = instanceDocument({ backup_bunit: "2" });
    const alone = await register(["--token-file", tokenFile], { doc, env: envFor(suite.emu, "tenant") });
    assert.equal(alone.code, 2);
    assert.match(alone.stderr, /--token-file goes with --broker <url>/);
    const none = await register([...files(), "--broker", broker.url], { doc, env: {} });
    assert.equal(none.code, 2);
    assert.match(none.stderr, /--broker needs the registration token: --token-file <path> or BACKUP_PORTAL_REGISTRATION_TOKEN/);
  });

  it("backup-portal registration-broker: the portal account and the secret only from the environment", async () => {
    const io = { out: "", err: "" };
    const capture = { out: (t: string) => void (io.out += t), err: (t: string) => void (io.err += t) };
    const env = { ...envFor(suite.emu, "admin"), [SECRET_ENV]: SECRET };
    const ledger = ["--ledger-file", path.join(suite.dir, "spent-tokens.json")];
    assert.equal(await brokerMain(["--port", "0", ...ledger], { ...env, [SECRET_ENV]: "too-short" }, capture), 2);
    assert.match(io.err, /REGISTRATION_BROKER_SECRET must hold at least 32 bytes/);
    assert.equal(await brokerMain(["--port", "0"], env, capture), 2);
    assert.match(io.err, /missing --ledger-file <path>/);
    const started = await brokerMain(["--port", "0", "--quiet", ...ledger], env, capture);
    assert.ok(typeof started !== "number", io.err);
    try {
      assert.match(io.out, /^registration broker listening on http:\/\/127\.0\.0\.1:\d+\n$/);
      fs.writeFileSync(tokenFile, mint());
      const outcome = await register([...files(), "--broker", started.url, "--token-file", tokenFile], {
        doc: instanceDocument({ backup_bunit: String(BUNIT) }),
        env: {},
      });
      assert.equal(outcome.code, 0, outcome.stderr);
    } finally {
      await started.close();
    }
    assert.ok(!io.out.includes(SECRET) && !io.err.includes(SECRET));
  });
});
