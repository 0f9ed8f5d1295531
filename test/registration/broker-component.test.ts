// The RegistrationBroker component under Pulumi mocks: what it deploys, and that the reseller's account and the
// token secret travel only as secrets.
import assert from "node:assert/strict";
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import {
  LEDGER_FILE,
  REGISTRATION_BROKER_TYPE,
  RegistrationBroker,
  RegistrationBrokerArgs,
  RegistrationBrokerConfigError,
} from "../../provider/broker/component";
import { installMocks, plainPart, Recorded, settle, unwrap, valueOf } from "../support/mocks";

const PASSWORD = "Reseller-Pa55word!broker";
const SECRET = "token-secret-of-at-least-32-bytes-long";
const IMAGE = `registry.example.com/backup-portal@sha256:${"ab".repeat(32)}`;

let recorded: Recorded[] = [];
let seq = 0;

async function deploy(args: Partial<RegistrationBrokerArgs> = {}): Promise<{ broker: RegistrationBroker; resources: Recorded[] }> {
  const name = `rb${++seq}`;
  const broker = new RegistrationBroker(name, {
    portal: {
      url: "https://portal.example.com",
      origin: "https://ops.example.com",
      clientId: "client-1",
      username: "reseller",
      password: pulumi.secret(PASSWORD),
    },
    secret: pulumi.secret(SECRET),
    image: IMAGE,
    namespace: "billing",
    ...args,
  });
  await valueOf(broker.url);
  return { broker, resources: await settle(recorded, name, 4) };
}

describe("registration: the RegistrationBroker component under mocks", function () {
  this.timeout(60000);
  before(async () => {
    recorded = await installMocks();
  });

  it("deploys a Secret, one replica from the image by digest, and a Service; credentials only as secrets", async () => {
    const { broker, resources } = await deploy();
    assert.deepEqual(
      resources.map((r) => r.type).sort(),
      [REGISTRATION_BROKER_TYPE, "kubernetes:apps/v1:Deployment", "kubernetes:core/v1:Secret", "kubernetes:core/v1:Service"].sort(),
    );
    for (const r of resources) {
      const plain = JSON.stringify(plainPart(r.inputs));
      assert.ok(!plain.includes(PASSWORD) && !plain.includes(SECRET), `plain secret in ${r.type}`);
    }
    const secret = resources.find((r) => r.type === "kubernetes:core/v1:Secret")!;
    assert.equal(plainPart(secret.inputs).stringData, "[secret]");
    assert.deepEqual(unwrap(secret.inputs).stringData, {
      clientId: "client-1",
      username: "reseller",
      password: PASSWORD,
      brokerSecret: SECRET,
    });
    const spec = unwrap(resources.find((r) => r.type === "kubernetes:apps/v1:Deployment")!.inputs).spec;
    assert.equal(spec.replicas, 1);
    assert.equal(spec.strategy.type, "Recreate");
    const c = spec.template.spec.containers[0];
    assert.equal(c.image, IMAGE);
    assert.deepEqual(
      [...c.command, ...c.args],
      ["backup-portal", "registration-broker", "--port", "8443", "--host", "0.0.0.0", "--ledger-file", LEDGER_FILE],
    );
    // The ledger of spent tokens outlives a crashed container (issue 37): on a volume, writable by the broker's user.
    assert.deepEqual(
      c.volumeMounts.find((m: any) => m.name === "ledger"),
      { name: "ledger", mountPath: path.posix.dirname(LEDGER_FILE) },
    );
    assert.deepEqual(
      spec.template.spec.volumes.find((v: any) => v.name === "ledger"),
      { name: "ledger", emptyDir: {} },
    );
    assert.equal(spec.template.spec.securityContext.fsGroup, 1000);
    const env = new Map<string, any>(c.env.map((e: any) => [e.name, e]));
    for (const [n, key] of [
      ["BACKUP_PORTAL_PASSWORD", "password"],
      ["REGISTRATION_BROKER_SECRET", "brokerSecret"],
    ])
      assert.equal(env.get(n).valueFrom.secretKeyRef.key, key, n);
    assert.ok(![...env.values()].some((e) => /npm|PACKAGE/.test(e.name)), "nothing is installed at start");
    assert.equal(c.readinessProbe.httpGet.path, "/healthz");
    assert.match(await valueOf(broker.url), /^http:\/\/rb\d+-svc-a1b2c3d4\.billing\.svc\.cluster\.local$/);
  });

  it("keeps the ledger on the PersistentVolumeClaim it is given, so that a replaced pod still knows the spent tokens", async () => {
    const { resources } = await deploy({ ledgerClaimName: "broker-ledger" });
    const spec = unwrap(resources.find((r) => r.type === "kubernetes:apps/v1:Deployment")!.inputs).spec;
    assert.deepEqual(
      spec.template.spec.volumes.find((v: any) => v.name === "ledger"),
      { name: "ledger", persistentVolumeClaim: { claimName: "broker-ledger" } },
    );
  });

  it("a password and a secret given as plain strings still travel only as secrets", async () => {
    const { resources } = await deploy({
      portal: { url: "https://p", origin: "https://o", clientId: "c", username: "u", password: PASSWORD },
      secret: SECRET,
    });
    for (const r of resources) {
      const plain = JSON.stringify(plainPart(r.inputs));
      assert.ok(!plain.includes(PASSWORD) && !plain.includes(SECRET), `plain secret in ${r.type}`);
    }
  });

  it("refuses an image by tag, a short secret and a missing password, all at once", () => {
    assert.throws(
      () =>
        new RegistrationBroker("bad", {
          portal: { url: "https://p", origin: "https://o", clientId: "c", username: "u", password: "" },
          secret: "short",
          image: "node:22-alpine",
        }),
      (err: Error) =>
        err instanceof RegistrationBrokerConfigError &&
        err.problems.length === 3 &&
        /portal\.password is required/.test(err.message) &&
        /secret must have at least 32 bytes/.test(err.message) &&
        /image must name its digest/.test(err.message) &&
        !err.message.includes("short"),
    );
  });
});
