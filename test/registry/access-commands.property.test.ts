// Issue 28 item 10: the registry's access commands name the first user. A username like x';id;' passes the
// username rules and, quoted naively, turned the printed curl line into one that runs `id`. For arbitrary
// usernames, each printed command read by a real POSIX shell (bash) gives back exactly the arguments meant,
// and runs nothing: the shell's PATH is an empty directory, so any command it tried to run would fail aloud.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { accessCommands, planRegistry } from "../../provider/registry/plan";

const BASH = "/bin/bash";

/** The words bash reads from each of `lines` (commands without their program name): one list per line. */
function wordsOf(lines: string[], emptyPath: string): string[][] {
  // printf is a builtin: with PATH empty, it is the only thing the lines can run. One bash for every line.
  const END = "--end-of-line--";
  const script = lines.map((l) => `printf '%s\\0' ${l}\nprintf '%s\\0' ${END}`).join("\n");
  const r = spawnSync(BASH, ["--norc", "--noprofile", "-c", script], { env: { PATH: emptyPath }, encoding: "utf8", timeout: 5000 });
  assert.equal(r.stderr, "", `bash ran something or refused a line: ${r.stderr}\n${script}`);
  assert.equal(r.status, 0, script);
  const out: string[][] = [[]];
  for (const w of r.stdout.split("\0").slice(0, -1)) {
    if (w === END) out.push([]);
    else out[out.length - 1].push(w);
  }
  out.pop();
  return out;
}

describe("registry: access commands are shell-safe for any username (issue 28 item 10)", function () {
  this.timeout(120_000);
  let empty: string;
  before(() => {
    empty = mkdtempSync(join(tmpdir(), "empty-path-"));
  });
  after(() => rmSync(empty, { recursive: true, force: true }));

  /** The curl lines' words after `curl`, as bash reads them (the `| head` of two lines is the shell's, not curl's). */
  function curlWords(user: string): string[][] {
    const cmds = accessCommands("zot", "zot", user, false);
    const rests = cmds.filter((c) => c.startsWith("curl ")).map((c) => c.slice("curl ".length).replace(/ \| head( -n 5)?$/, ""));
    return wordsOf(rests, empty);
  }

  it("the issue's username stays one argument and runs nothing", () => {
    const user = "x';id;'";
    assert.equal(planRegistry({ users: [{ username: user, password: "Registry-Pa55word" }] }).problems.length, 0, "the rules let it pass");
    const [, catalog, metrics] = curlWords(user);
    assert.deepEqual(catalog, ["-i", "-u", `${user}:<password>`, "http://localhost:5000/v2/_catalog"]);
    assert.deepEqual(metrics, ["-s", "-u", `${user}:<password>`, "http://localhost:5000/metrics"]);
  });

  it("for arbitrary usernames, bash reads back exactly the arguments meant", () => {
    // Any text but NUL, which no process argument can hold; quotes, $, backslashes, newlines and unicode included.
    const nasty = fc.constantFrom("'", '"', "\\", "$", "`", ";", "&", "|", "\n", "*", "?", "~", "!", "#", " ", "(", ")", "{", "<", ">");
    const username = fc.oneof(
      fc.string({ unit: "binary", minLength: 1, maxLength: 24 }),
      fc.array(fc.oneof(nasty, fc.string({ maxLength: 3 })), { minLength: 1, maxLength: 8 }).map((a) => a.join("")),
    );
    fc.assert(
      fc.property(
        username.filter((u) => u !== "" && !u.includes("\0")),
        (user) => {
          const [root, catalog, metrics, ui] = curlWords(user);
          assert.deepEqual(root, ["-i", "http://localhost:5000/v2/"]);
          assert.deepEqual(catalog, ["-i", "-u", `${user}:<password>`, "http://localhost:5000/v2/_catalog"]);
          assert.deepEqual(metrics, ["-s", "-u", `${user}:<password>`, "http://localhost:5000/metrics"]);
          assert.deepEqual(ui, ["-s", "http://localhost:5000/"]);
        },
      ),
      { numRuns: 60, seed: 28 },
    );
  });

  it("no password of any user is ever printed, only the placeholder", () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 8, maxLength: 40 }).filter((p) => p.trim().length >= 8 && !"<password>".includes(p)),
        (password) => {
          const { plan } = planRegistry({ users: [{ username: "admin", password }] });
          assert.ok(plan);
          assert.ok(!plan.accessCommands.join("\n").includes(password));
        },
      ),
      { numRuns: 3, seed: 28 },
    );
  });

  it("the kubectl line: namespace and service as bash reads them", () => {
    const [kubectl] = accessCommands("oci", "registry", "admin", true);
    assert.deepEqual(wordsOf([kubectl.slice("kubectl ".length)], empty)[0], ["-n", "registry", "port-forward", "svc/oci", "5000:5000"]);
  });
});
