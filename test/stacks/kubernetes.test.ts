// The stack's Kubernetes parts under setMocks: the registry and the billing
// receiver, deployed through one provider built from the stack's kubeconfig.
import assert from "node:assert/strict";
import * as pulumi from "@pulumi/pulumi";
import { installMocks, plainPart, Recorded, unwrap, valueOf } from "../support/mocks";
import { settings } from "./support";
import { deployStack } from "../../provider/program/deploy";
import { ConfigError } from "../../provider/tenants/model";

const RECEIVER_IMAGE = `registry.example.com/backup-portal-receiver@sha256:${"c".repeat(64)}`;
const SECRETS = { "registryPassword-admin": "Zot-Adm1n-Pass", billingSecret: "billing-shared-secret" };
const connection = () => ({
  url: "https://portal.example.com",
  origin: "https://iac.example.com",
  clientId: "cid",
  username: "iac",
  password: pulumi.secret("Portal-Pa55"),
});

async function settled(recorded: Recorded[], count: number): Promise<void> {
  for (let i = 0; i < 200 && recorded.length < count; i++) await new Promise((r) => setTimeout(r, 25));
}

describe("stack program: registry and billing receiver on the stack's cluster", function () {
  this.timeout(30_000);

  it("deploys both through one Kubernetes provider from the kubeconfig setting", async () => {
    const recorded = await installMocks();
    const out = await deployStack(
      settings({}, undefined, SECRETS, {
        registry: { enabled: true, users: [{ username: "admin" }] },
        billingReceiver: { enabled: true, businessUnitId: 1, namespace: "billing", secretKey: "billingSecret", image: RECEIVER_IMAGE },
        connection: connection(),
        kubeconfig: pulumi.secret("apiVersion: v1\nkind: Config\n"),
      }),
    );
    assert.ok(out.registry && out.billingReceiver);
    assert.match(await valueOf(out.registry.url), /^http:\/\/zot\.zot\.svc\.cluster\.local:5000$/);
    await valueOf(out.billingReceiver.notifyUrl);
    await settled(recorded, 10);

    const providers = recorded.filter((r) => r.type === "pulumi:providers:kubernetes");
    assert.deepEqual(
      providers.map((p) => p.name),
      ["cluster"],
    );
    assert.equal(unwrap(providers[0].inputs).kubeconfig, "apiVersion: v1\nkind: Config\n");
    const types = recorded.map((r) => r.type);
    for (const t of [
      "backup-portal:registry:Registry",
      "kubernetes:helm.sh/v3:Release",
      "kubernetes:core/v1:ConfigMap",
      "backup-portal:billing:BillingReceiver",
      "kubernetes:apps/v1:Deployment",
      "kubernetes:core/v1:Service",
    ]) {
      assert.ok(types.includes(t), `${t} in ${types.join(", ")}`);
    }
    // Secret values arrive wrapped ({sig, value}): with every wrapper blanked out, no secret may remain.
    const plainText = JSON.stringify(recorded.map((r) => plainPart({ i: r.inputs, s: r.state })));
    for (const secret of [...Object.values(SECRETS), "Portal-Pa55"])
      assert.ok(!plainText.includes(secret), `${secret} appears outside a secret`);
    assert.ok(JSON.stringify(recorded.map((r) => r.inputs)).includes("billing-shared-secret"), "the secret is there, wrapped");
  });

  it("refuses the registry or receiver without a kubeconfig, and a receiver secret that is not set", async () => {
    await installMocks();
    const err = await deployStack(
      settings(
        {},
        undefined,
        {},
        {
          registry: { enabled: true },
          billingReceiver: { enabled: true, secretKey: "missing" },
          connection: connection(),
        },
      ),
    ).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(err instanceof ConfigError);
    const paths = err.problems.map((p) => p.path);
    assert.ok(paths.includes("kubeconfig"), paths.join());
    assert.ok(paths.includes("billingReceiver.secretKey"), paths.join());
  });

  it("refuses a receiver block without an image by digest, or with the old packageSpec, saying how to build one", async () => {
    await installMocks();
    for (const [block, message] of [
      [{ enabled: true }, /image is required: build the receiver image from this repository/],
      [{ enabled: true, image: "node:20-alpine" }, /image must be pinned by digest/],
      [{ enabled: true, image: RECEIVER_IMAGE, packageSpec: "backup-portal-pulumi@0.1.0" }, /packageSpec is no longer supported/],
    ] as Array<[Record<string, unknown>, RegExp]>) {
      const err = await deployStack(settings({}, undefined, SECRETS, { billingReceiver: block, connection: connection() })).then(
        () => undefined,
        (e: unknown) => e,
      );
      assert.ok(err instanceof ConfigError, String(err));
      const found = err.problems.filter((p) => p.path === "billingReceiver" && message.test(p.message));
      assert.equal(found.length, 1, JSON.stringify(err.problems));
    }
  });

  it("declares nothing in the cluster when both are disabled", async () => {
    const recorded = await installMocks();
    const out = await deployStack(settings({}, undefined, {}, { registry: { enabled: false }, billingReceiver: { enabled: false } }));
    assert.equal(out.registry, undefined);
    assert.equal(out.billingReceiver, undefined);
    // Every registration the program started has reached the mocks once the SDK has no RPC outstanding.
    await (require("@pulumi/pulumi/runtime/settings") as { waitForRPCs(): Promise<void> }).waitForRPCs();
    assert.equal(recorded.filter((r) => r.type.startsWith("kubernetes:") || r.type.startsWith("pulumi:providers:")).length, 0);
  });
});
