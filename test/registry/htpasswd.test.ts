import assert from "node:assert/strict";
import bcrypt from "bcryptjs";
import { buildHtpasswd, deterministicSalt, htpasswdLine, usernamesProblems, validateRegistryArgs } from "../../provider/registry";

describe("registry: htpasswd", function () {
  this.timeout(30000);

  it("makes user:$2b$10$... lines that bcrypt verifies", () => {
    const line = htpasswdLine("alice", "correct horse", "zot");
    assert.match(line, /^alice:\$2b\$10\$[./A-Za-z0-9]{53}$/);
    const hash = line.slice("alice:".length);
    assert.ok(bcrypt.compareSync("correct horse", hash));
    assert.ok(!bcrypt.compareSync("wrong horse", hash));
  });

  it("the salt is deterministic per (namespace, user, password) and 22 chars of bcrypt's alphabet", () => {
    const s = deterministicSalt("alice", "pw-1", "zot");
    assert.match(s, /^\$2b\$10\$[./A-Za-z0-9]{22}$/);
    assert.equal(deterministicSalt("alice", "pw-1", "zot"), s);
    assert.notEqual(deterministicSalt("alice", "pw-2", "zot"), s);
    assert.notEqual(deterministicSalt("bob", "pw-1", "zot"), s);
    assert.notEqual(deterministicSalt("alice", "pw-1", "other-ns"), s);
    assert.equal(bcrypt.getSalt(htpasswdLine("alice", "pw-1", "zot").slice(6)), s);
  });

  it("same password → same file; changed password → different line", () => {
    const users = [
      { username: "a", password: "p1" },
      { username: "b", password: "p1" },
    ];
    const f1 = buildHtpasswd(users, "zot");
    assert.equal(buildHtpasswd(users, "zot"), f1);
    assert.ok(f1.endsWith("\n"));
    const [la, lb] = f1.trimEnd().split("\n");
    assert.notEqual(la.slice(2), lb.slice(2), "equal passwords of different users hash differently");
    const f2 = buildHtpasswd([{ username: "a", password: "p2" }, users[1]], "zot");
    assert.notEqual(f2.split("\n")[0], la);
    assert.equal(f2.split("\n")[1], lb);
  });

  it("refuses empty and over-long passwords without quoting them", () => {
    assert.throws(() => htpasswdLine("a", "", "zot"), /empty/);
    const long = "x".repeat(73);
    assert.throws(
      () => htpasswdLine("a", long, "zot"),
      (e: Error) => /72 bytes/.test(e.message) && !e.message.includes(long),
    );
  });

  it("validates usernames: non-empty, no ':', no whitespace, unique", () => {
    const p = usernamesProblems(["ok", "", "a:b", "with space", "ok"], "registry.users");
    assert.ok(p.some((m) => m.startsWith("registry.users[1].username") && /empty/.test(m)));
    assert.ok(p.some((m) => m.startsWith("registry.users[2].username") && /":"/.test(m)));
    assert.ok(p.some((m) => m.startsWith("registry.users[3].username") && /whitespace/.test(m)));
    assert.ok(p.some((m) => m.startsWith("registry.users[4].username") && /unique/.test(m)));
    assert.equal(p.length, 4);
    assert.deepEqual(validateRegistryArgs({ users: [{ username: "x", password: "y" }] }), []);
  });
});
