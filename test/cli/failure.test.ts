// How a command words a failure, exactly: a user error is `<label>: <message>` (secrets cleaned); a bug (an error
// the language raises, or a throw of something not an Error) is its trace, cleaned too, and the request to report
// it with the package's version.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { failureText, isBug } from "../../provider/cli/failure";

const VERSION = (JSON.parse(fs.readFileSync(path.join(__dirname, "..", "..", "package.json"), "utf8")) as { version: string }).version;
const REPORT = (label: string) =>
  `${label}: this is a bug in backup-portal-pulumi ${VERSION}, not in what you gave it: please report it with the ` +
  `command you ran (without secrets) and the lines above\n`;

describe("cli failures: user error or bug", () => {
  it("the language's errors and non-Errors are bugs; Error, RangeError and subclasses of Error are not", () => {
    for (const e of [new TypeError("t"), new ReferenceError("r"), new SyntaxError("s"), new EvalError("e"), "text", 42, undefined, null]) {
      assert.equal(isBug(e), true, String(e));
    }
    class PortalRefused extends Error {}
    for (const e of [new Error("x"), new RangeError("x"), new URIError("x"), new PortalRefused("x")])
      assert.equal(isBug(e), false, String(e));
  });

  it("a user error: one line, the message cleaned", () => {
    const clean = (t: string) => t.replaceAll("s3cret", "***");
    assert.equal(
      failureText("backup-portal jobs", new Error("login as bob with s3cret refused"), clean),
      "backup-portal jobs: login as bob with *** refused\n",
    );
    assert.equal(failureText("x", new RangeError("out of range")), "x: out of range\n");
  });

  it("a bug: the trace (cleaned) and the request to report it, naming the version", () => {
    const clean = (t: string) => t.replaceAll("s3cret", "***");
    const bug = new TypeError("cannot read s3cret");
    bug.stack = "TypeError: cannot read s3cret\n    at f (file.ts:1:2)";
    assert.equal(
      failureText("backup-portal audit", bug, clean),
      "backup-portal audit: internal error: TypeError: cannot read ***\n    at f (file.ts:1:2)\n" + REPORT("backup-portal audit"),
    );
    const noStack = new ReferenceError("gone");
    noStack.stack = undefined;
    assert.equal(failureText("x", noStack), "x: internal error: ReferenceError: gone\n" + REPORT("x"));
    assert.equal(failureText("x", "a string"), "x: internal error: thrown: a string\n" + REPORT("x"));
    assert.equal(failureText("x", undefined), "x: internal error: thrown: undefined\n" + REPORT("x"));
  });
});
