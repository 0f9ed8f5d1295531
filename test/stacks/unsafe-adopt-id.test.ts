// Issue 37 item 5, the stack's side: an adoptId beyond 2^53 - 1 written in the stack file reaches the program as
// JSON text (pulumi.runtime.allConfig()), where reading it as a number rounds it (9007199254740993 → …992, another
// object). The stack validation refuses it, one line per problem with the key path and the bound, so nothing is
// adopted by a rounded id. The rule is the field table's (provider/rules/fields.ts via provider/tenants/fields.ts).
import assert from "node:assert/strict";
import { formatConfigProblems, readStackConfig } from "../../provider/stack-config/read";

const BOUND = /must be an integer from 1 to 9007199254740991, got /;

function problemsOf(tenants: string) {
  const r = readStackConfig({
    config: { "backup-portal:rootBusinessUnitId": "1", "backup-portal:tenants": tenants },
    isSecret: () => false,
  });
  return formatConfigProblems("Pulumi.prod.yaml", r.problems).filter((l) => /adoptId/.test(l));
}

describe("stack config: adoptId beyond the safe-integer range, as the program receives it (text)", () => {
  const tenant = (extra: string) => `{"acme": {"registrationNumber": "556677-8899", "timeZone": "W. Europe Standard Time", ${extra}}}`;

  for (const [what, extra, path] of [
    ["a business unit's", `"adoptId": 9007199254740993`, "tenants.acme.adoptId"],
    ["a business unit's, 20 digits", `"adoptId": 99999999999999999999`, "tenants.acme.adoptId"],
    ["a consumer's", `"consumers": {"web": {"adoptId": 9007199254740993}}`, "tenants.acme.consumers.web.adoptId"],
    ["a sub-unit's", `"businessUnits": {"kid": {"adoptId": 9007199254740993}}`, "tenants.acme.businessUnits.kid.adoptId"],
  ] as const)
    it(`${what} is one line naming the key path and the bound`, () => {
      const lines = problemsOf(tenant(extra));
      assert.equal(lines.length, 1, lines.join("\n"));
      assert.ok(lines[0].startsWith(`Pulumi.prod.yaml: backup-portal:${path}: `), lines[0]);
      assert.match(lines[0], BOUND);
    });

  it("the largest safe id is taken", () => {
    assert.deepEqual(problemsOf(tenant(`"adoptId": 9007199254740991`)), []);
  });
});
