// Every flag of every command is checked before the first request (issues 27.9 and 28.14): each command runs
// against a portal and a metadata service that cannot answer (a closed loopback port) with one bad flag at a
// time, and must refuse with that flag's message (exit 2), never reach the network (no connection error).
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as http from "node:http";
import * as os from "node:os";
import * as path from "node:path";
import type { AddressInfo } from "node:net";
import { COMMAND_NAMES, main } from "../../provider/cli/main";
import { MAX_INVOICE_FILE_BYTES, readInvoiceFile } from "../../provider/data/billing";
import { toTimestamp } from "../../provider/data/dates";

/** A loopback port that was just free: nothing listens there. */
async function closedPort(): Promise<number> {
  const s = http.createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const port = (s.address() as AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}

/** What a connection attempt's failure looks like in any command's message. */
const CONNECTION = /ECONNREFUSED|no answer|did not answer|socket hang up|fetch failed/i;

describe("flags are checked before the first request (27.9, 28.14)", function () {
  this.timeout(60_000);
  let env: Record<string, string>;
  let metaUrl: string;
  let dir: string;
  before(async () => {
    const port = await closedPort();
    env = {
      BACKUP_PORTAL_URL: `http://127.0.0.1:${port}`,
      BACKUP_PORTAL_ORIGIN: "http://localhost",
      BACKUP_PORTAL_CLIENT_ID: "emulator",
      BACKUP_PORTAL_USERNAME: "admin",
      BACKUP_PORTAL_PASSWORD: "Cl0sed-Port-Pa55word",
    };
    metaUrl = `http://127.0.0.1:${port}`;
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "bp-flags-"));
    // A sparse file one byte over the limit: no disk space, and not a byte of it may be read.
    const big = path.join(dir, "huge.pdf");
    fs.writeFileSync(big, "");
    fs.truncateSync(big, MAX_INVOICE_FILE_BYTES + 1);
    fs.writeFileSync(path.join(dir, "empty.pdf"), "");
    fs.writeFileSync(path.join(dir, "ok.pdf"), "%PDF-1.4\n");
    fs.mkdirSync(path.join(dir, "sub"));
  });
  after(() => {
    fs.rmSync(dir, { recursive: true, force: true });
  });

  async function refused(argv: string[], message: RegExp): Promise<void> {
    const c = { out: "", err: "" };
    const started = Date.now();
    const code = await main(argv, {
      out: (t) => {
        c.out += t;
      },
      err: (t) => {
        c.err += t;
      },
      env,
    } as Parameters<typeof main>[1]);
    const first = c.err.split("\n")[0];
    assert.equal(code, 2, `${argv.join(" ")}: exit ${code}: ${c.err}`);
    assert.match(first, message, argv.join(" "));
    assert.doesNotMatch(c.err, CONNECTION, argv.join(" "));
    assert.ok(Date.now() - started < 5000, `${argv.join(" ")} took ${Date.now() - started} ms`);
  }

  const B = ["--bunit", "1"];
  const C = ["--bunit", "1", "--consumer", "1"];

  const bad: Record<string, Array<[string[], RegExp]>> = {
    reports: [
      [[...C, "--from", "99999999999d"], /--from needs a date.*"99999999999d" \(too far back\)/],
      [[...C, "--to", "2025-02-30"], /--to needs a date/],
      [[...C, "--from", "yesterday"], /--from needs a date/],
      [[...C, "--limit", "-1"], /--limit needs an integer >= 0/],
      [[...C, "--timeout", "0"], /--timeout needs a number of seconds/],
      [[...C, "--latest", "--from", "7d"], /--latest takes no --from/],
      [["--bunit", "x", "--consumer", "1"], /--bunit needs an id: a positive integer up to 9007199254740991/],
      [["--bunit", "1"], /missing --consumer/],
    ],
    jobs: [
      [[...C, "--from", "99999999999d"], /--from needs a date.*too far back/],
      [[...C, "--to", "13:00"], /--to needs a date/],
      [[...C, "--first", "--all"], /--first takes no/],
      [[...C, "--consumer", "0"], /--consumer needs an id: a positive integer up to 9007199254740991/],
      // Number("9007199254740993") is …992: another consumer.
      [
        ["--bunit", "1", "--consumer", "9007199254740993"],
        /--consumer needs an id: a positive integer up to 9007199254740991, got "9007199254740993"/,
      ],
    ],
    audit: [
      [[...C, "--type", "bogus"], /--type: unknown audit log type "bogus"/],
      [[...C, "--page-size", "0"], /--page-size needs an integer from 1 to/],
      [[...C, "--from", "2025-01-01T25:00"], /--from needs a date/],
      [[...C, "--from", "2025-02-01", "--to", "2025-01-01"], /--from .* after --to/],
    ],
    invoices: [
      [[...B, "--upload", "/dev/zero"], /--upload "\/dev\/zero" is not a regular file/],
      [[...B, "--upload", "HUGE"], /--upload ".*huge\.pdf" has 26214401 bytes, more than the 26214400 bytes/],
      [[...B, "--upload", "EMPTY"], /--upload ".*empty\.pdf" is empty/],
      [[...B, "--upload", "MISSING"], /--upload ".*missing\.pdf": no such file/],
      [[...B, "--upload", "SUB"], /--upload ".*sub" is not a regular file/],
      [[...B, "--upload", "OK", "--name", "../x.pdf"], /--name needs a plain file name/],
      [[...B, "--date", "2025-13-01"], /--date needs a day YYYY-MM-DD/],
      [[...B, "--from", "7d"], /--from needs a day YYYY-MM-DD/],
      [[...B, "--name", "x.pdf"], /go with --upload/],
    ],
    billing: [
      [[...B, "--include-next", "25"], /--include-next needs an integer from 0 to 24, got "25"/],
      [[...B, "--from", "99999999999d"], /--from needs a day YYYY-MM-DD, got "99999999999d"/],
      [[...B, "--period", "2025-1-1"], /--period needs a day YYYY-MM-DD/],
      [[...B, "--period", "2025-01-01", "--include-next", "1"], /--period takes no/],
    ],
    doctor: [
      [["--bunit", "x"], /--bunit needs an id: a positive integer up to 9007199254740991/],
      [["--timeout", "0"], /--timeout needs a number of seconds/],
      [["--write-test"], /--write-test needs --bunit/],
    ],
    metadata: [
      [["--url", "ftp://x"], /--url needs an http\(s\) URL/],
      [["--timeout", "0"], /--timeout needs an integer >= 1/],
      [["--attempts", "x"], /--attempts needs an integer >= 1/],
      [["--config-drive", "MISSING"], /--config-drive ".*missing\.pdf": no such file or directory/],
    ],
    register: [
      [["--password-file", "SUB"], /--password-file ".*sub" is a directory, not a file/],
      [["--option-file", "/dev/null/x"], /--option-file "\/dev\/null\/x": \/dev\/null is not a directory/],
      [["--lock-file", "SUB"], /--lock-file ".*sub" is a directory, not a file/],
      [["--portal-timeout", "0"], /--portal-timeout needs a number of seconds/],
      [["--url", "x"], /--url needs an http\(s\) URL/],
      [["--config-drive", "MISSING"], /--config-drive ".*missing\.pdf": no such file or directory/],
    ],
    export: [
      [["--bunit", "x"], /--bunit needs an id: a positive integer up to 9007199254740991/],
      [["--bunit", "99999999999999999999"], /--bunit needs an id: a positive integer up to 9007199254740991, got "9{20}"/],
      [["--format", "xml"], /--format needs yaml, json or pulumi-import, got "xml"/],
      [["--merge", "MISSING"], /--merge ".*missing\.pdf": no such file or directory/],
      [["--out", "SUB"], /--out ".*sub" is a directory, not a file/],
      [["--timeout", "0"], /--timeout needs a number of seconds/],
    ],
    "business-units": [
      [["--bunit", "x"], /--bunit needs an id: a positive integer up to 9007199254740991/],
      [["--depth", "-1"], /--depth needs an integer >= 0, got "-1"/],
      [["--timeout", "0"], /--timeout needs a number of seconds/],
    ],
    consumers: [
      [["--bunit", "0"], /--bunit needs an id: a positive integer up to 9007199254740991, got "0"/],
      [["--below=yes"], /--below takes no value/],
      [["--json", "x"], /unexpected argument "x"/],
    ],
    validate: [
      [["MISSING"], /^backup-portal validate: ".*missing\.pdf": no such file or directory$/],
      [["--stack"], /--stack needs a value/],
      [["--timeout", "0"], /--timeout needs a number of seconds/],
    ],
    "registration-broker": [
      [["--port", "70000"], /--port needs an integer from 0 to 65535/],
      [["--quiet"], /missing --port/],
    ],
    "plan-guard": [
      [["--bogus"], /unknown option "--bogus"/],
      [[], /no preview file/],
    ],
    "init-workflows": [[["--bogus"], /unknown option "--bogus"/]],
    "billing-receiver": [
      [["--port", "70000", "--out", "SUB", "--bunit", "1"], /--port needs an integer from 0 to 65535/],
      [["--port", "0", "--out", "OK", "--bunit", "1"], /--out ".*ok\.pdf" is not a directory/],
      [["--port", "0", "--out", "SUB", "--bunit", "1", "--path", "x"], /--path must start with \//],
    ],
  };

  const files = (argv: string[]) =>
    argv.map((a) =>
      a === "HUGE"
        ? path.join(dir, "huge.pdf")
        : a === "EMPTY"
          ? path.join(dir, "empty.pdf")
          : a === "MISSING"
            ? path.join(dir, "missing.pdf")
            : a === "SUB"
              ? path.join(dir, "sub")
              : a === "OK"
                ? path.join(dir, "ok.pdf")
                : a,
    );

  it("covers every command", () => {
    assert.deepEqual(Object.keys(bad).sort(), [...COMMAND_NAMES].sort());
  });

  for (const [command, cases] of Object.entries(bad)) {
    it(`${command}: each bad flag is refused by name, without a connection`, async () => {
      // The metadata commands would go to the network service: point it at the closed port too.
      const meta = command === "metadata" || command === "register" ? ["--url", metaUrl] : [];
      for (const [argv, message] of cases) await refused([command, ...meta, ...files(argv)], message);
    });
  }

  it("a bad flag is named even when the connection settings are missing too", async () => {
    const saved = env;
    env = {};
    try {
      for (const command of ["reports", "jobs", "audit"]) await refused([command, ...C, "--from", "99999999999d"], /--from needs a date/);
      await refused(["invoices", ...B, "--upload", "/dev/zero"], /--upload "\/dev\/zero" is not a regular file/);
      await refused(["billing", ...B, "--include-next", "25"], /--include-next needs an integer from 0 to 24/);
    } finally {
      env = saved;
    }
  });

  it("dates: a duration too far back is a RangeError naming the input, never 'Invalid time value'", () => {
    assert.throws(
      () => toTimestamp("99999999999d"),
      (e: Error) => e instanceof RangeError && /"99999999999d".*earliest/.test(e.message),
    );
    assert.equal(toTimestamp("1d", "start", Date.UTC(2025, 0, 2)), "2025-01-01T00:00:00Z");
  });

  it("readInvoiceFile checks type and size before reading: /dev/zero and a too-large file are refused at once", async () => {
    const started = Date.now();
    await assert.rejects(readInvoiceFile("/dev/zero"), /\/dev\/zero is not a regular file/);
    await assert.rejects(readInvoiceFile(path.join(dir, "huge.pdf")), /more than the 26214400 bytes/);
    assert.ok(Date.now() - started < 2000);
    assert.equal((await readInvoiceFile(path.join(dir, "ok.pdf"))).toString(), "%PDF-1.4\n");
  });
});
