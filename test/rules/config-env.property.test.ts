// The size of PULUMI_CONFIG (provider/rules/config-env.ts): the one environment variable in which the Node.js
// language host hands the program the whole config, which Linux caps at 131072 bytes. The rule's bytes must be those
// of the string the host builds: Go's json.Marshal of `<ns>:config:<name>` → the value's text, which is
// JSON.stringify's text with Go's extra escapes (`<`, `>`, `&`, U+2028, U+2029 as \uXXXX: they can only stand inside
// a JSON string, so replacing them in the whole text is Go's escaping). Generated configs are held to that; the real
// CLI holds the rule to the kernel's limit byte for byte (test/real-engine/config-size.test.ts).
import assert from "node:assert/strict";
import fc from "fast-check";
import { stringify } from "yaml";
import {
  cliConfigText,
  configSize,
  configSizeProblem,
  configVariableBytes,
  configVariableJson,
  ENV_STRING_MAX_BYTES,
  goJson,
  goJsonString,
  hostConfigKey,
  tenantsFit,
} from "../../provider/rules/config-env";
import { stackFileConfigSize, stackFileSizeProblem } from "../../provider/stack-config/config-size";

/** Go's escapes beyond JSON.stringify's, applied to JSON text. */
const goEscapes = (json: string): string =>
  json.replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);

/** The host's PULUMI_CONFIG=… string for `texts` (`ns:name` → text), with its NUL, by JSON.stringify. */
function reference(texts: Record<string, string>): number {
  const env = Object.fromEntries(Object.entries(texts).map(([k, v]) => [k.replace(":", ":config:"), v]));
  return Buffer.byteLength(`PULUMI_CONFIG=${goEscapes(JSON.stringify(env))}`) + 1;
}

/** A value's text by JSON.stringify: a string as it is, anything else as Go's JSON. */
const referenceText = (v: unknown): string => (typeof v === "string" ? v : goEscapes(JSON.stringify(v)));

/** Whole Unicode (no lone surrogates: a stack file is UTF-8), with the characters Go and JavaScript escape apart. */
const text = fc.oneof(
  fc.string({ unit: "binary", maxLength: 30 }),
  fc.string({
    unit: fc.constantFrom("<", ">", "&", '"', "\\", "\n", "\t", "\b", "\f", "\u0001", "\u001f", "\u2028", "\u2029", "é", "😀", "a"),
    maxLength: 30,
  }),
);
/** Numbers as YAML decodes them (no -0: JSON.stringify writes it as 0, Go as -0; held apart below). */
const number = fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true })).map((n) => (Object.is(n, -0) ? 0 : n));
const value: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  any: fc.oneof({ depthSize: "small", withCrossShrink: true }, text, number, fc.boolean(), fc.constant(null), tie("list"), tie("map")),
  list: fc.array(tie("any"), { maxLength: 4 }),
  map: fc.dictionary(text, tie("any"), { maxKeys: 4, noNullPrototype: true }),
})).any;
const key = fc.tuple(
  fc.constantFrom("backup-portal", "kubernetes", "aws", "my-app"),
  fc.string({ unit: "binary", minLength: 1, maxLength: 20 }).filter((s) => !s.includes(":")),
);
const config = fc.dictionary(
  key.map(([ns, name]) => `${ns}:${name}`),
  value,
  { maxKeys: 8, noNullPrototype: true },
);

describe("PULUMI_CONFIG's size (provider/rules/config-env.ts)", () => {
  it("Go's escapes: HTML characters, U+2028/U+2029 and the short control escapes; everything else raw", () => {
    assert.equal(goJsonString('a"b\\c'), '"a\\"b\\\\c"');
    assert.equal(goJsonString("<>&"), '"\\u003c\\u003e\\u0026"');
    assert.equal(goJsonString("\b\f\n\r\t\u0000\u001f"), '"\\b\\f\\n\\r\\t\\u0000\\u001f"');
    assert.equal(goJsonString("\u2028\u2029"), '"\\u2028\\u2029"');
    assert.equal(goJsonString("é😀\u007f\u0085"), '"é😀\u007f\u0085"');
  });

  it("maps with keys in Go's order (UTF-8 bytes, so code points: U+FFFD before 😀), numbers in ES6's shortest form (Go's float64 text), -0 as Go writes it", () => {
    assert.equal(goJson({ b: [1, 1.5, true, null], a: { "<": "x" } }), '{"a":{"\\u003c":"x"},"b":[1,1.5,true,null]}');
    assert.equal(goJson([1e21, 1e-7, 123456789012345680000, -0]), "[1e+21,1e-7,123456789012345680000,-0]");
    assert.equal(goJson({ "😀": 1, "\ufffd": 2, b: 3 }), '{"b":3,"\ufffd":2,"😀":1}');
    assert.equal(configVariableJson({ "a:😀": "", "a:\ufffd": "" }), '{"a:config:\ufffd":"","a:config:😀":""}');
    assert.equal(goJson({}), "{}");
    assert.equal(goJson([]), "[]");
  });

  it("a key is <namespace>:config:<name>; a secret counts as its ciphertext; strings as they are", () => {
    assert.equal(hostConfigKey("backup-portal:tenants"), "backup-portal:config:tenants");
    assert.equal(cliConfigText({ secure: "v1:abc:def" }), "v1:abc:def");
    assert.equal(cliConfigText("1"), "1");
    assert.equal(cliConfigText(1), "1");
    assert.equal(cliConfigText({ a: { secure: "v1:x" } }), '{"a":"v1:x"}');
  });

  it("the limit is MAX_ARG_STRLEN, 131072 bytes with `PULUMI_CONFIG=` and the NUL: the host's string at 131072 fits, at 131073 not", () => {
    const empty = configVariableBytes({ "pad:filler": "" });
    assert.equal(empty, Buffer.byteLength('PULUMI_CONFIG={"pad:config:filler":""}') + 1);
    const fits = { "pad:filler": "x".repeat(ENV_STRING_MAX_BYTES - empty) };
    const over = { "pad:filler": "x".repeat(ENV_STRING_MAX_BYTES - empty + 1) };
    assert.equal(configVariableBytes(fits), 131072);
    assert.equal(configSizeProblem(configSize(fits, "backup-portal:tenants"), "Pulumi.x.yaml"), undefined);
    assert.ok(configSizeProblem(configSize(over, "backup-portal:tenants"), "Pulumi.x.yaml"));
  });

  it("property: the bytes are those of JSON.stringify of the host's map (with Go's escapes), and the JSON reads back as that map", () => {
    fc.assert(
      fc.property(config, (c) => {
        const texts = Object.fromEntries(Object.entries(c).map(([k, v]) => [k, cliConfigText(v)]));
        const expected = Object.fromEntries(Object.entries(c).map(([k, v]) => [k, referenceText(v)]));
        // The same texts but for the order of map keys (Go sorts them, JSON.stringify keeps the order given).
        for (const k of Object.keys(c)) assert.equal(Buffer.byteLength(texts[k]), Buffer.byteLength(expected[k]), k);
        assert.equal(configVariableBytes(texts), reference(expected));
        const env = JSON.parse(configVariableJson(texts)) as Record<string, string>;
        assert.deepEqual(env, Object.fromEntries(Object.entries(texts).map(([k, v]) => [hostConfigKey(k), v])));
        // Each value's text is JSON that reads back as the value (what the program parses).
        for (const [k, v] of Object.entries(c)) if (typeof v !== "string") assert.deepEqual(JSON.parse(texts[k]), v);
        assert.equal(configSize(c, "backup-portal:tenants").bytes, reference(expected));
      }),
      { numRuns: 400, seed: 8680 },
    );
  });

  it("property: a stack file's text gives the size of its config as the CLI names the keys (a bare key is the project's)", () => {
    fc.assert(
      fc.property(
        config,
        fc.dictionary(fc.constantFrom("tenants", "rootBusinessUnitId", "url"), value, { maxKeys: 3, noNullPrototype: true }),
        (c, bare) => {
          const yaml = stringify({ config: { ...c, ...bare } });
          const named = { ...c, ...Object.fromEntries(Object.entries(bare).map(([k, v]) => [`backup-portal:${k}`, v])) };
          const expected = Object.fromEntries(Object.entries(named).map(([k, v]) => [k, referenceText(v)]));
          assert.equal(stackFileConfigSize(yaml, "Pulumi.x.yaml").bytes, reference(expected));
        },
      ),
      { numRuns: 150, seed: 8680 },
    );
  });

  /** `n` tenants of one shape, with keys of one length, and a password secret each when `secrets`. */
  function stack(n: number, secrets = false) {
    const tenants: Record<string, unknown> = {};
    const config: Record<string, unknown> = {
      "backup-portal:url": "https://portal.example.com",
      "backup-portal:password": { secure: "v1:AAAA:BBBB" },
    };
    for (let i = 0; i < n; i++) {
      const k = `tenant-${String(i).padStart(5, "0")}`;
      tenants[k] = {
        name: `Tenant ${k}`,
        timeZone: "W. Europe Standard Time",
        consumers: { web: { node: { operatingSystem: "Linux", cpuCount: 2, ...(secrets ? { passwordSecret: `pw${i}` } : {}) } } },
      };
      if (secrets) config[`backup-portal:pw${String(i).padStart(5, "0")}`] = { secure: `v1:${"A".repeat(16)}:${"B".repeat(40)}` };
    }
    config["backup-portal:tenants"] = tenants;
    const secretKeys = secrets ? Array.from({ length: n }, (_, i) => `backup-portal:pw${String(i).padStart(5, "0")}`) : [];
    return configSize(config, "backup-portal:tenants", secretKeys);
  }

  it("property: the tenants the line says a file holds do fit, with their secrets; a file past it does not", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1500 }), fc.boolean(), (n, secrets) => {
        const size = stack(n, secrets);
        const fit = tenantsFit(size)!;
        assert.ok(fit.perTenant > 0);
        assert.equal(size.bytes > ENV_STRING_MAX_BYTES, n > fit.maxTenants, `${n} tenants, ${size.bytes} bytes, fit ${fit.maxTenants}`);
        if (n > fit.maxTenants) {
          assert.ok(stack(fit.maxTenants, secrets).bytes <= ENV_STRING_MAX_BYTES, "keeping to the line's count runs");
          // The fleet's groups: each about half full, so the hash's uneven buckets fit too.
          assert.ok(Math.ceil(n / fit.groups) <= Math.max(1, Math.floor(fit.maxTenants / 2)));
        }
      }),
      { numRuns: 40, seed: 8680 },
    );
  });

  it("the line: the file, the size, the limit, the fleet's command and the count per file; secrets said to be estimated", () => {
    const size = stack(600, true);
    const line = configSizeProblem(size, "stacks/Pulumi.prod.yaml")!;
    const fit = tenantsFit(size)!;
    assert.match(
      line,
      /^the config the Pulumi CLI hands a Node\.js program is [\d,]+ bytes \(PULUMI_CONFIG: 600 tenants at about [\d,]+ bytes each; secure: values counted at their ciphertext's length, more than their plaintext\), over Linux's 131,072 for one environment variable: pulumi preview and up fail with "argument list too long"; /,
    );
    // The fleet's command ends the line, to be copied as it is.
    assert.ok(
      line.endsWith(
        `; split the tenants into group stacks with the fleet, or keep this file to ${fit.maxTenants} tenants or fewer; ` +
          `the fleet's grouping (docs/gitops.md, "The fleet: one stack per tenant group"): ` +
          `npx ts-node stacks/fleet/main.ts --config stacks/Pulumi.prod.yaml --groups ${fit.groups} groups`,
      ),
      line,
    );
    assert.doesNotMatch(line, /\n/);
    // Too large without any tenant: its largest value is named.
    const big = configSize({ "backup-portal:tenants": {}, "kubernetes:kubeconfig": "k".repeat(140_000) }, "backup-portal:tenants");
    assert.match(
      configSizeProblem(big, "Pulumi.x.yaml")!,
      /without its tenants it is [\d,]+ bytes already; its largest value is kubernetes:kubeconfig \(140,\d{3} bytes\)/,
    );
  });

  it("a stack file: node password secrets go with their tenants; the problem is at backup-portal:tenants", () => {
    const tenants = Array.from(
      { length: 800 },
      (_, i) => `    t${i}: { name: "Tenant ${i}", consumers: { web: { node: { operatingSystem: Linux, passwordSecret: pw${i} } } } }`,
    );
    const secrets = Array.from({ length: 800 }, (_, i) => `  backup-portal:pw${i}:\n    secure: v1:${"A".repeat(16)}:${"B".repeat(40)}`);
    const yaml = ["config:", "  backup-portal:tenants:", ...tenants, ...secrets, ""].join("\n");
    const size = stackFileConfigSize(yaml, "Pulumi.prod.yaml");
    assert.equal(size.tenants, 800);
    assert.ok(size.estimated);
    // Without the tenants nothing is left but the empty block.
    assert.equal(size.withoutTenants, configVariableBytes({ "backup-portal:tenants": "{}" }));
    const problem = stackFileSizeProblem(yaml, "Pulumi.prod.yaml")!;
    assert.equal(problem.path, "tenants");
    assert.match(problem.message, /800 tenants at about/);
  });
});
