import assert from "node:assert/strict";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { clientFor, envFor, Emulator, startEmulator } from "../support/portal";
import { parseCommandArgs } from "../../provider/cli/args";
import { CliIo, formatBytes, formatTable, Progress, UsageError } from "../../provider/cli/output";
import { run as reports } from "../../provider/cli/reports";
import { run as jobs } from "../../provider/cli/jobs";
import { run as audit } from "../../provider/cli/audit";
import { run as invoices } from "../../provider/cli/invoices";
import { run as billing } from "../../provider/cli/billing";

type Run = (argv: string[], io?: CliIo) => Promise<number>;

interface Captured {
  code: number;
  out: string;
  err: string;
}

describe("data: backup-portal reports|jobs|audit|invoices|billing", function () {
  this.timeout(30000);
  let emu: Emulator;
  before(async () => {
    emu = await startEmulator({ port: 0, quiet: true });
  });
  after(async () => {
    await emu?.close();
  });
  beforeEach(() => emu.reset());

  async function cli(cmd: Run, argv: string[], extra: Partial<CliIo> = {}): Promise<Captured> {
    const c = { out: "", err: "" };
    const code = await cmd(argv, {
      out: (t) => {
        c.out += t;
      },
      err: (t) => {
        c.err += t;
      },
      env: envFor(emu),
      errIsTTY: false,
      ...extra,
    });
    return { code, ...c };
  }
  const json = (c: Captured) => {
    assert.equal(c.code, 0, c.err);
    return JSON.parse(c.out);
  };
  /** The table's lines, each split on runs of two or more spaces. */
  const table = (c: Captured) => {
    assert.equal(c.code, 0, c.err);
    return c.out
      .trimEnd()
      .split("\n")
      .map((l) => l.split(/ {2,}/).map((x) => x.trim()));
  };
  const aligned = (text: string, header: string, column: string) => {
    // Every row starts the column's text at the header's column (left-aligned columns).
    const at = text.split("\n")[0].indexOf(column);
    return (
      text
        .trimEnd()
        .split("\n")
        .every((l, i) => i === 0 || l[at - 1] === " ") && text.startsWith(header)
    );
  };

  describe("output helpers", () => {
    it("aligns columns, right-aligns numbers, and trims line ends", () => {
      const t = formatTable(
        ["NAME", { header: "SIZE", align: "right" }, "NOTE"],
        [
          ["a", 1, "x"],
          ["long name", 12345, ""],
          ["b", undefined, "multi\nline"],
        ],
      );
      assert.equal(
        t,
        ["NAME        SIZE  NOTE", "a              1  x", "long name  12345", "b                 multi line"].join("\n") + "\n",
      );
      assert.equal(formatBytes(53_000_000_000), "53.0 GB");
      assert.equal(formatBytes(999), "999 B");
      assert.equal(formatBytes(1_234_567), "1.23 MB");
    });

    it("parses options: values, =values, flags, --no-flags, lists; refuses the rest", () => {
      const spec = {
        label: "x",
        usage: [],
        options: {
          bunit: { kind: "int" as const, min: 1 },
          json: { kind: "flag" as const },
          progress: { kind: "flag" as const, negation: "no progress" },
          type: { kind: "list" as const },
          from: { kind: "string" as const },
        },
      };
      assert.deepEqual(
        parseCommandArgs(spec, ["--bunit", "2", "--json", "--no-progress", "--type", "info,create", "--type=error", "--from=7d"]),
        { bunit: 2, json: true, progress: false, type: ["info", "create", "error"], from: "7d" },
      );
      for (const bad of [["--bunit"], ["--bunit", "x"], ["--bunit", "0"], ["--json=1"], ["--nope"], ["stray"], ["--bunit", "--json"]]) {
        assert.throws(() => parseCommandArgs(spec, bad), UsageError, JSON.stringify(bad));
      }
    });

    it("progress: in place on a terminal, one line per update otherwise, nothing when disabled", () => {
      let err = "";
      const io: CliIo = {
        out: () => undefined,
        err: (t) => {
          err += t;
        },
      };
      const tty = new Progress(io, true, "audit log", true, 0);
      tty.update(10, 20);
      tty.update(20, 20);
      tty.done();
      assert.equal(err, "\r\x1b[Kaudit log: 10/20 entries (50%)\r\x1b[Kaudit log: 20/20 entries (100%)\r\x1b[K");
      err = "";
      const lines = new Progress(io, true, "audit log", false);
      lines.update(5);
      lines.done();
      assert.equal(err, "audit log: 5 entries\n");
      err = "";
      new Progress(io, false, "audit log", true).update(1, 2);
      assert.equal(err, "");
    });
  });

  describe("reports", () => {
    it("a table of reports, with status and warnings when asked", async () => {
      const c = await cli(reports, ["--bunit", "2", "--consumer", "1", "--status", "--warnings"]);
      const rows = table(c);
      assert.deepEqual(rows[0], ["DATE", "STORAGE USED", "TRANSFERRED", "STATUS", "WARNINGS"]);
      assert.equal(rows.length, 15);
      assert.deepEqual(rows[14].slice(1), ["53.0 GB", "1.10 GB", "Warning", "Schedule DAILY missed once"]);
      assert.ok(aligned(c.out, "DATE", "STATUS"));
    });

    it("JSON equal to the data; --limit keeps the latest; --latest", async () => {
      const client = clientFor(emu);
      const all = json(await cli(reports, ["--bunit", "2", "--consumer", "1", "--json"]));
      assert.deepEqual(all, await client.activity.reports(2, 1));
      const last2 = json(await cli(reports, ["--bunit", "2", "--consumer", "1", "--json", "--limit", "2"]));
      assert.deepEqual(last2, all.slice(-2));
      const days = all.map((r: any) => r.date.slice(0, 10));
      assert.equal(json(await cli(reports, ["--bunit", "2", "--consumer", "1", "--json", "--from", days[1], "--to", days[2]])).length, 2);
      assert.deepEqual(
        json(await cli(reports, ["--bunit", "2", "--consumer", "1", "--latest", "--json"])),
        await client.activity.latestReport(2, 1),
      );
      const latest = table(await cli(reports, ["--bunit", "2", "--consumer", "1", "--latest"]));
      assert.equal(latest.length, 2);
      assert.equal(json(await cli(reports, ["--bunit", "2", "--consumer", "2", "--latest", "--json"])), null);
      client.close();
    });

    it("exit 2 for bad arguments, 1 for a portal error, 0 for help", async () => {
      let c = await cli(reports, ["--consumer", "1"]);
      assert.equal(c.code, 2);
      assert.match(c.err, /^backup-portal reports: missing --bunit <id>\n/);
      assert.match(c.err, /usage: backup-portal reports/);
      assert.equal((await cli(reports, ["--bunit", "2", "--consumer", "1", "--from", "someday"])).code, 2);
      assert.equal((await cli(reports, ["--bunit", "2", "--consumer", "1", "--bogus"])).code, 2);
      c = await cli(reports, ["--bunit", "2", "--consumer", "99"]);
      assert.equal(c.code, 1);
      assert.match(c.err, /HTTP 404/);
      c = await cli(reports, ["--help"]);
      assert.equal(c.code, 0);
      assert.match(c.out, /--latest/);
    });

    it("exit 1 without a portal connection in the environment", async () => {
      const c = await cli(reports, ["--bunit", "2", "--consumer", "1"], { env: {} });
      assert.equal(c.code, 1);
      assert.match(c.err, /BACKUP_PORTAL_URL/);
    });
  });

  describe("jobs", () => {
    it("the latest 24 hours by default, said on stderr", async () => {
      const c = await cli(jobs, ["--bunit", "2", "--consumer", "1"]);
      const rows = table(c);
      assert.deepEqual(rows[0], ["ID", "TYPE", "STATUS", "STARTED", "COMPLETED", "TRANSFERRED", "OBJECTS"]);
      assert.equal(rows.length, 5);
      assert.match(c.err, /latest 24 hours/);
    });

    it("--from before the first job is clamped (noted on stderr); --all; --first; --limit", async () => {
      const first = json(await cli(jobs, ["--bunit", "2", "--consumer", "1", "--first", "--json"])).firstJobCompleted;
      assert.equal(first, (await clientFor(emu).activity.firstJob(2, 1)).completed);
      const c = await cli(jobs, ["--bunit", "2", "--consumer", "1", "--from", "2020-01-01", "--json"]);
      const list = json(c);
      assert.equal(list.length, 13);
      assert.equal(list[0].completed, first);
      assert.match(c.err, /before the first job; starting at the first job/);
      assert.deepEqual(json(await cli(jobs, ["--bunit", "2", "--consumer", "1", "--all", "--json"])), list);
      assert.deepEqual(json(await cli(jobs, ["--bunit", "2", "--consumer", "1", "--all", "--json", "--limit", "3"])), list.slice(-3));
      const text = await cli(jobs, ["--bunit", "2", "--consumer", "1", "--first"]);
      assert.equal(text.out, `first job completed: ${first}\n`);
      assert.equal((await cli(jobs, ["--bunit", "2", "--consumer", "2", "--first"])).out, "(no jobs)\n");
      assert.equal((await cli(jobs, ["--bunit", "2", "--consumer", "1", "--all", "--from", "7d"])).code, 2);
    });
  });

  describe("audit", () => {
    it("a table of the audit log with type names", async () => {
      const rows = table(await cli(audit, ["--bunit", "2", "--consumer", "1", "--descendants"]));
      assert.deepEqual(rows[0], ["TIME", "TYPE", "ACTION", "OBJECT", "USER", "MESSAGE"]);
      assert.equal(rows.length, 16);
      assert.deepEqual(rows[1].slice(1), ["create", "Create", "Consumer 1", "admin", 'Consumer "web-01" created']);
      assert.equal(json(await cli(audit, ["--bunit", "2", "--consumer", "1", "--descendants", "--type", "error", "--json"])).length, 1);
    });

    it("pages through a long log with progress on stderr (--progress), none by default off a terminal", async () => {
      const client = clientFor(emu);
      for (let i = 0; i < 25; i++) await client.consumers.change(2, 1, { note: `cli ${i}` });
      emu.clearRequests();
      const c = await cli(audit, ["--bunit", "2", "--consumer", "1", "--page-size", "10", "--json", "--progress"]);
      const entries = json(c);
      assert.equal(entries.length, 27);
      assert.deepEqual(entries, (await client.activity.auditLogPage(2, 1, {}, 0, 500)).items);
      assert.equal(
        c.err,
        ["audit log: 10/27 entries (37%)", "audit log: 20/27 entries (74%)", "audit log: 27/27 entries (100%)", ""].join("\n"),
      );
      assert.equal(emu.requests().filter((r) => r.path.includes("/auditlogs") && r.path.includes("limit=10")).length, 3);
      const quiet = await cli(audit, ["--bunit", "2", "--consumer", "1", "--page-size", "10", "--json"]);
      assert.equal(quiet.err, "");
      const tty = await cli(audit, ["--bunit", "2", "--consumer", "1", "--page-size", "10"], { errIsTTY: true });
      assert.match(tty.err, /^\r\x1b\[Kaudit log: 10\/27 entries/);
      assert.ok(tty.err.endsWith("\r\x1b[K"), "the progress line is cleared at the end");
      assert.equal(table(tty).length, 28);
      const none = await cli(audit, ["--bunit", "2", "--consumer", "1", "--page-size", "10", "--no-progress"], { errIsTTY: true });
      assert.equal(none.err, "");
      const limited = await cli(audit, [
        "--bunit",
        "2",
        "--consumer",
        "1",
        "--page-size",
        "10",
        "--limit",
        "15",
        "--desc",
        "--json",
        "--progress",
      ]);
      assert.equal(json(limited).length, 15);
      assert.equal(limited.err, "audit log: 10/15 entries (66%)\naudit log: 15/15 entries (100%)\n");
      client.close();
    });

    it("refuses an unknown type and a page size over the portal's maximum", async () => {
      const c = await cli(audit, ["--bunit", "2", "--consumer", "1", "--type", "oops"]);
      assert.equal(c.code, 2);
      assert.match(c.err, /unknown audit log type "oops"/);
      assert.equal((await cli(audit, ["--bunit", "2", "--consumer", "1", "--page-size", "1000"])).code, 2);
    });
  });

  describe("invoices", () => {
    it("lists invoices, one invoice, the contract and the invoice files", async () => {
      const rows = table(await cli(invoices, ["--bunit", "1"]));
      assert.deepEqual(rows, [
        ["DATE", "ID", "AMOUNT", "CURRENCY"],
        ["2025-01-01", "1", "10.17", "EUR"],
        ["2025-02-01", "2", "11.19", "EUR"],
        ["2025-03-01", "3", "12.20", "EUR"],
      ]);
      const one = json(await cli(invoices, ["--bunit", "1", "--date", "2025-02-01", "--json"]));
      assert.equal(one.date, "2025-02-01");
      assert.equal(one.amount, 11.19);
      assert.deepEqual(
        json(await cli(invoices, ["--bunit", "1", "--json", "--from", "2025-02-01", "--limit", "1"])).map((i: any) => i.date),
        ["2025-03-01"],
      );
      const contract = await cli(invoices, ["--bunit", "1", "--contract"]);
      assert.match(contract.out, /^id:\s+1\nname:\s+Reseller agreement\n/);
      const files = table(await cli(invoices, ["--bunit", "1", "--files"]));
      assert.deepEqual(files[1], ["1", "invoice-2025-03-01.pdf", "45 B", "ERP-2025-03", "yes", "2025-03-02 08:00:00"]);
      assert.equal((await cli(invoices, ["--bunit", "1", "--files", "--contract"])).code, 2);
      assert.equal((await cli(invoices, ["--bunit", "1", "--erp-reference", "x"])).code, 2);
    });

    it("uploads an invoice file", async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cli-invoice-"));
      try {
        const file = path.join(dir, "march.pdf");
        fs.writeFileSync(file, "%PDF-1.4\n%%EOF\n");
        const stored = json(
          await cli(invoices, ["--bunit", "1", "--upload", file, "--erp-reference", "ERP-9", "--send-to-billing-address", "--json"]),
        );
        assert.equal(stored.fileName, "march.pdf");
        assert.equal(stored.erpReference, "ERP-9");
        assert.equal(stored.sendToBillingAddress, true);
        const renamed = table(await cli(invoices, ["--bunit", "1", "--upload", file, "--name", "2025-03.pdf"]));
        assert.equal(renamed[1][1], "2025-03.pdf");
        assert.deepEqual(
          emu.state().invoiceFiles.map((f) => f.fileName),
          ["invoice-2025-03-01.pdf", "march.pdf", "2025-03.pdf"],
        );
        const missing = await cli(invoices, ["--bunit", "1", "--upload", path.join(dir, "nope.pdf")]);
        // A bad argument, refused before any request.
        assert.equal(missing.code, 2);
        assert.match(missing.err, /--upload ".*nope\.pdf": no such file/);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
  });

  describe("invoices: the exact output and each refusal", () => {
    it("the invoice table (ids and amounts right-aligned), the contract, the files; --limit keeps the latest n, 0 none", async () => {
      assert.equal(
        (await cli(invoices, ["--bunit", "1"])).out,
        "DATE        ID  AMOUNT  CURRENCY\n2025-01-01   1   10.17  EUR\n2025-02-01   2   11.19  EUR\n2025-03-01   3   12.20  EUR\n",
      );
      assert.equal(
        (await cli(invoices, ["--bunit", "1", "--contract"])).out,
        "id:        1\nname:      Reseller agreement\nstart:     2024-01-01 00:00:00\ncurrency:  EUR\n",
      );
      assert.deepEqual(
        json(await cli(invoices, ["--bunit", "1", "--json", "--limit", "1"])).map((i: { date: string }) => i.date),
        ["2025-03-01"],
      );
      assert.equal((await cli(invoices, ["--bunit", "1", "--limit", "0"])).out, "(no invoices)\n");
      assert.deepEqual(
        json(await cli(invoices, ["--bunit", "1", "--files", "--json"])).map((f: { id: number; fileName: string }) => [f.id, f.fileName]),
        [[1, "invoice-2025-03-01.pdf"]],
      );
      assert.equal((await cli(invoices, ["--bunit", "1", "--files", "--limit", "0"])).out, "(no invoice files)\n");
      assert.equal((await cli(invoices, ["--bunit", "2", "--files"])).out, "(no invoice files)\n");
    });

    it("an upload: multipart unless --raw-upload, not sent to the billing address unless asked", async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cli-invoice-"));
      try {
        const file = path.join(dir, "april.pdf");
        fs.writeFileSync(file, "%PDF-1.4\n%%EOF\n");
        emu.clearRequests();
        const plain = await cli(invoices, ["--bunit", "1", "--upload", file]);
        assert.equal(plain.code, 0, plain.err);
        // No ERP reference: the columns either side of its empty cell run together.
        assert.deepEqual(table(plain)[1].slice(1, 4), ["april.pdf", "15 B", "no"]);
        const raw = await cli(invoices, ["--bunit", "1", "--upload", file, "--raw-upload", "--name", "raw.pdf"]);
        assert.equal(raw.code, 0, raw.err);
        const uploads = emu.requestDetails().filter((r) => r.method === "POST" && r.path.includes("invoice"));
        assert.equal(uploads.length, 2);
        assert.match(uploads[0].headers["content-type"], /^multipart\/form-data/);
        assert.equal(uploads[0].headers["x-file-name"], undefined);
        assert.equal(uploads[1].headers["x-file-name"], "raw.pdf");
        assert.doesNotMatch(uploads[1].headers["content-type"] ?? "", /multipart/);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });

    it("refusals name what is wrong: two modes, upload options without --upload, a file that cannot be read, a name with a path", async () => {
      const cases: Array<[string[], string]> = [
        [["--date", "2025-01-01", "--files"], "--date, --files exclude each other"],
        [["--contract", "--upload", "/dev/null"], "--contract, --upload exclude each other"],
        [["--name", "x.pdf"], "--name, --erp-reference, --send-to-billing-address and --raw-upload go with --upload"],
        [["--send-to-billing-address"], "--name, --erp-reference, --send-to-billing-address and --raw-upload go with --upload"],
        [["--raw-upload"], "--name, --erp-reference, --send-to-billing-address and --raw-upload go with --upload"],
        [["--upload", "/dev/null/x"], "--upload \"/dev/null/x\": ENOTDIR: not a directory, stat '/dev/null/x'"],
      ];
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cli-invoice-"));
      try {
        const file = path.join(dir, "may.pdf");
        fs.writeFileSync(file, "%PDF-1.4\n");
        for (const name of ["sub/x.pdf", "sub\\x.pdf", "x.pdf/", ".", ".."])
          cases.push([["--upload", file, "--name", name], `--name needs a plain file name (no directory), got ${JSON.stringify(name)}`]);
        emu.clearRequests();
        for (const [argv, message] of cases) {
          const c = await cli(invoices, ["--bunit", "1", ...argv]);
          assert.equal(c.code, 2, argv.join(" "));
          assert.equal(c.err.split("\n")[0], `backup-portal invoices: ${message}`, argv.join(" "));
        }
        assert.deepEqual(emu.requests(), []);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
  });

  describe("jobs, billing, reports, audit: the exact output and each refusal", () => {
    const C2 = ["--bunit", "2", "--consumer", "1"];
    const T = "\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d";
    /** The first line of stderr of a refused command, after checking the exit code. */
    const refusal = async (cmd: Run, argv: string[]) => {
      const c = await cli(cmd, argv);
      assert.equal(c.code, 2, `${argv.join(" ")}: ${c.err}`);
      return c.err.split("\n")[0];
    };

    it("jobs: the table (numbers right-aligned), the note only beside a table, --limit, --first without jobs, the clamp note", async () => {
      const c = await cli(jobs, [...C2, "--limit", "2"]);
      const lines = c.out.split("\n");
      assert.equal(lines[0], "ID  TYPE    STATUS                   STARTED              COMPLETED            TRANSFERRED  OBJECTS");
      assert.match(lines[1], new RegExp(`^40  Backup  Completed with warnings  ${T}  ${T} {7}980 MB {5}1210$`));
      assert.match(lines[2], new RegExp(`^41  Backup  Completed {16}${T}  ${T} {6}1\\.01 GB {5}1302$`));
      assert.equal(lines.length, 4);
      assert.equal(c.err, "jobs of the latest 24 hours (use --from, --to or --all for others)\n");
      const one = await cli(jobs, [...C2, "--json", "--limit", "1"]);
      assert.deepEqual(
        json(one).map((j: { id: number }) => j.id),
        [41],
      );
      assert.equal(one.err, "");
      assert.equal((await cli(jobs, [...C2, "--limit", "0"])).out, "(no jobs)\n");
      assert.deepEqual(json(await cli(jobs, ["--bunit", "2", "--consumer", "2", "--first", "--json"])), { firstJobCompleted: null });
      // --to alone is a span too: no note of the latest 24 hours; a --from after the first job: no clamp note.
      const to = await cli(jobs, [...C2, "--to", "2h"]);
      assert.deepEqual([to.code, to.err], [0, ""]);
      assert.ok(to.out.split("\n").length > 5, to.out);
      assert.deepEqual([(await cli(jobs, [...C2, "--from", "7d"])).err], [""]);
      const clamped = await cli(jobs, [...C2, "--from", "2020-01-01", "--limit", "1"]);
      assert.match(clamped.err, /^--from lies before the first job; starting at the first job \(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\)\n$/);
      assert.equal(clamped.out.split("\n").length, 3);
      assert.equal((await cli(jobs, [...C2, "--all", "--to", "1d", "--json"])).code, 0);
      assert.equal(await refusal(jobs, [...C2, "--first", "--to", "1d"]), "backup-portal jobs: --first takes no --from, --to or --all");
      assert.equal(await refusal(jobs, [...C2, "--first", "--from", "7d"]), "backup-portal jobs: --first takes no --from, --to or --all");
      assert.equal(await refusal(jobs, [...C2, "--all", "--from", "7d"]), "backup-portal jobs: --all and --from exclude each other");
    });

    it("billing: one period's lines and total, the periods with forecasts, --lines, --limit 0, what goes with --period", async () => {
      assert.equal(
        (await cli(billing, ["--bunit", "1", "--period", "2025-01-01"])).out,
        [
          "PERIOD      CONSUMER  NAME    STORAGE  TRANSFERRED  AMOUNT",
          "2025-01-01         1  web-01  53.0 GB      15.9 GB    1.22",
          "2025-01-01         2  db-01       0 B          0 B    0.00",
          "2025-01-01         3  erp-01   430 GB      35.0 GB    8.95",
          "total 2025-01-01: 10.17",
          "",
        ].join("\n"),
      );
      assert.equal(
        (await cli(billing, ["--bunit", "1", "--include-next", "1"])).out,
        [
          "PERIOD      GENERATED            LINES  TOTAL",
          "2025-01-01  2025-01-01 01:00:00      3  10.17",
          "2025-02-01  2025-02-01 01:00:00      3  11.19",
          "2025-03-01  2025-03-01 01:00:00      3  12.20",
          "2025-04-01  (forecast)               3  10.17",
          "",
        ].join("\n"),
      );
      assert.equal(
        (await cli(billing, ["--bunit", "1", "--lines", "--limit", "1"])).out,
        [
          "PERIOD      CONSUMER  NAME    STORAGE  TRANSFERRED  AMOUNT",
          "2025-03-01         1  web-01  63.6 GB      19.0 GB    1.46",
          "2025-03-01         2  db-01       0 B          0 B    0.00",
          "2025-03-01         3  erp-01   516 GB      42.0 GB   10.74",
          "total 2025-03-01: 12.20",
          "",
        ].join("\n"),
      );
      assert.equal((await cli(billing, ["--bunit", "1", "--limit", "0"])).out, "(no billing data)\n");
      assert.equal((await cli(billing, ["--bunit", "1", "--lines", "--limit", "0"])).out, "(no billing lines)\n");
      for (const extra of [
        ["--from", "2025-01-01"],
        ["--to", "2025-01-01"],
        ["--include-next", "0"],
      ])
        assert.equal(
          await refusal(billing, ["--bunit", "1", "--period", "2025-01-01", ...extra]),
          "backup-portal billing: --period takes no --from, --to or --include-next",
        );
    });

    it("reports: status and warnings columns, --latest as a table or none, --limit 0, --latest takes no span", async () => {
      const c = await cli(reports, [...C2, "--limit", "2", "--status", "--warnings"]);
      const lines = c.out.split("\n");
      assert.equal(lines[0], "DATE                 STORAGE USED  TRANSFERRED  STATUS      WARNINGS");
      assert.match(lines[1], new RegExp(`^${T} {7}52\\.0 GB {6}1\\.10 GB  Successful$`));
      assert.match(lines[2], new RegExp(`^${T} {7}53\\.0 GB {6}1\\.10 GB  Warning {5}Schedule DAILY missed once$`));
      assert.equal(lines.length, 4);
      const latest = (await cli(reports, [...C2, "--latest"])).out.split("\n");
      assert.equal(latest[0], "DATE                 STORAGE USED  TRANSFERRED  STATUS   WARNINGS");
      assert.match(latest[1], new RegExp(`^${T} {7}53\\.0 GB {6}1\\.10 GB  Warning  Schedule DAILY missed once$`));
      assert.equal((await cli(reports, ["--bunit", "2", "--consumer", "2", "--latest"])).out, "(no reports)\n");
      assert.equal((await cli(reports, [...C2, "--limit", "0"])).out, "(no reports)\n");
      assert.equal(await refusal(reports, [...C2, "--latest", "--to", "1d"]), "backup-portal reports: --latest takes no --from/--to");
    });

    it("reports and audit as the portal may send them: a warning without a message, no status, a type without a name", async () => {
      emu.update((st) => {
        const last = st.reports.filter((r) => r.consumerId === 1).sort((a, b) => a.date.localeCompare(b.date))[
          st.reports.filter((r) => r.consumerId === 1).length - 1
        ];
        (last as { warnings: unknown[] }).warnings = [{ warningTypeId: 1, message: "full disk" }, { warningTypeId: 2 }];
        delete (last as { status?: string }).status;
        const first = st.auditLogs.filter((e) => e.consumerId === 1).sort((a, b) => a.time.localeCompare(b.time))[0];
        first.type = 250;
        delete (first as { objectId?: number }).objectId;
      });
      const latest = (await cli(reports, [...C2, "--latest"])).out.split("\n");
      assert.match(latest[1], new RegExp(`^${T} {7}53\\.0 GB {6}1\\.10 GB {10}full disk; \\{"warningTypeId":2\\}$`));
      const audited = (await cli(audit, [...C2, "--limit", "3"])).out.split("\n");
      assert.match(audited[1], new RegExp(`^${T}  250 {5}Create  Consumer {4}admin   Consumer "web-01" created$`));
    });

    it("billing as the portal may send it: a period with no lines and no total", async () => {
      emu.update((st) => {
        const one = st.billingData.filter((b) => b.businessUnitId === 1).sort((a, b) => a.period.localeCompare(b.period));
        one[one.length - 2].lines = [];
        delete (one[one.length - 2] as { total?: number }).total;
      });
      const periods = await cli(billing, ["--bunit", "1", "--limit", "2"]);
      assert.equal(periods.err, "");
      assert.equal(
        periods.out,
        "PERIOD      GENERATED            LINES  TOTAL\n2025-02-01  2025-02-01 01:00:00      0\n2025-03-01  2025-03-01 01:00:00      3  12.20\n",
      );
      const lines = (await cli(billing, ["--bunit", "1", "--lines", "--limit", "2"])).out.split("\n");
      assert.deepEqual(
        lines.map((l) => l.slice(0, 12)),
        ["PERIOD      ", "2025-03-01  ", "2025-03-01  ", "2025-03-01  ", "total 2025-0", ""],
      );
      assert.equal(lines[4], "total 2025-03-01: 12.20");
    });

    it("audit: the table with type names and the object, none with --limit 0", async () => {
      const lines = (await cli(audit, [...C2, "--limit", "3"])).out.split("\n");
      assert.equal(lines[0], "TIME                 TYPE    ACTION  OBJECT      USER    MESSAGE");
      assert.match(lines[1], new RegExp(`^${T}  create  Create  Consumer 1  admin   Consumer "web-01" created$`));
      assert.match(lines[2], new RegExp(`^${T}  modify  Modify  Consumer 1  tenant  Consumer modified: note$`));
      assert.equal((await cli(audit, [...C2, "--limit", "0"])).out, "(no audit log entries)\n");
      const oldest = json(await cli(audit, [...C2, "--json"]));
      const newest = json(await cli(audit, [...C2, "--json", "--desc"]));
      assert.ok(oldest.length > 1);
      assert.deepEqual(newest, [...oldest].reverse());
      assert.equal(
        await refusal(audit, [...C2, "--type", "info,nope"]),
        'backup-portal audit: --type: unknown audit log type "nope"; valid: info (0), create (100), modify (200), delete (300), error (400)',
      );
    });
  });

  describe("billing", () => {
    it("periods as a table and JSON, forecasts, one period's lines", async () => {
      const rows = table(await cli(billing, ["--bunit", "1", "--include-next", "1"]));
      assert.deepEqual(
        rows.map((r) => r[0]),
        ["PERIOD", "2025-01-01", "2025-02-01", "2025-03-01", "2025-04-01"],
      );
      assert.deepEqual(rows[4].slice(1), ["(forecast)", "3", "10.17"]);
      const client = clientFor(emu);
      assert.deepEqual(json(await cli(billing, ["--bunit", "1", "--json"])), await client.billing.billingData(1));
      assert.deepEqual(
        json(await cli(billing, ["--bunit", "1", "--json", "--period", "2025-02-01"])),
        await client.billing.billingDataFor(1, "2025-02-01"),
      );
      const lines = await cli(billing, ["--bunit", "1", "--period", "2025-01-01"]);
      const t = table(lines);
      assert.deepEqual(t[0], ["PERIOD", "CONSUMER", "NAME", "STORAGE", "TRANSFERRED", "AMOUNT"]);
      assert.deepEqual(
        t.slice(1, 4).map((r) => r[2]),
        ["web-01", "db-01", "erp-01"],
      );
      assert.match(lines.out, /\ntotal 2025-01-01: 10\.17\n$/);
      assert.equal(table(await cli(billing, ["--bunit", "1", "--lines", "--limit", "2"])).filter((r) => /^\d{4}/.test(r[0])).length, 2 * 3);
      client.close();
    });

    it("a non-reseller business unit: exit 1 with a hint", async () => {
      const c = await cli(billing, ["--bunit", "2"]);
      assert.equal(c.code, 1);
      assert.match(c.err, /NotReseller/);
      assert.match(c.err, /hint: billing data exists only for a reseller/);
      assert.equal((await cli(billing, ["--bunit", "1", "--period", "2025-01-01", "--from", "2025-01-01"])).code, 2);
    });
  });
});
