// The data commands' output helpers, exactly: bytes, amounts, times, the key/value record, the table note when
// there are no rows, the progress line's throttle and percentages, and when progress is on.
import assert from "node:assert/strict";
import { UnknownReferenceError } from "../../provider/dynamic/references";
import { PortalClient } from "../../provider/portal/client";
import {
  CliIo,
  dataCommand,
  formatAmount,
  formatBytes,
  formatJson,
  formatRecord,
  formatTable,
  formatTime,
  latestRows,
  printTable,
  processIo,
  Progress,
  progressWanted,
  runCommand,
  terminalIo,
  UNIT_OPTIONS,
} from "../../provider/cli/output";
import { captured } from "../support/captured";

function capture(): { io: CliIo; out: () => string; err: () => string } {
  let out = "";
  let err = "";
  return {
    io: {
      out: (t) => {
        out += t;
      },
      err: (t) => {
        err += t;
      },
    },
    out: () => out,
    err: () => err,
  };
}

/** Runs `f` with process.stderr.isTTY set to `isTTY` (a test's stderr is a pipe), then puts it back. */
function withStderrTTY<T>(isTTY: boolean, f: () => T): T {
  const before = Object.getOwnPropertyDescriptor(process.stderr, "isTTY");
  Object.defineProperty(process.stderr, "isTTY", { value: isTTY, configurable: true, writable: true });
  try {
    return f();
  } finally {
    if (before) Object.defineProperty(process.stderr, "isTTY", before);
    else delete (process.stderr as { isTTY?: boolean }).isTTY;
  }
}

describe("cli output helpers", () => {
  it("formatBytes: decimal units, three significant digits, the sign kept, nothing for no number", () => {
    const cases: Array<[number | undefined, string]> = [
      [0, "0 B"],
      [999, "999 B"],
      [1000, "1.00 kB"],
      [9_994, "9.99 kB"],
      [10_000, "10.0 kB"],
      [99_949, "99.9 kB"],
      [100_000, "100 kB"],
      [999_000, "999 kB"],
      [1_234_567, "1.23 MB"],
      [53_000_000_000, "53.0 GB"],
      [2e12, "2.00 TB"],
      [3e15, "3.00 PB"],
      [4e18, "4000 PB"],
      [-1_500, "-1.50 kB"],
      [-12, "-12 B"],
      [undefined, ""],
      [Number.NaN, ""],
      [Number.POSITIVE_INFINITY, ""],
    ];
    for (const [n, text] of cases) assert.equal(formatBytes(n), text, String(n));
    assert.equal(formatBytes(null as unknown as number), "");
  });

  it("formatAmount: two decimals and the currency when given; nothing for no number", () => {
    assert.equal(formatAmount(12), "12.00");
    assert.equal(formatAmount(1.005, "EUR"), "1.00 EUR");
    assert.equal(formatAmount(-3.5, "SEK"), "-3.50 SEK");
    assert.equal(formatAmount(2, ""), "2.00");
    assert.equal(formatAmount(undefined, "EUR"), "");
    assert.equal(formatAmount(Number.NaN), "");
    assert.equal(formatAmount(null as unknown as number), "");
  });

  it("formatTime: `YYYY-MM-DD hh:mm:ss` from a UTC ISO time, fractions dropped; other text as it is", () => {
    assert.equal(formatTime("2025-03-04T05:06:07Z"), "2025-03-04 05:06:07");
    assert.equal(formatTime("2025-03-04T05:06:07.123Z"), "2025-03-04 05:06:07");
    assert.equal(formatTime("2025-03-04T05:06:07+01:00"), "2025-03-04T05:06:07+01:00");
    assert.equal(formatTime("x2025-03-04T05:06:07Z"), "x2025-03-04T05:06:07Z");
    assert.equal(formatTime("2025-03-04T05:06:07Zx"), "2025-03-04T05:06:07Zx");
    assert.equal(formatTime("2025-03-04"), "2025-03-04");
    assert.equal(formatTime(""), "");
    assert.equal(formatTime(undefined), "");
  });

  it("formatRecord: keys padded to the longest shown, empty values left out, controls escaped", () => {
    assert.equal(
      formatRecord([
        ["id", 7],
        ["name", "a\u001b[2Jb"],
        ["none", undefined],
        ["nil", null],
        ["empty", ""],
        ["currency", "EUR"],
        ["flag", false],
      ]),
      ["id:        7", "name:      a\\x1b[2Jb", "currency:  EUR", "flag:      false"].join("\n") + "\n",
    );
    assert.equal(formatRecord([["x", undefined]]), "\n");
  });

  it("formatJson: two-space JSON with DEL and C1 controls written as \\u escapes; undefined is null", () => {
    assert.equal(formatJson({ a: [1] }), '{\n  "a": [\n    1\n  ]\n}\n');
    assert.equal(formatJson("a\u007fb\u0085c\u009fd\u00a0"), '"a\\u007fb\\u0085c\\u009fd\u00a0"\n');
    assert.equal(formatJson(undefined), "null\n");
  });

  it("latestRows: the last n rows for --limit n, none for 0, all for more than there are or no --limit", () => {
    const rows = [1, 2, 3];
    assert.deepEqual(latestRows(rows, 2), [2, 3]);
    assert.deepEqual(latestRows(rows, 1), [3]);
    assert.deepEqual(latestRows(rows, 0), []);
    assert.deepEqual(latestRows(rows, 5), [1, 2, 3]);
    assert.deepEqual(latestRows(rows, undefined), [1, 2, 3]);
  });

  it("printTable: the note in parentheses when there are no rows, else the table", () => {
    const c = capture();
    printTable(c.io, ["A"], [], "no rows");
    assert.equal(c.out(), "(no rows)\n");
    printTable(c.io, ["A", "B"], [["x", "y"]], "no rows");
    assert.equal(c.out(), "(no rows)\nA  B\nx  y\n");
  });

  it("progress on a terminal: at most one update per interval, always the final one; percentages floored and capped", () => {
    const c = capture();
    const p = new Progress(c.io, true, "reads", true, 60_000);
    p.update(1, 3);
    p.update(2, 3); // within the interval: not shown
    p.update(4, 3); // final (seen >= total): shown, at most 100 %
    assert.equal(c.err(), "\r\x1b[Kreads: 1/3 entries (33%)\r\x1b[Kreads: 4/3 entries (100%)");
    p.done();
    assert.equal(c.err().endsWith("(100%)\r\x1b[K"), true);
    p.done(); // nothing shown since: nothing to clear
    assert.equal(c.err().endsWith("(100%)\r\x1b[K"), true);
    assert.equal(c.err().split("\r\x1b[K").length, 4);
    // Once the interval has passed, the next update is shown again.
    const d = capture();
    const every = new Progress(d.io, true, "reads", true, 0);
    every.update(1, 3);
    every.update(2, 3);
    assert.equal(d.err(), "\r\x1b[Kreads: 1/3 entries (33%)\r\x1b[Kreads: 2/3 entries (66%)");
  });

  it("progress off a terminal: every update on its own line, no throttle, nothing to clear; total 0 has no percentage", () => {
    const c = capture();
    const p = new Progress(c.io, true, "reads", false, 60_000);
    p.update(1, 3);
    p.update(2, 3);
    p.update(0, 0);
    p.done();
    assert.equal(c.err(), "reads: 1/3 entries (33%)\nreads: 2/3 entries (66%)\nreads: 0/0 entries\n");
  });

  it("the progress line's control sequences go to the raw io, the text's through the escaping one", () => {
    const raw = capture();
    const escaped = capture();
    const io: CliIo = { ...escaped.io, raw: raw.io };
    const p = new Progress(io, true, "reads", true, 0);
    p.update(1);
    p.done();
    assert.equal(raw.err(), "\r\x1b[Kreads: 1 entries\r\x1b[K");
    assert.equal(escaped.err(), "");
    const lines = new Progress(io, true, "reads", false);
    lines.update(2);
    assert.equal(escaped.err(), "reads: 2 entries\n");
  });

  it("progressWanted: --progress / --no-progress win; else on only when stderr is a terminal", () => {
    const io = capture().io;
    assert.deepEqual(progressWanted({}, { ...io, errIsTTY: true }), { enabled: true, tty: true });
    assert.deepEqual(progressWanted({}, { ...io, errIsTTY: false }), { enabled: false, tty: false });
    assert.deepEqual(progressWanted({ progress: false }, { ...io, errIsTTY: true }), { enabled: false, tty: true });
    assert.deepEqual(progressWanted({ progress: true }, { ...io, errIsTTY: false }), { enabled: true, tty: false });
    // An io that is not the process's and says nothing: not a terminal.
    assert.deepEqual(progressWanted({}, io), { enabled: false, tty: false });
    assert.deepEqual(progressWanted({}, processIo), {
      enabled: Boolean(process.stderr.isTTY),
      tty: Boolean(process.stderr.isTTY),
    });
  });

  it("formatTable: no text for undefined and null, a run of line breaks and tabs is one space, no trailing blanks", () => {
    assert.equal(
      formatTable(
        ["A", "B", "C"],
        [
          [undefined, null, "x\r\n\ty"],
          ["long", 0, ""],
        ],
      ),
      "A     B  C\n         x y\nlong  0\n",
    );
  });

  it("terminalIo: an io it made is returned as it is, so the progress line still reaches the raw io", () => {
    const c = capture();
    const once = terminalIo(c.io);
    assert.equal(terminalIo(once), once);
    const p = new Progress(terminalIo(once), true, "reads", true, 0);
    p.update(1);
    p.done();
    assert.equal(c.err(), "\r\x1b[Kreads: 1 entries\r\x1b[K");
    once.err("a\u001b[2Jb\n");
    assert.equal(c.err(), "\r\x1b[Kreads: 1 entries\r\x1b[Ka\\x1b[2Jb\n");
  });

  it("progress that never showed a line clears nothing", () => {
    const c = capture();
    new Progress(c.io, true, "reads", true).done();
    assert.equal(c.err(), "");
  });

  it("progressWanted on a terminal: the process's io (as given or wrapped by terminalIo) is one; another io is not", () => {
    const io = capture().io;
    withStderrTTY(true, () => {
      assert.deepEqual(progressWanted({}, processIo), { enabled: true, tty: true });
      assert.deepEqual(progressWanted({}, terminalIo(processIo)), { enabled: true, tty: true });
      assert.deepEqual(progressWanted({}, io), { enabled: false, tty: false });
      assert.deepEqual(progressWanted({}, terminalIo(io)), { enabled: false, tty: false });
    });
    withStderrTTY(false, () => {
      assert.deepEqual(progressWanted({}, terminalIo(processIo)), { enabled: false, tty: false });
    });
  });
});

describe("cli runCommand: the data commands' wrapper", () => {
  const COMMAND = dataCommand("t", "--bunit <id> [options]", "A command for the test.", UNIT_OPTIONS);
  // A connection that is never used: the bodies below make no request.
  const ENV = {
    BACKUP_PORTAL_URL: "http://127.0.0.1:9",
    BACKUP_PORTAL_ORIGIN: "http://localhost",
    BACKUP_PORTAL_CLIENT_ID: "c",
    BACKUP_PORTAL_USERNAME: "u",
    BACKUP_PORTAL_PASSWORD: "run-command-password",
  };

  /** Runs the command with a body that returns 0 (or what `body` does), the client given or from ENV. */
  function run(
    argv: string[],
    body: (ctx: { client: PortalClient }) => Promise<number | void> = async () => 0,
    extra: Partial<CliIo> = {},
  ) {
    return captured((io) => runCommand(COMMAND, argv, { ...io, env: ENV, errIsTTY: false, ...extra }, body));
  }

  /** The clients closed while `f` runs. */
  async function closedDuring(f: () => Promise<unknown>): Promise<PortalClient[]> {
    const closed: PortalClient[] = [];
    const close = PortalClient.prototype.close;
    PortalClient.prototype.close = function (this: PortalClient) {
      closed.push(this);
      close.call(this);
    };
    try {
      await f();
    } finally {
      PortalClient.prototype.close = close;
    }
    return closed;
  }

  it("--from after --to is refused before the body; equal moments, a day's whole span and either one alone are not", async () => {
    for (const argv of [
      ["--to", "2025-01-02"],
      ["--from", "2025-01-02"],
      ["--from", "2025-01-02T12:00:00Z", "--to", "2025-01-02T12:00:00Z"],
      ["--from", "2025-01-02T12:00:00Z", "--to", "2025-01-02"],
      ["--from", "2025-01-02", "--to", "2025-01-02T00:00:00Z"],
    ]) {
      let ran = false;
      const c = await run(["--bunit", "1", ...argv], async () => {
        ran = true;
      });
      assert.deepEqual([c.code, c.err, ran], [0, "", true], argv.join(" "));
    }
    let ran = false;
    const c = await run(["--bunit", "1", "--from", "2025-01-02T00:00:00.001Z", "--to", "2025-01-01"], async () => {
      ran = true;
    });
    assert.equal(c.code, 2);
    assert.equal(ran, false);
    assert.ok(
      c.err.startsWith("backup-portal t: --from 2025-01-02T00:00:00.001Z lies after --to 2025-01-01\nusage: backup-portal t"),
      c.err,
    );
  });

  it("closes the client it made, also when the body fails; never a client it was given", async () => {
    const made: PortalClient[] = [];
    const closed = await closedDuring(async () => {
      assert.equal((await run(["--bunit", "1"], async ({ client }) => void made.push(client))).code, 0);
      const c = await run(["--bunit", "1"], async ({ client }) => {
        made.push(client);
        throw new Error("the body failed");
      });
      assert.deepEqual([c.code, c.err], [1, "backup-portal t: the body failed\n"]);
    });
    assert.equal(made.length, 2);
    assert.deepEqual(closed, made);
    const given = new PortalClient({ url: ENV.BACKUP_PORTAL_URL, origin: "http://localhost", clientId: "c", username: "u", password: "p" });
    let used: PortalClient | undefined;
    const none = await closedDuring(async () => {
      const c = await captured((io) =>
        runCommand(COMMAND, ["--bunit", "1"], { ...io, client: given }, async ({ client }) => {
          used = client;
        }),
      );
      assert.equal(c.code, 0);
    });
    assert.equal(used, given);
    assert.deepEqual(none, []);
    given.close();
  });

  it("without a connection in the environment: one line on stderr, exit 1", async () => {
    const c = await run(["--bunit", "1"], async () => 0, { env: {} });
    assert.equal(c.code, 1);
    assert.match(c.err, /^backup-portal t: the portal connection is not configured: export BACKUP_PORTAL_URL, [^\n]*\)\n$/);
  });

  it("an unknown reference name is a bad argument (exit 2), said with the valid names", async () => {
    const c = await run(["--bunit", "1"], async () => {
      throw new UnknownReferenceError("type", "Tape", ["Server", "Laptop"]);
    });
    assert.deepEqual([c.code, c.err], [2, 'backup-portal t: unknown node type "Tape"; valid: Server, Laptop\n']);
  });
});
