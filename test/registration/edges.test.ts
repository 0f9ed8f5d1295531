// The edges of self-registration's pure parts, in process (they are in Stryker's spec list): each case pins a
// boundary, a message or a step that a wrong change would move, found by mutation testing on 2026-11-25.
import assert from "node:assert/strict";
import { createHash } from "crypto";
import * as fs from "fs";
import fsModule = require("fs");
import * as os from "os";
import * as path from "path";
import {
  acquireLock,
  consumerNameFor,
  credentialsFromUserData,
  defaultLockDir,
  deriveTsmName,
  generateNodePassword,
  instanceTag,
  LockBusyError,
  NODE_PASSWORD_ALPHABET,
  parseRegistrationMetadata,
  prepareSecretFile,
  releaseHeldLocks,
  renderOptionFile,
  resolveCredentials,
  uuidSuffix,
} from "../../provider/registration";
import {
  checkNodeBuild,
  isPinnedSpec,
  DEFAULT_NODE_BUILD,
  ownPackage,
  registryIntegrity,
  renderBootScript,
} from "../../provider/registration/boot-script";
import { md, removeTempDirs, tempDir, UUID } from "./helpers";

/** The end of every hint to set a metadata key. */
const HINT = "(or in the instance's metadata in your Pulumi program)";
const problemsOf = (meta: Record<string, string>) => parseRegistrationMetadata(md(meta), { cpuCount: () => 2 }).problems;
const specOf = (meta: Record<string, string>, cpuCount?: () => number) => {
  const r = parseRegistrationMetadata(md({ backup_bunit: "3", ...meta }), cpuCount ? { cpuCount } : {});
  assert.deepEqual(r.problems, []);
  return r.spec!;
};

describe("registration edges: metadata keys and names", () => {
  it("the instance tag and the uuid suffix take the uuid trimmed and in either case; other uuids are hashed", () => {
    assert.equal(instanceTag(`  ${UUID.toUpperCase()} `), `instance-uuid:${UUID}`);
    assert.equal(uuidSuffix(` ${UUID.toUpperCase()} `), "1A2B3C");
    assert.equal(uuidSuffix(UUID.replace(/-/g, "")), "1A2B3C", "a uuid without dashes is still canonical");
    const hashed = (text: string) => createHash("sha256").update(text).digest("hex").slice(0, 6).toUpperCase();
    for (const odd of ["abcde", "x1a2b3c4d-5e6f", "1a2b3c4d-xyzw", "1a2b3c4d-5xyz", "1a2b3c4"])
      assert.equal(uuidSuffix(odd), hashed(odd), odd);
  });

  it("derived names lose every leading and trailing dot or dash; consumer names are trimmed and cut at 200", () => {
    assert.equal(deriveTsmName("..--web01.-.", UUID), "WEB01-1A2B3C");
    assert.equal(consumerNameFor({ name: "  web01  ", hostname: "h", uuid: UUID }), "web01");
    assert.equal(consumerNameFor({ name: " ", hostname: "  host.example ", uuid: UUID }), "host");
    assert.equal(consumerNameFor({ name: "n".repeat(300), hostname: "h", uuid: UUID }), "n".repeat(200));
  });

  it("a missing or non-numeric business unit is a problem naming the key and the fix; digits only", () => {
    const missing = problemsOf({});
    assert.equal(missing.length, 1);
    assert.equal(missing[0].key, "backup_bunit");
    assert.match(
      missing[0].message,
      /^backup_bunit is missing: it names the business unit to register in, by id; set it with `openstack server set --property backup_bunit=<business unit id> <instance>`/,
    );
    // Beyond 2^53 - 1 the digits would be read as another id: 9007199254740993 as …992.
    for (const bad of ["x12", "12x", "0", "1.5", "9007199254740992", "9007199254740993", "9".repeat(20)]) {
      const [p] = problemsOf({ backup_bunit: bad });
      assert.equal(p?.key, "backup_bunit", bad);
      assert.equal(
        p.message,
        `backup_bunit must be a business unit id (a positive integer up to 9007199254740991), got ${JSON.stringify(bad)}; names are not accepted because they ` +
          `are not unique; set it with \`openstack server set --property backup_bunit=<business unit id> <instance>\` ${HINT}`,
      );
    }
    assert.equal(specOf({ backup_bunit: "12" }).businessUnitId, 12);
    assert.equal(specOf({ backup_bunit: "9007199254740991" }).businessUnitId, 9007199254740991);
  });

  it("a blank key is absent (default, not explicit); a set key is trimmed and explicit", () => {
    const s = specOf({ backup_os: "   ", backup_contact: " ", backup_domain: " D1 " });
    assert.deepEqual(s.operatingSystem, { key: "backup_os", value: "Linux", explicit: false });
    assert.deepEqual(s.contact, { key: "backup_contact", value: undefined, explicit: false });
    assert.deepEqual(s.domain, { key: "backup_domain", value: "D1", explicit: true });
    assert.deepEqual(specOf({ backup_contact: "ops" }).contact, { key: "backup_contact", value: "ops", explicit: true });
    assert.equal(specOf({}).tsmName.explicit, false);
  });

  it("the CPU count: this machine's when absent (a broken count is 1); 1 to 100000 when set", () => {
    assert.deepEqual(specOf({}).cpuCount, { key: "backup_cpu_count", value: os.cpus().length || 1, explicit: false });
    for (const [n, want] of [
      [3, 3],
      [0, 1],
      [-2, 1],
      [2.5, 1],
    ])
      assert.equal(specOf({}, () => n).cpuCount.value, want, String(n));
    assert.equal(specOf({ backup_cpu_count: "1" }).cpuCount.value, 1);
    assert.equal(specOf({ backup_cpu_count: "100000" }).cpuCount.value, 100000);
    for (const bad of ["0", "100001", "a1", "1a"]) {
      const [p] = problemsOf({ backup_bunit: "3", backup_cpu_count: bad });
      assert.equal(p?.key, "backup_cpu_count", bad);
      assert.equal(
        p.message,
        `backup_cpu_count must be a whole number from 1 to 100000, got ${JSON.stringify(bad)}; set it with ` +
          `\`openstack server set --property backup_cpu_count=4 <instance>\` ${HINT} or remove it to use this instance's CPU count`,
      );
    }
  });

  it("a contact of 500 characters is taken, 501 is a problem; a bad node name names the derived one; unknown keys sorted", () => {
    assert.equal(specOf({ backup_contact: "c".repeat(500) }).contact.value, "c".repeat(500));
    assert.deepEqual(problemsOf({ backup_bunit: "3", backup_contact: "c".repeat(501) }), [
      { key: "backup_contact", message: "backup_contact is 501 characters long; at most 500 are allowed" },
    ]);
    const [p] = problemsOf({ backup_bunit: "3", backup_tsm_name: "a b" });
    assert.match(
      p.message,
      /^backup_tsm_name "a b" .*; set it with `openstack server set --property backup_tsm_name=WEB01 <instance>` .* or remove it to use the derived name WEB01-1A2B3C$/,
    );
    assert.deepEqual(specOf({ backup_zz: "1", backup_aa: "2", other: "3" }).unknownKeys, ["backup_aa", "backup_zz"]);
  });
});

describe("registration edges: portal credentials", () => {
  const ENV = {
    BACKUP_PORTAL_URL: "https://portal.example",
    BACKUP_PORTAL_ORIGIN: "https://o.example",
    BACKUP_PORTAL_CLIENT_ID: "c",
    BACKUP_PORTAL_USERNAME: "u",
    BACKUP_PORTAL_PASSWORD: "p",
  };

  it("says what kind of user data holds no account, whatever the whitespace around it", () => {
    const note = (ud: string | null) => credentialsFromUserData(ud).notes;
    assert.deepEqual(note(null), ["the instance has no user data"]);
    assert.deepEqual(note("  #cloud-config\nruncmd: []"), ["the user data is a #cloud-config document, so it holds no portal account"]);
    assert.deepEqual(note("runcmd: [] #cloud-config"), ["the user data is not a JSON object, so it holds no portal account"]);
    assert.deepEqual(note("#!/bin/sh\necho hi"), ["the user data is a script, so it holds no portal account"]);
    assert.deepEqual(note("   "), ["the user data is empty, so it holds no portal account"]);
    assert.deepEqual(credentialsFromUserData(`  \n{"backupPortal": {"url": "https://x"}}  `).values, { url: "https://x" });
  });

  it("broken JSON, a block that is not an object, a value that is not a string: problems, never quoting the text", () => {
    const secret = "S3cr3t-in-user-data";
    const broken = credentialsFromUserData(`{"backupPortal": {"password": "${secret}"`);
    assert.deepEqual(broken.problems, [
      `the user data starts with "{" but is not valid JSON; fix it or give the account through BACKUP_PORTAL_* variables`,
    ]);
    for (const block of ["null", "[]", '"x"', "3"]) {
      assert.deepEqual(
        credentialsFromUserData(`{"backupPortal": ${block}}`).problems,
        [`"backupPortal" in the user data must be an object {url, origin, clientId, username, password}`],
        block,
      );
    }
    const mixed = credentialsFromUserData(`{"backupPortal": {"url": null, "origin": "", "username": 5, "password": "${secret}"}}`);
    assert.deepEqual(mixed.problems, [`"backupPortal.username" in the user data must be a string`]);
    assert.deepEqual(mixed.values, { password: secret });
    // The problems of the user data reach the caller, with the missing settings and why they are missing.
    const r = resolveCredentials({}, `{"backupPortal": []}`);
    assert.equal(r.credentials, undefined);
    assert.equal(r.problems[0], `"backupPortal" in the user data must be an object {url, origin, clientId, username, password}`);
    assert.match(r.problems[1], /^portal credentials are missing: url \(BACKUP_PORTAL_URL\), origin \(BACKUP_PORTAL_ORIGIN\), clientId/);
    // A backupPortal block without some settings: no notes, so nothing in brackets after the format.
    assert.ok(
      resolveCredentials({}, '{"backupPortal": {}}').problems[0].endsWith(
        '{"backupPortal": {"url", "origin", "clientId", "username", "password"}}',
      ),
    );
    assert.ok(
      resolveCredentials({}, null).problems[0].includes(
        "Export the BACKUP_PORTAL_* variables (e.g. from a 0600 env file, as the Pulumi helper registrationUserData does), or launch the instance with JSON user data",
      ),
    );
    const noted = resolveCredentials({}, "#!/bin/sh");
    assert.match(noted.problems[0], / \(the user data is a script, so it holds no portal account\)$/);
    assert.match(
      resolveCredentials({}, "{}").problems[0],
      /\{"backupPortal": \{"url", "origin", "clientId", "username", "password"\}\} \(the user data is JSON without a "backupPortal" key\)$/,
    );
  });

  it("an empty variable falls back to the user data; http and https URLs are taken, others refused", () => {
    const r = resolveCredentials({ ...ENV, BACKUP_PORTAL_USERNAME: "" }, '{"backupPortal": {"username": "from-ud"}}');
    assert.equal(r.credentials?.settings.username, "from-ud");
    assert.equal(r.credentials?.sources.username, "user data");
    for (const url of ["http://portal.example", "https://portal.example"])
      assert.equal(resolveCredentials({ ...ENV, BACKUP_PORTAL_URL: url }, null).credentials?.settings.url, url);
    for (const url of ["ftp://portal.example", "not a url"]) {
      const bad = resolveCredentials({ ...ENV, BACKUP_PORTAL_URL: url }, null);
      assert.equal(bad.credentials, undefined, url);
      assert.deepEqual(bad.problems, [
        `the portal url from the environment is not an http(s) URL: ${JSON.stringify(url)}; use e.g. https://portal.example.com`,
      ]);
    }
    const cut = (url: string) => resolveCredentials({ ...ENV, BACKUP_PORTAL_URL: url }, null).credentials?.settings.url;
    assert.equal(cut("https://portal.example//"), "https://portal.example");
    assert.equal(cut("https://portal.example/v1//"), "https://portal.example");
    assert.equal(cut("https://portal.example/v10"), "https://portal.example/v10");
    assert.equal(cut("https://portal.example/v1x/v1"), "https://portal.example/v1x");
  });
});

describe("registration edges: files", () => {
  after(removeTempDirs);

  it("a temp file that cannot be written (a full disk) is removed and the error passed on", async () => {
    const dir = tempDir();
    const open = fs.promises.open;
    // The one fault a temp dir cannot produce: the write after a successful open fails.
    fs.promises.open = async (...args: Parameters<typeof open>) => {
      const fh = await open(...args);
      fh.writeFile = () => Promise.reject(Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" }));
      return fh;
    };
    try {
      await assert.rejects(prepareSecretFile(path.join(dir, "secret"), "x"), /^Error: ENOSPC/);
    } finally {
      fs.promises.open = open;
    }
    assert.deepEqual(fs.readdirSync(dir), []);
  });

  it("the option file quotes a value with spaces, names the option it refuses, and flattens comment line breaks", () => {
    const text = renderOptionFile({ serverName: "SP 01", serverAddress: "a", nodeName: "N", comments: ["one\r\ntwo\nthree"] });
    assert.match(text, /^\* one two three\nSERVERNAME {8}"SP 01"\n/);
    assert.match(renderOptionFile({ serverName: "S", serverAddress: "a", nodeName: "N" }), /^SERVERNAME/, "no comments: no comment line");
    for (const [field, name] of [
      ["serverName", "SERVERNAME"],
      ["serverAddress", "TCPSERVERADDRESS"],
      ["nodeName", "NODENAME"],
    ] as const) {
      const v = { serverName: "S", serverAddress: "a", nodeName: "N", [field]: "" };
      assert.throws(() => renderOptionFile(v), new RegExp(`^Error: option file: ${name} must be one non-empty line, got ""$`));
    }
  });

  it("a prepared write commits once; abort after commit, or after its temp file vanished, changes nothing", async () => {
    const dir = tempDir();
    const file = path.join(dir, "pw");
    const first = await prepareSecretFile(file, "one");
    await first.commit();
    await first.commit();
    await first.abort();
    assert.equal(fs.readFileSync(file, "utf8"), "one");
    const second = await prepareSecretFile(file, "two");
    for (const n of fs.readdirSync(dir)) if (n !== "pw") fs.rmSync(path.join(dir, n));
    await second.abort();
    assert.deepEqual(fs.readdirSync(dir), ["pw"]);
  });

  it("a commit that cannot move the file in place fails and leaves no temp file", async () => {
    const dir = tempDir();
    const file = path.join(dir, "pw");
    const pending = await prepareSecretFile(file, "secret");
    fs.mkdirSync(path.join(file, "blocker"), { recursive: true });
    await assert.rejects(pending.commit(), /EISDIR|ENOTEMPTY|EEXIST/);
    assert.deepEqual(fs.readdirSync(dir), ["pw"]);
  });
});

describe("registration edges: lock file", () => {
  after(removeTempDirs);

  it("a lock file that cannot be written after it was created (a full disk) is removed and the error passed on", async () => {
    const file = path.join(tempDir(), "r.lock");
    // The module itself: `import * as` gives a copy with getters only.
    const writeSync = fsModule.writeSync;
    fsModule.writeSync = () => {
      throw Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
    };
    try {
      await assert.rejects(acquireLock(file, { waitMs: 0 }), /^Error: ENOSPC/);
    } finally {
      fsModule.writeSync = writeSync;
    }
    assert.ok(!fs.existsSync(file), "no lock left behind");
    (await acquireLock(file, { waitMs: 0 })).release();
  });

  it("the lock directory is /run exactly when it is writable", () => {
    let writable = true;
    try {
      fs.accessSync("/run", fs.constants.W_OK);
    } catch {
      writable = false;
    }
    assert.equal(defaultLockDir(), writable ? "/run" : os.tmpdir());
  });

  it("a wait of 0 tries once; a negative wait is refused; the busy error says who holds it and how long it waited", async () => {
    const file = path.join(tempDir(), "bu.lock");
    const lock = await acquireLock(file, { waitMs: 0 });
    fs.writeFileSync(file, `  ${"h".repeat(300)}  \nsecond line\n`);
    const started = Date.now();
    await assert.rejects(acquireLock(file, { waitMs: 0 }), (err: unknown) => {
      assert.ok(err instanceof LockBusyError);
      assert.equal(err.name, "LockBusyError");
      assert.equal(err.holder, "h".repeat(200));
      assert.equal(err.message, `lock file ${file} is held by ${"h".repeat(200)}`);
      return true;
    });
    await assert.rejects(acquireLock(file, { waitMs: 200 }), (err: unknown) => {
      assert.ok(err instanceof LockBusyError);
      assert.ok(err.waitedMs >= 190 && err.waitedMs <= Date.now() - started, String(err.waitedMs));
      return true;
    });
    await assert.rejects(acquireLock(file, { waitMs: -1 }), /^RangeError: lock wait must be a number of ms >= 0, got -1$/);
    lock.release();
    assert.ok(fs.existsSync(file), "a lock file that no longer holds this run's content is not removed");
    fs.rmSync(file);
    // A lock whose holder cannot be read (here: a directory in its place) is busy, held by nobody known.
    fs.mkdirSync(file);
    await assert.rejects(acquireLock(file, { waitMs: 0 }), (err: unknown) => {
      assert.ok(err instanceof LockBusyError);
      assert.equal(err.holder, undefined);
      assert.equal(err.message, `lock file ${file} is held`);
      return true;
    });
  });

  it("a waiting run says so once, and takes the lock within a poll of its release", async () => {
    const file = path.join(tempDir(), "bu.lock");
    const lock = await acquireLock(file);
    const said: Array<string | undefined> = [];
    const started = Date.now();
    setTimeout(() => lock.release(), 300);
    const second = await acquireLock(file, { waitMs: 20_000, onWait: (h) => said.push(h) });
    const took = Date.now() - started;
    assert.equal(said.length, 1);
    assert.match(said[0]!, new RegExp(`^pid ${process.pid} on `));
    assert.ok(took >= 290 && took < 5000, `${took} ms`);
    second.release();
  });

  it("releasing an old handle after the file was taken again leaves the new lock held, and releaseHeldLocks removes it", async () => {
    const file = path.join(tempDir(), "bu.lock");
    const old = await acquireLock(file);
    old.release();
    await acquireLock(file);
    old.release();
    assert.ok(fs.existsSync(file), "the new lock is not the old handle's to remove");
    releaseHeldLocks();
    assert.ok(!fs.existsSync(file), "the new lock is still known as held");
  });
});

describe("registration edges: node passwords", () => {
  it("8 characters is the shortest; every character is about as likely as every other (no modulo bias)", () => {
    assert.equal(generateNodePassword(8).length, 8);
    assert.throws(() => generateNodePassword(7), /^RangeError: node password length must be 8 to 64, got 7$/);
    const counts = new Map<string, number>([...NODE_PASSWORD_ALPHABET].map((c) => [c, 0]));
    for (let i = 0; i < 6000; i++) for (const c of generateNodePassword()) counts.set(c, counts.get(c)! + 1);
    // Letters and digits only: the symbols are more frequent by design (a password without one is drawn again).
    const values = [...counts].filter(([c]) => /[A-Za-z0-9]/.test(c)).map(([, n]) => n);
    // 192000 characters, about 2880 each (standard deviation 54): a byte taken modulo 66 without dropping the
    // top of the range makes the first 58 characters a third more likely, one extra byte value 'A' alone.
    assert.ok(Math.max(...values) / Math.min(...values) < 1.2, JSON.stringify(Object.fromEntries(counts)));
  });

  it("every password holds an upper-case and a lower-case letter, a digit and a symbol, even the shortest", () => {
    // At 8 characters about two draws in three lack one class: each such draw must be drawn again.
    for (let i = 0; i < 300; i++) {
      const p = generateNodePassword(8);
      assert.match(p, /^(?=.*[A-Z])(?=.*[a-z])(?=.*[0-9])(?=.*[_\-+.])[A-Za-z0-9_\-+.]{8}$/, p);
    }
  });
});

describe("registration edges: the boot script's inputs", () => {
  after(removeTempDirs);

  it("a pinned spec's name is a whole npm name: no path, no upper case", () => {
    for (const spec of ["Evil/pkg@1.0.0", "pkg/../x@1.0.0", "@1.0.0"]) assert.equal(isPinnedSpec(spec), false, spec);
  });

  it("ownPackage is this package's name and version", () => {
    const pkg = require("../../package.json") as { name: string; version: string };
    assert.deepEqual(ownPackage(), { name: pkg.name, version: pkg.version });
  });

  it("registryIntegrity asks `npm view <spec> dist.integrity` and answers its trimmed output", () => {
    const bin = tempDir();
    const log = path.join(bin, "args");
    fs.writeFileSync(path.join(bin, "npm"), `#!/bin/sh\necho "$@" > ${JSON.stringify(log)}\necho "  sha512-abc  "\n`, { mode: 0o755 });
    const saved = process.env.PATH;
    process.env.PATH = `${bin}:${saved ?? ""}`;
    try {
      assert.equal(registryIntegrity("backup-portal-pulumi@1.2.3"), "sha512-abc");
    } finally {
      process.env.PATH = saved;
    }
    assert.equal(fs.readFileSync(log, "utf8"), "view backup-portal-pulumi@1.2.3 dist.integrity\n");
  });

  it("a Node.js build: exact version, both checksums, an https distUrl without quotes or spaces; every problem at once", () => {
    const good = DEFAULT_NODE_BUILD;
    assert.equal(checkNodeBuild({ ...good, version: "22.12.10" }).version, "22.12.10");
    assert.equal(checkNodeBuild({ ...good, distUrl: "https://mirror.example/node/" }).distUrl, "https://mirror.example/node/");
    assert.throws(
      () => checkNodeBuild({ ...good, version: undefined } as unknown as typeof good),
      /node\.version must be an exact version like 22\.12\.0, got undefined$/,
    );
    for (const version of ["v22.12.0", "22.12.0-rc.1", "22.12"])
      assert.throws(
        () => checkNodeBuild({ ...good, version }),
        new RegExp(`node\\.version must be an exact version like 22\\.12\\.0, got "${version.replace(/\./g, "\\.")}"$`),
      );
    for (const distUrl of [
      "http://mirror.example",
      "xhttps://m",
      "https://",
      "https://m x",
      "https://m'x",
      "https://m$(id)",
      "https://m\\x",
    ])
      assert.throws(
        () => checkNodeBuild({ ...good, distUrl }),
        /^Error: registration user data: node\.distUrl must be an https URL$/,
        distUrl,
      );
    assert.throws(
      () => checkNodeBuild({ version: "18.0.0", sha256: undefined } as unknown as typeof good),
      /^Error: registration user data: node\.version must be 22 or newer, got 18\.0\.0; node\.sha256\.x64 must be 64 lower-case hex digits \(from SHASUMS256\.txt\); node\.sha256\.arm64 must be/,
    );
  });

  it("the script: its header, the checksum refusal, the env file and the retry loop, line for line", () => {
    const integrity = `sha512-${"A".repeat(86)}==`;
    const text = renderBootScript({
      packageSpec: "backup-portal-pulumi@1.2.3",
      integrity,
      args: ["register"],
      envFile: "/etc/backup-portal/env",
      node: { ...DEFAULT_NODE_BUILD, distUrl: "https://mirror.example/dist//" },
      attempts: 4,
    });
    const lines = text.split("\n");
    assert.equal(lines[0], "#!/bin/sh");
    assert.match(lines[1], /^# Registers this instance for backup at first boot/);
    assert.equal(lines[2], "# BACKUP_PORTAL_BOOT_DRY_RUN=1 prints the commands that change the machine instead of running them.");
    assert.equal(lines[3], "set -u");
    const has = (block: string[]) => assert.ok(text.includes(block.join("\n")), `missing:\n${block.join("\n")}`);
    has(["PACKAGE_SPEC=backup-portal-pulumi@1.2.3", `PACKAGE_INTEGRITY=${integrity}`, "NODE_MIN_MAJOR=22"]);
    has([
      'PACKAGE_PREFIX="$WORK_DIR/package"',
      'export HOME="${HOME:-/root}"',
      "",
      'fail() { echo "backup-portal boot: $*" >&2; exit 1; }',
    ]);
    has(["# sha256 of a file, as sha256sum prints it.", "sha256_of() { sha256sum \"$1\" | cut -d ' ' -f 1; }", "# npm's integrity string"]);
    has(['run mkdir -p "$WORK_DIR"', 'PATH="$NODE_PREFIX/bin:$PATH"', "export PATH"]);
    has(["  NODE_DIST=https://mirror.example/dist", '  case "$(uname -m)" in']);
    has(["}", "# A command that changes the machine: printed in a dry run, else run.", "run() {"]);
    has(["}", "", 'run mkdir -p "$WORK_DIR"']);
    has([
      '  elif [ "$(sha256_of "$archive")" != "$NODE_SHA256" ]; then',
      '    rm -f "$archive"',
      '    fail "$url does not have the pinned SHA-256 $NODE_SHA256: not installed"',
      "  fi",
    ]);
    has(['  run rm -f "$archive"', "fi", "", 'cd "$WORK_DIR" 2>/dev/null || cd /']);
    has([
      "ENV_FILE=/etc/backup-portal/env",
      'if [ -n "${BACKUP_PORTAL_BOOT_DRY_RUN:-}" ]; then',
      '  echo "+ . $ENV_FILE"',
      "else",
      '  [ -r "$ENV_FILE" ] || fail "cannot read $ENV_FILE"',
      "  set -a",
      "  # shellcheck source=/dev/null",
      '  . "$ENV_FILE"',
      "  set +a",
      "fi",
      "# Retries every failure but 2 (bad arguments) and 3 (configuration to fix): they fail the same way every time.",
      "n=0",
      'until run "$PACKAGE_PREFIX/bin/backup-portal" register; do',
      "  rc=$?; n=$((n + 1))",
      '  if [ "$rc" -eq 2 ] || [ "$rc" -eq 3 ] || [ "$n" -ge 4 ]; then exit "$rc"; fi',
      "  sleep 20",
      "done",
      "",
    ]);
    const unpinned = renderBootScript({ packageSpec: "backup-portal-pulumi", args: [], node: false, attempts: 1 });
    assert.ok(unpinned.includes("PACKAGE_SPEC=backup-portal-pulumi\nNODE_MIN_MAJOR=22\n"), "no integrity line, and nothing in its place");
  });
});
