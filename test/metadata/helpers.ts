// Fixtures for the metadata tests: config drive directories and ISO images.
import { spawnSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import type { CommandResult, CommandRunner } from "../../provider/metadata";

const made: string[] = [];

/** A temp dir removed by cleanupFixtures(). */
export function tempDir(prefix = "metadata-test-"): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  made.push(dir);
  return dir;
}

export function cleanupFixtures(): void {
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
}

/**
 * Writes the config drive layout `<dir>/<platform>/<version>/meta_data.json`
 * (+ `user_data` unless null) into `dir` (a new temp dir by default).
 */
export function writeDriveTree(opts: {
  metadata: object | string;
  userData?: string | Buffer | null;
  platform?: string;
  version?: string;
  dir?: string;
}): string {
  const dir = opts.dir ?? tempDir("config-drive-tree-");
  const base = path.join(dir, opts.platform ?? "openstack", opts.version ?? "latest");
  fs.mkdirSync(base, { recursive: true });
  fs.writeFileSync(path.join(base, "meta_data.json"), typeof opts.metadata === "string" ? opts.metadata : JSON.stringify(opts.metadata));
  if (opts.userData !== undefined && opts.userData !== null) fs.writeFileSync(path.join(base, "user_data"), opts.userData);
  return dir;
}

export function hasCommand(name: string): boolean {
  return spawnSync(name, ["--version"], { stdio: "ignore", timeout: 10_000 }).error === undefined;
}

/** genisoimage `flags` -V config-2 -o <tmp>/drive.iso <tree>; returns the image path. */
export function makeIso(tree: string, flags: string[] = ["-R"], label = "config-2"): string {
  const out = path.join(tempDir("config-drive-iso-"), "drive.iso");
  const res = spawnSync("genisoimage", [...flags, "-quiet", "-V", label, "-o", out, tree], { encoding: "utf8", timeout: 30_000 });
  if (res.status !== 0) throw new Error(`genisoimage failed: ${res.stderr || res.error?.message}`);
  return out;
}

export interface FakeCall {
  command: string;
  args: string[];
}

/**
 * A CommandRunner answering from a table keyed by "command arg arg...";
 * a function value is called (e.g. to simulate mount). Unknown commands: exit 1.
 */
export function fakeRunner(table: Record<string, CommandResult | ((args: string[]) => CommandResult)>): {
  runner: CommandRunner;
  calls: FakeCall[];
} {
  const calls: FakeCall[] = [];
  const runner: CommandRunner = async (command, args) => {
    calls.push({ command, args: [...args] });
    const entry = table[[command, ...args].join(" ")] ?? table[command];
    if (entry === undefined) return { code: 1, stdout: "", stderr: `fake: no answer for ${command} ${args.join(" ")}` };
    return typeof entry === "function" ? entry([...args]) : entry;
  };
  return { runner, calls };
}

export const ok = (stdout = ""): CommandResult => ({ code: 0, stdout, stderr: "" });
export const noMatch: CommandResult = { code: 2, stdout: "", stderr: "" };

/** blkid answers as `blkid -c /dev/null -t <token> -o device` would give them. */
export function blkidTable(answers: {
  labelLower?: string[];
  labelUpper?: string[];
  iso9660?: string[];
  vfat?: string[];
}): Record<string, CommandResult> {
  const entry = (devices?: string[]): CommandResult => (devices && devices.length ? ok(devices.join("\n") + "\n") : noMatch);
  return {
    "blkid -c /dev/null -t LABEL=config-2 -o device": entry(answers.labelLower),
    "blkid -c /dev/null -t LABEL=CONFIG-2 -o device": entry(answers.labelUpper),
    "blkid -c /dev/null -t TYPE=iso9660 -o device": entry(answers.iso9660),
    "blkid -c /dev/null -t TYPE=vfat -o device": entry(answers.vfat),
  };
}

/**
 * Offset of the Joliet directory record of file `name` in an image made with genisoimage -J
 * (Joliet names are UCS-2 big-endian, with or without ";1"): the record starts 33 bytes before the name.
 */
export function jolietRecord(image: Buffer, name: string): number {
  for (const spelled of [name, `${name};1`]) {
    const needle = Buffer.from(spelled, "utf16le").swap16();
    let found = -1;
    for (let at = image.indexOf(needle); at !== -1; at = image.indexOf(needle, at + 1)) {
      if (at < 33 || image[at - 1] !== needle.length) continue; // not a whole record name
      if (found !== -1) throw new Error(`more than one Joliet record named ${name} in the image`);
      found = at - 33;
    }
    if (found !== -1) return found;
  }
  throw new Error(`no Joliet record named ${name} in the image`);
}
