// The stack-config reader (provider/stack-config/read.ts) on config maps as the runtime hands them to the
// program: every backup-portal: key checked against the table, tenants required, protection on by default,
// every problem at once as `<file>: backup-portal:<path>: <problem>; <fix>`, other namespaces left alone.
import assert from "node:assert/strict";
import fc from "fast-check";
import { qualified, STACK_CONFIG_KEYS } from "../../provider/rules/stack-config";
import { editDistance, suggest } from "../../provider/rules/suggest";
import { configProblemsText, formatConfigProblems, readStackConfig } from "../../provider/stack-config/read";
import { Problem } from "../../provider/tenants/model";

const ACME = { acme: { registrationNumber: "1", timeZone: "UTC" } };

/** A config as the runtime hands it over: text values (objects as JSON), `secrets` stored with --secret. */
function read(config: Record<string, unknown>, secrets: string[] = []) {
  const text = Object.fromEntries(Object.entries(config).map(([k, v]) => [k, typeof v === "string" ? v : JSON.stringify(v)]));
  return readStackConfig({ config: text, isSecret: (k) => secrets.includes(k) });
}
const lines = (r: { problems: Problem[] }) => formatConfigProblems("Pulumi.prod.yaml", r.problems);

describe("stack config reader: every backup-portal: key", () => {
  it("a misspelt key fails with the closest known key, as the issue shows it", () => {
    const r = read({ "backup-portal:tennants": ACME, "backup-portal:tenants": {} });
    assert.deepEqual(lines(r), ["Pulumi.prod.yaml: backup-portal:tennants: unknown key; did you mean backup-portal:tenants?"]);
    assert.equal(r.config, undefined, "no config to declare from");
  });

  it("a misspelt safety switch fails too instead of leaving protection at its default", () => {
    const r = read({ "backup-portal:tenants": ACME, "backup-portal:protectBusinessUnit": false });
    assert.deepEqual(lines(r), [
      "Pulumi.prod.yaml: backup-portal:protectBusinessUnit: unknown key; did you mean backup-portal:protectBusinessUnits?",
    ]);
  });

  it("a key far from every known one lists the known keys", () => {
    const [line] = lines(read({ "backup-portal:tenants": {}, "backup-portal:zzzzzzzzz": 1 }));
    assert.match(line, /^Pulumi\.prod\.yaml: backup-portal:zzzzzzzzz: unknown key; known keys: tenants, rootBusinessUnitId, /);
  });

  it("an absent tenants key is an error that says how to declare none on purpose", () => {
    const r = read({ "backup-portal:rootBusinessUnitId": 1 });
    assert.equal(r.problems.length, 1);
    assert.match(
      lines(r)[0],
      /^Pulumi\.prod\.yaml: backup-portal:tenants: is not set; .*`backup-portal:tenants: \{\}` to declare none on purpose/,
    );
  });

  it("`tenants: {}` declares none, with protection on, root 1 and the default deletion comment", () => {
    const r = read({ "backup-portal:tenants": {} });
    assert.deepEqual(r.problems, []);
    assert.deepEqual(r.config!.tenants, {});
    assert.equal(r.config!.protectBusinessUnits, true);
    assert.equal(r.config!.rootBusinessUnitId, 1);
    assert.equal(r.config!.deletionComment, "Removed by Pulumi");
  });

  it("values arrive as text: numbers and booleans parsed, wrong ones named with their key", () => {
    const ok = read({
      "backup-portal:tenants": ACME,
      "backup-portal:rootBusinessUnitId": "1000",
      "backup-portal:protectBusinessUnits": "false",
    });
    assert.deepEqual(ok.problems, []);
    assert.equal(ok.config!.rootBusinessUnitId, 1000);
    assert.equal(ok.config!.protectBusinessUnits, false);
    const bad = read({
      "backup-portal:tenants": {},
      "backup-portal:rootBusinessUnitId": "0",
      "backup-portal:protectBusinessUnits": "yes",
      "backup-portal:url": "portal.example.com",
      "backup-portal:maxAnswerBytes": "many",
    });
    assert.deepEqual(lines(bad), [
      'Pulumi.prod.yaml: backup-portal:maxAnswerBytes: must be an integer ≥ 1, got "many"',
      'Pulumi.prod.yaml: backup-portal:protectBusinessUnits: must be true or false, got "yes"',
      "Pulumi.prod.yaml: backup-portal:rootBusinessUnitId: must be an integer ≥ 1, got 0",
      'Pulumi.prod.yaml: backup-portal:url: must be an http:// or https:// URL, got "portal.example.com"; e.g. https://portal.example.com',
    ]);
  });

  it("keys of other namespaces are left alone, even ones that look like ours", () => {
    const r = read({
      "backup-portal:tenants": {},
      "kubernetes:context": "prod",
      "aws:region": "eu-north-1",
      "myapp:tennants": { x: 1 },
      "backup-portal-extra:tenants": 1,
    });
    assert.deepEqual(r.problems, []);
  });

  it("secrets a block names are known keys; one nothing names is not, and no message shows a secret's value", () => {
    const node = { operatingSystem: "Linux", type: "File server", domain: "STANDARD", cpuCount: 1, passwordSecret: "web01Password" };
    const tenants = { acme: { registrationNumber: "1", timeZone: "UTC", consumers: { web: { node } } } };
    const secrets = ["backup-portal:web01Password", "backup-portal:retiredNodeSecret", "backup-portal:web01Pasword"];
    const values = {
      "backup-portal:web01Password": "s3cret-node",
      "backup-portal:retiredNodeSecret": "s3cret-old",
      "backup-portal:web01Pasword": "s3cret-typo",
    };
    const r = read({ "backup-portal:tenants": tenants, ...values, "backup-portal:password": "s3cret-portal" }, secrets);
    assert.deepEqual(lines(r), [
      "Pulumi.prod.yaml: backup-portal:password: is stored in plain text in the stack's config file; set it again as a secret: " +
        "`pulumi config set --secret backup-portal:password` (it asks for the value, or reads it from stdin)",
      "Pulumi.prod.yaml: backup-portal:retiredNodeSecret: unknown key: a secret that no passwordSecret, passwordSecretKey or " +
        "billingReceiver.secretKey names; name it there, or remove it: `pulumi config rm backup-portal:retiredNodeSecret`",
      "Pulumi.prod.yaml: backup-portal:web01Pasword: unknown key; did you mean backup-portal:web01Password?",
    ]);
    assert.ok(!/s3cret/.test(configProblemsText("Pulumi.prod.yaml", r.problems)), "never a value");
  });

  it("the registry's users and the receiver's secret key are named secrets too; their blocks' typos are named", () => {
    const r = read(
      {
        "backup-portal:tenants": {},
        "backup-portal:kubeconfig": "apiVersion: v1",
        "backup-portal:registry": { users: [{ username: "admin" }, { username: "ci", passwordSecretKey: "zotCi" }], storgeSize: "1Gi" },
        "backup-portal:registryPassword-admin": "x",
        "backup-portal:zotCi": "x",
        "backup-portal:billingReceiver": { secretKey: "billingSecret", namespce: "billing" },
        "backup-portal:billingSecret": "x",
      },
      ["backup-portal:kubeconfig", "backup-portal:registryPassword-admin", "backup-portal:zotCi", "backup-portal:billingSecret"],
    );
    assert.deepEqual(lines(r), [
      "Pulumi.prod.yaml: backup-portal:billingReceiver: the receiver needs the portal connection in stack config: set backup-portal:url, origin, clientId, username and (--secret) password",
      'Pulumi.prod.yaml: backup-portal:billingReceiver.namespce: unknown key; did you mean "namespace"?',
      'Pulumi.prod.yaml: backup-portal:registry.storgeSize: unknown key; did you mean "storageSize"?',
    ]);
  });

  it("all problems at once, sorted by path, a tenant field's beside the namespace's", () => {
    const r = read({
      "backup-portal:tenants": { acme: { registrationNumber: "1", timeZone: "UTC", invoiceDya: 1 } },
      "backup-portal:rootBusinesUnitId": 5,
      "backup-portal:deletionComent": "x",
    });
    assert.deepEqual(lines(r), [
      "Pulumi.prod.yaml: backup-portal:deletionComent: unknown key; did you mean backup-portal:deletionComment?",
      "Pulumi.prod.yaml: backup-portal:rootBusinesUnitId: unknown key; did you mean backup-portal:rootBusinessUnitId?",
      'Pulumi.prod.yaml: backup-portal:tenants.acme.invoiceDya: unknown key; did you mean "invoiceDay"?',
    ]);
    assert.equal(
      configProblemsText("Pulumi.prod.yaml", r.problems).split("\n")[0],
      "the stack config has 3 problems; nothing was changed:",
    );
  });
});

describe("stack config reader: properties", () => {
  const KEYS = Object.keys(STACK_CONFIG_KEYS);
  const letter = fc.constantFrom(..."abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_");
  /** A known key with one edit: a letter inserted, deleted or replaced. */
  const oneEdit = fc
    .tuple(fc.constantFrom(...KEYS), fc.constantFrom("insert", "delete", "replace"), fc.nat(), letter)
    .map(([key, op, at, ch]) => {
      const i = at % (key.length + (op === "insert" ? 1 : 0));
      const typo =
        op === "insert" ? key.slice(0, i) + ch + key.slice(i) : key.slice(0, i) + (op === "replace" ? ch : "") + key.slice(i + 1);
      return { key, typo };
    })
    .filter(({ typo }) => typo !== "" && !KEYS.includes(typo));

  it("any known key with one edit fails as unknown and is answered with a known key at most one edit away", () => {
    fc.assert(
      fc.property(oneEdit, ({ typo }) => {
        const r = read({ "backup-portal:tenants": {}, [qualified(typo)]: "1" });
        const mine = r.problems.filter((p) => p.path === typo);
        assert.equal(mine.length, 1, JSON.stringify(r.problems));
        const m = /^unknown key; did you mean backup-portal:(.+)\?$/.exec(mine[0].message);
        assert.ok(m, mine[0].message);
        assert.ok(KEYS.includes(m[1]) && editDistance(typo.toLowerCase(), m[1].toLowerCase()) <= 1, `${typo} → ${m[1]}`);
      }),
      { numRuns: 300, seed: 23 },
    );
  });

  it("keys of other namespaces never produce a problem, whatever their name and value", () => {
    const ns = fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/).filter((n) => n !== "backup-portal");
    const key = fc.string({ minLength: 1, maxLength: 30 });
    const value = fc.oneof(fc.string(), fc.json());
    fc.assert(
      fc.property(fc.array(fc.tuple(ns, key, value), { maxLength: 6 }), (entries) => {
        const config: Record<string, unknown> = { "backup-portal:tenants": {} };
        for (const [n, k, v] of entries) config[`${n}:${k}`] = v;
        assert.deepEqual(read(config, Object.keys(config)).problems, []);
      }),
      { numRuns: 200, seed: 29 },
    );
  });

  it("suggest: a key written in another case, or one edit off, is answered with a candidate that close", () => {
    const word = fc.stringMatching(/^[a-zA-Z]{3,20}$/);
    fc.assert(
      fc.property(fc.array(word, { minLength: 1, maxLength: 8 }), fc.nat(), fc.nat(), letter, (candidates, pick, at, ch) => {
        const c = candidates[pick % candidates.length];
        const flipped = [...c].map((x) => (x === x.toLowerCase() ? x.toUpperCase() : x.toLowerCase())).join("");
        assert.equal(editDistance(suggest(flipped, candidates)!.toLowerCase(), c.toLowerCase()), 0, "case is no edit");
        const i = at % c.length;
        const typo = c.slice(0, i) + ch + c.slice(i + 1);
        const s = suggest(typo, candidates);
        assert.ok(s !== undefined && editDistance(typo.toLowerCase(), s.toLowerCase()) <= 1, `${typo} → ${s}`);
      }),
      { numRuns: 300, seed: 31 },
    );
  });
});
