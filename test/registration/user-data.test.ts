// The cloud-init user data that makes an instance register itself at first boot.
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "child_process";
import * as fs from "fs";
import * as path from "path";
import * as pulumi from "@pulumi/pulumi";
import { isScalar, parse as parseYaml, parseDocument, visit } from "yaml";
import { resolveCredentials } from "../../provider/registration/credentials";
import {
  RegistrationUserDataOptions,
  registrationUserData,
  renderEnvFile,
  renderRegistrationUserData as renderAny,
  shellQuote,
} from "../../provider/registration/user-data";
import { removeTempDirs, tempDir } from "./helpers";

// js-yaml comes with @pulumi/pulumi (no types installed): used only to check that the output parses.

const yaml = require("js-yaml") as { load(text: string): unknown };

/** A well-formed sha512 integrity (the boot script compares; rendering only records it). */
export const INTEGRITY = `sha512-${"A".repeat(86)}==`;

/** The renderer with an integrity given, as a caller without registry access passes it. */
function renderRegistrationUserData(opts: RegistrationUserDataOptions): string {
  return renderAny({ integrity: INTEGRITY, ...opts });
}

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

  it("renders a #cloud-config: a 0600 env file, the 0700 boot script, and one runcmd that runs it", () => {
    const cfg = parse(renderRegistrationUserData({ portal: PORTAL }));
    assert.deepEqual(
      cfg.write_files.map((f) => [f.path, f.owner, f.permissions]),
      [
        ["/etc/backup-portal/portal.env", "root:root", "0600"],
        ["/var/lib/backup-portal/register.sh", "root:root", "0700"],
      ],
    );
    const vars = sourced(cfg.write_files[0].content);
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
    assert.deepEqual(cfg.runcmd, [["sh", "/var/lib/backup-portal/register.sh"]]);
    const script = cfg.write_files[1].content;
    assert.match(script, /^ENV_FILE=\/etc\/backup-portal\/portal\.env$/m);
    assert.match(script, /"\$PACKAGE_PREFIX\/bin\/backup-portal" register --password-file \/etc\/backup-portal\/node-password; do$/m);
    assert.match(script, /^PACKAGE_SPEC=backup-portal-pulumi@\d+\.\d+\.\d+$/m);
    assert.ok(!script.includes("w0rd"), "the password is only in the env file");
    assert.ok(!script.includes("npx"), "nothing runs an unverified package");
  });

  it("takes a package spec, extra arguments, paths", () => {
    const text = renderRegistrationUserData({
      portal: { ...PORTAL, password: "plain" },
      packageSpec: "backup-portal-pulumi@0.1.0",
      extraArgs: ["--option-file", "/opt/tivoli/tsm/client/ba/bin/dsm.sys", "--verbose", "it's"],
      envFile: "/root/portal env",
      passwordFile: false,
      node: false,
    });
    const cfg = parse(text);
    assert.equal(cfg.write_files[0].path, "/root/portal env");
    const script = cfg.write_files[1].content;
    assert.match(script, /^ENV_FILE='\/root\/portal env'$/m);
    assert.match(
      script,
      /"\$PACKAGE_PREFIX\/bin\/backup-portal" register --option-file \/opt\/tivoli\/tsm\/client\/ba\/bin\/dsm\.sys --verbose 'it'\\''s'; do/,
    );
    assert.ok(!script.includes("--password-file"));
    execFileSync("sh", ["-n", "-c", script]);
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
      write_files: [
        { path: "/etc/backup-portal/portal.env", owner: "root:root", permissions: "0600", content: renderEnvFile(HOSTILE) },
        parse(text).write_files[1],
      ],
      runcmd: [["sh", "/var/lib/backup-portal/register.sh"]],
    };
    const cfg = parseYaml(text, { version: "1.1" }) as CloudConfig;
    assert.deepEqual(Object.keys(cfg), ["write_files", "runcmd"]);
    assert.deepEqual(cfg, expected);
    assert.match(cfg.write_files[1].content, /--contact 'caf\u00e9 # x: y'/);
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

  it("names the field and what is wrong with it, for every value it refuses", () => {
    const lineBreaks = "must be a single line (no line break characters: CR, LF, U+0085, U+2028, U+2029)";
    const refused: Array<[string, unknown, string, (new (...a: any[]) => Error)?]> = [
      [
        "neither portal nor broker",
        { portal: undefined },
        "give exactly one of broker {url, token} and portal {url, origin, clientId, username, password}",
        TypeError,
      ],
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

  it("an empty extra argument is kept, quoted", () => {
    const cfg = parse(renderRegistrationUserData({ portal: PORTAL, extraArgs: ["--contact", ""], passwordFile: "/run/pw" }));
    assert.match(cfg.write_files[1].content, / register --password-file \/run\/pw --contact ''; do$/m);
  });

  it("quotes shell words", () => {
    assert.equal(shellQuote("/etc/x"), "/etc/x");
    assert.equal(shellQuote("a b"), "'a b'");
    assert.equal(shellQuote("it's"), `'it'\\''s'`);
    assert.equal(shellQuote(""), "''");
  });

  it("registrationUserData is a secret Output with the same text, from Input values", async () => {
    const out = registrationUserData({
      integrity: INTEGRITY,
      portal: { ...PORTAL, password: pulumi.secret(PORTAL.password), url: pulumi.output(PORTAL.url) },
    });
    assert.equal(await pulumi.isSecret(out), true);
    const text = await new Promise<string>((resolve) =>
      out.apply((t) => {
        resolve(t);
        return t;
      }),
    );
    assert.equal(text, renderRegistrationUserData({ portal: PORTAL }));
    // Secret even when the password is a plain string.
    assert.equal(await pulumi.isSecret(registrationUserData({ integrity: INTEGRITY, portal: { ...PORTAL, password: "plain" } })), true);
  });
});
