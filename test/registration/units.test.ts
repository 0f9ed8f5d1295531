// The pure parts of self-registration: node names, metadata keys, credentials,
// node passwords and the 0600 file writes.
import assert from "node:assert/strict";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { tsmNameProblem } from "../../provider/portal";
import {
  acquireLock,
  credentialsFromUserData,
  defaultLockDir,
  defaultLockFile,
  deriveTsmName,
  generateNodePassword,
  LockBusyError,
  NODE_PASSWORD_ALPHABET,
  parseRegistrationMetadata,
  prepareSecretFile,
  releaseHeldLocks,
  renderOptionFile,
  resolveCredentials,
  uuidSuffix,
  writeSecretFile,
} from "../../provider/registration";
import { modeOf, md, removeTempDirs, tempDir, UUID } from "./helpers";

describe("registration: node names", () => {
  it("derives upper-case names with a stable uuid suffix", () => {
    assert.equal(uuidSuffix(UUID), "1A2B3C");
    assert.equal(deriveTsmName("web01", UUID), "WEB01-1A2B3C");
    assert.equal(deriveTsmName("Web Server #1 (prod)", UUID), "WEB-SERVER-1-PROD-1A2B3C");
    assert.equal(deriveTsmName("db_01.example.com", UUID), "DB_01.EXAMPLE.COM-1A2B3C");
    assert.equal(deriveTsmName("wörker–ß", UUID), "W-RKER-SS-1A2B3C");
    assert.equal(deriveTsmName("", UUID), "NODE-1A2B3C");
    assert.equal(deriveTsmName("!!!", UUID), "NODE-1A2B3C");
    assert.equal(deriveTsmName("web01", UUID), deriveTsmName("web01", UUID.toUpperCase()), "stable whatever the uuid's case");
  });

  it("keeps every derived name within the naming rules and 64 characters", () => {
    const names = ["x".repeat(200), `${"a".repeat(56)} b`, "-.-leading", "trailing.-", "a&b+c", "日本語のホスト"];
    for (const n of names) {
      const derived = deriveTsmName(n, UUID);
      assert.equal(tsmNameProblem(derived), undefined, `${n} -> ${derived}`);
      assert.ok(derived.length <= 64 && derived.endsWith("-1A2B3C"), derived);
      assert.ok(!/--/.test(derived), derived);
    }
  });

  it("hashes a uuid that is not canonical", () => {
    const s = uuidSuffix("instance-42");
    assert.match(s, /^[0-9A-F]{6}$/);
    assert.equal(s, uuidSuffix("instance-42"));
    assert.notEqual(s, uuidSuffix("instance-43"));
  });
});

describe("registration: metadata keys", () => {
  it("applies the defaults", () => {
    const { spec, problems } = parseRegistrationMetadata(md({ backup_bunit: "7" }), { cpuCount: () => 12 });
    assert.deepEqual(problems, []);
    assert.equal(spec!.businessUnitId, 7);
    assert.deepEqual(
      [spec!.operatingSystem.value, spec!.nodeType.value, spec!.domain.value, spec!.clientOptionSet.value],
      ["Linux", "File server", "STANDARD", "DEDUP_AND_COMPRESS"],
    );
    assert.equal(spec!.operatingSystem.explicit, false);
    assert.equal(spec!.cpuCount.value, 12);
    assert.equal(spec!.contact.value, undefined);
    assert.equal(spec!.tsmName.value, "WEB01-1A2B3C");
    assert.equal(spec!.consumerName, "web01");
  });

  it("reads every key, trimmed; backup_tsm_name is upper-cased", () => {
    const { spec } = parseRegistrationMetadata(
      md({
        backup_bunit: " 3 ",
        backup_os: "Windows server",
        backup_node_type: "Workstation",
        backup_domain: "30DAYS",
        backup_option_set: "FORCE_ENCRYPT",
        backup_contact: "ops@example.com",
        backup_cpu_count: "16",
        backup_tsm_name: "web01-prod",
      }),
    );
    assert.equal(spec!.businessUnitId, 3);
    assert.equal(spec!.operatingSystem.value, "Windows server");
    assert.ok(spec!.operatingSystem.explicit && spec!.cpuCount.explicit && spec!.tsmName.explicit);
    assert.equal(spec!.cpuCount.value, 16);
    assert.equal(spec!.tsmName.value, "WEB01-PROD");
    assert.equal(spec!.contact.value, "ops@example.com");
  });

  it("reports every problem with the key and the fix", () => {
    const { spec, problems } = parseRegistrationMetadata(
      md({ backup_bunit: "0", backup_cpu_count: "-1", backup_tsm_name: "x".repeat(65) }),
    );
    assert.equal(spec, undefined);
    assert.deepEqual(
      problems.map((p) => p.key),
      ["backup_bunit", "backup_cpu_count", "backup_tsm_name"],
    );
    assert.match(problems[2].message, /is 65 characters long/);
    for (const p of problems) assert.match(p.message, new RegExp(`openstack server set --property ${p.key}=`));
  });

  it("names the consumer after the instance, else the hostname, else the uuid; lists unknown backup_* keys", () => {
    assert.equal(parseRegistrationMetadata(md({ backup_bunit: "1" }, { name: "" })).spec!.consumerName, "web01");
    assert.equal(parseRegistrationMetadata(md({ backup_bunit: "1" }, { name: "", hostname: "" })).spec!.consumerName, UUID);
    assert.deepEqual(parseRegistrationMetadata(md({ backup_bunit: "1", backup_zone: "x", role: "web" })).spec!.unknownKeys, [
      "backup_zone",
    ]);
  });
});

describe("registration: portal credentials", () => {
  const account = {
    url: "https://portal.example.com/v1/",
    origin: "https://app.example.com",
    clientId: "c1",
    username: "bot",
    password: "pw-from-user-data",
  };
  const fullEnv = {
    BACKUP_PORTAL_URL: "https://env.example.com",
    BACKUP_PORTAL_ORIGIN: "https://o",
    BACKUP_PORTAL_CLIENT_ID: "c2",
    BACKUP_PORTAL_USERNAME: "u2",
    BACKUP_PORTAL_PASSWORD: "pw-from-env",
  };

  it("reads JSON user data and ignores other kinds of user data", () => {
    assert.deepEqual(credentialsFromUserData(JSON.stringify({ backupPortal: account })).values, account);
    assert.match(credentialsFromUserData("#cloud-config\n").notes[0], /#cloud-config/);
    assert.match(credentialsFromUserData("#!/bin/sh\n").notes[0], /a script/);
    assert.match(credentialsFromUserData(null).notes[0], /no user data/);
    assert.match(credentialsFromUserData('{"other": 1}').notes[0], /without a "backupPortal" key/);
    assert.match(credentialsFromUserData('{"backupPortal": [1]}').problems[0], /must be an object/);
    assert.match(credentialsFromUserData('{"backupPortal": {"password": 5}}').problems[0], /backupPortal\.password" .* must be a string/);
  });

  it("prefers the environment per variable and normalizes the url", () => {
    const r = resolveCredentials({ BACKUP_PORTAL_PASSWORD: "pw-from-env" }, JSON.stringify({ backupPortal: account }));
    assert.deepEqual(r.problems, []);
    assert.equal(r.credentials!.settings.password, "pw-from-env");
    assert.equal(r.credentials!.settings.url, "https://portal.example.com");
    assert.equal(r.credentials!.sources.password, "environment");
    assert.equal(r.credentials!.sources.username, "user data");
    const envOnly = resolveCredentials(fullEnv, null);
    assert.equal(envOnly.credentials!.settings.clientId, "c2");
  });

  it("names what is missing and never shows a password", () => {
    const r = resolveCredentials({ BACKUP_PORTAL_PASSWORD: "pw-from-env" }, null);
    assert.equal(r.credentials, undefined);
    assert.match(
      r.problems[0],
      /url \(BACKUP_PORTAL_URL\), origin \(BACKUP_PORTAL_ORIGIN\), clientId \(BACKUP_PORTAL_CLIENT_ID\), username \(BACKUP_PORTAL_USERNAME\)\./,
    );
    assert.ok(!r.problems[0].includes("pw-from-env"));
    const bad = resolveCredentials({ ...fullEnv, BACKUP_PORTAL_URL: "ftp://x" }, null);
    assert.match(bad.problems[0], /not an http\(s\) URL/);
  });
});

describe("registration: node passwords", () => {
  it("are 32 characters of the allowed alphabet with every class, and differ", () => {
    const seen = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const pw = generateNodePassword();
      assert.equal(pw.length, 32);
      for (const ch of pw) assert.ok(NODE_PASSWORD_ALPHABET.includes(ch), ch);
      for (const re of [/[A-Z]/, /[a-z]/, /[0-9]/, /[_\-+.]/]) assert.match(pw, re);
      seen.add(pw);
    }
    assert.equal(seen.size, 200);
    assert.equal(generateNodePassword(64).length, 64);
    assert.throws(() => generateNodePassword(65), RangeError);
    assert.throws(() => generateNodePassword(4), RangeError);
  });
});

describe("registration: files", () => {
  after(removeTempDirs);

  it("renders the option file", () => {
    const text = renderOptionFile({
      serverName: "SP01",
      serverAddress: "sp01.example",
      serverPort: 1600,
      nodeName: "WEB01-1A2B3C",
      comments: ["hello"],
    });
    assert.equal(
      text,
      [
        "* hello",
        "SERVERNAME        SP01",
        "TCPSERVERADDRESS  sp01.example",
        "TCPPORT           1600",
        "NODENAME          WEB01-1A2B3C",
        "PASSWORDACCESS    GENERATE",
        "",
      ].join("\n"),
    );
    assert.match(renderOptionFile({ serverName: "SP01", serverAddress: "a", nodeName: "N" }), /^TCPPORT +1500$/m);
    assert.throws(() => renderOptionFile({ serverName: "SP01", serverAddress: "a\nb", nodeName: "N" }), /one non-empty line/);
  });

  it("writes 0600 files atomically whatever the umask, and skips identical content", async () => {
    const dir = tempDir();
    const file = path.join(dir, "a", "b", "dsm.opt");
    const old = process.umask(0);
    try {
      assert.equal(await writeSecretFile(file, "one\n"), true);
    } finally {
      process.umask(old);
    }
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    assert.equal(await writeSecretFile(file, "one\n"), false);
    fs.chmodSync(file, 0o644);
    assert.equal(await writeSecretFile(file, "one\n"), true, "a wrong mode is repaired");
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    assert.equal(await writeSecretFile(file, "two\n"), true);
    assert.equal(fs.readFileSync(file, "utf8"), "two\n");
    assert.deepEqual(fs.readdirSync(path.dirname(file)), ["dsm.opt"]);
  });

  it("a prepared write is invisible until committed, and abort leaves nothing", async () => {
    const dir = tempDir();
    const file = path.join(dir, "pw");
    fs.writeFileSync(file, "old");
    const pending = await prepareSecretFile(file, "new");
    assert.equal(fs.readFileSync(file, "utf8"), "old");
    await pending.abort();
    assert.deepEqual(fs.readdirSync(dir), ["pw"]);
    assert.equal(fs.readFileSync(file, "utf8"), "old");
    const second = await prepareSecretFile(file, "new");
    await second.commit();
    assert.equal(fs.readFileSync(file, "utf8"), "new");
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    assert.deepEqual(fs.readdirSync(dir), ["pw"]);
  });
});

describe("registration: lock file", () => {
  after(removeTempDirs);

  it("is named after the business unit, in /run when writable, else the temp dir", () => {
    assert.equal(defaultLockFile(7, "/x"), "/x/backup-portal-register-bunit-7.lock");
    assert.ok(["/run", os.tmpdir()].includes(defaultLockDir()));
    assert.equal(defaultLockFile(7), path.join(defaultLockDir(), "backup-portal-register-bunit-7.lock"));
  });

  it("is exclusive: a second taker waits a bounded time; release removes only its own file", async () => {
    const file = path.join(tempDir(), "bu.lock");
    const lock = await acquireLock(file);
    assert.match(fs.readFileSync(file, "utf8"), new RegExp(`^pid ${process.pid} on .* since \\d{4}-`));
    assert.equal(modeOf(file), 0o600);
    const started = Date.now();
    await assert.rejects(
      acquireLock(file, { waitMs: 150 }),
      (err: unknown) => err instanceof LockBusyError && err.file === file && err.holder!.startsWith(`pid ${process.pid}`),
    );
    assert.ok(Date.now() - started >= 140 && Date.now() - started < 3000);
    lock.release();
    assert.ok(!fs.existsSync(file));
    // Taken by someone else after a stale lock was removed by hand: not ours to remove.
    const again = await acquireLock(file);
    fs.writeFileSync(file, "pid 1 on elsewhere\n");
    again.release();
    assert.equal(fs.readFileSync(file, "utf8"), "pid 1 on elsewhere\n");
    await assert.rejects(acquireLock(file, { waitMs: Infinity }), RangeError);
    await assert.rejects(acquireLock(path.join(file, "no-dir", "x.lock")), /ENOTDIR|ENOENT/);
  });

  it("releaseHeldLocks (for a signal handler) removes every lock this process holds, and only its own", async () => {
    const dir = tempDir();
    const [a, b, c] = ["a.lock", "b.lock", "c.lock"].map((n) => path.join(dir, n));
    await acquireLock(a);
    await acquireLock(b);
    const released = await acquireLock(c);
    released.release();
    fs.writeFileSync(c, "pid 1 on elsewhere\n"); // taken by another run since
    fs.writeFileSync(b, "pid 2 on elsewhere\n"); // removed by hand and taken by another run
    releaseHeldLocks();
    assert.ok(!fs.existsSync(a));
    assert.equal(fs.readFileSync(b, "utf8"), "pid 2 on elsewhere\n");
    assert.equal(fs.readFileSync(c, "utf8"), "pid 1 on elsewhere\n");
    releaseHeldLocks(); // nothing held: nothing happens
    assert.equal(fs.readdirSync(dir).sort().join(), "b.lock,c.lock");
  });
});
