// Bidi controls from portal data (a business unit named with U+202E ... U+202C) are written out in everything the
// CLI prints, as the YAML export already escapes them: a bidi-capable terminal would otherwise show the row, or the
// rest of it, in another order than the one printed. JSON stays JSON that reads back to the portal's value.
import assert from "node:assert/strict";
import { envFor, Emulator, startEmulator } from "../support/portal";
import { formatJson, type CliIo } from "../../provider/cli/output";
import { main } from "../../provider/cli/main";
import { escapeControls } from "../../provider/text/controls";

const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
const NAME = "Invoice \u202Efdp.exe\u202C \u2066isolated\u2069 \u200Fend";

describe("CLI output: bidi controls from portal data are written out", function () {
  this.timeout(60_000);
  let emu: Emulator;
  before(async () => {
    emu = await startEmulator({ port: 0, quiet: true });
    // Put straight into the emulator's data, as a portal may hold it.
    emu.update((s) => {
      s.businessUnits.find((b) => b.id === 2)!.name = NAME;
    });
  });
  after(async () => emu?.close());

  async function cli(argv: string[]): Promise<{ code: number; out: string; err: string }> {
    const c = { out: "", err: "" };
    const io: CliIo & { env: NodeJS.ProcessEnv } = {
      out: (t) => void (c.out += t),
      err: (t) => void (c.err += t),
      env: envFor(emu),
      errIsTTY: false,
    };
    return { code: await main(argv, io), ...c };
  }

  it("business-units: the table shows \\u202E and \\u202C, never the characters", async () => {
    const r = await cli(["business-units", "--bunit", "1"]);
    assert.equal(r.code, 0, r.err);
    assert.doesNotMatch(r.out, BIDI, JSON.stringify(r.out));
    assert.ok(r.out.includes("Invoice \\u202Efdp.exe\\u202C \\u2066isolated\\u2069 \\u200Fend"), r.out);
  });

  it("business-units --json: none raw, and the name reads back", async () => {
    const r = await cli(["business-units", "--bunit", "1", "--json"]);
    assert.equal(r.code, 0, r.err);
    assert.doesNotMatch(r.out, BIDI, JSON.stringify(r.out));
    assert.ok(JSON.stringify(JSON.parse(r.out)).includes(JSON.stringify(NAME).slice(1, -1)));
  });

  it("the helpers: every bidi control escaped, and only the controls, over the whole BMP", () => {
    for (let code = 0; code <= 0xffff; code++) {
      if (code >= 0xd800 && code <= 0xdfff) continue;
      const c = String.fromCharCode(code);
      const control = code < 0x20 || (code >= 0x7f && code <= 0x9f) || BIDI.test(c);
      assert.equal(escapeControls(c) !== c, control, `U+${code.toString(16)}`);
      assert.doesNotMatch(escapeControls(c), BIDI);
      if (BIDI.test(c)) {
        assert.doesNotMatch(formatJson(c), BIDI);
        assert.equal(JSON.parse(formatJson(c)), c);
      }
    }
  });
});
