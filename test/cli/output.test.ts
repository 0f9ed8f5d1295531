// The data commands' output helpers, exactly: bytes, amounts, times, the key/value record, the table note when
// there are no rows, the progress line's throttle and percentages, and when progress is on.
import assert from "node:assert/strict";
import {
  CliIo,
  formatAmount,
  formatBytes,
  formatJson,
  formatRecord,
  formatTime,
  printTable,
  processIo,
  Progress,
  progressWanted,
} from "../../provider/cli/output";

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
});
