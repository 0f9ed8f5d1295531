// The client against every reading of the emulator (emulator/readings.ts): the answers a real portal may
// give where spec 000 is silent or says two things. The same calls give the same results under each.
import assert from "node:assert/strict";
import { startEmulator, type Emulator, type EmulatorOptions } from "../../emulator";
import { PortalClient, PortalError } from "../../provider/portal";
import { getAuditLog } from "../../provider/data/activity";
import { isLoginRefused } from "../../provider/portal/login";
import { nameOf } from "../../provider/portal/nodes";
import { run as jobsCli } from "../../provider/cli/jobs";
import { clientFor, envFor, readingsOfFlags } from "../support/portal";

const WEB = { bunit: 2, consumer: 1 };
const DB = { bunit: 2, consumer: 2 }; // no jobs

async function using(opts: EmulatorOptions, body: (emu: Emulator, client: PortalClient) => Promise<void>): Promise<void> {
  const emu = await startEmulator({ quiet: true, ...opts });
  const client = clientFor(emu);
  try {
    await body(emu, client);
  } finally {
    client.close();
    await emu.close();
  }
}

const jobPaths = (emu: Emulator) =>
  emu
    .requests()
    .filter((r) => r.path.includes("/jobs"))
    .map((r) => r.path.split("?")[0].replace(/.*\/consumers\/\d+/, ""));

describe("client: every reading of the portal", function () {
  this.timeout(30000);

  it("job list: spec 000's path first, .../jobs when that answers one Job or 404, remembered for the rest of the run", async () => {
    const results: Record<string, unknown> = {};
    for (const jobsList of ["both", "first", "jobs"] as const) {
      await using({ jobsList }, async (emu, client) => {
        const since = new Date(Date.now() - 30 * 86400_000).toISOString();
        const first = (await client.activity.firstJob(WEB.bunit, WEB.consumer)).completed!;
        emu.clearRequests();
        const ranged = await client.activity.jobs(WEB.bunit, WEB.consumer, { startTime: first > since ? first : since });
        const recent = await client.activity.jobs(WEB.bunit, WEB.consumer);
        const none = await client.activity.jobs(DB.bunit, DB.consumer, { startTime: since });
        results[jobsList] = {
          ranged: ranged.length,
          recent: recent.length,
          none: none.length,
          path: client.activity.jobsPath,
          asked: jobPaths(emu),
        };
      });
    }
    assert.deepEqual(results.both, { ranged: 13, recent: 4, none: 0, path: "first", asked: ["/jobs/first", "/jobs/first", "/jobs/first"] });
    assert.deepEqual(results.first, results.both);
    // One single-Job answer, then .../jobs only.
    assert.deepEqual(results.jobs, { ranged: 13, recent: 4, none: 0, path: "jobs", asked: ["/jobs/first", "/jobs", "/jobs", "/jobs"] });
  });

  it("job list: a 404 at spec 000's path falls back too; an unknown consumer stays a 404", async () => {
    await using({ jobsList: "jobs" }, async (emu, client) => {
      // A consumer without jobs: jobs/first is 404 in this reading.
      assert.deepEqual(await client.activity.jobs(DB.bunit, DB.consumer, { endTime: new Date().toISOString() }), []);
      assert.deepEqual(jobPaths(emu), ["/jobs/first", "/jobs"]);
      assert.equal(client.activity.jobsPath, "jobs");
    });
    await using({}, async (_emu, client) => {
      await assert.rejects(
        client.activity.jobs(2, 999, { endTime: new Date().toISOString() }),
        (e: unknown) => e instanceof PortalError && e.status === 404,
      );
      assert.equal(client.activity.jobsPath, undefined, "a 404 of both paths decides nothing");
    });
  });

  it("audit log: a range filters alike whether the portal takes startTime/endTime, startDate/endDate or both", async () => {
    const counts: Record<string, number[]> = {};
    for (const auditDates of ["time", "date", "both"] as const) {
      await using({ auditDates }, async (_emu, client) => {
        const all = await getAuditLog(client, WEB.bunit, WEB.consumer, { includeDescendants: true });
        const mid = all[Math.floor(all.length / 2)].time!;
        const after = await getAuditLog(client, WEB.bunit, WEB.consumer, { includeDescendants: true, from: mid });
        const before = await getAuditLog(client, WEB.bunit, WEB.consumer, { includeDescendants: true, to: mid });
        assert.ok(after.every((e) => e.time! >= mid) && before.every((e) => e.time! <= mid), auditDates);
        counts[auditDates] = [all.length, after.length, before.length];
      });
    }
    assert.ok(counts.both[1] < counts.both[0] && counts.both[2] < counts.both[0]);
    assert.deepEqual(counts.time, counts.both);
    assert.deepEqual(counts.date, counts.both);
  });

  for (const [label, opts] of [
    ["bare spname, DELETE answers the node", {}],
    ["JSON-string spname, DELETE answers 200 empty", { spname: "json", nodeDelete: "empty" }],
    ["DELETE answers 204, PUT replaces", { nodeDelete: "204", putReplaces: true }],
  ] as Array<[string, EmulatorOptions]>) {
    it(`spname, activate and delete: ${label}`, async () => {
      await using(opts, async (emu, client) => {
        const c = await client.consumers.create(2, { name: "reading" });
        await client.nodes.create(2, c.id, { operatingSystem: { id: 3 }, type: { id: 1 }, domain: { id: 1 } });
        const name = await client.nodes.proposeName(2, c.id);
        assert.match(name, /^EMU-[0-9A-F]+$/);
        assert.equal(await client.nodes.activate(2, c.id, name), name);
        assert.equal((await client.nodes.get(2, c.id)).tsmName, name);
        assert.equal(await client.nodes.delete(2, c.id), true);
        assert.equal(
          emu.state().consumers.some((x) => x.id === c.id),
          false,
        );
        assert.equal(await client.nodes.delete(2, c.id), false, "already gone");
      });
    });
  }

  it("BACKUP_PORTAL_EMULATOR_READINGS takes the emulator's reading flags, and nothing else", () => {
    assert.deepEqual(readingsOfFlags(undefined), {});
    assert.deepEqual(readingsOfFlags(" --put-replaces  --audit-dates=time --refresh refused "), {
      putReplaces: true,
      auditDates: "time",
      refresh: "refused",
    });
    assert.throws(
      () => readingsOfFlags("--audit-dates startDate"),
      /BACKUP_PORTAL_EMULATOR_READINGS="--audit-dates startDate": --audit-dates needs one of/,
    );
    assert.throws(() => readingsOfFlags("--put-replace"), /unknown argument "--put-replace"/);
    assert.throws(() => readingsOfFlags("--port 0 --quiet"), /only the emulator's reading flags, not port, quiet/);
  });

  it("a name answer: a JSON string or the bare name, trimmed; anything else is an error naming the call", () => {
    for (const answer of ["EMU-1", " EMU-1\r\n", '"EMU-1"', '"EMU-1"\n'])
      assert.equal(nameOf(answer, "spname"), "EMU-1", JSON.stringify(answer));
    assert.throws(() => nameOf("no such name!", "spname"), /spname answered "no such name!", which contains/);
    assert.throws(() => nameOf({ name: "x" }, "spname"), /spname answered .*not a node name/);
    assert.throws(() => nameOf("", "spname"), /must not be empty/);
  });

  it("invoice files: multipart/form-data by default, the raw body with X-File-Name behind an option", async () => {
    await using({}, async (emu, client) => {
      const content = Buffer.from("%PDF-1.4 reading test\r\n--boundary-like line\r\n");
      const multi = await client.billing.uploadInvoiceFile(1, { fileName: "march.pdf", content });
      const raw = await client.billing.uploadInvoiceFile(1, { fileName: "april.pdf", content, form: "raw" });
      assert.deepEqual([multi.fileName, multi.size, raw.fileName, raw.size], ["march.pdf", content.length, "april.pdf", content.length]);
      const sent = emu.requestDetails().filter((r) => r.method === "POST" && r.path.includes("/invoicefiles"));
      assert.match(sent[0].headers["content-type"], /^multipart\/form-data; boundary=/);
      assert.deepEqual([sent[1].headers["content-type"], sent[1].headers["x-file-name"]], ["application/pdf", "april.pdf"]);
      const stored = emu.state().invoiceFiles.filter((f) => f.fileName === "march.pdf")[0];
      assert.equal(Buffer.from(stored.contentBase64, "base64").toString(), content.toString(), "the file part, not the form");
    });
  });

  it("a refused login (400 invalid_grant, 400 invalid_client) is a configuration error naming the settings", async () => {
    await using({}, async (emu) => {
      for (const [extra, code] of [
        [{ password: "Wr0ng-Reading-Pa55word" }, "invalid_grant"],
        [{ clientId: "no-such-client" }, "invalid_client"],
      ] as const) {
        const bad = clientFor(emu, "admin", extra);
        const err = await bad.reference.nodeTypes().then(
          () => undefined,
          (e: unknown) => e,
        );
        bad.close();
        assert.ok(isLoginRefused(err), String(err));
        assert.equal((err as PortalError).code, code);
        assert.match((err as Error).message, /backup-portal:clientId.*BACKUP_PORTAL_CLIENT_ID/);
        assert.ok(!(err as Error).message.includes("Wr0ng-Reading-Pa55word"));
      }
      const c = { out: "", err: "" };
      const code = await jobsCli(["--bunit", "2", "--consumer", "1"], {
        out: (t) => {
          c.out += t;
        },
        err: (t) => {
          c.err += t;
        },
        env: { ...envFor(emu), BACKUP_PORTAL_PASSWORD: "Wr0ng-Reading-Pa55word" },
        errIsTTY: false,
      });
      assert.equal(code, 1);
      // The command's own words: its variables, not the stack's config keys.
      assert.match(c.err, /invalid_grant.*BACKUP_PORTAL_CLIENT_ID/);
      assert.doesNotMatch(c.err, /backup-portal:clientId/);
      assert.equal(emu.requests().filter((r) => r.path === "/v1/oauth").length, 3, "each refused login asked once, never retried");
    });
  });

  for (const [label, opts, clientId] of [
    ["by the client ID (no refresh_token)", {}, "norefresh"],
    ["though a refresh_token was issued", { refresh: "refused" }, "emulator"],
    ["for every client ID", { refresh: "none" }, "emulator"],
  ] as Array<[string, EmulatorOptions, string]>) {
    it(`refresh refused ${label}: the password grant takes over`, async () => {
      await using({ tokenTtlSeconds: 1, ...opts }, async (emu) => {
        const c = clientFor(emu, "admin", { clientId });
        try {
          await c.reference.nodeTypes();
          emu.expireTokens();
          assert.ok((await c.reference.nodeTypes()).length > 0);
          emu.expireTokens();
          assert.ok((await c.reference.nodeTypes()).length > 0);
          const logins = emu.requests().filter((r) => r.path === "/v1/oauth");
          // Without a refresh_token the client logs in with the password. With one, each renewal tries it once:
          // a refusal of one refresh token says nothing of the next login's (tokens.ts), and costs one request.
          const statuses = opts.refresh === "refused" ? [200, 400, 200, 400, 200] : [200, 200, 200];
          assert.deepEqual(
            logins.map((r) => r.status),
            statuses,
          );
        } finally {
          c.close();
        }
      });
    });
  }

  it("change: one field set, the others kept, whether the portal's PUT merges or replaces", async () => {
    for (const putReplaces of [false, true]) {
      await using({ putReplaces }, async (emu, client) => {
        const bu = await client.businessUnits.create(1, {
          name: "Kept",
          registrationNumber: "K-1",
          timeZone: { id: 1 },
          invoiceDay: 5,
          domainFilter: [{ id: 1 }],
          billingStorageTypeId: 2,
        });
        const c = await client.consumers.create(bu.id, { name: "kept", note: "a note", tags: ["t"], allowNoActivity: true });
        await client.nodes.create(bu.id, c.id, {
          operatingSystem: { id: 3 },
          type: { id: 1 },
          domain: { id: 1 },
          clientOptionSet: { id: 2 },
          contact: "ops",
          cpuCount: 2,
        });
        const b2 = await client.businessUnits.change(bu.id, { note: "changed" });
        const c2 = await client.consumers.change(bu.id, c.id, { note: "changed", allowNoActivity: null as unknown as boolean });
        const n2 = await client.nodes.change(bu.id, c.id, { contact: "changed" });
        const label = putReplaces ? "replace" : "merge";
        assert.deepEqual(
          [
            b2.name,
            b2.registrationNumber,
            b2.timeZone?.id,
            b2.invoiceDay,
            b2.domainFilter?.map((d) => d.id),
            b2.billingStorageTypeId,
            b2.note,
          ],
          ["Kept", "K-1", 1, 5, [1], 2, "changed"],
          label,
        );
        assert.deepEqual([c2.name, c2.note, c2.tags, c2.allowNoActivity], ["kept", "changed", ["t"], undefined], `${label}: null clears`);
        assert.deepEqual(
          [n2.operatingSystem?.id, n2.type?.id, n2.domain?.id, n2.clientOptionSet?.id, n2.cpuCount, n2.contact],
          [3, 1, 1, 2, 2, "changed"],
          label,
        );
        const puts = emu.requestDetails().filter((r) => r.method === "PUT");
        assert.equal(puts.length, 3);
        assert.ok(
          puts.every((r) => !JSON.stringify(r.body).includes("href")),
          "references are sent as {id}",
        );
      });
    }
  });
});
