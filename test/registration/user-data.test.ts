// The cloud-init user data that makes an instance register itself at first boot.
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "child_process";
import * as fs from "fs";
import * as path from "path";
import * as pulumi from "@pulumi/pulumi";
import { isScalar, parse as parseYaml, parseDocument, visit } from "yaml";
import { resolveCredentials } from "../../provider/registration/credentials";
import {
  REGISTER_ATTEMPTS,
  registrationUserData,
  renderEnvFile,
  renderRegistrationUserData,
  shellQuote,
} from "../../provider/registration/user-data";
import { removeTempDirs, tempDir } from "./helpers";

// js-yaml comes with @pulumi/pulumi (no types installed): used only to check that the output parses.

const yaml = require("js-yaml") as { load(text: string): unknown };

interface CloudConfig {
  write_files: Array<{ path: string; owner: string; permissions: string; content: string }>;
  runcmd: string[][];
}

const PORTAL = {
  url: "https://portal.example.com",
  origin: "https://app.example.com",
  clientId: "client-1",
  username: "registrar",
  password: `p'a"s$s \\w0rd\`#: {x}`,
};

function parse(text: string): CloudConfig {
  assert.ok(text.startsWith("#cloud-config\n"), "first line");
  return yaml.load(text) as CloudConfig;
}

/** Sources the env file with sh, as the runcmd does, and answers the variables. */
function sourced(content: string): Record<string, string> {
  const dir = tempDir();
  const file = path.join(dir, "portal.env");
  fs.writeFileSync(file, content, { mode: 0o600 });
  const out = execFileSync("sh", ["-c", `set -a && . "$0" && set +a && env -0`, file], { env: {}, encoding: "utf8" });
  return Object.fromEntries(
    out
      .split("\0")
      .filter(Boolean)
      .map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]),
  );
}

// Every line break of YAML 1.1 (PyYAML, as cloud-init reads user data) and of sh.
const YAML11_BREAKS = ["\r", "\n", "\r\n", "\u0085", "\u2028", "\u2029"];

/** Values that try to break out of their scalar: every line break (each followed by a would-be key), quotes, `#`, `: `, non-ASCII. */
const HOSTILE = {
  url: "https://portal.example.com/a#b?c=d: e",
  origin: `https://app.example.com${YAML11_BREAKS.map((b) => `${b}bootcmd: [touch, /tmp/pwned]`).join("")}`,
  clientId: `'single' "double" # not a comment: yes`,
  username: "r\u00e9gistrar \u65e5\u672c \u{1F512}\u2028runcmd:\u2029- [x]",
  password: `${YAML11_BREAKS.join("x")}\u2028bootcmd:\u0085 - [sh, -c, 'id']\r\n#: "'\\ \t\u00a0\u00e9\ufeff`,
};

/** PyYAML's reading of `text` as JSON, or undefined when python3 with PyYAML is not installed. */
function pyyamlLoad(text: string): unknown {
  const res = spawnSync(
    "python3",
    ["-c", "import sys, json, yaml; print(json.dumps(yaml.safe_load(sys.stdin.buffer.read().decode('utf-8'))))"],
    { input: text, encoding: "utf8", timeout: 30_000 },
  );
  if (res.error || res.status !== 0) return undefined;
  return JSON.parse(res.stdout);
}

describe("registration: cloud-init user data", () => {
  after(removeTempDirs);
  before(async () => {
    await pulumi.runtime.setMocks(
      {
        newResource: (args) => ({ id: `${args.name}-id`, state: args.inputs }),
        call: (args) => args.inputs,
      },
      "backup-portal",
      "test",
      false,
    );
  });

  it("renders a #cloud-config with a 0600 env file and the register command", () => {
    const cfg = parse(renderRegistrationUserData({ portal: PORTAL }));
    assert.equal(cfg.write_files.length, 1);
    const file = cfg.write_files[0];
    assert.equal(file.path, "/etc/backup-portal/portal.env");
    assert.equal(file.permissions, "0600");
    assert.equal(file.owner, "root:root");
    const vars = sourced(file.content);
    assert.deepEqual(
      [
        vars.BACKUP_PORTAL_URL,
        vars.BACKUP_PORTAL_ORIGIN,
        vars.BACKUP_PORTAL_CLIENT_ID,
        vars.BACKUP_PORTAL_USERNAME,
        vars.BACKUP_PORTAL_PASSWORD,
      ],
      [PORTAL.url, PORTAL.origin, PORTAL.clientId, PORTAL.username, PORTAL.password],
      "the env file gives back the exact values when sourced",
    );
    assert.equal(cfg.runcmd.length, 2);
    for (const cmd of cfg.runcmd) assert.deepEqual(cmd.slice(0, 2), ["sh", "-c"]);
    assert.match(cfg.runcmd[0][2], /command -v npx/);
    const register = cfg.runcmd[1][2];
    assert.match(register, /set -a && \. \/etc\/backup-portal\/portal\.env && set \+a/);
    assert.match(
      register,
      /npx --yes --package=backup-portal-pulumi -- backup-portal register --password-file \/etc\/backup-portal\/node-password/,
    );
    assert.match(register, /"\$rc" -eq 3/, "configuration errors are not retried");
    assert.ok(!register.includes("w0rd"), "the password is only in the env file");
    assert.equal(cfg.runcmd.flat().join(" ").includes(PORTAL.password), false);
  });

  it("the boot loop retries failures, but not bad arguments (2) or configuration errors (3)", () => {
    // Runs the real runcmd with a fake npx (exits with $FAKE_RC, counts its runs) and a sleep that returns at once.
    const dir = tempDir();
    const bin = path.join(dir, "bin");
    fs.mkdirSync(bin);
    fs.writeFileSync(path.join(bin, "npx"), '#!/bin/sh\necho run >> "$FAKE_COUNT"\nexit "$FAKE_RC"\n', { mode: 0o755 });
    fs.writeFileSync(path.join(bin, "sleep"), "#!/bin/sh\nexit 0\n", { mode: 0o755 });
    const envFile = path.join(dir, "portal.env");
    fs.writeFileSync(envFile, renderEnvFile({ ...PORTAL, password: "plain" }), { mode: 0o600 });
    const register = parse(renderRegistrationUserData({ portal: PORTAL, envFile, installNode: false })).runcmd[0][2];
    const runs = (rc: number): { code: number | null; runs: number } => {
      const count = path.join(dir, `count-${rc}`);
      const res = spawnSync("sh", ["-c", register], {
        env: { PATH: `${bin}:/usr/bin:/bin`, HOME: dir, FAKE_RC: String(rc), FAKE_COUNT: count },
        encoding: "utf8",
        timeout: 30_000,
      });
      return { code: res.status, runs: fs.existsSync(count) ? fs.readFileSync(count, "utf8").split("\n").filter(Boolean).length : 0 };
    };
    assert.deepEqual(runs(0), { code: 0, runs: 1 });
    assert.deepEqual(runs(1), { code: 1, runs: REGISTER_ATTEMPTS });
    assert.deepEqual(runs(2), { code: 2, runs: 1 }, "bad arguments are not retried");
    assert.deepEqual(runs(3), { code: 3, runs: 1 }, "configuration errors are not retried");
  });

  it("takes a package spec, extra arguments, paths, and no Node install", () => {
    const text = renderRegistrationUserData({
      portal: { ...PORTAL, password: "plain" },
      packageSpec: "backup-portal-pulumi@0.1.0",
      extraArgs: ["--option-file", "/opt/tivoli/tsm/client/ba/bin/dsm.sys", "--verbose", "it's"],
      envFile: "/root/portal env",
      passwordFile: false,
      installNode: false,
    });
    const cfg = parse(text);
    assert.equal(cfg.write_files[0].path, "/root/portal env");
    assert.equal(cfg.runcmd.length, 1);
    const register = cfg.runcmd[0][2];
    assert.match(register, /\. '\/root\/portal env'/);
    assert.match(
      register,
      /--package=backup-portal-pulumi@0\.1\.0 -- backup-portal register --option-file \/opt\/tivoli\/tsm\/client\/ba\/bin\/dsm\.sys --verbose 'it'\\''s'/,
    );
    assert.ok(!register.includes("--password-file"));
    // The command line is valid shell (parsed without running anything).
    execFileSync("sh", ["-n", "-c", register]);
  });

  it("refuses values that cannot be written, without echoing a password", () => {
    assert.throws(
      () => renderRegistrationUserData({ portal: { ...PORTAL, password: "a\0BACKUP_PORTAL_URL=x" } }),
      (err: Error) => /portal\.password must not contain a NUL/.test(err.message) && !err.message.includes("BACKUP_PORTAL_URL=x"),
    );
    assert.throws(() => renderRegistrationUserData({ portal: { ...PORTAL, url: "https://portal.example.com\u2028" } }), /portal\.url/);
    for (const brk of YAML11_BREAKS) {
      assert.throws(() => renderRegistrationUserData({ portal: PORTAL, envFile: `/etc/x${brk}y` }), /envFile must be a single line/);
    }
    assert.throws(() => renderRegistrationUserData({ portal: { ...PORTAL, url: "not a url" } }), /portal\.url is not a URL/);
    assert.throws(() => renderRegistrationUserData({ portal: { ...PORTAL, username: "" } }), /portal\.username must not be empty/);
    assert.throws(() => renderRegistrationUserData({ portal: PORTAL, envFile: "relative/env" }), /envFile must be an absolute path/);
  });

  it("round-trips hostile values under YAML 1.1: exactly the keys and values written, no raw line break in a scalar", () => {
    const text = renderRegistrationUserData({ portal: HOSTILE, extraArgs: ["--contact", "caf\u00e9 # x: y"] });
    // The yaml package reads U+0085, U+2028, U+2029 as YAML 1.2 does (not line breaks): none may be raw, nor CR.
    for (const c of ["\r", "\u0085", "\u2028", "\u2029"]) assert.equal(text.includes(c), false, `raw U+${c.codePointAt(0)!.toString(16)}`);
    const doc = parseDocument(text, { version: "1.1", keepSourceTokens: true });
    assert.deepEqual(doc.errors, []);
    let scalars = 0;
    visit(doc, {
      Scalar(_k, node) {
        scalars++;
        const source = (node.srcToken as { source?: string } | undefined)?.source ?? "";
        assert.doesNotMatch(source, /[\r\n\u0085\u2028\u2029]/, `a scalar holds a raw line break: ${JSON.stringify(source.slice(0, 40))}`);
      },
    });
    assert.ok(scalars > 8);
    const expected = {
      write_files: [{ path: "/etc/backup-portal/portal.env", owner: "root:root", permissions: "0600", content: renderEnvFile(HOSTILE) }],
      runcmd: parse(text).runcmd,
    };
    const cfg = parseYaml(text, { version: "1.1" }) as CloudConfig;
    assert.deepEqual(Object.keys(cfg), ["write_files", "runcmd"]);
    assert.deepEqual(cfg, expected);
    assert.equal(cfg.runcmd.length, 2);
    assert.match(cfg.runcmd[1][2], /--contact 'caf\u00e9 # x: y'/);
    assert.ok(isScalar(doc.getIn(["write_files", 0, "permissions"], true)));
    // cloud-init's own parser, when installed here.
    const py = pyyamlLoad(text);
    if (py !== undefined) assert.deepEqual(py, expected, "PyYAML reads the same keys and values");
    // The env file as written at boot, sourced by sh as the runcmd does, gives `register` every value intact.
    const vars = sourced(cfg.write_files[0].content);
    const creds = resolveCredentials(vars, null);
    assert.deepEqual(creds.problems, []);
    const got = creds.credentials!.settings;
    assert.deepEqual(
      { url: got.url, origin: got.origin, clientId: got.clientId, username: got.username, password: got.password },
      { ...HOSTILE, url: HOSTILE.url },
    );
  });

  it("quotes shell words", () => {
    assert.equal(shellQuote("/etc/x"), "/etc/x");
    assert.equal(shellQuote("a b"), "'a b'");
    assert.equal(shellQuote("it's"), `'it'\\''s'`);
    assert.equal(shellQuote(""), "''");
  });

  it("registrationUserData is a secret Output with the same text, from Input values", async () => {
    const out = registrationUserData({ portal: { ...PORTAL, password: pulumi.secret(PORTAL.password), url: pulumi.output(PORTAL.url) } });
    assert.equal(await pulumi.isSecret(out), true);
    const text = await new Promise<string>((resolve) =>
      out.apply((t) => {
        resolve(t);
        return t;
      }),
    );
    assert.equal(text, renderRegistrationUserData({ portal: PORTAL }));
    // Secret even when the password is a plain string.
    assert.equal(await pulumi.isSecret(registrationUserData({ portal: { ...PORTAL, password: "plain" } })), true);
  });
});
