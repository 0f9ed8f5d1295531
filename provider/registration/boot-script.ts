// The shell script the registration user data runs as root at first boot: it makes a supported Node.js
// available (a pinned official build, checked against its SHA-256), fetches the pinned package with `npm pack`,
// compares the tarball's sha512 integrity with the one recorded when the user data was rendered, installs that
// verified tarball into its own prefix and runs `backup-portal register` from it, retrying what may pass later.
//
// Why: the script runs as root on every new instance. An unpinned `npx --package=<name>` hands root to whoever
// can publish that name (or a typo of it, or a compromised mirror); the distribution's `nodejs` is Node 18 or
// older on current LTS releases, below what the package supports. See docs/registration.md.
//
// BACKUP_PORTAL_BOOT_DRY_RUN=1 prints the commands that change the machine (`+ <command>`) instead of running them;
// reads (node's version, uname -m) still run. The tests lint the script with shellcheck and run it that way.
import { createHash } from "crypto";
import { execFileSync } from "child_process";
import * as fs from "fs";
import { shellQuote } from "../shell/quote";

/** The Node.js major version the package supports at boot (package.json engines says >=20; 22 is the current LTS line). */
export const NODE_MIN_MAJOR = 22;

/** A pinned official Node.js build: version and the SHA-256 of each linux tarball (from nodejs.org's SHASUMS256.txt). */
export interface NodeBuild {
  version: string;
  /** By `uname -m` name mapped to Node's: x64 (x86_64), arm64 (aarch64). */
  sha256: { x64: string; arm64: string };
  /** Where the tarballs are: default https://nodejs.org/dist (a mirror holding the same files works). */
  distUrl?: string;
}

/** Node.js 22.12.0 (LTS), SHA-256 of node-v22.12.0-linux-{x64,arm64}.tar.xz as published in its SHASUMS256.txt. */
export const DEFAULT_NODE_BUILD: NodeBuild = {
  version: "22.12.0",
  sha256: {
    x64: "22982235e1b71fa8850f82edd09cdae7e3f32df1764a9ec298c72d25ef2c164f",
    arm64: "8cfd5a8b9afae5a2e0bd86b0148ca31d2589c0ea669c2d0b11c132e35d90ed68",
  },
};

export const DEFAULT_WORK_DIR = "/var/lib/backup-portal";
export const BOOT_DRY_RUN_ENV = "BACKUP_PORTAL_BOOT_DRY_RUN";

/** The name and version of this package, from its package.json (source checkout or dist/). */
export function ownPackage(): { name: string; version: string } {
  for (const rel of ["../../package.json", "../../../package.json"]) {
    try {
      const p = require(rel) as { name?: string; version?: string };
      if (p.name === "backup-portal-pulumi" && p.version) return { name: p.name, version: p.version };
    } catch {
      // not this layout
    }
  }
  throw new Error("registration user data: cannot read this package's package.json for its version");
}

/** npm's integrity string (`sha512-<base64>`) of a tarball on disk: what `npm view <spec> dist.integrity` shows. */
export function tarballIntegrity(file: string): string {
  return `sha512-${createHash("sha512").update(fs.readFileSync(file)).digest("base64")}`;
}

/** The registry's recorded integrity of `spec` (`npm view`); needs the registry. */
export function registryIntegrity(spec: string): string {
  const out = execFileSync("npm", ["view", spec, "dist.integrity"], {
    encoding: "utf8",
    timeout: 60_000,
    stdio: ["ignore", "pipe", "pipe"],
  });
  return out.trim();
}

const INTEGRITY = /^sha512-[A-Za-z0-9+/]{86}==$/;
const HEX64 = /^[0-9a-f]{64}$/;
const EXACT_VERSION = /^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/;

/** `name@1.2.3` (scoped names too): a spec that names one exact version. */
export function isPinnedSpec(spec: string): boolean {
  const at = spec.lastIndexOf("@");
  if (at <= 0) return false;
  const name = spec.slice(0, at);
  return /^(@[a-z0-9][a-z0-9._-]*\/)?[a-z0-9][a-z0-9._-]*$/.test(name) && EXACT_VERSION.test(spec.slice(at + 1));
}

export function checkIntegrity(what: string, value: string): string {
  if (!INTEGRITY.test(value))
    throw new Error(`registration user data: ${what} must be an npm sha512 integrity (sha512-<88 base64 characters>)`);
  return value;
}

export function checkNodeBuild(build: NodeBuild): NodeBuild {
  const problems: string[] = [];
  const m = /^(\d+)\.\d+\.\d+$/.exec(build.version ?? "");
  if (!m) problems.push(`node.version must be an exact version like 22.12.0, got ${JSON.stringify(build.version)}`);
  else if (Number(m[1]) < NODE_MIN_MAJOR) problems.push(`node.version must be ${NODE_MIN_MAJOR} or newer, got ${build.version}`);
  for (const arch of ["x64", "arm64"] as const)
    if (!HEX64.test(build.sha256?.[arch] ?? ""))
      problems.push(`node.sha256.${arch} must be 64 lower-case hex digits (from SHASUMS256.txt)`);
  if (build.distUrl !== undefined && !/^https:\/\/[^\s'"\\$`]+$/.test(build.distUrl)) problems.push("node.distUrl must be an https URL");
  if (problems.length) throw new Error(`registration user data: ${problems.join("; ")}`);
  return build;
}

export interface BootScriptOptions {
  /** Exact npm spec, e.g. backup-portal-pulumi@0.1.0. */
  packageSpec: string;
  /** Its sha512 integrity; absent only for an unpinned spec the caller allowed (then nothing is verified). */
  integrity?: string;
  /** The arguments of `backup-portal`, e.g. ["register", "--password-file", "/etc/..."]. */
  args: string[];
  /** A 0600 env file to source first (BACKUP_PORTAL_*), or none (broker mode). */
  envFile?: string;
  /** The Node.js build to install when the image has no Node.js >= 22; `false`: fail instead. */
  node: NodeBuild | false;
  /** Attempts of the registration. */
  attempts: number;
  workDir?: string;
}

/** The script's text (POSIX sh; every value quoted). */
export function renderBootScript(o: BootScriptOptions): string {
  const q = shellQuote;
  const work = o.workDir ?? DEFAULT_WORK_DIR;
  const node = o.node;
  const lines = [
    "#!/bin/sh",
    "# Registers this instance for backup at first boot (written by cloud-init; see docs/registration.md).",
    `# ${BOOT_DRY_RUN_ENV}=1 prints the commands that change the machine instead of running them.`,
    "set -u",
    `PACKAGE_SPEC=${q(o.packageSpec)}`,
    ...(o.integrity !== undefined ? [`PACKAGE_INTEGRITY=${q(o.integrity)}`] : []),
    `NODE_MIN_MAJOR=${NODE_MIN_MAJOR}`,
    `WORK_DIR=${q(work)}`,
    'NODE_PREFIX="$WORK_DIR/node"',
    'PACKAGE_PREFIX="$WORK_DIR/package"',
    `export HOME="\${HOME:-/root}"`,
    "",
    'fail() { echo "backup-portal boot: $*" >&2; exit 1; }',
    "# A command that changes the machine: printed in a dry run, else run.",
    "run() {",
    `  if [ -n "\${${BOOT_DRY_RUN_ENV}:-}" ]; then echo "+ $*"; else "$@"; fi`,
    "}",
    "node_major() {",
    "  if command -v node >/dev/null 2>&1; then node -p 'process.versions.node.split(\".\")[0]' 2>/dev/null || echo 0; else echo 0; fi",
    "}",
    "# sha256 of a file, as sha256sum prints it.",
    "sha256_of() { sha256sum \"$1\" | cut -d ' ' -f 1; }",
    "# npm's integrity string of a tarball, computed by the Node.js just checked or installed.",
    "integrity_of() {",
    '  node -e \'process.stdout.write("sha512-" + require("crypto").createHash("sha512").update(require("fs").readFileSync(process.argv[1])).digest("base64"))\' "$1"',
    "}",
    "",
    'run mkdir -p "$WORK_DIR"',
    'PATH="$NODE_PREFIX/bin:$PATH"',
    "export PATH",
    'if [ "$(node_major)" -lt "$NODE_MIN_MAJOR" ]; then',
  ];
  if (node === false) {
    lines.push(
      '  fail "Node.js $NODE_MIN_MAJOR or newer is needed (found: $(node --version 2>/dev/null || echo none)); install it in the image, or let the user data install a pinned build"',
    );
  } else {
    checkNodeBuild(node);
    lines.push(
      `  NODE_VERSION=${q(node.version)}`,
      `  NODE_DIST=${q((node.distUrl ?? "https://nodejs.org/dist").replace(/\/+$/, ""))}`,
      '  case "$(uname -m)" in',
      `    x86_64 | amd64) NODE_ARCH=x64; NODE_SHA256=${node.sha256.x64} ;;`,
      `    aarch64 | arm64) NODE_ARCH=arm64; NODE_SHA256=${node.sha256.arm64} ;;`,
      '    *) fail "no pinned Node.js build for $(uname -m): install Node.js $NODE_MIN_MAJOR or newer in the image" ;;',
      "  esac",
      '  archive="$WORK_DIR/node-v$NODE_VERSION-linux-$NODE_ARCH.tar.xz"',
      '  url="$NODE_DIST/v$NODE_VERSION/node-v$NODE_VERSION-linux-$NODE_ARCH.tar.xz"',
      "  if command -v curl >/dev/null 2>&1; then",
      '    run curl -fsSL --retry 5 -o "$archive" "$url" || fail "cannot download $url"',
      "  else",
      '    run wget -q -O "$archive" "$url" || fail "cannot download $url (and no curl)"',
      "  fi",
      `  if [ -n "\${${BOOT_DRY_RUN_ENV}:-}" ]; then`,
      '    echo "+ check sha256 of $archive is $NODE_SHA256"',
      '  elif [ "$(sha256_of "$archive")" != "$NODE_SHA256" ]; then',
      '    rm -f "$archive"',
      '    fail "$url does not have the pinned SHA-256 $NODE_SHA256: not installed"',
      "  fi",
      '  run mkdir -p "$NODE_PREFIX"',
      '  run tar -xJf "$archive" -C "$NODE_PREFIX" --strip-components=1 || fail "cannot unpack $archive"',
      '  run rm -f "$archive"',
    );
  }
  lines.push(
    "fi",
    "",
    'cd "$WORK_DIR" 2>/dev/null || cd /',
    `if [ -n "\${${BOOT_DRY_RUN_ENV}:-}" ]; then`,
    '  echo "+ npm pack --silent $PACKAGE_SPEC"',
    '  tarball="$WORK_DIR/package.tgz"',
    "else",
    '  packed=$(npm pack --silent "$PACKAGE_SPEC" | tail -n 1) || fail "npm pack $PACKAGE_SPEC failed"',
    '  tarball="$WORK_DIR/$packed"',
    "fi",
  );
  if (o.integrity !== undefined) {
    lines.push(
      `if [ -n "\${${BOOT_DRY_RUN_ENV}:-}" ]; then`,
      '  echo "+ check integrity of $tarball is $PACKAGE_INTEGRITY"',
      'elif [ "$(integrity_of "$tarball")" != "$PACKAGE_INTEGRITY" ]; then',
      '  rm -f "$tarball"',
      '  fail "$PACKAGE_SPEC does not have the integrity recorded when the user data was rendered: not installed"',
      "fi",
    );
  } else {
    lines.push("# The caller allowed an unpinned package: its tarball is not verified.");
  }
  lines.push(
    'run npm install --global --no-audit --no-fund --prefix "$PACKAGE_PREFIX" "$tarball" || fail "cannot install $tarball"',
    'run rm -f "$tarball"',
  );
  if (o.envFile) {
    lines.push(
      `ENV_FILE=${q(o.envFile)}`,
      `if [ -n "\${${BOOT_DRY_RUN_ENV}:-}" ]; then`,
      '  echo "+ . $ENV_FILE"',
      "else",
      '  [ -r "$ENV_FILE" ] || fail "cannot read $ENV_FILE"',
      "  set -a",
      "  # shellcheck source=/dev/null",
      '  . "$ENV_FILE"',
      "  set +a",
      "fi",
    );
  }
  const command = ['"$PACKAGE_PREFIX/bin/backup-portal"', ...o.args.map(q)].join(" ");
  lines.push(
    "# Retries every failure but 2 (bad arguments) and 3 (configuration to fix): they fail the same way every time.",
    "n=0",
    `until run ${command}; do`,
    "  rc=$?; n=$((n + 1))",
    `  if [ "$rc" -eq 2 ] || [ "$rc" -eq 3 ] || [ "$n" -ge ${o.attempts} ]; then exit "$rc"; fi`,
    "  sleep 20",
    "done",
    "",
  );
  return lines.join("\n");
}
