import { strict as assert } from "assert";
import * as fs from "fs";
import * as path from "path";
import { ConfigMap, fleetStackConfig, yaml } from "../../stacks/fleet/config";
import { groupTenants } from "../../stacks/fleet/group";
import { manifestsYaml, Manifest, operatorResourceName, operatorStacks } from "../../stacks/fleet/operator";
import { ROOT, tenant } from "./helpers";

const node = (secret: string) => ({
  web: { node: { operatingSystem: "Linux", type: "File server", domain: "STANDARD", cpuCount: 1, passwordSecret: secret } },
});

function groups(): Record<string, ConfigMap> {
  const tenants = { acme: tenant("acme", { consumers: node("acmeWebPassword") }), globex: tenant("globex"), initech: tenant("initech") };
  const grouped = groupTenants(tenants, { groupBy: "explicit", groups: { A: ["acme", "globex"], b_2: ["initech"] } });
  const base = { url: "https://portal.example.com", username: "iac", rootBusinessUnitId: 1000, password: { secure: "v1:x" } };
  return Object.fromEntries(
    Object.entries(grouped).map(([g, ts]) => [
      g,
      fleetStackConfig(base, ts, { secrets: { password: "TOP-SECRET-PW", acmeWebPassword: "NODE-PW" } }),
    ]),
  );
}

const spec = (m: Manifest) => m.spec as Record<string, any>;

describe("fleet: operatorStacks", () => {
  it("gives one pulumi.com/v1 Stack per group, tracking the branch, never destroying on delete", () => {
    const ms = operatorStacks(groups(), { url: "https://github.com/acme/backup-portal", stackPrefix: "acme/prod" });
    assert.equal(ms.length, 2);
    const [a, b] = ms;
    assert.equal(a.apiVersion, "pulumi.com/v1");
    assert.equal(a.kind, "Stack");
    assert.deepEqual(a.metadata, {
      name: "backup-portal-prod-a",
      namespace: "pulumi",
      labels: { "app.kubernetes.io/part-of": "backup-portal", "backup-portal/fleet-group": "A" },
    });
    assert.equal((b.metadata as { name: string }).name, "backup-portal-prod-b-2");
    assert.equal(spec(a).stack, "acme/prod-A");
    assert.equal(spec(b).stack, "acme/prod-b_2");
    assert.equal(spec(a).projectRepo, "https://github.com/acme/backup-portal");
    assert.equal(spec(a).branch, "main");
    assert.equal(spec(a).commit, undefined);
    assert.equal(spec(a).refresh, true);
    assert.equal(spec(a).destroyOnFinalize, false);
    assert.deepEqual(Object.keys(JSON.parse(spec(a).config["backup-portal:tenants"])), ["acme", "globex"]);
    assert.equal(spec(a).config["backup-portal:rootBusinessUnitId"], "1000");
  });

  it("takes secrets from Kubernetes Secrets, never inline", () => {
    const ms = operatorStacks(groups(), { url: "https://github.com/acme/backup-portal", stackPrefix: "acme/prod" });
    const text = manifestsYaml(ms);
    assert.ok(!text.includes("TOP-SECRET-PW") && !text.includes("NODE-PW"), "no plaintext secret in a manifest");
    const [a, b] = ms.map(spec);
    assert.equal(a.config["backup-portal:password"], undefined);
    assert.deepEqual(a.envRefs, {
      PULUMI_ACCESS_TOKEN: { type: "Secret", secret: { name: "pulumi-api-secret", key: "accessToken" } },
      BACKUP_PORTAL_PASSWORD: { type: "Secret", secret: { name: "backup-portal", key: "password" } },
    });
    assert.deepEqual(a.secretsRef, {
      "backup-portal:acmeWebPassword": { type: "Secret", secret: { name: "backup-portal-node-passwords", key: "acmeWebPassword" } },
    });
    assert.equal(b.secretsRef, undefined, "a group gets only its own tenants' node passwords");
  });

  it("the same secretsRef when the configs were made without secret values", () => {
    const tenants = { acme: tenant("acme", { consumers: node("acmeWebPassword") }) };
    const ms = operatorStacks({ g00: fleetStackConfig({}, tenants) }, { url: "u", stackPrefix: "p", nodePasswordsSecret: "node-pw" });
    assert.deepEqual(spec(ms[0]).secretsRef, {
      "backup-portal:acmeWebPassword": { type: "Secret", secret: { name: "node-pw", key: "acmeWebPassword" } },
    });
  });

  it("builds dist/ in an init container on the shared workspace volume", () => {
    const [a] = operatorStacks(groups(), { url: "u", stackPrefix: "p" }).map(spec);
    const init = a.workspaceTemplate.spec.podTemplate.spec.initContainers;
    assert.equal(init.length, 1);
    assert.equal(init[0].name, "build");
    assert.equal(init[0].image, "node:22", "Node.js at the oldest supported major (package.json engines)");
    assert.equal(init[0].workingDir, "/share/workspace");
    assert.match(init[0].command.join(" "), /npm ci .*&& npm run build/);
    assert.deepEqual(init[0].volumeMounts, [{ name: "share", mountPath: "/share" }]);
    const [none] = operatorStacks(groups(), { url: "u", stackPrefix: "p", buildImage: false }).map(spec);
    assert.equal(none.workspaceTemplate, undefined);
  });

  it("supports a fixed commit, a self-managed backend and other names", () => {
    const [a] = operatorStacks(groups(), {
      url: "git@github.com:acme/bp.git",
      stackPrefix: "prod",
      commit: "0123abc",
      repoDir: "infra",
      namespace: "ops",
      accessToken: false,
      backend: "s3://state",
      passphrase: { name: "pulumi-passphrase", key: "passphrase" },
      portalPassword: { name: "portal", key: "pw" },
      serviceAccountName: "pulumi",
      resyncFrequencySeconds: 120,
    });
    const s = spec(a);
    assert.equal(s.commit, "0123abc");
    assert.equal(s.branch, undefined);
    assert.equal(s.repoDir, "infra");
    assert.equal(s.backend, "s3://state");
    assert.equal(s.serviceAccountName, "pulumi");
    assert.equal(s.resyncFrequencySeconds, 120);
    assert.equal((a.metadata as { namespace: string }).namespace, "ops");
    assert.deepEqual(Object.keys(s.envRefs), ["PULUMI_CONFIG_PASSPHRASE", "BACKUP_PORTAL_PASSWORD"]);
    assert.deepEqual(s.envRefs.BACKUP_PORTAL_PASSWORD, { type: "Secret", secret: { name: "portal", key: "pw" } });
  });

  it("matches the example in docs/gitops.md", () => {
    const md = fs.readFileSync(path.join(ROOT, "docs/gitops.md"), "utf8");
    const block = /```yaml\n(apiVersion: pulumi\.com\/v1[\s\S]*?)```/.exec(md);
    assert.ok(block, "docs/gitops.md has a Stack example");
    const doc = yaml.load(block[1]) as Manifest;
    const [made] = operatorStacks(groups(), { url: "https://github.com/acme/backup-portal", stackPrefix: "acme/prod" });
    assert.equal(doc.apiVersion, made.apiVersion);
    assert.equal(doc.kind, made.kind);
    assert.deepEqual(Object.keys(spec(doc)).sort(), Object.keys(spec(made)).sort());
    assert.deepEqual(spec(doc).envRefs, spec(made).envRefs);
    const init = (m: Manifest) => spec(m).workspaceTemplate.spec.podTemplate.spec.initContainers[0];
    for (const k of ["name", "image", "workingDir", "command", "volumeMounts"]) assert.deepEqual(init(doc)[k], init(made)[k], k);
  });

  it("renders a multi-document YAML that parses back, and refuses names that clash", () => {
    const ms = operatorStacks(groups(), { url: "u", stackPrefix: "acme/prod" });
    const docs: unknown[] = [];
    (require("js-yaml") as { loadAll(s: string, cb: (d: unknown) => void): void }).loadAll(manifestsYaml(ms), (d) => docs.push(d));
    assert.deepEqual(docs, JSON.parse(JSON.stringify(ms)));
    assert.ok(yaml);
    assert.equal(operatorResourceName("org/Prod", "G_1"), "backup-portal-prod-g-1");
    assert.throws(
      () => operatorStacks({ a: {}, A: {} }, { url: "u", stackPrefix: "p" }),
      /groups "A" and "a" give the same resource name "backup-portal-p-a"/,
    );
    assert.throws(() => operatorStacks({}, { url: "", stackPrefix: "p" }), /repo.url/);
  });
});
