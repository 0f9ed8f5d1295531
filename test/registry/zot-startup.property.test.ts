// Property-based checks of the rule helpers behind zot's startup rules and the credential refusals (zot-startup.ts,
// zot-credentials.ts): every bounded run of fast-check is a few hundred generated configs.
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  buildZotConfig,
  globProblem,
  goRegexpProblem,
  JsonObject,
  zotCredentialProblems,
  zotStartupProblems,
} from "../../provider/registry";

const segment = fc.stringMatching(/^[a-z0-9._-]{1,8}$/);
/** Globs doublestar v4 accepts: segments, `*`, `**`, closed classes and brace groups. */
const validGlob = fc
  .array(
    fc.oneof(
      segment,
      fc.constant("*"),
      fc.constant("**"),
      fc.constant("[a-z]"),
      fc.constant("[!0-9]"),
      segment.map((s) => `{${s},x}`),
    ),
    {
      minLength: 1,
      maxLength: 5,
    },
  )
  .map((parts) => parts.join("/"));

describe("registry: zot startup rule helpers (properties)", () => {
  it("a valid glob passes; the same glob with an unclosed [ or { or a trailing escape is refused", () => {
    fc.assert(
      fc.property(validGlob, fc.constantFrom("[", "{", "\\"), (glob, breaker) => {
        assert.equal(globProblem(glob), undefined, glob);
        assert.notEqual(globProblem(glob + breaker), undefined, glob + breaker);
      }),
      { numRuns: 300 },
    );
  });

  it("an access-control repository pattern is refused exactly when globProblem refuses it", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          validGlob,
          validGlob.map((g) => `${g}[`),
        ),
        (pattern) => {
          const cfg = buildZotConfig({
            withHtpasswd: true,
            overrides: { http: { accessControl: { repositories: { [pattern]: { anonymousPolicy: ["read"] } } } } },
          });
          const refused = zotStartupProblems(cfg).some((p) => p.includes("failed to compile authorization pattern"));
          assert.equal(refused, globProblem(pattern) !== undefined, pattern);
        },
      ),
      { numRuns: 200 },
    );
  });

  it("a regular expression with look-around is refused whatever surrounds it; a plain alternation of words passes", () => {
    fc.assert(
      fc.property(segment, segment, fc.constantFrom("(?=", "(?!", "(?<=", "(?<!"), (a, b, look) => {
        assert.notEqual(goRegexpProblem(`${a}${look}${b})`), undefined);
        assert.equal(goRegexpProblem(`^(${a.replace(/\./g, "\\.")}|${b.replace(/\./g, "\\.")})$`), undefined);
      }),
      { numRuns: 200 },
    );
  });

  it("a credential anywhere it is refused is never quoted in the problems, whatever its text", () => {
    const where: Array<(v: string) => JsonObject> = [
      (v) => ({ storage: { storageDriver: { name: "s3", secretkey: v } } }),
      (v) => ({ storage: { subPaths: { "/a": { rootDirectory: "/x", storageDriver: { name: "s3", AccessKey: v } } } } }),
      (v) => ({ extensions: { sync: { registries: [{ urls: ["https://r"], password: v }] } } }),
      (v) => ({ http: { auth: { ldap: { bindpassword: v } } } }),
      (v) => ({ storage: { cacheDriver: { name: "redis", url: `redis://u:${v}@redis:6379` } } }),
    ];
    fc.assert(
      fc.property(fc.stringMatching(/^[A-Za-z0-9+=]{12,40}$/), fc.integer({ min: 0, max: where.length - 1 }), (secret, i) => {
        const problems = zotCredentialProblems(buildZotConfig({ withHtpasswd: true, overrides: where[i](secret) }));
        assert.equal(problems.length, 1, problems.join("\n"));
        assert.ok(!problems[0].includes(secret));
      }),
      { numRuns: 200 },
    );
  });
});
