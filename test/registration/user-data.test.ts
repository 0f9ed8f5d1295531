// The cloud-init user data that makes an instance register itself at first boot.
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "child_process";
import * as fs from "fs";
import * as path from "path";
import * as pulumi from "@pulumi/pulumi";
import { isScalar, parse as parseYaml, parseDocument, visit } from "yaml";
import { resolveCredentials } from "../../provider/registration/credentials";
import {
  DEFAULT_INSTALL_NODE,
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

  it("renders exactly this document for plain values (what the instance receives)", () => {
    const portal = { url: "http://portal.example.com", origin: "o", clientId: "c", username: "u", password: "Plain-Pa55word-for-text" };
    assert.equal(
      renderRegistrationUserData({ portal }),
      [
        "#cloud-config",
        "# Registers this instance for backup at first boot (backup-portal register; see docs/registration.md).",
        "write_files:",
        "  - path: /etc/backup-portal/portal.env",
        "    owner: root:root",
        '    permissions: "0600"',
        '    content: "# Backup Portal account for `backup-portal register` (written by cloud-init; keep it 0600).\\n' +
          "BACKUP_PORTAL_URL='http://portal.example.com'\\nBACKUP_PORTAL_ORIGIN='o'\\nBACKUP_PORTAL_CLIENT_ID='c'\\n" +
          "BACKUP_PORTAL_USERNAME='u'\\nBACKUP_PORTAL_PASSWORD='Plain-Pa55word-for-text'\\n\"",
        "runcmd:",
        "  - - sh",
        "    - -c",
        `    - ${JSON.stringify(DEFAULT_INSTALL_NODE)}`,
        "  - - sh",
        "    - -c",
        '    - export HOME="${HOME:-/root}"; set -a && . /etc/backup-portal/portal.env && set +a || exit 1; n=0; until npx --yes ' +
          "--package=backup-portal-pulumi -- backup-portal register --password-file /etc/backup-portal/node-password; do rc=$?; " +
          `n=$((n+1)); if [ "$rc" -eq 2 ] || [ "$rc" -eq 3 ] || [ "$n" -ge ${REGISTER_ATTEMPTS} ]; then exit "$rc"; fi; sleep 20; done`,
        "",
      ].join("\n"),
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
        timeout: 3000, // the five runs take milliseconds; a loop that does not end fails fast
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

  it("the default Node.js install uses apt-get, else dnf, else yum, else fails saying so; nothing when npx is there", () => {
    const dir = tempDir();
    const run = (tools: string[]): { code: number | null; calls: string; stderr: string } => {
      const bin = fs.mkdtempSync(path.join(dir, "bin-"));
      const calls = path.join(bin, "calls");
      for (const t of tools) fs.writeFileSync(path.join(bin, t), `#!/bin/sh\necho "${t} $*" >> "${calls}"\n`, { mode: 0o755 });
      const res = spawnSync("/bin/sh", ["-c", DEFAULT_INSTALL_NODE], { env: { PATH: bin }, encoding: "utf8", timeout: 3000 });
      return { code: res.status, calls: fs.existsSync(calls) ? fs.readFileSync(calls, "utf8") : "", stderr: res.stderr };
    };
    assert.deepEqual(run(["npx", "apt-get", "dnf"]), { code: 0, calls: "", stderr: "" });
    assert.deepEqual(run(["apt-get", "dnf", "yum"]), {
      code: 0,
      calls: "apt-get update -q\napt-get install -y -q nodejs npm\n",
      stderr: "",
    });
    assert.deepEqual(run(["dnf", "yum"]), { code: 0, calls: "dnf install -y -q nodejs npm\n", stderr: "" });
    assert.deepEqual(run(["yum"]), { code: 0, calls: "yum install -y -q nodejs npm\n", stderr: "" });
    assert.deepEqual(run([]), {
      code: 1,
      calls: "",
      stderr: "backup-portal: no npx and no known package manager; install Node.js 20\n",
    });
  });

  it("names the field and what is wrong with it, for every value it refuses", () => {
    const lineBreaks = "must be a single line (no line break characters: CR, LF, U+0085, U+2028, U+2029)";
    const refused: Array<[string, unknown, string, (new (...a: any[]) => Error)?]> = [
      ["no portal", { portal: undefined }, "portal {url, origin, clientId, username, password} is required", TypeError],
      ["portal not an object", { portal: "https://x" }, "portal {url, origin, clientId, username, password} is required", TypeError],
      ["url not a string", { portal: { ...PORTAL, url: 42 } }, "portal.url must be a string", TypeError],
      ["url not a URL", { portal: { ...PORTAL, url: "portal.example.com" } }, 'portal.url is not a URL: "portal.example.com"'],
      ["url empty", { portal: { ...PORTAL, url: "" } }, 'portal.url is not a URL: ""'],
      ["url on two lines", { portal: { ...PORTAL, url: "https://a\nb" } }, 'portal.url is not a URL: "https://a\\nb"'],
      [
        "url not http(s)",
        { portal: { ...PORTAL, url: "ftp://portal.example.com" } },
        'portal.url must be http(s), got "ftp://portal.example.com"',
      ],
      ["origin empty", { portal: { ...PORTAL, origin: "" } }, "portal.origin must not be empty"],
      ["clientId not a string", { portal: { ...PORTAL, clientId: 5 } }, "portal.clientId must be a string", TypeError],
      ["username NUL", { portal: { ...PORTAL, username: "a\0b" } }, "portal.username must not contain a NUL character"],
      ["envFile relative", { portal: PORTAL, envFile: "etc/portal.env" }, 'envFile must be an absolute path, got "etc/portal.env"'],
      ["envFile empty", { portal: PORTAL, envFile: "" }, "envFile must not be empty"],
      ["passwordFile relative", { portal: PORTAL, passwordFile: "pw" }, 'passwordFile must be an absolute path, got "pw"'],
      ["passwordFile on two lines", { portal: PORTAL, passwordFile: "/a\u0085b" }, `passwordFile ${lineBreaks}`],
      ["packageSpec empty", { portal: PORTAL, packageSpec: "" }, "packageSpec must not be empty"],
      ["packageSpec on two lines", { portal: PORTAL, packageSpec: "x\u2029y" }, `packageSpec ${lineBreaks}`],
      ["extraArgs not a string", { portal: PORTAL, extraArgs: ["--verbose", 3] }, "extraArgs[1] must be a string", TypeError],
      ["extraArgs on two lines", { portal: PORTAL, extraArgs: ["a\rb"] }, `extraArgs[0] ${lineBreaks}`],
      ["installNode empty", { portal: PORTAL, installNode: "" }, "installNode must not be empty"],
      ["installNode on two lines", { portal: PORTAL, installNode: "a\nb" }, `installNode ${lineBreaks}`],
    ];
    for (const [name, opts, message, type] of refused) {
      assert.throws(
        () => renderRegistrationUserData(opts as Parameters<typeof renderRegistrationUserData>[0]),
        (err: Error) => err.message === `registration user data: ${message}` && (!type || err instanceof type),
        name,
      );
    }
    // The env file alone: the URL must be one line (sh would take the rest as a command); the others are quoted whole.
    assert.throws(
      () => renderEnvFile({ ...PORTAL, url: "https://a\u2028b" }),
      /^Error: registration user data: portal\.url must be a single line/,
    );
    assert.match(renderEnvFile({ ...PORTAL, origin: "a\nb" }), /^BACKUP_PORTAL_ORIGIN='a\nb'$/m);
  });

  it("a value YAML 1.1 reads as a boolean or a number (yes, on, 1:20) stays a string for cloud-init", () => {
    // The yaml package in YAML 1.1 mode reads these as PyYAML does (true, true, false, 80).
    for (const command of ["yes", "on", "off", "1:20"]) {
      const text = renderRegistrationUserData({ portal: PORTAL, installNode: command });
      assert.deepEqual((parseYaml(text, { version: "1.1" }) as CloudConfig).runcmd[0], ["sh", "-c", command], command);
    }
  });

  it("an empty extra argument is kept, quoted; a custom Node.js install runs first", () => {
    const cfg = parse(
      renderRegistrationUserData({
        portal: PORTAL,
        extraArgs: ["--contact", ""],
        installNode: "apk add nodejs npm",
        passwordFile: "/run/pw",
      }),
    );
    assert.deepEqual(cfg.runcmd[0], ["sh", "-c", "apk add nodejs npm"]);
    assert.match(cfg.runcmd[1][2], / -- backup-portal register --password-file \/run\/pw --contact ''; do /);
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
