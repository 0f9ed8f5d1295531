// A command's errors name what that command reads: its flags and the BACKUP_PORTAL_* variables, never stack
// config (`pulumi config set`, `backup-portal:url`) nor the providers' `pulumi refresh` / `pulumi up --parallel`
// (issue 27.8). Each command meets a missing connection, a refused login, a missing object, a rate limit and a
// portal that does not answer.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as http from "node:http";
import * as os from "node:os";
import * as path from "node:path";
import type { AddressInfo } from "node:net";
import { mainInProcess } from "./process";
import { main as receiverMain } from "../../provider/billing/main";
import { PortalClient } from "../../provider/portal/client";
import { cliHints, STACK_HINTS } from "../../provider/portal/hints";
import { resolveSettings } from "../../provider/portal/settings";
import { envFor, Emulator, startEmulator } from "../support/portal";
import { MetadataService, SAMPLE_METADATA, startMetadataService } from "../../emulator/metadata-service";

/** What belongs to the stack, not to a command. */
const STACK_WORDS =
  /pulumi (config|refresh|up --parallel)|backup-portal:(url|origin|clientId|username|password|maxAnswerBytes)|stack config/;

/** The doctor's fix for a missing setting also names the stack's key for it ("in a stack, backup-portal:url"). */
const stackPointer = (text: string) => text.replace(/in a stack, backup-portal:\w+/g, "");

describe("CLI hints name the command's flags and variables (27.8)", function () {
  this.timeout(120_000);
  let emu: Emulator;
  let meta: MetadataService;
  let closed: string;
  let dir: string;
  before(async () => {
    emu = await startEmulator({ port: 0, quiet: true });
    meta = await startMetadataService({ metadata: { ...SAMPLE_METADATA, meta: { backup_bunit: "2" } } });
    const s = http.createServer();
    await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
    closed = `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
    await new Promise((r) => s.close(r));
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "bp-hints-"));
  });
  after(async () => {
    await emu?.close();
    await meta?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  afterEach(() => emu.clearFaults());

  const cli = mainInProcess;

  const register = (extra: string[] = []) => [
    "register",
    "--url",
    meta.url,
    "--no-config-drive",
    "--dry-run",
    "--quiet",
    "--lock-file",
    path.join(dir, "lock"),
    "--option-file",
    path.join(dir, "dsm.opt"),
    ...extra,
  ];

  // Each portal command, with arguments that name an object the portal does not have (for the not-found).
  const commands = (): Record<string, { argv: string[]; missing?: string[] }> => ({
    reports: { argv: ["reports", "--bunit", "2", "--consumer", "1"], missing: ["reports", "--bunit", "2", "--consumer", "999"] },
    jobs: { argv: ["jobs", "--bunit", "2", "--consumer", "1", "--all"], missing: ["jobs", "--bunit", "2", "--consumer", "999", "--all"] },
    audit: { argv: ["audit", "--bunit", "2", "--consumer", "1"], missing: ["audit", "--bunit", "2", "--consumer", "999"] },
    invoices: { argv: ["invoices", "--bunit", "1"], missing: ["invoices", "--bunit", "999"] },
    billing: { argv: ["billing", "--bunit", "1"], missing: ["billing", "--bunit", "999"] },
    doctor: { argv: ["doctor", "--bunit", "2"] },
    register: { argv: register() },
  });

  it("no connection settings: the variables to export, per command", async () => {
    for (const [name, c] of Object.entries(commands())) {
      const r = await cli(c.argv, {});
      assert.notEqual(r.code, 0, name);
      assert.match(r.text, /BACKUP_PORTAL_URL/, `${name}: ${r.text}`);
      assert.doesNotMatch(stackPointer(r.text), STACK_WORDS, `${name}: ${r.text}`);
    }
    const receiver = await receiverMain(
      ["--port", "0", "--out", dir, "--bunit", "1", "--quiet"],
      {},
      { out: () => undefined, err: () => undefined },
    );
    assert.equal(receiver, 1);
    assert.throws(
      () => resolveSettings(undefined, {}, "cli"),
      (e: Error) => /export BACKUP_PORTAL_URL/.test(e.message) && !STACK_WORDS.test(e.message),
    );
    // The stack's own reading still says both places.
    assert.throws(() => resolveSettings(undefined, {}), /pulumi config set/);
  });

  it("a refused login: the BACKUP_PORTAL_* variables, per command", async () => {
    for (const [name, c] of Object.entries(commands())) {
      const r = await cli(c.argv, { ...envFor(emu), BACKUP_PORTAL_PASSWORD: "Wr0ng-Hint-Pa55word" });
      assert.notEqual(r.code, 0, name);
      assert.match(r.text, /BACKUP_PORTAL_PASSWORD/, `${name}: ${r.text}`);
      assert.doesNotMatch(r.text, STACK_WORDS, `${name}: ${r.text}`);
    }
  });

  it("a missing object: the flags that named it, never `pulumi refresh`", async () => {
    for (const [name, c] of Object.entries(commands())) {
      if (!c.missing) continue;
      const r = await cli(c.missing, envFor(emu));
      assert.notEqual(r.code, 0, name);
      assert.match(r.text, /HTTP 404/, `${name}: ${r.text}`);
      const flags = c.missing.includes("--consumer") ? /check --bunit and --consumer/ : /check --bunit$/m;
      assert.match(r.text, flags, `${name}: ${r.text}`);
      assert.doesNotMatch(r.text, STACK_WORDS, `${name}: ${r.text}`);
    }
  });

  it("a rate limit: wait and run again, never `pulumi up --parallel`", async () => {
    for (const [name, c] of Object.entries(commands())) {
      if (name === "doctor" || name === "register") continue;
      emu.setFaults({ errorRate: 1, statuses: [429], retryAfterSeconds: 0, match: { pathPrefix: "/v1/bunits" } });
      const r = await cli([...c.argv, "--timeout", "1"], envFor(emu));
      emu.clearFaults();
      assert.equal(r.code, 1, `${name}: ${r.text}`);
      assert.match(r.text, /HTTP 429.*wait a minute and run the command again/, `${name}: ${r.text}`);
      assert.doesNotMatch(r.text, STACK_WORDS, `${name}: ${r.text}`);
    }
  });

  it("no answer: BACKUP_PORTAL_URL and the command's own timeout flag", async () => {
    for (const [name, c] of Object.entries(commands())) {
      if (name === "doctor") continue; // its version check says it in its own words (test/doctor)
      const r = await cli(name === "register" ? register(["--portal-timeout", "2"]) : [...c.argv, "--timeout", "2"], {
        ...envFor(emu),
        BACKUP_PORTAL_URL: closed,
      });
      assert.notEqual(r.code, 0, name);
      const timeout = name === "register" ? "--portal-timeout" : "--timeout";
      assert.match(r.text, new RegExp(`check BACKUP_PORTAL_URL.*${timeout} gives it longer`), `${name}: ${r.text}`);
      assert.doesNotMatch(r.text, STACK_WORDS, `${name}: ${r.text}`);
    }
  });

  it("the client keeps the stack's hints unless told otherwise", async () => {
    const stack = new PortalClient({ ...resolveSettings(undefined, envFor(emu)), maxAttempts: 1 });
    const command = new PortalClient({ ...resolveSettings(undefined, envFor(emu)), maxAttempts: 1, hintContext: cliHints(["--bunit"]) });
    try {
      await assert.rejects(stack.businessUnits.get(999), /pulumi refresh/);
      await assert.rejects(command.businessUnits.get(999), (e: Error) => /check --bunit$/.test(e.message) && !STACK_WORDS.test(e.message));
      assert.equal(STACK_HINTS.tool, "stack");
    } finally {
      stack.close();
      command.close();
    }
  });
});
