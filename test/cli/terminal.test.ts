// Portal data a tenant sets (a consumer name, a business unit name, an audit message, a contract name) cannot
// steer the operator's terminal: every CLI output path escapes C0, DEL and C1 controls, and JSON stays JSON
// that reads back to the portal's value (issue 28.8).
import assert from "node:assert/strict";
import { envFor, Emulator, startEmulator } from "../support/portal";
import { formatJson, type CliIo } from "../../provider/cli/output";
import { escapeControls } from "../../provider/text/controls";
import { main } from "../../provider/cli/main";

// Retitles the window (OSC ... BEL), moves the cursor up and home, clears the screen with an 8-bit CSI, and a DEL.
const HOSTILE = "evil\x1b]0;pwned\x07\x1b[2A\x1b[1;1H\u009b2J\x7f\r\nend";
/** Any control character but the line feed that ends lines: what must never reach the terminal. */
const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;

interface Ran {
  code: number;
  out: string;
  err: string;
}

describe("CLI output: control characters from portal data are escaped (28.8)", function () {
  this.timeout(60_000);
  let emu: Emulator;
  let consumerId: number;
  before(async () => {
    emu = await startEmulator({ port: 0, quiet: true });
    // The emulator refuses control characters through its API; a real portal may not: put them in directly.
    emu.update((s) => {
      const c = s.consumers.find((x) => x.businessUnitId === 2)!;
      consumerId = c.id;
      c.name = HOSTILE;
      s.businessUnits.find((b) => b.id === 2)!.name = HOSTILE;
      s.contracts.find((x) => x.businessUnitId === 1)!.name = HOSTILE;
      s.auditLogs.push({
        id: 999_001,
        time: new Date().toISOString(),
        type: 0,
        action: HOSTILE,
        objectType: "Consumer",
        objectId: c.id,
        businessUnitId: 2,
        consumerId: c.id,
        user: HOSTILE,
        message: HOSTILE,
      } as (typeof s.auditLogs)[number]);
    });
  });
  after(async () => {
    await emu?.close();
  });

  async function cli(argv: string[]): Promise<Ran> {
    const c = { out: "", err: "" };
    const io: CliIo & { env: NodeJS.ProcessEnv } = {
      out: (t) => {
        c.out += t;
      },
      err: (t) => {
        c.err += t;
      },
      env: envFor(emu),
      errIsTTY: false,
    };
    return { code: await main(argv, io), ...c };
  }

  const shownEscaped = (text: string) => {
    assert.doesNotMatch(text, RAW_CONTROL, JSON.stringify(text));
    assert.ok(text.includes("evil\\x1b]0;pwned\\x07\\x1b[2A\\x1b[1;1H\\x9b2J\\x7f"), text);
  };

  it("tables: billing --lines, audit, invoices --contract, doctor's report", async () => {
    const lines = await cli(["billing", "--bunit", "1", "--include-next", "1", "--lines"]);
    assert.equal(lines.code, 0, lines.err);
    shownEscaped(lines.out);
    const auditTable = await cli(["audit", "--bunit", "2", "--consumer", String(consumerId)]);
    assert.equal(auditTable.code, 0, auditTable.err);
    shownEscaped(auditTable.out);
    const contract = await cli(["invoices", "--bunit", "1", "--contract"]);
    assert.equal(contract.code, 0, contract.err);
    shownEscaped(contract.out);
    // The doctor quotes names with JSON.stringify (C0 as \u001b); DEL and C1 are escaped on the way out.
    const doctor = await cli(["doctor", "--bunit", "2"]);
    assert.doesNotMatch(doctor.out, RAW_CONTROL);
    assert.match(doctor.out, /business unit 2 "evil\\u001b\]0;pwned\\u0007.*\\x9b2J\\x7f/);
  });

  it("JSON: no raw control character either, and it reads back to the portal's value", async () => {
    for (const argv of [
      ["billing", "--bunit", "1", "--include-next", "1", "--json"],
      ["audit", "--bunit", "2", "--consumer", String(consumerId), "--json"],
      ["invoices", "--bunit", "1", "--contract", "--json"],
    ]) {
      const r = await cli(argv);
      assert.doesNotMatch(r.out, RAW_CONTROL, argv.join(" "));
      assert.ok(JSON.stringify(JSON.parse(r.out)).includes(JSON.stringify(HOSTILE).slice(1, -1)), argv.join(" "));
    }
  });

  it("doctor --json: no raw control character", async () => {
    const r = await cli(["doctor", "--bunit", "2", "--json"]);
    assert.doesNotMatch(r.out, RAW_CONTROL);
    assert.match(JSON.parse(r.out).checks.find((c: { id: string }) => c.id === "bunit").detail, /pwned/);
  });

  it("the helper: every C0, DEL and C1 character is escaped, nothing else changes", () => {
    for (let code = 0; code < 0x2000; code++) {
      const c = String.fromCharCode(code);
      const control = code < 0x20 || (code >= 0x7f && code <= 0x9f);
      // U+061C, the one bidi control below U+2000, is written out too (test/cli/bidi.test.ts).
      const shown = control ? `\\x${code.toString(16).padStart(2, "0")}` : code === 0x61c ? "\\u061C" : c;
      assert.equal(escapeControls(c), shown, `U+${code.toString(16)}`);
      assert.equal(JSON.parse(formatJson(c)), c);
      assert.doesNotMatch(formatJson(c), RAW_CONTROL);
    }
    assert.equal(escapeControls("a\nb\tc", ["\n"]), "a\nb\\x09c");
  });
});
