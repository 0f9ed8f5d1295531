// The `backup-portal` command through its real binary (bin/backup-portal.js, as npm installs it): every
// subcommand is reached and does its job, judged by exit status and output only.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { envFor, Emulator, startEmulator } from "../support/portal";
import { MetadataService, SAMPLE_METADATA, startMetadataService } from "../../emulator/metadata-service";
import { backupPortal as run } from "./process";

/** Runs the binary with `args` and only `env`, at most `timeoutMs` (test/cli/process.ts); stdin closed. */
const backupPortal = (args: string[], env: Record<string, string> = {}, timeoutMs = 20_000) => run(args, { env, timeoutMs });

describe("backup-portal: the binary and its subcommands", function () {
  this.timeout(120_000);
  let emu: Emulator;
  let meta: MetadataService;
  before(async () => {
    emu = await startEmulator({ port: 0, quiet: true });
    meta = await startMetadataService();
  });
  after(async () => {
    await emu?.close();
    await meta?.close();
  });

  it("without a command: usage listing every subcommand, exit 2; --help exit 0; an unknown one exit 2 on stderr", async () => {
    const bare = await backupPortal([]);
    assert.equal(bare.code, 2);
    for (const c of ["metadata", "register", "reports", "jobs", "audit", "invoices", "billing", "billing-receiver"]) {
      assert.match(bare.out, new RegExp(`^  ${c} +\\S`, "m"), c);
    }
    const help = await backupPortal(["--help"]);
    assert.deepEqual([help.code, help.out], [0, bare.out]);
    const unknown = await backupPortal(["frobnicate"]);
    assert.equal(unknown.code, 2);
    assert.match(unknown.err, /unknown command "frobnicate"/);
    assert.equal(unknown.out, "");
  });

  it("each subcommand's --help comes from that subcommand, exit 0", async () => {
    const own: Record<string, RegExp> = {
      metadata: /^usage: backup-portal metadata /,
      register: /^usage: backup-portal register /,
      reports: /^usage: backup-portal reports /,
      jobs: /^usage: backup-portal jobs /,
      audit: /^usage: backup-portal audit /,
      invoices: /^usage: backup-portal invoices /,
      billing: /^usage: backup-portal billing /,
      "billing-receiver": /billing-receiver -- --port/,
    };
    for (const [c, re] of Object.entries(own)) {
      const r = await backupPortal([c, "--help"]);
      assert.equal(r.code, 0, `${c}: ${r.err}`);
      assert.match(r.out, re, c);
    }
  });

  it("reports, jobs, audit, invoices and billing read the portal and print JSON", async () => {
    const env = envFor(emu);
    for (const args of [
      ["reports", "--bunit", "2", "--consumer", "1"],
      ["jobs", "--bunit", "2", "--consumer", "1", "--all"],
      ["audit", "--bunit", "2", "--consumer", "1"],
      ["invoices", "--bunit", "1"],
      ["billing", "--bunit", "1"],
    ]) {
      const r = await backupPortal([...args, "--json"], env);
      assert.equal(r.code, 0, `${args.join(" ")}: ${r.err}`);
      assert.doesNotThrow(() => JSON.parse(r.out), `${args[0]} prints JSON: ${r.out.slice(0, 200)}`);
    }
    const paths = emu.requests().map((x) => x.path);
    for (const p of ["/v1/bunits/2/consumers/1/", "/v1/bunits/1/"])
      assert.ok(
        paths.some((x) => x.startsWith(p)),
        p,
      );
  });

  it("metadata reads the metadata service; register stops without configuration and plans with it; billing-receiver refuses a missing --out", async () => {
    const m = await backupPortal(["metadata", "--url", meta.url, "--no-config-drive"]);
    assert.equal(m.code, 0, m.err);
    assert.ok(m.out.includes(SAMPLE_METADATA.uuid), m.out.slice(0, 300));

    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bp-dispatch-"));
    try {
      const args = [
        "register",
        "--url",
        meta.url,
        "--no-config-drive",
        "--dry-run",
        "--no-option-file",
        "--lock-file",
        path.join(dir, "lock"),
      ];
      const unconfigured = await backupPortal(args);
      assert.equal(unconfigured.code, 3, "configuration missing: exit 3");
      assert.match(unconfigured.err, /backup_bunit is missing/);
      const withBunit = await startMetadataService({ metadata: { ...SAMPLE_METADATA, meta: { backup_bunit: "2" } } });
      try {
        const reg = await backupPortal(["register", "--url", withBunit.url, ...args.slice(3)], envFor(emu));
        assert.equal(reg.code, 0, reg.err);
        assert.match(
          reg.out,
          /^dry run, would: create consumer "backup-node-1", create node, set node password, activate as BACKUP-NODE-1-D8E02D$/m,
        );
      } finally {
        await withBunit.close();
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }

    const recv = await backupPortal(["billing-receiver", "--port", "0", "--bunit", "1"], envFor(emu));
    assert.equal(recv.code, 2);
    assert.match(recv.err, /^billing receiver: missing --out/);
  });
});
