// registerInstance (the API) in process against the portal emulator on 127.0.0.1, files in temp dirs: the exact
// progress lines, warnings, results and error messages of each step, which the command-line tests only match in part.
import assert from "node:assert/strict";
import * as fs from "fs";
import * as path from "path";
import { startMetadataService } from "../../emulator/metadata-service";
import { readInstanceMetadata } from "../../provider/metadata";
import { hashSecret } from "../../emulator/util";
import {
  acquireLock,
  CONFIG_DRIVE_NOTE,
  RegisterOptions,
  registerInstance,
  RegistrationError,
  RegistrationResult,
  summarize,
} from "../../provider/registration";
import { writeOptionFile } from "../../provider/registration/register";
import { clientFor, Emulator, envFor, writes } from "../support/portal";
import { blockWhenTempAppears, instanceDocument, md, registrationSuite, startPortalProxy, TSM_NAME, UUID } from "./helpers";

const BUNIT = 2; // Tenant A, reachable by the "tenant" account
const TAG = `instance-uuid:${UUID}`;
const LOCATION = "http://169.254.169.254/openstack/latest/meta_data.json";
const KEPT_NOWHERE =
  "the node password was set on the portal but kept nowhere (no --password-file): the backup client cannot log in " +
  "until you run again with --rotate-password --password-file <path>";

interface Run {
  result?: RegistrationResult;
  error?: RegistrationError;
  lines: string[];
  logs: string[];
}

describe("registration: registerInstance step by step (in process)", function () {
  const suite = registrationSuite();

  /** registerInstance with the metadata as found (`meta`, from `source`), no retries, a lock in the temp dir. */
  async function reg(
    meta: Record<string, string>,
    extra: Partial<RegisterOptions> = {},
    source: "network" | "config-drive" = "network",
  ): Promise<Run> {
    const lines: string[] = [];
    const logs: string[] = [];
    try {
      const result = await registerInstance({
        found: { source, location: LOCATION, metadata: md(meta), disabled: false },
        env: envFor(suite.emu, "tenant"),
        optionFile: false,
        lockFile: path.join(suite.dir, "register.lock"),
        cpuCount: () => 2,
        portal: { maxAttempts: 1, retryBaseMs: 10, retryMaxMs: 50 },
        progress: (l) => lines.push(l),
        log: (l) => logs.push(l),
        ...extra,
      });
      return { result, lines, logs };
    } catch (err) {
      if (!(err instanceof RegistrationError)) throw err;
      return { error: err, lines, logs };
    }
  }
  const bu = { backup_bunit: String(BUNIT) };
  const tagged = () => suite.emu.state().consumers.filter((c) => c.tags?.includes(TAG));
  const checking = () => `checking business unit ${BUNIT} and the requested names on ${suite.emu.url}`;
  const failed = (r: Run): RegistrationError => {
    assert.ok(r.error, `expected a RegistrationError, got ${JSON.stringify(r.result)}`);
    return r.error;
  };

  it("a new instance: every step said once, a typed result; the second run finds it and changes nothing", async () => {
    const first = await reg(bu);
    assert.ok(first.result, first.error?.message);
    const c = tagged()[0];
    assert.deepEqual(first.lines, [
      checking(),
      `no consumer of business unit ${BUNIT} carries ${TAG}`,
      `creating consumer "web01" in business unit ${BUNIT}`,
      "creating node: Linux, File server, domain STANDARD, option set DEDUP_AND_COMPRESS, 2 CPU",
      "setting the node password",
      `activating the node as ${TSM_NAME}`,
    ]);
    const node = suite.emu.state().nodes.find((n) => n.consumerId === c.id)!;
    assert.deepEqual(first.result, {
      status: "registered",
      instance: { uuid: UUID, name: "web01", source: "network", location: LOCATION },
      businessUnit: { id: BUNIT, name: first.result.businessUnit.name },
      consumerId: c.id,
      nodeId: node.id,
      tsmName: TSM_NAME,
      actions: [`created consumer ${c.id}`, "created node", "set node password", `activated as ${TSM_NAME}`],
      warnings: [KEPT_NOWHERE],
      credentialSources: first.result.credentialSources,
      passwordSet: true,
      server: { name: "SP01", address: "sp01.backup.example", port: 1500 },
    });
    assert.equal(typeof first.result.businessUnit.name, "string");
    assert.equal(c.note, `Registered by the instance itself (backup-portal register), instance ${UUID}`);
    assert.equal(summarize(first.result), `created consumer ${c.id}, created node, set node password, activated as ${TSM_NAME}`);

    suite.emu.clearRequests();
    const optionFile = path.join(suite.dir, "dsm.opt");
    const second = await reg(bu, { optionFile });
    assert.ok(second.result, second.error?.message);
    assert.deepEqual(second.lines, [
      checking(),
      `found consumer ${c.id}, node activated as ${TSM_NAME}`,
      `option file ${optionFile}: written`,
    ]);
    assert.equal(second.result.status, "unchanged");
    assert.equal(second.result.passwordSet, false);
    assert.deepEqual(second.result.actions, []);
    assert.deepEqual(second.result.warnings, []);
    assert.deepEqual(second.result.optionFile, { path: optionFile, written: true });
    assert.equal(
      summarize(second.result),
      `already registered as ${TSM_NAME} (business unit ${BUNIT}, consumer ${c.id}); wrote ${optionFile}`,
    );
    assert.deepEqual(writes(suite.emu), []);
    // Only the list's consumer without tags (db-01) is read in full: the others' tags are in the list.
    assert.deepEqual(
      suite.emu
        .requests()
        .filter((r) => /^\/v1\/bunits\/\d+\/consumers\/\d+$/.test(r.path.split("?")[0]))
        .map((r) => r.path),
      [`/v1/bunits/${BUNIT}/consumers/2`],
    );

    const third = await reg(bu, { optionFile });
    assert.deepEqual(third.lines.slice(-1), [`option file ${optionFile}: up to date`]);
    assert.equal(summarize(third.result!), `already registered as ${TSM_NAME} (business unit ${BUNIT}, consumer ${c.id}); nothing to do`);

    const dry = await reg(bu, { dryRun: true });
    assert.equal(dry.result?.status, "planned");
    assert.deepEqual(dry.result.actions, []);
    assert.equal(summarize(dry.result), "dry run, would: nothing");
  });

  it("a dry run takes no lock and plans every step; with a node not activated only the password and the name", async () => {
    const blocker = path.join(suite.dir, "a-file");
    fs.writeFileSync(blocker, "");
    const optionFile = path.join(suite.dir, "dsm.opt");
    const dry = await reg(bu, { dryRun: true, lockFile: path.join(blocker, "register.lock"), optionFile });
    assert.ok(dry.result, dry.error?.message);
    assert.deepEqual(dry.result.actions, [
      'create consumer "web01"',
      "create node",
      "set node password",
      `activate as ${TSM_NAME}`,
      `write ${optionFile}`,
    ]);
    assert.deepEqual(writes(suite.emu), []);
    // Consumer 2 (db-01) has a node that is not activated: tagged, it is this instance's.
    suite.emu.update((s) => {
      s.consumers.find((c) => c.id === 2)!.tags = [TAG];
    });
    const half = await reg(bu, { dryRun: true });
    assert.deepEqual(half.result?.actions, ["set node password", `activate as ${TSM_NAME}`]);
    // Its node has no client option set: an explicit one is a change.
    const set = await reg({ ...bu, backup_option_set: "DEDUP_AND_COMPRESS" }, { dryRun: true });
    assert.deepEqual(set.result?.actions, ["update node (client option set)", "set node password", `activate as ${TSM_NAME}`]);
    assert.deepEqual(half.lines, [checking(), "found consumer 2, node not activated"]);
    // Without its node.
    suite.emu.update((s) => {
      s.nodes = s.nodes.filter((n) => n.consumerId !== 2);
    });
    const bare = await reg(bu, { dryRun: true });
    assert.deepEqual(bare.result?.actions, ["create node", "set node password", `activate as ${TSM_NAME}`]);
    assert.deepEqual(bare.lines, [checking(), "found consumer 2 without a node"]);
  });

  it("explicit keys equal to the node change nothing; a changed contact or CPU count is updated; defaults never revert them", async () => {
    const meta = { ...bu, backup_contact: "ops@example.org", backup_cpu_count: "3", backup_os: "Linux", backup_domain: "STANDARD" };
    const first = await reg(meta);
    assert.ok(first.result, first.error?.message);
    const c = tagged()[0];
    const nodeOf = () => suite.emu.state().nodes.find((n) => n.consumerId === c.id)!;
    assert.equal(nodeOf().contact, "ops@example.org");
    suite.emu.clearRequests();
    const same = await reg({ ...meta, backup_tsm_name: TSM_NAME.toLowerCase() });
    assert.equal(same.result?.status, "unchanged", same.error?.message);
    assert.deepEqual(same.result.warnings, [], "the same name in another case is no change");
    assert.deepEqual(writes(suite.emu), []);

    const changed = { ...meta, backup_contact: "it@example.org", backup_cpu_count: "5" };
    const plan = await reg(changed, { dryRun: true });
    assert.deepEqual(plan.result?.actions, ["update node (contact, cpu count)"]);
    const updated = await reg(changed);
    assert.deepEqual(updated.result?.actions, ["updated node (contact, cpu count)"]);
    assert.deepEqual(updated.lines.slice(-1), ["updating node: contact, cpu count"]);
    assert.equal(nodeOf().contact, "it@example.org");
    assert.equal(nodeOf().cpuCount, 5);

    suite.emu.clearRequests();
    const defaults = await reg(bu);
    assert.equal(defaults.result?.status, "unchanged");
    assert.deepEqual(writes(suite.emu), []);
  });

  it("warnings: unknown keys (one or several), a name that cannot change, a locked or decommissioned node", async () => {
    assert.ok((await reg(bu)).result);
    const one = await reg({ ...bu, backup_domian: "30DAYS", backup_tsm_name: "OTHER" });
    assert.deepEqual(one.result?.warnings, [
      "unknown metadata key backup_domian ignored; known keys: backup_bunit, backup_os, backup_node_type, backup_domain, backup_option_set, backup_contact, backup_cpu_count, backup_tsm_name",
      `the node is activated as ${TSM_NAME}; backup_tsm_name OTHER is ignored because a node's name never changes (delete the node on the portal to register under a new name)`,
    ]);
    const two = await reg({ ...bu, backup_x: "1", backup_y: "2" });
    assert.match(two.result!.warnings[0], /^unknown metadata keys backup_x, backup_y ignored; known keys: /);
    suite.emu.update((s) => {
      const n = s.nodes.find((x) => x.tsmName === TSM_NAME)!;
      n.locked = true;
      n.decommissioned = true;
    });
    const flagged = await reg(bu);
    assert.deepEqual(flagged.result?.warnings, [
      `node ${TSM_NAME} is locked on the backup server; unlock it on the portal`,
      `node ${TSM_NAME} is decommissioned`,
    ]);
  });

  it("several consumers carry the tag (in any case, beside other tags): the lowest id of the most complete wins, with a warning", async () => {
    suite.emu.update((s) => {
      const base = s.consumers.find((c) => c.id === 2)!;
      s.consumers.push({ ...base, id: 61, name: "dup-b", tags: [TAG] });
      s.consumers.push({ ...base, id: 60, name: "dup-a", tags: [7 as unknown as string, "web", TAG.toUpperCase()] });
    });
    const r = await reg(bu);
    assert.ok(r.result, r.error?.message);
    assert.equal(r.result.consumerId, 60);
    assert.deepEqual(r.result.warnings, [
      `consumers 60, 61 of business unit ${BUNIT} all carry ${TAG}; using 60: delete the others on the portal`,
      KEPT_NOWHERE,
    ]);
    assert.equal(suite.emu.state().nodes.find((n) => n.tsmName === TSM_NAME)?.consumerId, 60);
  });

  describe("configuration problems: every one at once, nothing changed", () => {
    it("names not known to the portal, a default it lacks, a server without an address; the config-drive note when a fix is a metadata change", async () => {
      const linux = suite.emu.state().operatingSystems.find((o) => o.name === "Linux")!;
      suite.emu.update((s) => {
        s.operatingSystems = s.operatingSystems.filter((o) => o.name !== "Linux");
        s.servers[0].address = "";
      });
      const optionFile = path.join(suite.dir, "dsm.opt");
      const r = await reg({ ...bu, backup_domain: "NODAYS" }, { optionFile }, "config-drive");
      const err = failed(r);
      assert.equal(err.kind, "configuration");
      assert.equal(err.name, "RegistrationError");
      assert.equal(err.problems.length, 3, err.message);
      assert.match(
        err.problems[0],
        /^backup_os is not set and its default "Linux" is not known to this portal \(.+\); set it with `openstack server set --property backup_os=<name> <instance>`$/,
      );
      assert.match(err.problems[1], /^backup_domain: .+; set it with `openstack server set --property backup_domain=<name> <instance>`$/);
      assert.equal(
        err.problems[2],
        `the default backup server of business unit ${BUNIT} has no address on the portal, so no option file can be written; ask the portal operator, or use --no-option-file`,
      );
      assert.equal(
        err.message,
        `cannot register this instance; nothing was changed:\n${err.problems.map((p) => `  - ${p}`).join("\n")}\nnote: ${CONFIG_DRIVE_NOTE}`,
      );
      assert.deepEqual(writes(suite.emu), []);
      // From the network, no note; without an option file the server's address is not needed.
      const network = failed(await reg({ ...bu, backup_domain: "NODAYS" }, { optionFile: false }));
      assert.equal(network.problems.length, 2);
      assert.ok(!network.message.includes("note:"), network.message);
      // Only the server's problem, which no metadata change fixes: no note from the config drive either.
      suite.emu.update((s) => {
        s.operatingSystems.push(linux);
        s.servers[0].address = "sp01.backup.example";
        s.servers[0].name = "";
      });
      const server = failed(await reg(bu, { optionFile }, "config-drive"));
      assert.equal(
        server.message,
        `cannot register this instance; nothing was changed:\n  - the default backup server of business unit ${BUNIT} has no name on the portal, so no option file can be written; ask the portal operator, or use --no-option-file`,
      );
    });

    it("a business unit that does not exist or that the account cannot reach; named by the account, or the broker's", async () => {
      const missing = failed(await reg({ backup_bunit: "999" }));
      assert.equal(
        missing.message,
        "cannot register this instance; nothing was changed:\n  - backup_bunit 999: the portal has no business unit with this id; " +
          "use the id of a business unit the account's own business unit contains (`openstack server set --property backup_bunit=<id> <instance>`)",
      );
      // An account whose name is not its password (the tenant's is: redacted).
      suite.emu.update((s) => {
        const tenant = s.users.find((u) => u.username === "tenant")!;
        s.users.push({
          ...tenant,
          id: 91,
          username: "ops-a",
          passwordSalt: "salt-a",
          passwordHash: hashSecret("Ops-a-Pa55word", "salt-a"),
        });
      });
      const env = { ...envFor(suite.emu, "tenant"), BACKUP_PORTAL_USERNAME: "ops-a", BACKUP_PORTAL_PASSWORD: "Ops-a-Pa55word" };
      const other = failed(await reg({ backup_bunit: "3" }, { env }));
      assert.match(other.problems[0], /^backup_bunit 3: the account "ops-a" may not reach business unit 3; use the id/);
      const client = clientFor(suite.emu, "tenant");
      try {
        const broker = failed(await reg({ backup_bunit: "3" }, { client }));
        assert.match(broker.problems[0], /^backup_bunit 3: the account "of the registration broker" may not reach business unit 3; /);
      } finally {
        client.close();
      }
    });

    it("a refused account names the settings to check", async () => {
      const err = failed(await reg(bu, { env: { ...envFor(suite.emu, "tenant"), BACKUP_PORTAL_PASSWORD: "wrong" } }));
      assert.equal(err.kind, "configuration");
      assert.ok(
        err.message.startsWith(
          `the portal at ${suite.emu.url} refused the account "tenant": check BACKUP_PORTAL_CLIENT_ID, BACKUP_PORTAL_ORIGIN (it must be the origin registered with the client ID), BACKUP_PORTAL_USERNAME and BACKUP_PORTAL_PASSWORD. Nothing was changed. (`,
        ),
        err.message,
      );
    });

    it("rotatePassword needs a password file, unless the password is given", async () => {
      assert.ok((await reg(bu)).result);
      const usage = failed(await reg(bu, { rotatePassword: true }));
      assert.equal(usage.kind, "usage");
      const given = await reg(bu, { rotatePassword: true, nodePassword: "given-Node-Password-0123456789ab" });
      assert.ok(given.result, given.error?.message);
      assert.deepEqual(given.result.actions, ["set node password"]);
      assert.deepEqual(given.result.warnings, [], "the caller keeps the password it gave");
    });
  });

  describe("portal failures: what was done, and no password", () => {
    it("reading a name fails: a portal error, not a configuration problem", async () => {
      suite.emu.setFaults({ errorRate: 1, statuses: [500], match: { method: "GET" }, skip: 1, count: 1 });
      const err = failed(await reg(bu));
      assert.equal(err.kind, "portal");
      assert.match(err.message, /^cannot check the registration on the portal; nothing was changed: GET \S+ failed \(HTTP 500\)/);
    });

    it("listing the consumers fails", async () => {
      suite.emu.setFaults({ errorRate: 1, statuses: [500], match: { method: "GET", path: `/v1/bunits/${BUNIT}/consumers` } });
      const err = failed(await reg(bu));
      assert.equal(err.kind, "portal");
      assert.match(err.message, /^cannot look up this instance's consumer; nothing was changed: GET \S+ failed \(HTTP 500\)/);
    });

    it("creating the consumer, the node, setting the password or activating fails: the message and `done` say how far it got", async () => {
      const steps: Array<[string, string[]]> = [
        [`/v1/bunits/${BUNIT}/consumers`, []],
        [`/v1/bunits/${BUNIT}/consumers/4/node`, ["created consumer 4"]],
        [`/v1/bunits/${BUNIT}/consumers/4/node/password`, ["created consumer 4", "created node"]],
        [`/v1/bunits/${BUNIT}/consumers/4/node/activate`, ["created consumer 4", "created node", "set node password"]],
      ];
      for (const [p, done] of steps) {
        suite.emu.reset();
        suite.emu.setFaults({ errorRate: 1, statuses: [500], match: { method: p.endsWith("activate") ? "GET" : "POST", path: p } });
        const err = failed(await reg(bu));
        suite.emu.clearFaults();
        assert.equal(err.kind, "portal", err.message);
        assert.deepEqual(err.done, done);
        assert.deepEqual(err.problems, []);
        const so = done.length ? `registration stopped after: ${done.join(", ")}` : "registration stopped before any change";
        assert.ok(err.message.startsWith(`${so}: `), err.message);
        assert.match(err.message, /failed \(HTTP 500\): .+\. Run it again once the cause is fixed: it continues where it stopped\.$/);
      }
    });

    it("a log line for each retry", async () => {
      suite.emu.setFaults({ errorRate: 1, statuses: [503], match: { method: "GET", path: `/v1/bunits/${BUNIT}` }, count: 1 });
      const r = await reg(bu, { portal: { maxAttempts: 3, retryBaseMs: 10, retryMaxMs: 50 } });
      assert.ok(r.result, r.error?.message);
      assert.ok(
        r.logs.some((l) => l.includes("503")),
        r.logs.join("\n"),
      );
    });

    it("the portal refuses the name: taken by another node, or refused otherwise; a failed second look is logged", async () => {
      suite.emu.update((s) => {
        s.nodes.find((n) => n.id === 1)!.tsmName = TSM_NAME;
      });
      const taken = failed(await reg(bu));
      const done = "created consumer 4, created node, set node password";
      assert.equal(
        taken.message,
        `cannot activate the node as ${TSM_NAME}: another node is already named ${TSM_NAME}; set another name with ` +
          `\`openstack server set --property backup_tsm_name=<name> <instance>\` and run again (done so far: ${done}). ` +
          `Portal said: ${taken.message.split("Portal said: ")[1]}`,
      );
      assert.deepEqual(taken.done, done.split(", "));
      assert.equal(taken.kind, "portal");
      assert.deepEqual(taken.problems, []);
      // From the config drive the hint says to read the metadata service; the second look fails and is logged.
      suite.emu.setFaults({ errorRate: 1, statuses: [500], match: { method: "GET", path: `/v1/bunits/${BUNIT}/consumers` }, skip: 1 });
      const drive = await reg(bu, {}, "config-drive");
      suite.emu.clearFaults();
      assert.match(
        failed(drive).message,
        new RegExp(`and run again \\(${CONFIG_DRIVE_NOTE.replace(/[()`.]/g, "\\$&")}\\) \\(done so far: `),
      );
      assert.deepEqual(
        drive.logs.filter((l) => l.startsWith("looking for")),
        [drive.logs.find((l) => l.startsWith("looking for this instance's registration again failed: GET "))],
      );
      // The same without a log.
      suite.emu.setFaults({ errorRate: 1, statuses: [500], match: { method: "GET", path: `/v1/bunits/${BUNIT}/consumers` }, skip: 1 });
      const quiet = failed(await reg(bu, { log: undefined }));
      suite.emu.clearFaults();
      assert.match(quiet.message, new RegExp(`^cannot activate the node as ${TSM_NAME}: another node is already named`));
      // Activated meanwhile under another name (by another run): a conflict that is not a taken name.
      suite.emu.update((s) => {
        s.nodes.find((n) => n.id === 1)!.tsmName = "WEB-01";
      });
      const proxy = await startPortalProxy(suite.emu.url, {
        before: (req) => {
          if (!req.path.includes("/node/activate")) return;
          suite.emu.update((s) => {
            const mine = s.consumers.filter((c) => c.tags?.includes(TAG)).map((c) => c.id);
            s.nodes.find((n) => mine.includes(n.consumerId))!.tsmName = "ELSEWHERE";
          });
        },
      });
      try {
        const refused = failed(await reg(bu, { env: { ...envFor(suite.emu, "tenant"), BACKUP_PORTAL_URL: proxy.url } }));
        assert.match(
          refused.message,
          new RegExp(`^cannot activate the node as ${TSM_NAME}: the portal refused the name; set another name with`),
        );
      } finally {
        await proxy.close();
      }
    });
    it("the name taken while this run worked: by this instance under another consumer (said so), or by another node (the usual message)", async () => {
      let onActivate: (s: ReturnType<Emulator["state"]>) => void = () => undefined;
      const proxy = await startPortalProxy(suite.emu.url, {
        before: (req) => {
          if (req.path.includes("/node/activate")) suite.emu.update((s) => onActivate(s));
        },
      });
      const env = { ...envFor(suite.emu, "tenant"), BACKUP_PORTAL_URL: proxy.url };
      try {
        // Another run registered this instance as consumer 1 (its activated node takes the name).
        onActivate = (s) => {
          s.consumers.find((c) => c.id === 1)!.tags = [TAG];
          s.nodes.find((n) => n.id === 1)!.tsmName = TSM_NAME;
        };
        const own = failed(await reg(bu, { env }));
        assert.equal(own.kind, "portal");
        assert.deepEqual(own.problems, []);
        assert.deepEqual(own.done, ["created consumer 4", "created node", "set node password"]);
        assert.equal(
          own.message,
          `cannot activate the node as ${TSM_NAME}: this instance is registered under that name already, as the node of consumer 1, ` +
            "most likely by another `backup-portal register` that ran at the same time. Consumer 4 of this run is a duplicate: delete it on the portal, " +
            `then run again with --rotate-password so that the password file holds the password of node ${TSM_NAME} ` +
            "(done so far: created consumer 4, created node, set node password).",
        );
        // Another node took the name, and another consumer of this instance (2, not activated) appeared: not this instance's name.
        suite.emu.reset();
        onActivate = (s) => {
          s.nodes.find((n) => n.id === 1)!.tsmName = TSM_NAME;
          s.consumers.find((c) => c.id === 2)!.tags = [TAG];
        };
        const other = failed(await reg(bu, { env }));
        assert.match(other.message, new RegExp(`^cannot activate the node as ${TSM_NAME}: another node is already named ${TSM_NAME}; `));
      } finally {
        await proxy.close();
      }
    });
  });

  describe("files", () => {
    it("a password file that cannot be prepared: nothing more on the portal; a path holding the account password is shown without it", async () => {
      const blocker = path.join(suite.dir, "tenant");
      fs.writeFileSync(blocker, "");
      const passwordFile = path.join(blocker, "node-password");
      const err = failed(await reg(bu, { passwordFile }));
      assert.equal(err.kind, "files");
      assert.deepEqual(err.done, ["created consumer 4", "created node"]);
      assert.deepEqual(err.problems, []);
      const shown = passwordFile.replace("tenant", "***");
      assert.ok(
        err.message.startsWith(`cannot write the password file ${shown} (done so far: created consumer 4, created node): `),
        err.message,
      );
      assert.ok(!err.message.includes("tenant"), err.message);
      assert.ok(!suite.emu.requests().some((r) => r.path.endsWith("/password")), "no password set");
      // A registered node whose password is rotated: nothing done before.
      fs.rmSync(blocker);
      assert.ok((await reg(bu, { passwordFile: path.join(suite.dir, "pw") })).result);
      fs.writeFileSync(blocker, "");
      const rotate = failed(await reg(bu, { passwordFile, rotatePassword: true }));
      assert.match(rotate.message, /\(done so far: nothing\): /);
    });

    it("the password file cannot be moved in place after the portal took the password: the command to run", async () => {
      const passwordFile = path.join(suite.dir, "secret", "node-password");
      suite.emu.setFaults({ latencyMs: 500, match: { method: "POST", path: `/v1/bunits/${BUNIT}/consumers/4/node/password` } });
      const [r] = await Promise.all([reg(bu, { passwordFile }), blockWhenTempAppears(passwordFile)]);
      const err = failed(r);
      assert.equal(err.kind, "files");
      assert.deepEqual(err.done, ["created consumer 4", "created node"]);
      assert.deepEqual(err.problems, []);
      assert.match(
        err.message,
        new RegExp(
          `^the node password was set on the portal but the password file ${passwordFile} could not be written \\(.+\\); ` +
            `run \`backup-portal register --rotate-password --password-file ${passwordFile}\` once it can be written$`,
        ),
      );
    });

    it("a password file written: named in the result and the actions, no warning", async () => {
      const passwordFile = path.join(suite.dir, "node-password");
      const r = await reg(bu, { passwordFile });
      assert.ok(r.result, r.error?.message);
      assert.deepEqual(r.result.passwordFile, { path: passwordFile, written: true });
      assert.ok(r.result.actions.includes(`set node password (saved to ${passwordFile})`));
      assert.deepEqual(r.result.warnings, []);
    });

    it("an option file that cannot be written, after the registration: the node's name and what was done", async () => {
      const blocker = path.join(suite.dir, "a-file");
      fs.writeFileSync(blocker, "");
      const optionFile = path.join(blocker, "dsm.opt");
      const err = failed(await reg(bu, { optionFile }));
      assert.equal(err.kind, "files");
      assert.deepEqual(err.done, ["created consumer 4", "created node", "set node password", `activated as ${TSM_NAME}`]);
      assert.deepEqual(err.problems, []);
      assert.ok(
        err.message.startsWith(`the node is registered as ${TSM_NAME} but the option file ${optionFile} could not be written: `),
        err.message,
      );
    });

    it("writeOptionFile refuses a server without a name or an address", async () => {
      const base: RegistrationResult = {
        status: "registered",
        instance: { uuid: UUID, name: "web01", source: "network", location: LOCATION },
        businessUnit: { id: BUNIT },
        consumerId: 4,
        tsmName: TSM_NAME,
        actions: ["created node"],
        warnings: [],
        credentialSources: {},
        passwordSet: true,
      };
      const file = path.join(suite.dir, "dsm.opt");
      for (const server of [{ address: "sp01.backup.example" }, { name: "SP01" }, undefined]) {
        await assert.rejects(
          writeOptionFile(file, { ...base, server }, () => undefined),
          (err: unknown) => {
            assert.ok(err instanceof RegistrationError && err.kind === "files");
            assert.match(err.message, /must be one non-empty line, got ""$/);
            assert.deepEqual(err.done, ["created node"]);
            return true;
          },
        );
      }
      assert.ok(!fs.existsSync(file));
      const lines: string[] = [];
      await writeOptionFile(file, { ...base, server: { name: "SP01", address: "sp01.backup.example", port: 1600 } }, (l) => lines.push(l));
      assert.deepEqual(lines, [`option file ${file}: written`]);
      assert.equal(
        fs.readFileSync(file, "utf8"),
        [
          `* Backup client options of node ${TSM_NAME}, written by \`backup-portal register\`.`,
          `* Instance ${UUID}, business unit ${BUNIT}, consumer 4. Changes are overwritten by the next run.`,
          "SERVERNAME        SP01",
          "TCPSERVERADDRESS  sp01.backup.example",
          "TCPPORT           1600",
          `NODENAME          ${TSM_NAME}`,
          "PASSWORDACCESS    GENERATE",
          "",
        ].join("\n"),
      );
    });

    it("the lock: a run waits, says so, then gives up; a bad wait is a usage error; a lock file that cannot be made", async () => {
      const lockFile = path.join(suite.dir, "held.lock");
      const held = await acquireLock(lockFile);
      try {
        const busy = await reg(bu, { lockFile, lockWaitMs: 300 });
        assert.equal(failed(busy).kind, "locked");
        assert.match(
          busy.error!.message,
          new RegExp(`^another registration is running \\(lock file ${lockFile}, held by pid ${process.pid} `),
        );
        assert.match(
          busy.lines[0],
          new RegExp(`^waiting for another registration to finish \\(lock file ${lockFile}, held by pid ${process.pid} `),
        );
      } finally {
        held.release();
      }
      // A lock file that does not say who holds it.
      fs.writeFileSync(lockFile, "");
      const anonymous = await reg(bu, { lockFile, lockWaitMs: 150 });
      assert.match(
        failed(anonymous).message,
        new RegExp(`^another registration is running \\(lock file ${lockFile}; waited 0 s\\); nothing was changed\\.`),
      );
      assert.deepEqual(anonymous.lines, [`waiting for another registration to finish (lock file ${lockFile})`]);
      fs.rmSync(lockFile);
      const bad = failed(await reg(bu, { lockWaitMs: -1 }));
      assert.equal(bad.kind, "usage");
      assert.match(bad.message, /; nothing was changed$/);
      const blocker = path.join(suite.dir, "a-file");
      fs.writeFileSync(blocker, "");
      const cannot = failed(await reg(bu, { lockFile: path.join(blocker, "x.lock") }));
      assert.equal(cannot.kind, "files");
      assert.match(
        cannot.message,
        new RegExp(`^cannot create the lock file ${blocker}/x\\.lock: .+; nothing was changed \\(give another path with --lock-file\\)$`),
      );
      assert.deepEqual(suite.emu.requests(), []);
    });
  });

  describe("reading the metadata", () => {
    it("says what it read and what it passed over; a timeout hints at the config drive, another failure does not", async () => {
      const svc = await startMetadataService({
        metadata: instanceDocument(bu),
        paths: { "latest/user_data": { status: 500 } },
      });
      const lines: string[] = [];
      try {
        await assert.rejects(
          registerInstance({ metadata: { url: svc.url, discoverConfigDrive: false }, env: {}, progress: (l) => lines.push(l) }),
          (err: unknown) => err instanceof RegistrationError && err.kind === "configuration",
        );
      } finally {
        await svc.close();
      }
      assert.equal(lines[0], "reading instance metadata");
      assert.match(
        lines[1],
        new RegExp(`^instance "web01" \\(${UUID}\\) from http://127\\.0\\.0\\.1:\\d+/openstack/latest/meta_data\\.json$`),
      );
      assert.match(lines[2], /^warning: user_data treated as absent/);

      const slow = await startMetadataService({ metadata: instanceDocument(bu), delayMs: 2000 });
      try {
        await assert.rejects(
          registerInstance({ metadata: { url: slow.url, discoverConfigDrive: false, timeoutMs: 200, attempts: 1 }, env: {} }),
          (err: unknown) => {
            assert.ok(err instanceof RegistrationError && err.kind === "metadata");
            assert.match(
              err.message,
              /^cannot read the instance metadata; nothing was changed: .+; not on an instance, or the metadata service is unreachable: try --config-drive or --timeout \(see `backup-portal metadata --verbose`\)$/,
            );
            return true;
          },
        );
      } finally {
        await slow.close();
      }
      const broken = await startMetadataService({ metadata: "{ not json" });
      try {
        const reader = await readInstanceMetadata({ url: broken.url, discoverConfigDrive: false, attempts: 1, userData: true }).catch(
          (e: unknown) => e,
        );
        await assert.rejects(
          registerInstance({ metadata: { url: broken.url, discoverConfigDrive: false, attempts: 1 }, env: {} }),
          (err: unknown) => {
            assert.ok(err instanceof RegistrationError && err.kind === "metadata");
            assert.ok(reader instanceof Error);
            assert.equal(err.message, `cannot read the instance metadata; nothing was changed: ${reader.message}`);
            return true;
          },
        );
      } finally {
        await broken.close();
      }
    });
  });
});
