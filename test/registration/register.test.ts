// `backup-portal register` end to end: the portal emulator and the metadata
// service emulator over real HTTP on 127.0.0.1, files in temp dirs.
import assert from "node:assert/strict";
import * as fs from "fs";
import * as path from "path";
import { hashSecret } from "../../emulator/util";
import { registerInstance, RegistrationError } from "../../provider/registration";
import { startMetadataService } from "../../emulator/metadata-service";
import { clientFor, envFor, writes } from "../support/portal";
import {
  CPU_COUNT,
  instanceDocument,
  modeOf,
  Outcome,
  register,
  registrationSuite,
  startPortalProxy,
  tempDir,
  TSM_NAME,
  UUID,
} from "./helpers";

const TAG = `instance-uuid:${UUID}`;
const BUNIT = 2; // Tenant A, reachable by the "tenant" account

describe("registration: backup-portal register", function () {
  const suite = registrationSuite();
  const files = (): string[] => ["--option-file", suite.optionFile, "--password-file", suite.passwordFile];

  const run = (
    args: string[],
    meta: Record<string, string> | undefined,
    extra: { userData?: string | null; env?: NodeJS.ProcessEnv; doc?: Record<string, unknown> } = {},
  ): Promise<Outcome> =>
    register(args, { doc: extra.doc ?? instanceDocument(meta), userData: extra.userData, env: extra.env ?? envFor(suite.emu, "tenant") });

  const tagged = () => suite.emu.state().consumers.filter((c) => c.tags?.includes(TAG));
  const nodeOfConsumer = (consumerId: number) => suite.emu.state().nodes.find((n) => n.consumerId === consumerId);

  /** The node password from the password file must match the portal's, and appear nowhere else. */
  function assertPasswordKept(outcomes: Outcome[], consumerId: number): string {
    const password = fs.readFileSync(suite.passwordFile, "utf8");
    assert.match(password, /^[A-Za-z0-9_\-+.]{32}$/);
    assert.equal(modeOf(suite.passwordFile), 0o600);
    const node = nodeOfConsumer(consumerId)!;
    assert.equal(node.passwordHash, hashSecret(password, `node-${node.id}`), "the portal holds the password of the file");
    for (const o of outcomes) {
      assert.ok(!o.stdout.includes(password) && !o.stderr.includes(password), "password printed");
    }
    assert.ok(!fs.readFileSync(suite.optionFile, "utf8").includes(password), "password in the option file");
    return password;
  }

  it("registers a new instance: consumer, node, password, activation, option file (0600)", async () => {
    const first = await run(files(), { backup_bunit: String(BUNIT), backup_contact: "ops@example.com" });
    assert.equal(first.code, 0, first.stderr);

    const consumers = tagged();
    assert.equal(consumers.length, 1);
    const c = consumers[0];
    assert.equal(c.name, "web01");
    assert.equal(c.businessUnitId, BUNIT);
    const node = nodeOfConsumer(c.id)!;
    assert.ok(node, "node created");
    assert.deepEqual(
      {
        os: node.operatingSystemId,
        type: node.typeId,
        domain: node.domainId,
        cos: node.clientOptionSetId,
        cpu: node.cpuCount,
        contact: node.contact,
        tsm: node.tsmName,
      },
      { os: 3, type: 1, domain: 1, cos: 2, cpu: CPU_COUNT, contact: "ops@example.com", tsm: TSM_NAME },
    );
    assert.deepEqual(
      writes(suite.emu).map((w) => `${w.method} ${w.path.split("?")[0]}`),
      [
        `POST /v1/bunits/${BUNIT}/consumers`,
        `POST /v1/bunits/${BUNIT}/consumers/${c.id}/node`,
        `POST /v1/bunits/${BUNIT}/consumers/${c.id}/node/password`,
      ],
    );
    assert.ok(
      suite.emu.requests().some((r) => r.path.startsWith(`/v1/bunits/${BUNIT}/consumers/${c.id}/node/activate?tsmName=${TSM_NAME}`)),
    );

    assert.equal(modeOf(suite.optionFile), 0o600);
    const options = fs.readFileSync(suite.optionFile, "utf8");
    assert.match(options, new RegExp(`^NODENAME +${TSM_NAME}$`, "m"));
    assert.match(options, /^SERVERNAME +SP01$/m);
    assert.match(options, /^TCPSERVERADDRESS +sp01\.backup\.example$/m);
    assert.match(options, /^TCPPORT +1500$/m);
    assert.match(options, /^PASSWORDACCESS +GENERATE$/m);
    assert.deepEqual(fs.readdirSync(path.dirname(suite.optionFile)), ["dsm.opt"], "no temp file left behind");

    assert.equal(
      first.stdout.trim(),
      `created consumer ${c.id}, created node, set node password (saved to ${suite.passwordFile}), activated as ${TSM_NAME}, wrote ${suite.optionFile}`,
    );
    assert.match(first.stderr, /register: reading instance metadata/);
    assertPasswordKept([first], c.id);
  });

  it("a second run (or one after a reboot) writes nothing", async () => {
    const first = await run(files(), { backup_bunit: String(BUNIT) });
    assert.equal(first.code, 0, first.stderr);
    const password = fs.readFileSync(suite.passwordFile, "utf8");
    const optionsBefore = fs.statSync(suite.optionFile).mtimeMs;
    suite.emu.clearRequests();

    for (let i = 0; i < 2; i++) {
      const again = await run(files(), { backup_bunit: String(BUNIT) });
      assert.equal(again.code, 0, again.stderr);
      assert.match(
        again.stdout,
        new RegExp(`^already registered as ${TSM_NAME} \\(business unit ${BUNIT}, consumer \\d+\\); nothing to do\\n$`),
      );
    }
    assert.deepEqual(writes(suite.emu), [], "no POST/PUT/DELETE after the first run");
    assert.ok(!suite.emu.requests().some((r) => r.path.includes("/activate")), "no activation call either");
    assert.equal(tagged().length, 1);
    assert.equal(fs.readFileSync(suite.passwordFile, "utf8"), password, "password unchanged");
    assert.equal(fs.statSync(suite.optionFile).mtimeMs, optionsBefore, "option file not rewritten");

    const json = await run([...files(), "--json"], { backup_bunit: String(BUNIT) });
    const result = JSON.parse(json.stdout);
    assert.equal(result.status, "unchanged");
    assert.deepEqual(result.actions, []);
    assert.equal(result.tsmName, TSM_NAME);
    assert.deepEqual(result.optionFile, { path: suite.optionFile, written: false });
    assert.deepEqual(writes(suite.emu), []);
  });

  it("rewrites a missing option file without touching the portal", async () => {
    assert.equal((await run(files(), { backup_bunit: String(BUNIT) })).code, 0);
    fs.rmSync(suite.optionFile);
    suite.emu.clearRequests();
    const again = await run(files(), { backup_bunit: String(BUNIT) });
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, new RegExp(`already registered as ${TSM_NAME} .*; wrote ${suite.optionFile.replace(/[.]/g, "\\.")}`));
    assert.deepEqual(writes(suite.emu), []);
    assert.equal(modeOf(suite.optionFile), 0o600);
  });

  it("registers again after the node was deleted on the portal", async () => {
    assert.equal((await run(files(), { backup_bunit: String(BUNIT) })).code, 0);
    const old = tagged()[0];
    await clientFor(suite.emu, "tenant").nodes.delete(BUNIT, old.id);
    assert.equal(tagged().length, 0, "deleting the node removed the consumer");

    const again = await run(files(), { backup_bunit: String(BUNIT) });
    assert.equal(again.code, 0, again.stderr);
    const now = tagged();
    assert.equal(now.length, 1);
    assert.notEqual(now[0].id, old.id);
    assert.equal(nodeOfConsumer(now[0].id)?.tsmName, TSM_NAME);
    assert.match(again.stdout, new RegExp(`^created consumer ${now[0].id}, created node, set node password .*, activated as ${TSM_NAME}`));
    assertPasswordKept([again], now[0].id);
  });

  it("gives a consumer without a node its node (no second consumer)", async () => {
    const client = clientFor(suite.emu, "tenant");
    const c = await client.consumers.create(BUNIT, { name: "web01 (registered by hand)", tags: [TAG] });
    client.close();
    suite.emu.clearRequests();

    const outcome = await run(files(), { backup_bunit: String(BUNIT) });
    assert.equal(outcome.code, 0, outcome.stderr);
    assert.deepEqual(
      tagged().map((x) => x.id),
      [c.id],
    );
    assert.equal(nodeOfConsumer(c.id)?.tsmName, TSM_NAME);
    assert.ok(!writes(suite.emu).some((w) => w.method === "POST" && w.path === `/v1/bunits/${BUNIT}/consumers`), "no consumer created");
    assert.match(outcome.stdout, /^created node, set node password/);
    assertPasswordKept([outcome], c.id);
  });

  it("activates (with a fresh password) a node that exists but is not activated", async () => {
    const client = clientFor(suite.emu, "tenant");
    const c = await client.consumers.create(BUNIT, { name: "web01", tags: [TAG] });
    await client.nodes.create(BUNIT, c.id, { operatingSystem: { id: 3 }, type: { id: 1 }, domain: { id: 1 } });
    client.close();
    suite.emu.clearRequests();

    const outcome = await run(files(), { backup_bunit: String(BUNIT) });
    assert.equal(outcome.code, 0, outcome.stderr);
    assert.deepEqual(
      writes(suite.emu).map((w) => w.path),
      [`/v1/bunits/${BUNIT}/consumers/${c.id}/node/password`],
    );
    assert.equal(nodeOfConsumer(c.id)?.tsmName, TSM_NAME);
    assert.equal(
      outcome.stdout.trim(),
      `set node password (saved to ${suite.passwordFile}), activated as ${TSM_NAME}, wrote ${suite.optionFile}`,
    );
  });

  it("updates the node when an explicitly set key differs; defaults never change it", async () => {
    assert.equal((await run(files(), { backup_bunit: String(BUNIT) })).code, 0);
    const c = tagged()[0];
    suite.emu.clearRequests();
    const changed = await run(files(), { backup_bunit: String(BUNIT), backup_domain: "30DAYS", backup_cpu_count: "2" });
    assert.equal(changed.code, 0, changed.stderr);
    assert.match(changed.stdout, /^updated node \(domain, cpu count\)$/m);
    assert.deepEqual(
      writes(suite.emu).map((w) => `${w.method} ${w.path}`),
      [`PUT /v1/bunits/${BUNIT}/consumers/${c.id}/node`],
    );
    assert.equal(nodeOfConsumer(c.id)?.domainId, 2);
    assert.equal(nodeOfConsumer(c.id)?.cpuCount, 2);
    suite.emu.clearRequests();
    // Without the keys the defaults (STANDARD, this machine's CPU count) do not revert the node.
    const plain = await run(files(), { backup_bunit: String(BUNIT) });
    assert.match(plain.stdout, /nothing to do/);
    assert.deepEqual(writes(suite.emu), []);
  });

  it("--rotate-password sets a new password on a registered node, and only that", async () => {
    assert.equal((await run(files(), { backup_bunit: String(BUNIT) })).code, 0);
    const before = fs.readFileSync(suite.passwordFile, "utf8");
    suite.emu.clearRequests();
    const rotated = await run([...files(), "--rotate-password"], { backup_bunit: String(BUNIT) });
    assert.equal(rotated.code, 0, rotated.stderr);
    assert.deepEqual(
      writes(suite.emu).map((w) => w.path.split("/").pop()),
      ["password"],
    );
    const after = assertPasswordKept([rotated], tagged()[0].id);
    assert.notEqual(after, before);
  });

  it("--dry-run checks everything and changes nothing", async () => {
    const outcome = await run([...files(), "--dry-run"], { backup_bunit: String(BUNIT), backup_os: "windows SERVER" });
    assert.equal(outcome.code, 0, outcome.stderr);
    assert.equal(
      outcome.stdout.trim(),
      `dry run, would: create consumer "web01", create node, set node password, activate as ${TSM_NAME}, write ${suite.optionFile}`,
    );
    assert.deepEqual(writes(suite.emu), []);
    assert.ok(!fs.existsSync(suite.optionFile) && !fs.existsSync(suite.passwordFile));
  });

  it("takes the portal account from JSON user data; the environment wins per variable", async () => {
    const env = envFor(suite.emu, "tenant");
    const account = {
      url: env.BACKUP_PORTAL_URL,
      origin: env.BACKUP_PORTAL_ORIGIN,
      clientId: "emulator",
      username: "tenant",
      password: "tenant",
    };
    const fromUserData = await run(
      [...files(), "--json"],
      { backup_bunit: String(BUNIT) },
      { env: {}, userData: JSON.stringify({ backupPortal: account }) },
    );
    assert.equal(fromUserData.code, 0, fromUserData.stderr);
    const result = JSON.parse(fromUserData.stdout);
    assert.equal(result.status, "registered");
    assert.equal(result.credentialSources.password, "user data");

    // A wrong password in the user data is overridden by the environment.
    const wrong = JSON.stringify({ backupPortal: { ...account, password: "wrong-password" } });
    const overridden = await run(
      [...files(), "--json"],
      { backup_bunit: String(BUNIT) },
      { env: { BACKUP_PORTAL_PASSWORD: "tenant" }, userData: wrong },
    );
    assert.equal(overridden.code, 0, overridden.stderr);
    const r2 = JSON.parse(overridden.stdout);
    assert.equal(r2.status, "unchanged");
    assert.equal(r2.credentialSources.password, "environment");
    assert.equal(r2.credentialSources.url, "user data");

    // A refused account is a configuration error that never shows the password.
    const refused = await run(
      files(),
      { backup_bunit: String(BUNIT) },
      { env: { BACKUP_PORTAL_PASSWORD: "wrong-password" }, userData: JSON.stringify({ backupPortal: account }) },
    );
    assert.equal(refused.code, 3);
    assert.match(refused.stderr, /refused the account/);
    assert.ok(!refused.stderr.includes("wrong-password"));
  });

  describe("configuration errors: clear message, nothing created", () => {
    async function fails(
      meta: Record<string, string> | undefined,
      extra: { userData?: string | null; env?: NodeJS.ProcessEnv } = {},
    ): Promise<string> {
      suite.emu.clearRequests();
      const outcome = await run(files(), meta, extra);
      assert.equal(outcome.code, 3, `exit code; stderr: ${outcome.stderr}`);
      assert.deepEqual(writes(suite.emu), [], "no write on the portal");
      assert.equal(tagged().length, 0);
      assert.ok(!fs.existsSync(suite.optionFile) && !fs.existsSync(suite.passwordFile), "no files written");
      assert.match(outcome.stderr, /nothing was changed/);
      assert.equal(outcome.stdout, "");
      return outcome.stderr;
    }

    it("missing backup_bunit (no meta at all)", async () => {
      const err = await fails(undefined);
      assert.match(err, /backup_bunit is missing/);
      assert.match(err, /openstack server set --property backup_bunit=/);
      assert.deepEqual(suite.emu.requests(), [], "not even a portal read");
    });

    it("meta.dsmode disabled (cloud-init's off switch) stops it: exit 3, so the boot loop does not retry", async () => {
      const err = await fails({ backup_bunit: String(BUNIT), dsmode: "disabled" });
      assert.match(err, /the instance metadata sets dsmode=disabled, cloud-init's switch that turns this metadata source off/);
      assert.match(err, /openstack server unset --property dsmode <instance>/);
      assert.deepEqual(suite.emu.requests(), [], "not even a portal read");
    });

    it("a non-numeric backup_bunit", async () => {
      const err = await fails({ backup_bunit: "Tenant A" });
      assert.match(err, /backup_bunit must be a business unit id \(a positive integer up to 9007199254740991\), got "Tenant A"/);
      assert.deepEqual(suite.emu.requests(), []);
    });

    it("a business unit the account cannot reach, or that does not exist", async () => {
      assert.match(await fails({ backup_bunit: "3" }), /backup_bunit 3: the account .* may not reach business unit 3/);
      assert.match(
        await fails({ backup_bunit: "999" }, { env: envFor(suite.emu, "admin") }),
        /backup_bunit 999: the portal has no business unit with this id/,
      );
    });

    it("an unknown backup_os lists the valid names (and every bad name is reported)", async () => {
      const err = await fails({ backup_bunit: String(BUNIT), backup_os: "Solaris", backup_domain: "FOREVER" });
      assert.match(err, /backup_os: unknown operating system "Solaris"; valid: .*Windows server.*Linux/);
      assert.match(err, /backup_domain: unknown policy domain .* "FOREVER"; valid: STANDARD, 30DAYS/);
    });

    it("a bad backup_tsm_name, and a bad backup_cpu_count, together", async () => {
      const err = await fails({ backup_bunit: String(BUNIT), backup_tsm_name: "web 01!", backup_cpu_count: "many" });
      assert.match(err, /backup_tsm_name "web 01!" contains " ", "!"; allowed are letters, digits and _ \. - \+ &/);
      assert.match(err, /backup_cpu_count must be a whole number/);
      assert.deepEqual(suite.emu.requests(), []);
    });

    it("missing credentials name the variables and the user data format", async () => {
      const err = await fails({ backup_bunit: String(BUNIT) }, { env: {}, userData: "#cloud-config\nruncmd: []\n" });
      assert.match(err, /portal credentials are missing: url \(BACKUP_PORTAL_URL\), origin .*password \(BACKUP_PORTAL_PASSWORD\)/);
      assert.match(err, /"backupPortal"/);
      assert.match(err, /the user data is a #cloud-config document/);
      assert.deepEqual(suite.emu.requests(), []);
    });

    it("broken JSON user data is reported without quoting it", async () => {
      const err = await fails(
        { backup_bunit: String(BUNIT) },
        { env: {}, userData: '{"backupPortal": {"password": "s3cret-in-user-data",' },
      );
      assert.match(err, /not valid JSON/);
      assert.ok(!err.includes("s3cret-in-user-data"));
    });
  });

  it("a taken node name stops after the password, never shows it, and a rerun continues", async () => {
    // WEB-01 is the seeded node of consumer 1.
    const taken = await run(files(), { backup_bunit: String(BUNIT), backup_tsm_name: "web-01" });
    assert.equal(taken.code, 1);
    assert.match(
      taken.stderr,
      /cannot activate the node as WEB-01: another node is already named WEB-01; set another name with `openstack server set --property backup_tsm_name=/,
    );
    assert.match(taken.stderr, /done so far: created consumer \d+, created node, set node password/);
    const c = tagged()[0];
    const password = fs.readFileSync(suite.passwordFile, "utf8");
    assert.ok(!taken.stderr.includes(password) && !taken.stdout.includes(password));
    assert.ok(!fs.existsSync(suite.optionFile), "no option file before activation");
    suite.emu.clearRequests();

    const resumed = await run(files(), { backup_bunit: String(BUNIT), backup_tsm_name: "web01-prod" });
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.deepEqual(
      tagged().map((x) => x.id),
      [c.id],
    );
    assert.deepEqual(
      writes(suite.emu).map((w) => w.path.split("/").pop()),
      ["password"],
      "only a new password; no new consumer or node",
    );
    assert.equal(nodeOfConsumer(c.id)?.tsmName, "WEB01-PROD");
    assert.match(fs.readFileSync(suite.optionFile, "utf8"), /^NODENAME +WEB01-PROD$/m);
    assertPasswordKept([taken, resumed], c.id);
  });

  it("warns about unknown backup_* keys and a node name that cannot change", async () => {
    assert.equal((await run(files(), { backup_bunit: String(BUNIT) })).code, 0);
    const again = await run(files(), { backup_bunit: String(BUNIT), backup_domian: "30DAYS", backup_tsm_name: "OTHER" });
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stderr, /warning: unknown metadata key backup_domian ignored; known keys: backup_bunit/);
    assert.match(again.stderr, new RegExp(`warning: the node is activated as ${TSM_NAME}; backup_tsm_name OTHER is ignored`));
    assert.match(again.stdout, /nothing to do/);
  });

  it("without --password-file the password is set but kept nowhere, with a warning", async () => {
    const outcome = await run(["--option-file", suite.optionFile], { backup_bunit: String(BUNIT) });
    assert.equal(outcome.code, 0, outcome.stderr);
    assert.match(outcome.stdout, /^created consumer \d+, created node, set node password, activated as/);
    assert.match(outcome.stderr, /warning: the node password was set on the portal but kept nowhere/);
  });

  it("a portal failure while creating reports what was done; the rerun finishes", async () => {
    suite.emu.setFaults({ errorRate: 1, statuses: [500], match: { method: "POST", pathPrefix: `/v1/bunits/${BUNIT}/consumers/4/node` } });
    const failed = await run([...files(), "--json"], { backup_bunit: String(BUNIT) });
    suite.emu.clearFaults();
    assert.equal(failed.code, 1);
    const report = JSON.parse(failed.stdout);
    assert.equal(report.status, "failed");
    assert.deepEqual(report.done, ["created consumer 4"]);
    assert.match(report.error, /registration stopped after: created consumer 4: POST .* failed \(HTTP 500\)/);
    const again = await run(files(), { backup_bunit: String(BUNIT) });
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /^created node, set node password/);
    assert.deepEqual(
      tagged().map((c) => c.id),
      [4],
    );
  });

  it("unreadable metadata is exit code 1 and touches nothing", async () => {
    const svc = await startMetadataService({});
    const url = svc.url;
    await svc.close();
    const { run: cli } = await import("../../provider/cli/register");
    const out = { stdout: "", stderr: "" };
    const code = await cli(["--url", url, "--no-config-drive", "--timeout", "300", "--attempts", "1", ...files()], {
      out: (t) => {
        out.stdout += t;
      },
      err: (t) => {
        out.stderr += t;
      },
      env: envFor(suite.emu, "tenant"),
    });
    assert.equal(code, 1);
    assert.match(out.stderr, /cannot read the instance metadata; nothing was changed/);
    assert.deepEqual(suite.emu.requests(), []);
  });

  it("bad metadata reader options are bad arguments (exit 2, not retried), and touch nothing", async () => {
    for (const bad of [
      ["--platform", "a/b"],
      ["--api-version", ".."],
      ["--attempts", "9".repeat(400)],
    ]) {
      const outcome = await run([...files(), ...bad], { backup_bunit: String(BUNIT) });
      assert.equal(outcome.code, 2, `${bad.join(" ")}: ${outcome.stderr}`);
      assert.match(outcome.stderr, /^backup-portal register: /);
      assert.match(outcome.stderr, /usage: backup-portal register/);
      assert.equal(outcome.metadataRequests, 0);
    }
    assert.deepEqual(suite.emu.requests(), []);
    // The API says so too: kind "usage", not a metadata read failure.
    await assert.rejects(
      registerInstance({
        metadata: { url: "http://127.0.0.1:9", platform: "a/b", discoverConfigDrive: false },
        env: envFor(suite.emu, "tenant"),
        optionFile: false,
      }),
      (err: unknown) =>
        err instanceof RegistrationError && err.kind === "usage" && /platform must be a single non-empty path segment/.test(err.message),
    );
  });

  describe("two runs at the same time", () => {
    it("register the instance once: the second waits for the lock, then finds it registered", async () => {
      const svc = await startMetadataService({ metadata: instanceDocument({ backup_bunit: String(BUNIT) }) });
      const lockFile = path.join(suite.dir, "register.lock");
      const lines: string[][] = [[], []];
      suite.emu.setFaults({ latencyMs: 150 });
      try {
        const results = await Promise.all(
          lines.map((l) =>
            registerInstance({
              metadata: { url: svc.url, discoverConfigDrive: false },
              env: envFor(suite.emu, "tenant"),
              optionFile: false,
              cpuCount: () => 1,
              lockFile,
              progress: (line) => l.push(line),
            }),
          ),
        );
        assert.deepEqual(results.map((r) => r.status).sort(), ["registered", "unchanged"]);
        assert.equal(tagged().length, 1, "one consumer");
        assert.equal(suite.emu.state().nodes.filter((n) => n.consumerId === tagged()[0].id).length, 1, "one node");
        assert.deepEqual(
          results.map((r) => r.consumerId),
          [tagged()[0].id, tagged()[0].id],
        );
        const waiting = `waiting for another registration to finish (lock file ${lockFile}, held by pid ${process.pid} on `;
        assert.equal(lines.flat().filter((l) => l.startsWith(waiting)).length, 1, "one run waited, and said so");
        assert.ok(!fs.existsSync(lockFile), "the lock is removed");
      } finally {
        suite.emu.clearFaults();
        await svc.close();
      }
    });

    it("a lock held too long: a bounded wait, then an error naming the file; nothing changed; a failed run removes its lock", async () => {
      const lockFile = path.join(suite.dir, "register.lock");
      fs.writeFileSync(lockFile, "pid 4242 on elsewhere since 2020-01-01T00:00:00.000Z (0a1b2c)\n");
      const svc = await startMetadataService({ metadata: instanceDocument({ backup_bunit: String(BUNIT) }) });
      try {
        const started = Date.now();
        await assert.rejects(
          registerInstance({
            metadata: { url: svc.url, discoverConfigDrive: false },
            env: envFor(suite.emu, "tenant"),
            optionFile: false,
            lockFile,
            lockWaitMs: 300,
          }),
          (err: unknown) => {
            assert.ok(err instanceof RegistrationError);
            assert.equal(err.kind, "locked");
            assert.ok(
              err.message.startsWith(
                `another registration is running (lock file ${lockFile}, held by pid 4242 on elsewhere since 2020-01-01T00:00:00.000Z (0a1b2c); waited 0 s); nothing was changed.`,
              ),
              err.message,
            );
            assert.match(
              err.message,
              new RegExp(`the lock is stale \\(left by a run that was killed\\): remove ${lockFile.replace(/[.]/g, "\\.")} and run again$`),
            );
            return true;
          },
        );
        assert.ok(Date.now() - started < 5000);
        assert.deepEqual(suite.emu.requests(), [], "the portal was not even read");
        assert.ok(fs.existsSync(lockFile), "another run's lock is left alone");

        fs.rmSync(lockFile);
        suite.emu.setFaults({ errorRate: 1, statuses: [500], match: { method: "POST" } });
        await assert.rejects(
          registerInstance({
            metadata: { url: svc.url, discoverConfigDrive: false },
            env: envFor(suite.emu, "tenant"),
            optionFile: false,
            lockFile,
            portal: { maxAttempts: 1 },
          }),
          (err: unknown) => err instanceof RegistrationError && err.kind === "portal",
        );
        assert.ok(!fs.existsSync(lockFile), "a failed run removes its lock");
      } finally {
        suite.emu.clearFaults();
        await svc.close();
      }
    });

    it("a node name taken by this instance's own registration (another run's) is said so, not blamed on the name", async () => {
      let other: number | undefined;
      const proxy = await startPortalProxy(suite.emu.url, {
        // Just before this run activates its node, another run registers the instance and takes the name.
        before: async (req) => {
          if (other !== undefined || !req.path.includes("/node/activate")) return;
          const client = clientFor(suite.emu, "tenant");
          try {
            const c = await client.consumers.create(BUNIT, { name: "web01", tags: [TAG] });
            other = c.id;
            await client.nodes.create(BUNIT, c.id, { operatingSystem: { id: 3 }, type: { id: 1 }, domain: { id: 1 } });
            await client.nodes.activate(BUNIT, c.id, TSM_NAME);
          } finally {
            client.close();
          }
        },
      });
      try {
        const outcome = await run(
          files(),
          { backup_bunit: String(BUNIT) },
          { env: { ...envFor(suite.emu, "tenant"), BACKUP_PORTAL_URL: proxy.url } },
        );
        assert.equal(outcome.code, 1);
        const mine = tagged()
          .map((c) => c.id)
          .filter((id) => id !== other);
        assert.equal(mine.length, 1);
        assert.match(
          outcome.stderr,
          new RegExp(
            `cannot activate the node as ${TSM_NAME}: this instance is registered under that name already, as the node of consumer ${other}, ` +
              `most likely by another \`backup-portal register\` that ran at the same time\. Consumer ${mine[0]} of this run is a duplicate: delete it on the portal, ` +
              `then run again with --rotate-password`,
          ),
        );
        assert.ok(!/another node is already named/.test(outcome.stderr));
      } finally {
        await proxy.close();
      }
    });
  });

  it("finds its consumer when consumer lists carry no tags, even after the instance was renamed", async () => {
    assert.equal((await run(files(), { backup_bunit: String(BUNIT) })).code, 0);
    const c = tagged()[0];
    // A portal whose lists leave the tags out: only the full consumer has them.
    const proxy = await startPortalProxy(suite.emu.url, {
      rewrite: (req, body) => {
        if (req.method !== "GET" || !/^\/v1\/bunits\/\d+\/consumers$/.test(req.path.split("?")[0])) return body;
        const list = body as { items: Array<Record<string, unknown>> };
        return { ...list, items: list.items.map(({ tags: _tags, ...rest }) => rest) };
      },
    });
    suite.emu.clearRequests();
    try {
      const meta = { backup_bunit: String(BUNIT) };
      const again = await run(files(), meta, {
        env: { ...envFor(suite.emu, "tenant"), BACKUP_PORTAL_URL: proxy.url },
        doc: instanceDocument(meta, { name: "web01-renamed" }),
      });
      assert.equal(again.code, 0, again.stderr);
      assert.match(
        again.stdout,
        new RegExp(`^already registered as ${TSM_NAME} \\(business unit ${BUNIT}, consumer ${c.id}\\); nothing to do$`, "m"),
      );
      assert.deepEqual(writes(suite.emu), [], "no second consumer or node");
      assert.deepEqual(
        tagged().map((x) => x.id),
        [c.id],
      );
      assert.ok(
        suite.emu.requests().some((r) => r.method === "GET" && r.path.split("?")[0] === `/v1/bunits/${BUNIT}/consumers/${c.id}`),
        "read in full",
      );
    } finally {
      await proxy.close();
    }
  });

  it("hints to change the metadata say that the config drive keeps launch-time values (--no-config-drive)", async () => {
    const drive = (meta: Record<string, string>): string => {
      const d = tempDir();
      fs.mkdirSync(path.join(d, "openstack", "latest"), { recursive: true });
      fs.writeFileSync(path.join(d, "openstack", "latest", "meta_data.json"), JSON.stringify(instanceDocument(meta)));
      return d;
    };
    const note =
      /\nnote: this instance's metadata was read from its config drive, which keeps the values the instance was launched with: after changing a key with `openstack server set --property`, run again with --no-config-drive \(and without --config-drive\)/;
    // A local problem, and a name the portal does not know.
    const metas: Array<Record<string, string>> = [{}, { backup_bunit: String(BUNIT), backup_os: "Solaris" }];
    for (const meta of metas) {
      const fromDrive = await run([...files(), "--config-drive", drive(meta)], meta);
      assert.equal(fromDrive.code, 3, fromDrive.stderr);
      assert.match(fromDrive.stderr, note);
      const fromNetwork = await run(files(), meta);
      assert.equal(fromNetwork.code, 3, fromNetwork.stderr);
      assert.ok(!/config drive/.test(fromNetwork.stderr), fromNetwork.stderr);
    }
    // A taken name.
    const meta = { backup_bunit: String(BUNIT), backup_tsm_name: "web-01" };
    const taken = await run([...files(), "--config-drive", drive(meta)], meta);
    assert.equal(taken.code, 1);
    assert.match(
      taken.stderr,
      /another node is already named WEB-01; set another name with `openstack server set --property backup_tsm_name=<name> <instance>` and run again \(this instance's metadata was read from its config drive, .*--no-config-drive/,
    );
  });

  it("dsmode disabled on a config drive (cloud-init's DataSourceConfigDrive returns no source): exit 3, nothing read from the portal", async () => {
    // The meta of cloud-init's own case (tests/unittests/sources/test_openstack.py test_disabled_datasource), on a drive.
    const meta = { backup_bunit: String(BUNIT), dsmode: "disabled" };
    const d = tempDir();
    fs.mkdirSync(path.join(d, "openstack", "latest"), { recursive: true });
    fs.writeFileSync(path.join(d, "openstack", "latest", "meta_data.json"), JSON.stringify(instanceDocument(meta)));
    suite.emu.clearRequests();
    const outcome = await run([...files(), "--config-drive", d], meta);
    assert.equal(outcome.code, 3, outcome.stderr);
    assert.match(outcome.stderr, /dsmode=disabled, cloud-init's switch that turns this metadata source off/);
    assert.deepEqual(suite.emu.requests(), [], "not even a portal read");
    assert.ok(!fs.existsSync(suite.optionFile), "nothing written");
  });

  it("registerInstance (the API) answers a typed result and throws RegistrationError", async () => {
    const svc = await startMetadataService({ metadata: instanceDocument({ backup_bunit: String(BUNIT), backup_node_type: "2" }) });
    try {
      const lines: string[] = [];
      const result = await registerInstance({
        metadata: { url: svc.url, discoverConfigDrive: false },
        env: envFor(suite.emu, "tenant"),
        optionFile: false,
        cpuCount: () => 1,
        progress: (l) => lines.push(l),
      });
      assert.equal(result.status, "registered");
      assert.equal(result.tsmName, TSM_NAME);
      assert.equal(result.optionFile, undefined);
      assert.equal(nodeOfConsumer(result.consumerId!)?.typeId, 2, "node type by id");
      assert.ok(lines.some((l) => l.startsWith("activating the node as")));
      await assert.rejects(
        registerInstance({ metadata: { url: svc.url, discoverConfigDrive: false }, env: {}, optionFile: false }),
        (err: unknown) => err instanceof RegistrationError && err.kind === "configuration" && err.problems.length === 1,
      );
    } finally {
      await svc.close();
    }
  });
});
