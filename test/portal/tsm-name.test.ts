// The backup server's node naming rule, character by character: letters, digits and _ . - + & only.
import assert from "node:assert/strict";
import { TSM_NAME_PATTERN, tsmNameProblem } from "../../provider/portal";

const ALLOWED = new Set([..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-+&"]);
/** Every character up to U+017F (ASCII, Latin-1, Latin Extended-A) and a few beyond. */
const CANDIDATES = [...Array.from({ length: 0x180 }, (_, i) => String.fromCharCode(i)), "\u2028", "\uFF0C", "\u{1F600}"];

describe("tsmName rule", () => {
  it("refuses `,` and every other character outside letters, digits and _ . - + &, naming it", () => {
    const refused = CANDIDATES.filter((ch) => !ALLOWED.has(ch));
    assert.ok(refused.includes(","));
    for (const ch of refused) {
      const name = `WEB${ch}01`;
      assert.equal(TSM_NAME_PATTERN.test(name), false, `TSM_NAME_PATTERN lets ${JSON.stringify(ch)} through`);
      const problem = tsmNameProblem(name);
      assert.ok(problem?.includes(JSON.stringify(ch)), `tsmNameProblem(${JSON.stringify(name)}) = ${problem}`);
    }
  });

  it("accepts each allowed character, alone and in a 64-character name; refuses empty and 65 characters", () => {
    for (const ch of ALLOWED) {
      assert.equal(tsmNameProblem(ch), undefined, ch);
      assert.equal(TSM_NAME_PATTERN.test(ch), true, ch);
      assert.equal(tsmNameProblem(ch.repeat(64)), undefined, ch);
      assert.equal(TSM_NAME_PATTERN.test(ch.repeat(64)), true, ch);
    }
    assert.match(tsmNameProblem("")!, /empty/);
    assert.equal(TSM_NAME_PATTERN.test(""), false);
    assert.match(tsmNameProblem("A".repeat(65))!, /65 characters long/);
    assert.equal(TSM_NAME_PATTERN.test("A".repeat(65)), false);
  });
});
