import assert from "node:assert/strict";
import * as pulumi from "@pulumi/pulumi";
import { BILLING_RECEIVER_TYPE, BillingReceiver, BillingReceiverArgs, BillingReceiverConfigError } from "../../provider/billing";
import { RECEIVER_COMMAND } from "../../provider/billing/component";
import { installMocks, plainPart, Recorded, secretOf, settle, unwrap, valueOf } from "../support/mocks";

const PASSWORD = "Portal-Pa55word!z";
const SECRET = "Receiver-Secret-9";
const IMAGE = `registry.example.com/backup-portal-receiver@sha256:${"0123456789abcdef".repeat(4)}`;

let recorded: Recorded[] = [];
let seq = 0;

interface Run {
  receiver: BillingReceiver;
  resources: Recorded[];
  one(type: string): Recorded;
  byType(type: string): Recorded[];
}

async function deploy(args: Partial<BillingReceiverArgs> = {}, expected = 5): Promise<Run> {
  const name = `br${++seq}`;
  const receiver = new BillingReceiver(name, {
    businessUnitId: 1,
    portal: {
      url: "https://portal.example.com",
      origin: "https://ops.example.com",
      clientId: "client-1",
      username: "billing-bot",
      password: pulumi.secret(PASSWORD),
    },
    secret: pulumi.secret(SECRET),
    namespace: "billing",
    image: IMAGE,
    ...args,
  });
  await valueOf(receiver.notifyUrl);
  const resources = await settle(recorded, name, expected);
  const byType = (t: string) => resources.filter((r) => r.type === t);
  return {
    receiver,
    resources,
    byType,
    one: (t) => {
      const x = byType(t);
      assert.equal(x.length, 1, t);
      return x[0];
    },
  };
}

const container = (r: Run) => unwrap(r.one("kubernetes:apps/v1:Deployment").inputs).spec.template.spec.containers[0];
const envOf = (r: Run) => new Map<string, any>(container(r).env.map((e: any) => [e.name, e]));

describe("billing: BillingReceiver component under mocks", function () {
  this.timeout(60000);
  before(async () => {
    recorded = await installMocks();
  });

  it("creates the component, a Secret, a PVC, a Deployment and a Service", async () => {
    const r = await deploy();
    assert.deepEqual(
      r.resources.map((x) => x.type).sort(),
      [
        BILLING_RECEIVER_TYPE,
        "kubernetes:apps/v1:Deployment",
        "kubernetes:core/v1:PersistentVolumeClaim",
        "kubernetes:core/v1:Secret",
        "kubernetes:core/v1:Service",
      ].sort(),
    );
    assert.equal(BILLING_RECEIVER_TYPE, "backup-portal:billing:BillingReceiver");
    for (const x of r.resources.filter((y) => y.type.startsWith("kubernetes:")))
      assert.equal(x.inputs.metadata.namespace, "billing", x.type);
  });

  it("keeps the password and the receiver secret out of every plain input", async () => {
    const r = await deploy();
    for (const x of r.resources) {
      const plain = JSON.stringify(plainPart(x.inputs));
      assert.ok(!plain.includes(PASSWORD), `plain password in ${x.type}`);
      assert.ok(!plain.includes(SECRET), `plain receiver secret in ${x.type}`);
    }
    const secret = r.one("kubernetes:core/v1:Secret");
    assert.equal(plainPart(secret.inputs).stringData, "[secret]", "stringData is a secret as a whole");
    assert.deepEqual(unwrap(secret.inputs).stringData, {
      clientId: "client-1",
      username: "billing-bot",
      password: PASSWORD,
      receiverSecret: SECRET,
    });
    assert.equal(secret.inputs.type, "Opaque");
  });

  it("a password given as a plain string still only travels as a secret", async () => {
    const r = await deploy({
      portal: { url: "https://p", origin: "https://o", clientId: "c", username: "u", password: PASSWORD },
      secret: SECRET,
    });
    for (const x of r.resources) {
      const plain = JSON.stringify(plainPart(x.inputs));
      assert.ok(!plain.includes(PASSWORD) && !plain.includes(SECRET), x.type);
    }
    assert.equal(await secretOf(r.receiver.postUrl), true);
  });

  it("reads credentials and the secret from the Secret with secretKeyRef; url and origin are plain", async () => {
    const r = await deploy();
    const secretName = unwrap(r.one("kubernetes:core/v1:Secret").inputs).metadata.name ?? (await valueOf(r.receiver.secretName));
    const env = envOf(r);
    for (const [name, key] of [
      ["BACKUP_PORTAL_CLIENT_ID", "clientId"],
      ["BACKUP_PORTAL_USERNAME", "username"],
      ["BACKUP_PORTAL_PASSWORD", "password"],
      ["BILLING_RECEIVER_SECRET", "receiverSecret"],
    ]) {
      const e = env.get(name);
      assert.equal(e.value, undefined, name);
      assert.deepEqual(e.valueFrom, { secretKeyRef: { name: secretName, key } }, name);
    }
    assert.equal(env.get("BACKUP_PORTAL_URL").value, "https://portal.example.com");
    assert.equal(env.get("BACKUP_PORTAL_ORIGIN").value, "https://ops.example.com");
    assert.deepEqual(
      [...env.keys()].filter((k) => /PACKAGE|npm_/i.test(k)),
      [],
      "nothing to install",
    );
  });

  it("runs the receiver from the image given by digest, one replica, on the data volume", async () => {
    const r = await deploy();
    const dep = unwrap(r.one("kubernetes:apps/v1:Deployment").inputs);
    assert.equal(dep.spec.replicas, 1);
    assert.equal(dep.spec.strategy.type, "Recreate");
    const c = container(r);
    assert.equal(c.image, IMAGE);
    assert.deepEqual(c.command, RECEIVER_COMMAND);
    assert.deepEqual(RECEIVER_COMMAND, ["node", "/app/dist/provider/billing/main.js"]);
    assert.equal(dep.spec.template.spec.initContainers, undefined, "nothing runs before the receiver");
    assert.deepEqual(c.args, ["--port", "8080", "--host", "0.0.0.0", "--out", "/data", "--bunit", "1"]);
    assert.ok(!c.args.includes("--secret"), "the secret never goes on the command line");
    assert.deepEqual(c.ports, [{ name: "http", containerPort: 8080 }]);
    assert.equal(c.readinessProbe.httpGet.path, "/healthz");
    assert.equal(c.securityContext.readOnlyRootFilesystem, true);
    assert.equal(dep.spec.template.spec.securityContext.runAsNonRoot, true);
    const mounts = new Map<string, string>(c.volumeMounts.map((m: any) => [m.name, m.mountPath]));
    assert.equal(mounts.get("data"), "/data");
    const pvc = unwrap(r.one("kubernetes:core/v1:PersistentVolumeClaim").inputs);
    assert.deepEqual(pvc.spec.accessModes, ["ReadWriteOnce"]);
    assert.equal(pvc.spec.resources.requests.storage, "1Gi");
    const data = dep.spec.template.spec.volumes.find((v: any) => v.name === "data");
    assert.equal(data.persistentVolumeClaim.claimName, await valueOf(r.receiver.claimName));
    assert.deepEqual(
      dep.spec.selector.matchLabels,
      Object.fromEntries(Object.entries(dep.spec.template.metadata.labels).filter(([k]) => k in dep.spec.selector.matchLabels)),
    );
  });

  it("exposes a Service on port 80 to the pod, and the Post URLs", async () => {
    const r = await deploy();
    const svc = unwrap(r.one("kubernetes:core/v1:Service").inputs);
    const dep = unwrap(r.one("kubernetes:apps/v1:Deployment").inputs);
    assert.equal(svc.spec.type, "ClusterIP");
    assert.deepEqual(svc.spec.ports, [{ name: "http", port: 80, targetPort: "http", protocol: "TCP" }]);
    assert.deepEqual(svc.spec.selector, dep.spec.selector.matchLabels);
    const serviceName = await valueOf(r.receiver.serviceName);
    assert.equal(await valueOf(r.receiver.notifyUrl), `http://${serviceName}.billing.svc.cluster.local/notify?bunit=1`);
    assert.equal(await valueOf(r.receiver.postUrl), `http://${serviceName}.billing.svc.cluster.local/notify?bunit=1&secret=${SECRET}`);
    assert.equal(await secretOf(r.receiver.postUrl), true);
    assert.equal(await secretOf(r.receiver.notifyUrl), false);
  });

  it("an emptyDir instead of a claim; no secret inside the cluster; a prebuilt image with its own command", async () => {
    const r = await deploy(
      {
        storage: { kind: "emptyDir", sizeLimit: "500Mi" },
        secret: undefined,
        image: `registry.example.com/receiver:1@sha256:${"f".repeat(64)}`,
        command: ["node", "/srv/main.js"],
        port: 9000,
        serviceType: "ClusterIP",
      },
      4,
    );
    assert.equal(r.byType("kubernetes:core/v1:PersistentVolumeClaim").length, 0);
    const dep = unwrap(r.one("kubernetes:apps/v1:Deployment").inputs);
    assert.deepEqual(
      dep.spec.template.spec.volumes.find((v: any) => v.name === "data"),
      { name: "data", emptyDir: { sizeLimit: "500Mi" } },
    );
    const c = container(r);
    assert.equal(c.image, `registry.example.com/receiver:1@sha256:${"f".repeat(64)}`);
    assert.deepEqual(c.command, ["node", "/srv/main.js"]);
    assert.deepEqual(c.args, ["--port", "9000", "--host", "0.0.0.0", "--out", "/data", "--bunit", "1"]);
    assert.equal(envOf(r).has("BILLING_RECEIVER_SECRET"), false);
    assert.equal(unwrap(r.one("kubernetes:core/v1:Secret").inputs).stringData.receiverSecret, undefined);
    assert.equal(unwrap(r.one("kubernetes:core/v1:Service").inputs).spec.type, "ClusterIP");
    assert.equal(await valueOf(r.receiver.claimName), undefined);
    assert.doesNotMatch(await valueOf(r.receiver.postUrl), /secret=/);
  });

  it("refuses bad arguments with every problem listed, before creating anything", () => {
    const before = recorded.length;
    assert.throws(
      () =>
        new BillingReceiver("bad", {
          businessUnitId: 0,
          portal: { url: "", origin: "o", clientId: "c", username: "u", password: "p" },
          secret: "short",
          port: 70000,
          storage: { kind: "persistentVolumeClaim", size: "lots" },
        } as unknown as BillingReceiverArgs),
      (err: unknown) => {
        assert.ok(err instanceof BillingReceiverConfigError);
        assert.equal(err.problems.length, 6, err.message);
        assert.ok(
          err.problems.some((p) => /^image is required: build the receiver image/.test(p)),
          err.message,
        );
        return true;
      },
    );
    assert.throws(
      () =>
        new BillingReceiver("open", {
          businessUnitId: 1,
          portal: { url: "http://p", origin: "o", clientId: "c", username: "u", password: "p" },
          image: IMAGE,
          serviceType: "LoadBalancer",
        }),
      /serviceType LoadBalancer exposes the receiver outside the cluster: set secret/,
    );
    assert.equal(recorded.length, before);
  });

  // Issue 28 item 2: every pod start ran `npm install backup-portal-pulumi@0.1.0`, a name nobody owns on npm, with
  // the portal password in its environment. Now the receiver runs only from an image given by digest.
  it("refuses a receiver without an image pinned by digest, or with a package to install, naming the fix", () => {
    const before = recorded.length;
    const base = {
      businessUnitId: 1,
      portal: { url: "http://p", origin: "o", clientId: "c", username: "u", password: "p" },
      secret: SECRET,
    };
    const cases: Array<[string, Record<string, unknown>, RegExp]> = [
      ["no image", {}, /^image is required: build the receiver image from this repository \(docker build -f provider\/billing\/Dockerfile/],
      ["the old default base image", { image: "node:20-alpine" }, /^image must be pinned by digest .*got "node:20-alpine"/],
      ["a tag", { image: "registry.example.com/backup-portal-receiver:0.1.0" }, /^image must be pinned by digest/],
      ["a short digest", { image: `r/x@sha256:${"a".repeat(63)}` }, /^image must be pinned by digest/],
      ["an upper-case digest", { image: `r/x@sha256:${"A".repeat(64)}` }, /^image must be pinned by digest/],
      ["a package to install", { image: IMAGE, packageSpec: "backup-portal-pulumi@0.1.0" }, /^packageSpec is no longer supported/],
    ];
    for (const [what, extra, message] of cases) {
      assert.throws(
        () => new BillingReceiver(`img-${what.replace(/\W+/g, "-")}`, { ...base, ...extra } as unknown as BillingReceiverArgs),
        (err: unknown) => {
          assert.ok(err instanceof BillingReceiverConfigError, what);
          assert.equal(err.problems.length, 1, err.message);
          assert.match(err.problems[0], message, what);
          assert.ok(!err.problems[0].includes("\n"), "one line");
          return true;
        },
        what,
      );
    }
    assert.equal(recorded.length, before, "nothing created");
  });

  it("an image given as an Output runs as given, and nothing installs at start", async () => {
    const r = await deploy({ image: pulumi.output(IMAGE) });
    assert.equal(container(r).image, IMAGE);
    assert.ok(!JSON.stringify(unwrap(r.one("kubernetes:apps/v1:Deployment").inputs)).includes("npm"), "no npm in the pod spec");
  });

  // Issue 28 item 4: a secret from stack config is an Output, so the length rule never saw it: "" passed and the
  // receiver then accepted unauthenticated notifications. The rule now runs on the value inside the Output.
  for (const [what, secret] of [
    ["empty", ""],
    ["3 characters", "abc"],
    ["7 characters", "1234567"],
  ] as const) {
    it(`a secret Output that is ${what} fails the preview, without showing the value`, async () => {
      const r = new BillingReceiver(`sec-${++seq}`, {
        businessUnitId: 1,
        portal: { url: "http://p", origin: "o", clientId: "c", username: "u", password: pulumi.secret(PASSWORD) },
        image: IMAGE,
        secret: pulumi.secret(secret),
      });
      await assert.rejects((r.postUrl as unknown as { promise(): Promise<string> }).promise(), (err: unknown) => {
        assert.ok(err instanceof BillingReceiverConfigError, String(err));
        assert.match(err.message, new RegExp(`secret must have at least 8 characters \\(it has ${secret.length}\\)`));
        if (secret) assert.ok(!err.message.includes(secret), "the value is not shown");
        return true;
      });
    });
  }

  it("a secret Output of 8 characters passes", async () => {
    const r = await deploy({ secret: pulumi.secret("12345678") });
    assert.match(await valueOf(r.receiver.postUrl), /&secret=12345678$/);
  });
});
