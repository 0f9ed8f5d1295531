// An unknown command or option names the nearest known one (issue 27.10); the rule itself (provider/rules/suggest.ts)
// is checked by properties.
import assert from "node:assert/strict";
import fc from "fast-check";
import { COMMAND_NAMES, commandSpec, main } from "../../provider/cli/main";
import { editDistance, suggest } from "../../provider/rules/suggest";
import { captured } from "../support/captured";
import { backupPortal } from "./process";

const cli = (argv: string[]) => captured((io) => main(argv, io));

/** The word with its characters at i and i + 1 swapped: a typist's slip. */
const swap = (w: string, i: number) => w.slice(0, i) + w[i + 1] + w[i] + w.slice(i + 2);

describe("did you mean: unknown commands and options (27.10)", function () {
  this.timeout(30_000);

  it("an unknown command names the nearest: regster -> register, for every command, exit 2", async () => {
    const typo = await cli(["regster"]);
    assert.equal(typo.code, 2);
    assert.match(typo.err, /^backup-portal: unknown command "regster"; did you mean register\?/);
    for (const name of COMMAND_NAMES) {
      const r = await cli([swap(name, 1)]);
      assert.equal(r.code, 2, name);
      assert.match(r.err, new RegExp(`did you mean ${name}\\?`), name);
    }
    const help = await cli(["help", "bilings"]);
    assert.match(help.err, /did you mean billing\?/);
    // Nothing near: no guess.
    const far = await cli(["frobnicate"]);
    assert.equal(far.code, 2);
    assert.doesNotMatch(far.err, /did you mean/);
  });

  it("the real binary: `list` (or `ls`, a slip of it, `help list`) names the commands that list; a word of one names it", async () => {
    const listing = "did you mean business-units or consumers?\nusage: backup-portal <command> [options]\nsee backup-portal --help\n";
    for (const argv of [["list"], ["ls"], ["lsit"], ["help", "list"]]) {
      const r = await backupPortal(argv);
      assert.equal(r.code, 2, argv.join(" "));
      assert.equal(r.err, `backup-portal: unknown command "${argv[argv.length - 1]}"; ${listing}`, argv.join(" "));
      assert.equal(r.out, "");
    }
    for (const word of ["tenants", "bunits"]) {
      assert.match(
        (await backupPortal([word])).err,
        new RegExp(`^backup-portal: unknown command "${word}"; did you mean business-units\\?\n`),
      );
    }
  });

  it("an unknown option of any command names the command's nearest option, exit 2 before any request", async () => {
    let checked = 0;
    for (const name of COMMAND_NAMES) {
      for (const option of Object.keys(commandSpec(name).options).filter((o) => o.length >= 5 && o[2] !== o[3])) {
        const r = await cli([name, `--${swap(option, 2)}`]);
        assert.equal(r.code, 2, `${name} --${swap(option, 2)}`);
        assert.match(r.err, new RegExp(`unknown option "--${swap(option, 2)}"; did you mean --${option}\\?`), `${name}: ${r.err}`);
        checked++;
      }
    }
    assert.ok(checked > 30, `only ${checked} options`);
    const negated = await cli(["audit", "--no-progres"]);
    assert.match(negated.err, /did you mean --no-progress\?/);
    const inline = await cli(["jobs", "--consumr=3"]);
    assert.match(inline.err, /did you mean --consumer\?/);
    assert.doesNotMatch((await cli(["jobs", "--zzzzzzzz"])).err, /did you mean/);
  });

  it("the rule: one slip from a candidate finds a candidate at least as near; an exact word finds itself; ties by order", () => {
    const word = fc.stringMatching(/^[a-z][a-z-]{3,14}$/);
    fc.assert(
      fc.property(fc.uniqueArray(word, { minLength: 1, maxLength: 8 }), fc.nat(), fc.nat(), (cands, pick, at) => {
        const c = cands[pick % cands.length];
        assert.equal(suggest(c.toUpperCase(), cands), c);
        const typo = swap(c, at % (c.length - 1));
        const got = suggest(typo, cands);
        assert.ok(got !== undefined, `${typo} among ${cands.join(",")}`);
        assert.ok(editDistance(typo.toLowerCase(), got.toLowerCase()) <= editDistance(typo, c));
        // The first of the nearest.
        const nearest = Math.min(...cands.map((x) => editDistance(typo, x)));
        assert.equal(
          got,
          cands.find((x) => editDistance(typo, x) === nearest),
        );
      }),
      { numRuns: 300 },
    );
    assert.equal(editDistance("regsiter", "register"), 1);
    assert.equal(editDistance("", "abc"), 3);
    assert.equal(suggest("ab", ["ax", "ay"]), "ax", "ties go to the first listed");
    assert.equal(suggest("abcdefgh", ["zzzzzzzz"]), undefined);
    assert.equal(suggest("x", []), undefined);
  });
});
