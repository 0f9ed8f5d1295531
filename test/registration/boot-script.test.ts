// The boot script of the registration user data: pinned package, verified tarball, a supported Node.js.
// Linted with shellcheck (.ci/run installs it), run in its dry mode (the commands printed), and run for real with
// stand-ins for node, npm and the registration on PATH (a tampered tarball must not be installed).
import assert from "node:assert/strict";
import { spawnSync } from "child_process";
import * as fs from "fs";
import * as path from "path";
import { parse as parseYaml } from "yaml";
import {
  BOOT_DRY_RUN_ENV,
  DEFAULT_NODE_BUILD,
  isPinnedSpec,
  renderBootScript,
  tarballIntegrity,
} from "../../provider/registration/boot-script";
import { REGISTER_ATTEMPTS, renderRegistrationUserData } from "../../provider/registration/user-data";
import { removeTempDirs, tempDir } from "./helpers";

const VERSION = (require("../../package.json") as { version: string }).version;

interface CloudConfig {
  write_files: Array<{ path: string; permissions: string; content: string }>;
  runcmd: string[][];
}

/** A fake tarball on disk and its integrity. */
function tarball(dir: string, content = "package bytes"): { file: string; integrity: string } {
  const file = path.join(dir, "backup-portal-pulumi.tgz");
  fs.writeFileSync(file, content);
  return { file, integrity: tarballIntegrity(file) };
}

function script(userData: string): string {
  const cfg = parseYaml(userData, { version: "1.1" }) as CloudConfig;
  return cfg.write_files.find((f) => f.path.endsWith("/register.sh"))!.content;
}

/** Stand-ins on PATH: `node` answering `major` (and running -e with the real node), npm, uname, sha256sum's input. */
function standIns(dir: string, o: { major: number; machine?: string; packed: string; registerRc?: number }): string {
  const bin = fs.mkdtempSync(path.join(dir, "bin-"));
  const log = path.join(bin, "log");
  const write = (name: string, body: string) => fs.writeFileSync(path.join(bin, name), `#!/bin/sh\n${body}\n`, { mode: 0o755 });
  write("node", `if [ "$1" = -p ]; then echo ${o.major}; exit 0; fi\nexec ${JSON.stringify(process.execPath)} "$@"`);
  write("uname", `echo ${o.machine ?? "x86_64"}`);
  write("sleep", "exit 0");
  // npm pack copies the given tarball into the working directory; npm install puts a registration stand-in in the prefix.
  write(
    "npm",
    [
      `echo "npm $*" >> ${JSON.stringify(log)}`,
      `if [ "$1" = pack ]; then cp ${JSON.stringify(o.packed)} ./packed.tgz; echo packed.tgz; exit 0; fi`,
      'if [ "$1" = install ]; then while [ "$1" != --prefix ]; do shift; done; mkdir -p "$2/bin";',
      `  printf '#!/bin/sh\\necho "backup-portal $*" >> ${log}\\nexit ${o.registerRc ?? 0}\\n' > "$2/bin/backup-portal"; chmod 755 "$2/bin/backup-portal"; fi`,
    ].join("\n"),
  );
  return bin;
}

function runScript(text: string, bin: string, env: Record<string, string> = {}): { code: number | null; stdout: string; stderr: string } {
  const res = spawnSync("/bin/sh", ["-c", text], {
    env: { PATH: `${bin}:/usr/bin:/bin`, HOME: path.dirname(bin), ...env },
    encoding: "utf8",
    timeout: 15_000,
  });
  return { code: res.status, stdout: res.stdout, stderr: res.stderr };
}

describe("registration: the boot script", () => {
  after(removeTempDirs);

  it("passes shellcheck (POSIX sh), in portal and broker mode, with and without the Node.js install", () => {
    const which = spawnSync("shellcheck", ["--version"], { encoding: "utf8" });
    assert.equal(which.status, 0, "shellcheck is needed (apt-get install shellcheck; .ci/run installs it)");
    const dir = tempDir();
    const variants = [
      renderRegistrationUserData({
        portal: { url: "https://p", origin: "o", clientId: "c", username: "u", password: "p" },
        integrity: tarball(dir).integrity,
      }),
      renderRegistrationUserData({
        broker: { url: "https://broker:8443", token: "t.t.t" },
        integrity: tarball(dir).integrity,
        node: false,
      }),
      renderRegistrationUserData({ broker: { url: "https://b", token: "t" }, packageSpec: "backup-portal-pulumi", allowUnpinned: true }),
    ];
    for (const ud of variants) {
      const file = path.join(dir, "register.sh");
      fs.writeFileSync(file, script(ud));
      const res = spawnSync("shellcheck", ["--shell=sh", "--severity=style", file], { encoding: "utf8", timeout: 30_000 });
      assert.equal(res.status, 0, res.stdout);
    }
  });

  it("dry run on an image with Node.js 18: the pinned Node.js build with its checksum, then the verified package, then register", () => {
    const dir = tempDir();
    const { file, integrity } = tarball(dir);
    const text = script(
      renderRegistrationUserData({
        broker: { url: "https://broker.example:8443", token: "tok" },
        integrity,
        workDir: path.join(dir, "work"),
        tokenFile: "/etc/backup-portal/registration-token",
      }),
    );
    const w = path.join(dir, "work");
    const x = DEFAULT_NODE_BUILD;
    const res = runScript(text, standIns(dir, { major: 18, packed: file }), { [BOOT_DRY_RUN_ENV]: "1" });
    assert.equal(res.code, 0, res.stderr);
    assert.deepEqual(res.stdout.trimEnd().split("\n"), [
      `+ mkdir -p ${w}`,
      `+ curl -fsSL --retry 5 -o ${w}/node-v${x.version}-linux-x64.tar.xz https://nodejs.org/dist/v${x.version}/node-v${x.version}-linux-x64.tar.xz`,
      `+ check sha256 of ${w}/node-v${x.version}-linux-x64.tar.xz is ${x.sha256.x64}`,
      `+ mkdir -p ${w}/node`,
      `+ tar -xJf ${w}/node-v${x.version}-linux-x64.tar.xz -C ${w}/node --strip-components=1`,
      `+ rm -f ${w}/node-v${x.version}-linux-x64.tar.xz`,
      `+ npm pack --silent backup-portal-pulumi@${VERSION}`,
      `+ check integrity of ${w}/package.tgz is ${integrity}`,
      `+ npm install --global --no-audit --no-fund --prefix ${w}/package ${w}/package.tgz`,
      `+ rm -f ${w}/package.tgz`,
      `+ ${w}/package/bin/backup-portal register --password-file /etc/backup-portal/node-password --broker https://broker.example:8443 --token-file /etc/backup-portal/registration-token`,
    ]);
    // arm64 takes its own checksum; an unknown machine fails naming the version needed.
    const arm = runScript(text, standIns(dir, { major: 0, machine: "aarch64", packed: file }), { [BOOT_DRY_RUN_ENV]: "1" });
    assert.match(arm.stdout, new RegExp(`check sha256 of .*linux-arm64\\.tar\\.xz is ${x.sha256.arm64}`));
    const odd = runScript(text, standIns(dir, { major: 0, machine: "riscv64", packed: file }), { [BOOT_DRY_RUN_ENV]: "1" });
    assert.equal(odd.code, 1);
    assert.match(odd.stderr, /no pinned Node\.js build for riscv64: install Node\.js 22 or newer in the image/);
    assert.doesNotMatch(odd.stdout, /npm|backup-portal/);
  });

  it("dry run on an image with Node.js 22: no Node.js install; with node: false and Node.js 20 it fails naming 22", () => {
    const dir = tempDir();
    const { file, integrity } = tarball(dir);
    const render = (node?: false) =>
      script(
        renderRegistrationUserData({
          portal: { url: "https://p", origin: "o", clientId: "c", username: "u", password: "p" },
          integrity,
          workDir: path.join(dir, "w"),
          node,
        }),
      );
    const ok = runScript(render(), standIns(dir, { major: 22, packed: file }), { [BOOT_DRY_RUN_ENV]: "1" });
    assert.equal(ok.code, 0, ok.stderr);
    assert.doesNotMatch(ok.stdout, /curl|tar /);
    assert.match(ok.stdout, /^\+ \. \/etc\/backup-portal\/portal\.env$/m);
    const old = runScript(render(false), standIns(dir, { major: 20, packed: file }), { [BOOT_DRY_RUN_ENV]: "1" });
    assert.equal(old.code, 1);
    assert.match(old.stderr, /backup-portal boot: Node\.js 22 or newer is needed/);
    assert.doesNotMatch(old.stdout, /npm/);
  });

  it("for real: installs the tarball whose integrity matches; refuses a tampered one and runs nothing from it", () => {
    const dir = tempDir();
    const { file, integrity } = tarball(dir);
    const work = path.join(dir, "work");
    const text = script(
      renderRegistrationUserData({ broker: { url: "https://b", token: "t" }, integrity, workDir: work, passwordFile: false }),
    );
    const good = standIns(dir, { major: 22, packed: file });
    const ok = runScript(text, good);
    assert.equal(ok.code, 0, ok.stderr);
    const log = fs.readFileSync(path.join(good, "log"), "utf8");
    assert.match(log, new RegExp(`^npm install --global --no-audit --no-fund --prefix ${work}/package ${work}/packed\\.tgz$`, "m"));
    assert.match(log, /^backup-portal register --broker https:\/\/b --token-file \/etc\/backup-portal\/registration-token$/m);

    const tampered = path.join(dir, "tampered.tgz");
    fs.writeFileSync(tampered, "package bytes, and a little more");
    const bad = standIns(dir, { major: 22, packed: tampered });
    fs.rmSync(work, { recursive: true });
    const refused = runScript(text, bad);
    assert.equal(refused.code, 1);
    assert.match(
      refused.stderr,
      new RegExp(
        `backup-portal-pulumi@${VERSION.replace(/\./g, "\\.")} does not have the integrity recorded when the user data was rendered: not installed`,
      ),
    );
    const badLog = fs.readFileSync(path.join(bad, "log"), "utf8");
    assert.doesNotMatch(badLog, /npm install|backup-portal register/);
    assert.ok(!fs.existsSync(path.join(work, "packed.tgz")), "the tampered tarball is removed");
  });

  it("retries every failure but 2 (bad arguments) and 3 (configuration), at most REGISTER_ATTEMPTS times", () => {
    const dir = tempDir();
    const { file, integrity } = tarball(dir);
    const text = script(renderRegistrationUserData({ broker: { url: "https://b", token: "t" }, integrity, workDir: path.join(dir, "w") }));
    for (const [rc, runs] of [
      [0, 1],
      [1, REGISTER_ATTEMPTS],
      [2, 1],
      [3, 1],
    ]) {
      const bin = standIns(dir, { major: 22, packed: file, registerRc: rc });
      const res = runScript(text, bin);
      assert.equal(res.code, rc, res.stderr);
      const count = fs
        .readFileSync(path.join(bin, "log"), "utf8")
        .split("\n")
        .filter((l) => l.startsWith("backup-portal register")).length;
      assert.equal(count, runs, `exit ${rc}`);
    }
  });

  it("refuses an unpinned package spec unless allowed; a pinned one needs an integrity", () => {
    const broker = { url: "https://b", token: "t" };
    for (const spec of [
      "backup-portal-pulumi",
      "backup-portal-pulumi@^0.1.0",
      "backup-portal-pulumi@latest",
      "backup-portal-pulumi@0.1",
      "https://x/y.tgz",
    ]) {
      assert.equal(isPinnedSpec(spec), false, spec);
      assert.throws(
        () => renderRegistrationUserData({ broker, packageSpec: spec }),
        /is not pinned to one version .* set allowUnpinned: true/,
        spec,
      );
    }
    for (const spec of ["backup-portal-pulumi@0.1.0", "@acme/backup-portal@1.2.3-rc.1"]) assert.equal(isPinnedSpec(spec), true, spec);
    const unpinned = script(renderRegistrationUserData({ broker, packageSpec: "backup-portal-pulumi@latest", allowUnpinned: true }));
    assert.match(unpinned, /its tarball is not verified/);
    assert.doesNotMatch(unpinned, /check integrity|integrity_of "\$tarball"/);
    assert.throws(() => renderRegistrationUserData({ broker, integrity: "sha1-abc" }), /integrity must be an npm sha512 integrity/);
    // The integrity may come from a local tarball.
    const dir = tempDir();
    const { file, integrity } = tarball(dir);
    assert.match(
      script(renderRegistrationUserData({ broker, packageTarball: file })),
      new RegExp(`^PACKAGE_INTEGRITY='?${integrity.replace(/[+/]/g, "\\$&")}'?$`, "m"),
    );
  });

  it("refuses a Node.js build below 22 or without checksums", () => {
    const broker = { url: "https://b", token: "t" };
    const integrity = `sha512-${"A".repeat(86)}==`;
    assert.throws(
      () => renderRegistrationUserData({ broker, integrity, node: { ...DEFAULT_NODE_BUILD, version: "20.18.0" } }),
      /node\.version must be 22 or newer/,
    );
    assert.throws(
      () =>
        renderRegistrationUserData({
          broker,
          integrity,
          node: { version: "22.12.0", sha256: { x64: "x", arm64: DEFAULT_NODE_BUILD.sha256.arm64 } },
        }),
      /node\.sha256\.x64 must be 64 lower-case hex digits/,
    );
    assert.ok(renderBootScript);
  });
});
