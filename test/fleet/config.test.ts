import { strict as assert } from "assert";
import * as fs from "fs";
import * as path from "path";
import {
  fleetStackConfig,
  neededSecureKeys,
  normalizeKey,
  readStackConfigFile,
  referencedSecrets,
  shortStackName,
  stackConfigPath,
  stackNameOfFile,
  tenantsOf,
  writePlainConfig,
  yaml,
} from "../../stacks/fleet/config";
import { groupTenants } from "../../stacks/fleet/group";
import { TenantsConfig } from "../../provider/tenants/model";
import { ROOT, tenant, tmpDir } from "./helpers";
import { readByEveryReader } from "../export/read-by-cli";

const withNode = (key: string, secret: string): TenantsConfig[string] =>
  tenant(key, {
    consumers: {
      web: { node: { operatingSystem: "Linux", type: "File server", domain: "STANDARD", cpuCount: 1, passwordSecret: secret } },
    },
  });

describe("fleet: fleetStackConfig", () => {
  it("carries the base's settings and the group's tenants, and leaves the registry in the base stack", () => {
    const base = readStackConfigFile(path.join(ROOT, "stacks/Pulumi.prod.yaml"));
    const groups = groupTenants(base["backup-portal:tenants"] as TenantsConfig, { groupBy: "key-prefix", size: 2 });
    const [group] = Object.entries(groups).filter(([, ts]) => Object.keys(ts).length > 0);
    const cfg = fleetStackConfig(base, group[1]);
    assert.deepEqual(Object.keys(cfg), [
      "backup-portal:clientId",
      "backup-portal:deletionComment",
      "backup-portal:origin",
      "backup-portal:protectBusinessUnits",
      "backup-portal:rootBusinessUnitId",
      "backup-portal:tenants",
      "backup-portal:url",
      "backup-portal:username",
    ]);
    assert.deepEqual(cfg["backup-portal:url"], { value: "https://portal.example.com" });
    assert.deepEqual(cfg["backup-portal:rootBusinessUnitId"], { value: "1000" });
    assert.deepEqual(cfg["backup-portal:protectBusinessUnits"], { value: "true" });
    assert.deepEqual(JSON.parse(cfg["backup-portal:tenants"].value), group[1]);
    assert.deepEqual(tenantsOf(cfg), group[1]);
    assert.ok(Object.values(cfg).every((v) => typeof v.value === "string" && v.secret === undefined));
  });

  it("an empty group still gets its tenants key, so its stack deletes what it held", () => {
    const cfg = fleetStackConfig({ url: "https://p.example" }, {});
    assert.deepEqual(cfg["backup-portal:tenants"], { value: "{}" });
    assert.deepEqual(cfg["backup-portal:url"], { value: "https://p.example" });
  });

  it("never copies ciphertext; takes secrets as given, each group only its own node passwords", () => {
    const base = {
      "backup-portal:url": "https://p.example",
      "backup-portal:password": { secure: "v1:abc" },
      "backup-portal:kubeconfig": { secure: "v1:kube" },
      a1Password: { secure: "v1:a1" },
      b1Password: { secure: "v1:b1" },
      "backup-portal:registry": { enabled: true },
      billingReceiver: { enabled: true, namespace: "billing", secretKey: "billingSecret" },
      "backup-portal:tenants": {},
      "backup-portal:limits": { max: 3 },
    };
    const groupA = { a: withNode("a", "a1Password") };
    const secrets = { "backup-portal:password": "portal-pw", a1Password: "node-a", "backup-portal:b1Password": "node-b" };
    const cfg = fleetStackConfig(base, groupA, { secrets });
    assert.deepEqual(cfg["backup-portal:password"], { value: "portal-pw", secret: true });
    assert.deepEqual(cfg["backup-portal:a1Password"], { value: "node-a", secret: true });
    assert.equal(cfg["backup-portal:b1Password"], undefined);
    assert.equal(cfg["backup-portal:kubeconfig"], undefined);
    assert.equal(cfg["backup-portal:registry"], undefined);
    assert.equal(cfg["backup-portal:billingReceiver"], undefined, "the billing receiver stays in the base stack");
    assert.deepEqual(cfg["backup-portal:limits"], { value: '{"max":3}' });
    assert.ok(!JSON.stringify(cfg).includes("v1:"), "no ciphertext of the base stack");
    assert.deepEqual(Object.keys(fleetStackConfig(base, groupA)).sort(), [
      "backup-portal:limits",
      "backup-portal:tenants",
      "backup-portal:url",
    ]);
  });

  it("lists the secure keys the groups need and the secrets tenants name", () => {
    const base = { "backup-portal:password": { secure: "x" }, a1Password: { secure: "y" }, unused: { secure: "z" } };
    const groups = { g00: { a: withNode("a", "a1Password") }, g01: { b: withNode("b", "missingPassword") } };
    assert.deepEqual(neededSecureKeys(base, groups), ["backup-portal:a1Password", "backup-portal:password"]);
    assert.deepEqual(referencedSecrets(groups.g01), ["backup-portal:missingPassword"]);
    assert.equal(normalizeKey("x"), "backup-portal:x");
    assert.equal(normalizeKey("kubernetes:context"), "kubernetes:context");
  });

  it("knows where the CLI keeps a stack's config (stackConfigDir) and the stack of a file", () => {
    assert.equal(stackConfigPath(ROOT, "acme/prod-g03"), path.join(ROOT, "stacks", "Pulumi.prod-g03.yaml"));
    assert.equal(stackConfigPath(ROOT, "acme/backup-portal/prod-g03"), path.join(ROOT, "stacks", "Pulumi.prod-g03.yaml"));
    const dir = tmpDir();
    assert.equal(stackConfigPath(dir, "dev"), path.join(dir, "Pulumi.dev.yaml"));
    assert.equal(stackNameOfFile("stacks/Pulumi.prod.yaml"), "prod");
    assert.equal(stackNameOfFile("tenants.yaml"), undefined);
    assert.equal(shortStackName("org/prod-g01"), "prod-g01");
  });

  it("writes a tenant's text so that the Pulumi CLI's reader reads it back as the same string", () => {
    // Names and notes come from the portal: a tenant writes them. yaml.v3 reads 1_000 as 1000 and 2024-01-01 as a
    // timestamp, and ends a line at U+2028 and U+0085, where a note could start a key of its own.
    const text = [
      "1_000",
      "2024-01-01",
      "0123",
      "yes",
      "~",
      "0x1F",
      ".inf",
      "1e3",
      "x\u0085y",
      "Lab\u2028  zz:moved:\u2028    pad:\u2028      y",
    ];
    const tenants = { acme: { ...tenant("acme"), name: "2024-01-01", note: text[9], tags: text } };
    const file = path.join(tmpDir(), "Pulumi.prod-g00.yaml");
    writePlainConfig(file, { "backup-portal:tenants": JSON.stringify(tenants) });
    assert.deepEqual(readByEveryReader(fs.readFileSync(file, "utf8")).config["backup-portal:tenants"], tenants);
  });

  it("refuses a base stack file with a number the CLI reads otherwise, at its key", () => {
    const file = path.join(tmpDir(), "Pulumi.prod.yaml");
    fs.writeFileSync(file, "config:\n  backup-portal:tenants:\n    acme:\n      name: acme\n      adoptId: 0123\n");
    assert.throws(
      () => readStackConfigFile(file),
      (e: Error) => e.message.includes("tenants.acme.adoptId") && e.message.includes(file),
    );
  });

  it("writes oversized values into the stack file, keeping its salt and secure values", () => {
    const file = path.join(tmpDir(), "stacks", "Pulumi.prod-g00.yaml");
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(
      file,
      "encryptionsalt: v1:salt\nconfig:\n  backup-portal:password:\n    secure: v1:cipher\n  backup-portal:url: https://old\n",
    );
    const tenants = { acme: tenant("acme"), globex: tenant("globex") };
    writePlainConfig(file, { "backup-portal:tenants": JSON.stringify(tenants), "backup-portal:url": "https://new" });
    const doc = yaml.load(fs.readFileSync(file, "utf8")) as { encryptionsalt: string; config: Record<string, unknown> };
    assert.equal(doc.encryptionsalt, "v1:salt");
    assert.deepEqual(doc.config["backup-portal:password"], { secure: "v1:cipher" });
    assert.equal(doc.config["backup-portal:url"], "https://new");
    assert.deepEqual(doc.config["backup-portal:tenants"], tenants);
    const fresh = path.join(tmpDir(), "Pulumi.x.yaml");
    writePlainConfig(fresh, { "backup-portal:note": "[not json" });
    assert.equal(
      (yaml.load(fs.readFileSync(fresh, "utf8")) as { config: Record<string, unknown> }).config["backup-portal:note"],
      "[not json",
    );
  });

  it("writes into a stack file whose config: is empty (its keys commented out), and names the file when config: is no map", () => {
    const file = path.join(tmpDir(), "Pulumi.prod-g01.yaml");
    fs.writeFileSync(file, "encryptionsalt: v1:salt\nconfig:\n  # backup-portal:url: https://old\n");
    writePlainConfig(file, { "backup-portal:url": "https://new" });
    const doc = yaml.load(fs.readFileSync(file, "utf8")) as { encryptionsalt: string; config: Record<string, unknown> };
    assert.equal(doc.encryptionsalt, "v1:salt");
    assert.deepEqual(doc.config, { "backup-portal:url": "https://new" });
    const scalar = path.join(tmpDir(), "Pulumi.prod-g02.yaml");
    fs.writeFileSync(scalar, "config: 5\n");
    assert.throws(
      () => writePlainConfig(scalar, { "backup-portal:url": "https://new" }),
      (e: Error) => e.message === `${scalar}: config: must be a map of config keys; remove it or make it one`,
    );
  });
});
